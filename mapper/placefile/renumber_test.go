package placefile

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestRenumbering: a proposal over the current placement's own slots
// becomes the renumbering of the processes where they are (current rank
// 0 sits on b:0, where the proposal puts rank 2, so it becomes 2), with
// the predicted speedup current / proposal; it reads back as written. A
// proposal on another slot, a rank without a current slot, a file that
// is not a permutation or not a renumbering are refused.
func TestRenumbering(t *testing.T) {
	cpu := func(c int) *int { return &c }
	a := &Advice{
		Proposal: Proposal{Placement: []RankPlace{
			{Rank: 0, Host: "a", CPU: 0, CurrentHost: "b", CurrentCPU: cpu(0)},
			{Rank: 1, Host: "a", CPU: 1, CurrentHost: "a", CurrentCPU: cpu(0)},
			{Rank: 2, Host: "b", CPU: 0, CurrentHost: "a", CurrentCPU: cpu(1)},
			{Rank: 3, Host: "b", CPU: 1, CurrentHost: "b", CurrentCPU: cpu(1)},
		}},
		Predicted: Predicted{Predictions: []Prediction{{Name: "current", Run: 3}, {Name: "block", Run: 2}, {Name: "proposal", Run: 1.5}}},
	}
	r, err := RenumberingOf(a)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{2, 0, 1, 3}; !slices.Equal(r.New, want) || r.PredictedSpeedup != 2 {
		t.Fatalf("renumbering %v, speedup %g; want %v, 2", r.New, r.PredictedSpeedup, want)
	}
	var b bytes.Buffer
	if err := WriteRenumbering(&b, r); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRenumbering(strings.NewReader(b.String()))
	if err != nil || !slices.Equal(back.New, r.New) || back.PredictedSpeedup != 2 {
		t.Fatalf("read back %+v, %v from\n%s", back, err, b.String())
	}
	a.Placement[3].Host = "c"
	if _, err := RenumberingOf(a); err == nil || !strings.Contains(err.Error(), "--same-slots") {
		t.Errorf("a proposal on another slot: %v", err)
	}
	a.Placement[1].CurrentCPU = nil
	if _, err := RenumberingOf(a); err == nil || !strings.Contains(err.Error(), "no current slot") {
		t.Errorf("no current slot: %v", err)
	}
	for in, want := range map[string]string{
		renumberTitle + "\n1\n1\n":   "rank 1 becomes 1: not a renumbering of 2 ranks",
		renumberTitle + "\n0\n2\n":   "rank 1 becomes 2",
		renumberTitle + "\n0\nx\n":   `line 3: "x" is not a rank`,
		renumberTitle + "\n":         "no ranks",
		"rank 0=a slot=0\n":          "not a latmap renumbering",
		renumberTitle + "\n1\n0\n-1": "rank 2 becomes -1",
	} {
		if _, err := ReadRenumbering(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}
