package bench

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
)

// TestSwitchPhase: 8 hosts of 2 ranks in leaves of 2 hosts and pods of 4:
// at the leaf level each leaf exchanges with the other leaf of its pod
// only (its sibling: what it measures is its own uplinks, not the pods'),
// every rank sending to the rank with its local index on the host with
// its position in the sibling leaf; at the pod level the two pods
// exchange; sources invert destinations; and SwitchRows sums what each
// group sent over its slowest rank.
func TestSwitchPhase(t *testing.T) {
	var hosts []string
	for h := 0; h < 8; h++ {
		hosts = append(hosts, fmt.Sprintf("n%d", h), fmt.Sprintf("n%d", h))
	}
	of := [][]int{{0, 0, 1, 1, 2, 2, 3, 3}, {0, 0, 0, 0, 1, 1, 1, 1}}
	steps := SwitchPhase(hosts, of)
	// level 1: siblings of 2 (shift 1), level 2: 2 pods (shift 1).
	if len(steps) != 2 || steps[0].Level != 1 || steps[1].Level != 2 {
		t.Fatalf("%d steps (%+v), want 1 at level 1 and 1 at level 2", len(steps), steps)
	}
	for _, st := range steps {
		size := 2 * st.Level // hosts a group
		for r := range hosts {
			h, d := r/2, st.Dst[r]
			g := h / size
			wantHost := (g^1)*size + h%size // the sibling: leaf 0<->1, 2<->3; pod 0<->1
			if d/2 != wantHost || d%2 != r%2 {
				t.Errorf("level %d: rank %d sends to %d, want host %d local %d", st.Level, r, d, wantHost, r%2)
			}
			if st.Src[d] != r {
				t.Errorf("level %d: rank %d's source is %d, want %d", st.Level, d, st.Src[d], r)
			}
		}
	}
	times := make([][]float64, len(hosts))
	for r := range times {
		times[r] = []float64{0.5, 1}
	}
	times[5][0] = 0.75 // rank 5 (host 2, group 1) slowest in step 0
	rows, err := SwitchRows(hosts, steps, times, 1<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4+2 {
		t.Fatalf("%d rows, want 6", len(rows))
	}
	// group 1 in step 0: 4 ranks x 16 x 1 MiB in 0.75 s, to its sibling 0.
	want := survey.SwitchBandwidth{Level: 1, Group: 1, PeerGroup: 0, Hosts: 2, Ranks: 4, Size: 1 << 20, Messages: SwitchMessages, Seconds: 0.75,
		AggregateMBps: 4 * float64(SwitchMessages) * (1 << 20) / 0.75 / 1e6}
	if rows[1] != want {
		t.Errorf("row %+v, want %+v", rows[1], want)
	}
	// Rank 5 sends to host 0 (rank 1); with host n0 slower, its 0.75 s
	// is its receiver's, and group 1's rate is its other ranks' 0.5 s.
	if d := steps[0].Dst[5]; hosts[d] != "n0" {
		t.Fatalf("rank 5 sends to rank %d on %s, want n0", d, hosts[d])
	}
	rows, err = SwitchRows(hosts, steps, times, 1<<20, map[string]bool{"n0": true})
	if err != nil {
		t.Fatal(err)
	}
	if got := rows[1].Seconds; got != 0.5 {
		t.Errorf("with n0 slow, group 1's row took %.2f s, want 0.5 (%+v)", got, rows[1])
	}
	if _, err := SwitchRows(hosts, steps, times[:15], 1<<20, nil); err == nil {
		t.Errorf("times of 15 ranks of 16: no error")
	}
	times[15] = times[15][:1]
	if _, err := SwitchRows(hosts, steps, times, 1<<20, nil); err == nil {
		t.Errorf("a rank with 1 of 2 times: no error")
	}
}

// TestSwitchPhaseToRest: at a level of more than two sibling groups (4
// groups at the top), the hosts of a group reach different groups in one
// step, every rank receives from one rank, and the rows say "to the rest"
// (peer group = group); in the last step (the pair step) every group's
// hosts all send to its next sibling, and its rows name that sibling.
func TestSwitchPhaseToRest(t *testing.T) {
	var hosts []string
	for h := 0; h < 12; h++ { // 4 groups of 3 hosts, 1 rank each
		hosts = append(hosts, fmt.Sprintf("n%d", h))
	}
	of := [][]int{{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3}}
	steps := SwitchPhase(hosts, of)
	if len(steps) != 4 || steps[3].Shift != 0 {
		t.Fatalf("%d steps, want 4 (shifts 1-3, then the pair step)", len(steps))
	}
	times := make([][]float64, len(hosts))
	for _, st := range steps {
		recv := map[int]int{}
		for r, d := range st.Dst {
			if d < 0 || d/3 == r/3 {
				t.Fatalf("shift %d: rank %d sends to %d, want another group", st.Shift, r, d)
			}
			recv[d]++
			if st.Src[d] != r {
				t.Errorf("shift %d: rank %d's source %d, want %d", st.Shift, d, st.Src[d], r)
			}
		}
		for g := 0; g < 4; g++ {
			to := map[int]bool{}
			for r := 3 * g; r < 3*g+3; r++ {
				to[st.Dst[r]/3] = true
			}
			want := map[int]bool{(g + 1) % 4: true}
			if st.Shift > 0 {
				want = map[int]bool{(g + 1) % 4: true, (g + 2) % 4: true, (g + 3) % 4: true}
			}
			if !reflect.DeepEqual(to, want) {
				t.Errorf("shift %d: group %d's hosts reach groups %v, want %v", st.Shift, g, to, want)
			}
		}
		if len(recv) != 12 {
			t.Errorf("shift %d: %d ranks receive, want 12", st.Shift, len(recv))
		}
	}
	for r := range times {
		times[r] = []float64{1, 1, 1, 1}
	}
	rows, err := SwitchRows(hosts, steps, times, 1<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	pairs := 0
	for _, r := range rows {
		if r.Hosts != 3 || r.PeerGroup != r.Group && r.PeerGroup != (r.Group+1)%4 {
			t.Errorf("row %+v: want 3 hosts, peer group = group (to the rest) or its next sibling", r)
		}
		if r.PeerGroup != r.Group {
			pairs++
		}
	}
	if len(rows) != 16 || pairs != 4 {
		t.Errorf("%d rows, %d to one sibling: want 16 and 4", len(rows), pairs)
	}
}

// TestSurveyTopologyPlansSwitchPhase: a fake survey of 4 hosts x 2 ranks
// with --topology, a Slurm topology.conf of two leaves of 2: the switch
// phase measures those leaves (switches.csv), and meta.json names the
// description; one that lacks node3 leaves the plan to the latencies
// and says so.
func TestSurveyTopologyPlansSwitchPhase(t *testing.T) {
	for _, c := range []struct {
		conf, warn string
	}{
		{"SwitchName=s0 Nodes=node[0-1]\nSwitchName=s1 Nodes=node[2-3]\nSwitchName=top Switches=s[0-1]\n", ""},
		{"SwitchName=s0 Nodes=node[0-1]\nSwitchName=s1 Nodes=node2,other\nSwitchName=top Switches=s[0-1]\n", "does not describe host(s) node3"},
	} {
		dir := t.TempDir()
		conf := filepath.Join(dir, "topology.conf")
		if err := os.WriteFile(conf, []byte(c.conf), 0o644); err != nil {
			t.Fatal(err)
		}
		opt := DefaultOptions(filepath.Join(dir, "s"))
		opt.Repeats, opt.Warmup, opt.Burst = 4, 1, 2
		opt.Sizes = []int{8}
		opt.Topology, opt.SwitchBandwidth = conf, SwitchBWOn
		errs, _, _ := runFake(t, 8, opt, linearRTT)
		noRankErrors(t, errs)
		s, err := survey.ReadSurvey(opt.Out, survey.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		warned := strings.Contains(strings.Join(s.Meta.Warnings, "\n"), "--topology: "+conf+" "+c.warn)
		if c.warn != "" {
			if !warned || s.Meta.SwitchBandwidth != nil && s.Meta.SwitchBandwidth.Planned != "latencies" {
				t.Errorf("%s: warnings %q, switch phase %+v; want the warning and a plan from the latencies", c.warn, s.Meta.Warnings, s.Meta.SwitchBandwidth)
			}
			continue
		}
		want := map[string]int{"node0": 0, "node1": 0, "node2": 1, "node3": 1}
		got := map[string]int{}
		for _, g := range s.Switches {
			if g.Level != 1 {
				t.Errorf("switches.csv row %+v: want level 1 only", g)
			}
			got[g.Host] = g.Group
		}
		if !maps.Equal(got, want) || s.Meta.SwitchBandwidth == nil || s.Meta.SwitchBandwidth.Planned != conf || len(s.SwitchBandwidth) == 0 {
			t.Errorf("switch groups %v, meta %+v, %d switchbw rows; want %v planned on %s", got, s.Meta.SwitchBandwidth, len(s.SwitchBandwidth), want, conf)
		}
	}
}

// TestSwitchPhasePairStepMixed: at a level where one parent has two
// groups and another three, the pair step is of the three only (each to
// its next sibling); the two, whose every step went to their one
// sibling, do not send in it again.
func TestSwitchPhasePairStepMixed(t *testing.T) {
	var hosts []string
	for h := 0; h < 10; h++ { // 5 groups of 2 hosts, 1 rank each
		hosts = append(hosts, fmt.Sprintf("n%d", h))
	}
	of := [][]int{{0, 0, 1, 1, 2, 2, 3, 3, 4, 4}, {0, 0, 0, 0, 1, 1, 1, 1, 1, 1}}
	var pair *SwitchStep
	for i, st := range SwitchPhase(hosts, of) {
		if st.Level == 1 && st.Shift == 0 {
			pair = &SwitchPhase(hosts, of)[i]
		}
	}
	if pair == nil {
		t.Fatal("no pair step at level 1 (3 siblings under the second parent)")
	}
	want := []int{-1, -1, -1, -1, 6, 7, 8, 9, 4, 5}
	if !reflect.DeepEqual(pair.Dst, want) || !reflect.DeepEqual(pair.Peer, []int{-1, -1, 3, 4, 2}) {
		t.Errorf("pair step: destinations %v, peers %v; want %v, [-1 -1 3 4 2]", pair.Dst, pair.Peer, want)
	}
}
