package bench

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

// TestSwitchGroups: a synthetic machine of 8 nodes x 2 cores behind 4
// switches (one network level between the nodes and the top) gives one
// switch level, the hosts in pairs; a machine with no switch level gives
// none, and says so.
func TestSwitchGroups(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 8, Sockets: 1, Cores: 2, NodesPerSwitch: 2, RTT: [4]float64{0.5, 0.8, 4, 9}, Noise: 0.02, Seed: 3})
	rows, of, note := SwitchGroups(s)
	if len(of) != 1 || !slices.Equal(of[0], []int{0, 0, 1, 1, 2, 2, 3, 3}) {
		t.Fatalf("switch levels %v (%s), want [[0 0 1 1 2 2 3 3]]", of, note)
	}
	if len(rows) != 8 || rows[3] != (survey.HostGroup{Host: s.Ranks[6].Host, Level: 1, Group: 1}) {
		t.Errorf("rows %+v", rows)
	}
	flat := synth.New(synth.Spec{Nodes: 8, Sockets: 1, Cores: 2, RTT: [4]float64{0.5, 0.8, 9, 9}, Noise: 0.02, Seed: 3})
	if rows, of, note := SwitchGroups(flat); len(rows) != 0 || len(of) != 0 || note == "" {
		t.Errorf("one network level: %v %v %q, want no groups and a note", rows, of, note)
	}
}

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

// TestFitSurveyContended: a level whose round trips the concurrent rounds
// slowed (here 4x at 1 MiB, measured on the isolation sample) takes the
// bandwidth fitted on its pairs measured alone, and each pair keeps its
// own latency; a level measured as alone keeps each pair's own fit.
func TestFitSurveyContended(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 4, Sockets: 1, Cores: 2, RTT: [4]float64{1, 1, 10, 10}, Seed: 1})
	s.Meta.Sizes = []int{64, 1 << 20}
	n := s.N()
	big := survey.NewPairTable(n, 1<<20)
	s.Tables[0].Each(func(a, b, _ int) {
		// alone: 1 MiB takes 1000 us one way between nodes (1048.576
		// MB/s), 100 us inside; in the rounds 4x between nodes, and pair
		// (0, 7) 7x.
		small := s.Tables[0].At(survey.Min, a, b)
		alone := small + 2000
		if s.Ranks[a].Host == s.Ranks[b].Host {
			alone = small + 200
		}
		conc := alone
		if s.Ranks[a].Host != s.Ranks[b].Host {
			conc = 4 * alone
			if a == 0 && b == 7 {
				conc = 7 * alone
			}
		}
		iso := math.NaN()
		if (a+b)%3 == 0 {
			iso = alone
		}
		big.Set(&survey.PairStats{A: a, B: b, Size: 1 << 20, Samples: 10, Mean: conc, Min: conc, Median: conc, P99: conc, Isolated: iso})
	})
	s.Tables = append(s.Tables, big)
	fits := FitSurvey(s)
	for _, f := range fits {
		small := s.Tables[0].At(survey.Min, f.A, f.B)
		lat, bw := small/2-64/1048.576, 1048.576
		if s.Ranks[f.A].Host == s.Ranks[f.B].Host {
			lat, bw = small/2-64/10485.76, 10485.76
		}
		if math.Abs(f.Bandwidth/bw-1) > 1e-3 || math.Abs(f.Latency-lat) > 1e-3 {
			t.Errorf("pair (%d, %d): latency %.4f us, bandwidth %.2f MB/s; want %.4f, %.2f", f.A, f.B, f.Latency, f.Bandwidth, lat, bw)
		}
	}
	if len(fits) != n*(n-1)/2 {
		t.Errorf("%d fits, want %d", len(fits), n*(n-1)/2)
	}
}
