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
	if len(d.Hops) != 2 || d.Hops[0] != want[0] || d.Hops[1] != want[1] || len(d.Contradictions) != 0 || len(d.Missing) != 0 {
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
