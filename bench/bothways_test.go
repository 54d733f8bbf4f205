package bench

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
)

// TestBothWaysPlan: the first rank of the first host and of the second (ranks 0
// and 2 here: the hosts numbered as the survey numbers them, by first
// appearance), one way then both ways, BothWaysRepeats times; nobody else
// sends. One host: no steps.
func TestBothWaysPlan(t *testing.T) {
	hosts := []string{"b", "b", "a", "a", "c"}
	steps := BothWaysPlan(hosts)
	if len(steps) != 2*BothWaysRepeats {
		t.Fatalf("%d steps, want %d", len(steps), 2*BothWaysRepeats)
	}
	for i, st := range steps {
		want := [5][2][]int{{{2}, {2}}, {nil, nil}, {{0}, {0}}, {nil, nil}, {nil, nil}}
		if !st.Both {
			want[2][0], want[0][1] = nil, nil
		}
		if st.Both != (i%2 == 1) {
			t.Errorf("step %d: both %v", i, st.Both)
		}
		for r := range hosts {
			if !slices.Equal(st.Dst[r], want[r][0]) || !slices.Equal(st.Src[r], want[r][1]) {
				t.Errorf("step %d (both %v), rank %d: sends to %v, receives from %v; want %v, %v", i, st.Both, r, st.Dst[r], st.Src[r], want[r][0], want[r][1])
			}
		}
	}
	if s := BothWaysPlan([]string{"a", "a"}); s != nil {
		t.Errorf("one host: %d steps, want none", len(s))
	}
}

// TestBothWaysRow: the best one-way time and the best both-ways time (each of
// the slower of the two ranks, the receiver's too) make the row; times
// before from are another phase's.
func TestBothWaysRow(t *testing.T) {
	hosts := []string{"n0", "n1", "n1"}
	steps := BothWaysPlan(hosts)
	// Two earlier steps, then: one way 0.2 s (received in 0.25 s), both
	// 0.3/0.25 s, one way 0.1 s (received in 0.12 s), both 0.2/0.22 s.
	times := [][]float64{{9, 9, 0.2, 0.3, 0.1, 0.2}, {9, 9, 0.25, 0.25, 0.12, 0.22}, {9, 9, 0, 0, 0, 0}}
	row, err := BothWaysRow(hosts, steps, times, 2, 1<<20, 10)
	if err != nil {
		t.Fatal(err)
	}
	mb := 10 * float64(1<<20) / 1e6
	if row.Host != "n0" || row.Peer != survey.BothWaysPeer+"n1" || row.Ranks != 1 || row.Seconds != 0.22 ||
		math.Abs(row.PairMBps-mb/0.12) > 1e-9 || math.Abs(row.AggregateMBps-mb/0.22) > 1e-9 {
		t.Errorf("row %+v; want n0 to %sn1, %.4g MB/s one way, %.4g both, 0.22 s", *row, survey.BothWaysPeer, mb/0.12, mb/0.22)
	}
	if r, err := BothWaysRow(hosts, nil, times, 2, 1<<20, 10); r != nil || err != nil {
		t.Errorf("no steps: %v, %v; want no row", r, err)
	}
	times[1][4] = 0 // a receiver with no time
	if _, err := BothWaysRow(hosts, steps, times, 2, 1<<20, 10); err == nil || !strings.Contains(err.Error(), "rank 1") {
		t.Errorf("a sender without a time: %v", err)
	}
	if _, err := BothWaysRow(hosts, steps, times[:2], 2, 1<<20, 10); err == nil {
		t.Error("times of 2 ranks for 3: no error")
	}
}
