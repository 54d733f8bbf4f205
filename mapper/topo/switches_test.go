package topo

import (
	"slices"
	"strings"
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
	// A ring of 8 nodes: round trips grow with the hops (4, 6, 8, 10
	// us); latency clustering finds levels, but no switches.
	ring := synth.New(synth.Spec{Nodes: 8, Sockets: 1, Cores: 2, RTT: [4]float64{0.5, 0.8, 4, 4}, Seed: 3})
	ring.Tables[0].Each(func(a, b, i int) {
		ha, hb := a/2, b/2
		if ha == hb {
			return
		}
		hops := min((ha-hb+8)%8, (hb-ha+8)%8)
		rtt := float32(2 + 2*hops)
		for _, m := range []survey.Metric{survey.Mean, survey.Min, survey.Median, survey.P99} {
			ring.Tables[0].Values[m][i] = rtt
		}
	})
	if rows, _, note := SwitchGroups(ring); len(rows) != 0 || !strings.Contains(note, "do not form switch levels") {
		t.Errorf("a ring of nodes: %d groups, note %q; want none: its levels spread with the hops", len(rows), note)
	}
}
