package topo

import (
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

// TestCompareDeclared: 8 nodes of 2 cores behind two switches of 4
// (round trips 1, 2, 10 and 20 us). A topology.conf that matches puts
// the 12 same-switch pairs 2 links apart at 10 us and the 16 others 4
// apart at 20 us; one that swaps half the nodes makes longer routes
// measure faster, which it says, and one that lacks a host names it.
func TestCompareDeclared(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 8, Sockets: 1, Cores: 2, NodesPerSwitch: 4, RTT: [4]float64{1, 2, 10, 20}})
	read := func(conf string) *fabric.Fabric {
		f, err := fabric.Parse([]byte(conf))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	good := read("SwitchName=s0 Nodes=node[000-003]\nSwitchName=s1 Nodes=node[004-007]\nSwitchName=r Switches=s[0-1]\n")
	d, err := CompareDeclared(s, good, 64, survey.Median)
	if err != nil {
		t.Fatal(err)
	}
	want := []HopClass{{Links: 2, Pairs: 12, RTTMedian: 10}, {Links: 4, Pairs: 16, RTTMedian: 20}}
	if len(d.Hops) != 2 || d.Hops[0] != want[0] || d.Hops[1] != want[1] || len(d.Contradictions) != 0 || len(d.Missing) != 0 || len(d.Misplaced)+len(d.LongRoutes) != 0 {
		t.Errorf("matching description: %+v, want hops %+v and no contradiction", d, want)
	}
	bad := read("SwitchName=s0 Nodes=node[000-001],node[004-005]\nSwitchName=s1 Nodes=node[002-003],node[006-007]\nSwitchName=r Switches=s[0-1]\n")
	d, err = CompareDeclared(s, bad, 64, survey.Median)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Contradictions) != 1 || !strings.Contains(d.Contradictions[0], "does not match") {
		t.Errorf("swapped description: contradictions %q, want one", d.Contradictions)
	}
	short := read("SwitchName=s0 Nodes=node[000-006]\n")
	if d, _ = CompareDeclared(s, short, 64, survey.Median); len(d.Missing) != 1 || d.Missing[0] != "node007" {
		t.Errorf("description without node007: missing %v", d.Missing)
	}
}

// TestDeclaredNamesHosts: a description that puts node004 on node003's
// switch and node003 on node004's names those two hosts, and no other;
// in the matching description, one pair of one switch's hosts measured
// at the cross-switch round trip is named as a long route, alone.
func TestDeclaredNamesHosts(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 8, Sockets: 1, Cores: 2, NodesPerSwitch: 4, RTT: [4]float64{1, 2, 10, 20}})
	swapped, err := fabric.Parse([]byte("SwitchName=s0 Nodes=node[000-002],node004\nSwitchName=s1 Nodes=node003,node[005-007]\nSwitchName=r Switches=s[0-1]\n"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := CompareDeclared(s, swapped, 64, survey.Median)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Misplaced) != 2 || !strings.HasPrefix(d.Misplaced[0], "host node003:") || !strings.HasPrefix(d.Misplaced[1], "host node004:") || len(d.LongRoutes) != 0 {
		t.Errorf("two hosts swapped: misplaced %q, long routes %q; want node003 and node004 alone", d.Misplaced, d.LongRoutes)
	}
	good, err := fabric.Parse([]byte("SwitchName=s0 Nodes=node[000-003]\nSwitchName=s1 Nodes=node[004-007]\nSwitchName=r Switches=s[0-1]\n"))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := s.Table(64)
	if err != nil {
		t.Fatal(err)
	}
	// node001's and node002's first ranks are 2 and 4.
	tab.Set(&survey.PairStats{A: 2, B: 4, Size: 64, Samples: 10, Mean: 20, Median: 20, Min: 20, P99: 20, Isolated: 20})
	if d, err = CompareDeclared(s, good, 64, survey.Median); err != nil {
		t.Fatal(err)
	}
	if len(d.LongRoutes) != 1 || !strings.HasPrefix(d.LongRoutes[0], "hosts node001 and node002, declared 2 links apart, measure 20 us") || len(d.Misplaced) != 0 {
		t.Errorf("one slow pair: long routes %q, misplaced %q; want node001-node002 alone", d.LongRoutes, d.Misplaced)
	}
}
