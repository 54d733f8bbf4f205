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

// TestSwitchGroupsDragonfly: 2 groups of 4 nodes x 2 cores whose nodes
// meet inside their group at about one round trip (8 us) and across the
// groups at 12-24 us by where each node sits from the global link (a
// dragonfly's top level spreads): one switch level, the groups. Spread
// under the top is refused (the ring above); spread at the top is not.
func TestSwitchGroupsDragonfly(t *testing.T) {
	df := synth.New(synth.Spec{Nodes: 8, Sockets: 1, Cores: 2, NodesPerSwitch: 4, RTT: [4]float64{0.5, 0.8, 8, 12}, Seed: 3})
	df.Tables[0].Each(func(a, b, i int) {
		ha, hb := a/2, b/2
		if ha/4 == hb/4 {
			return
		}
		rtt := float32(12 + 3*(ha%4) + 1*(hb%4)) // 12 .. 24 us
		for _, m := range []survey.Metric{survey.Mean, survey.Min, survey.Median, survey.P99} {
			df.Tables[0].Values[m][i] = rtt
		}
	})
	rows, of, note := SwitchGroups(df)
	if len(of) != 1 || !slices.Equal(of[0], []int{0, 0, 0, 0, 1, 1, 1, 1}) || len(rows) != 8 {
		t.Errorf("dragonfly: levels %v, %d rows (%s); want the two groups", of, len(rows), note)
	}
}

// TestGroupsApart: a level whose groups' hosts are as close to their
// sibling groups' as to each other (every router of a dragonfly group one
// hop from the others) is not apart; the same groups with their siblings
// 1.5x further are.
func TestGroupsApart(t *testing.T) {
	for _, c := range []struct {
		between float32
		want    bool
	}{{8, false}, {12, true}} {
		s := synth.New(synth.Spec{Nodes: 8, Sockets: 1, Cores: 2, RTT: [4]float64{0.5, 0.8, 8, 8}, Seed: 3})
		// hosts 0-3 and 4-7 are the parents; pairs of hosts the groups.
		s.Tables[0].Each(func(a, b, i int) {
			ha, hb := a/2, b/2
			if ha == hb || ha/2 == hb/2 || ha/4 != hb/4 {
				return
			}
			for _, m := range []survey.Metric{survey.Mean, survey.Min, survey.Median, survey.P99} {
				s.Tables[0].Values[m][i] = c.between
			}
		})
		hostIdx, _ := survey.HostIndex(s.Ranks)
		first := []int{0, 2, 4, 6, 8, 10, 12, 14}
		parent := make([]int, 16)
		for r := range parent {
			parent[r] = r / 8
		}
		if got := groupsApart(s, hostIdx, []int{0, 0, 1, 1, 2, 2, 3, 3}, parent, first); got != c.want {
			t.Errorf("siblings at %v us, inside 8 us: apart %v, want %v", c.between, got, c.want)
		}
	}
}

// TestNearestInside: 8 nodes, 4 behind each switch (10 us inside, 20
// between): the switches' groups are nearest inside; groups that put a
// node with the other switch's, or that split a switch in two (each
// half as near the other half as inside), are not.
func TestNearestInside(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 8, Sockets: 1, Cores: 2, NodesPerSwitch: 4, RTT: [4]float64{1, 2, 10, 20}})
	for _, c := range []struct {
		name   string
		groups []int
		want   bool
	}{
		{"the switches", []int{0, 0, 0, 0, 1, 1, 1, 1}, true},
		{"a node moved", []int{0, 0, 0, 1, 1, 1, 1, 1}, false},
		{"switches halved", []int{0, 0, 1, 1, 2, 2, 3, 3}, false},
		{"too few hosts", []int{0, 0, 1, 1}, false},
	} {
		if got := NearestInside(s, c.groups); got != c.want {
			t.Errorf("%s %v: %v, want %v", c.name, c.groups, got, c.want)
		}
	}
}
