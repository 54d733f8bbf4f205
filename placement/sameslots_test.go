package placement

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/profile"
)

// TestSameSlots: 4 ranks started cyclic on hosts a and b of a 3-host
// survey (rank 0 a:0, 1 b:0, 2 a:1, 3 b:1), 0-1 and 2-3 exchanging 100 MB
// each way: the proposal over the job's own slots leaves host c out and
// puts each heavy pair on one host, so the renumbering gives the two
// processes on a a heavy pair; the model predicts it well over 1.5x
// faster. The current placement is kept when it is already as good (the
// renumbering of block is the identity). --renumber without --same-slots
// is refused.
func TestSameSlots(t *testing.T) {
	sv := fakeSurveyHosts(t, []string{"a", "b", "c"}, 2)
	mx := writeMatrix(t, []profile.Flow{{Src: 0, Dst: 1, Bytes: 100e6, Messages: 100}, {Src: 1, Dst: 0, Bytes: 100e6, Messages: 100},
		{Src: 2, Dst: 3, Bytes: 100e6, Messages: 100}, {Src: 3, Dst: 2, Bytes: 100e6, Messages: 100}})
	dir := t.TempDir()
	renumber := func(current string) *placefile.Renumbering {
		t.Helper()
		cur, out := filepath.Join(dir, "current"), filepath.Join(dir, "renumbering")
		if err := os.WriteFile(cur, []byte("# Open MPI rankfile\n"+current), 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := runReport(Options{Survey: sv, Matrix: mx, Current: cur, SameSlots: true, Renumber: out}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range a.Placement {
			if p.Host == "c" {
				t.Fatalf("rank %d proposed on host c, which the job does not hold", p.Rank)
			}
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r, err := placefile.ReadRenumbering(f)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := renumber("rank 0=a slot=0\nrank 1=b slot=0\nrank 2=a slot=1\nrank 3=b slot=1\n")
	onA := [2]int{r.New[0], r.New[2]} // the processes on host a
	if onA[0]/2 != onA[1]/2 || r.PredictedSpeedup < 1.5 {
		t.Errorf("renumbering %v (host a gets ranks %v), predicted %.2fx: want a heavy pair on a, over 1.5x", r.New, onA, r.PredictedSpeedup)
	}
	if r = renumber("rank 0=a slot=0\nrank 1=a slot=1\nrank 2=b slot=0\nrank 3=b slot=1\n"); r.New[0] != 0 || r.New[1] != 1 || r.New[2] != 2 || r.New[3] != 3 || r.PredictedSpeedup != 1 {
		t.Errorf("from block: renumbering %v, predicted %.2fx; want the identity, 1x", r.New, r.PredictedSpeedup)
	}
	_, err := Run(Options{Survey: sv, Matrix: mx, Renumber: filepath.Join(dir, "x")})
	if err == nil || !strings.Contains(err.Error(), "--renumber needs --same-slots") {
		t.Errorf("--renumber alone: %v", err)
	}
	_, err = Run(Options{Survey: sv, Matrix: mx, SameSlots: true})
	if err == nil || !strings.Contains(err.Error(), "--same-slots needs the current placement") {
		t.Errorf("--same-slots without a current placement: %v", err)
	}
}
