package bench

import (
	"fmt"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
)

// TestSwitchPhase: 8 hosts of 2 ranks in leaves of 2 hosts and pods of 4:
// in every step each rank sends to the rank with its local index on the
// host with its position in the group Shift groups on, every group sends
// to one group and receives from one, sources invert destinations; and
// SwitchRows sums what each group sent over its slowest rank.
func TestSwitchPhase(t *testing.T) {
	var hosts []string
	for h := 0; h < 8; h++ {
		hosts = append(hosts, fmt.Sprintf("n%d", h), fmt.Sprintf("n%d", h))
	}
	of := [][]int{{0, 0, 1, 1, 2, 2, 3, 3}, {0, 0, 0, 0, 1, 1, 1, 1}}
	steps := SwitchPhase(hosts, of)
	// level 1: 4 groups, shifts 1, 2, 3; level 2: 2 groups, shift 1.
	if len(steps) != 4 || steps[3].Level != 2 || steps[3].Shift != 1 {
		t.Fatalf("%d steps (%+v), want 3 at level 1 and 1 at level 2", len(steps), steps)
	}
	for _, st := range steps {
		g := of[st.Level-1]
		size := 8 / (g[7] + 1) // hosts a group
		for r := range hosts {
			h, d := r/2, st.Dst[r]
			wantHost := ((g[h]+st.Shift)%(g[7]+1))*size + h%size
			if d/2 != wantHost || d%2 != r%2 {
				t.Errorf("level %d shift %d: rank %d sends to %d, want host %d local %d", st.Level, st.Shift, r, d, wantHost, r%2)
			}
			if st.Src[d] != r {
				t.Errorf("level %d shift %d: rank %d's source is %d, want %d", st.Level, st.Shift, d, st.Src[d], r)
			}
		}
	}
	times := make([][]float64, len(hosts))
	for r := range times {
		times[r] = []float64{0.5, 1, 0.25, 2}
	}
	times[5][0] = 0.75 // rank 5 (host 2, group 1) slowest in step 0
	rows, err := SwitchRows(hosts, steps, times, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3*4+2 {
		t.Fatalf("%d rows, want 14", len(rows))
	}
	// group 1 in step 0: 4 ranks x 16 x 1 MiB in 0.75 s.
	want := survey.SwitchBandwidth{Level: 1, Group: 1, PeerGroup: 2, Hosts: 2, Ranks: 4, Size: 1 << 20, Messages: SwitchMessages, Seconds: 0.75,
		AggregateMBps: 4 * float64(SwitchMessages) * (1 << 20) / 0.75 / 1e6}
	if rows[1] != want {
		t.Errorf("row %+v, want %+v", rows[1], want)
	}
	if _, err := SwitchRows(hosts, steps, times[:15], 1<<20); err == nil {
		t.Errorf("times of 15 ranks of 16: no error")
	}
	times[15] = times[15][:2]
	if _, err := SwitchRows(hosts, steps, times, 1<<20); err == nil {
		t.Errorf("a rank with 2 of 4 times: no error")
	}
}
