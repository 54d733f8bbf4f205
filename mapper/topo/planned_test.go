package topo

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

// declaredTree is 8 hosts node000-node007 in leaves of 2 (1 GB/s up and
// down) and pods of 4 (1.5 GB/s), node links 10 GB/s.
func declaredTree(t *testing.T, hosts []string) *fabric.Fabric {
	t.Helper()
	level := func(name string, per int, bw float64) fabric.TreeLevel {
		lv := fabric.TreeLevel{Name: name}
		for h := range hosts {
			lv.Group = append(lv.Group, h/per)
		}
		for g := 0; g < len(hosts)/per; g++ {
			lv.Up, lv.Down = append(lv.Up, bw), append(lv.Down, bw)
		}
		return lv
	}
	f, err := fabric.NewTree(hosts, []fabric.TreeLevel{level("node", 1, 10e9), level("leaf", 2, 1e9), level("pod", 4, 1.5e9)}, false)
	if err != nil {
		t.Fatal(err)
	}
	f.Source = "tree.xml"
	return f
}

// TestPlanOnDeclaredLevels: 8 nodes x 2 cores whose latencies show
// switches of 4. Declared as leaves of 2 under pods of 4, the switch
// phase measures those two levels; a description that lacks a host, or
// has no groups (a torus), leaves the plan to the latencies and says why.
func TestPlanOnDeclaredLevels(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 8, Sockets: 1, Cores: 2, NodesPerSwitch: 4, RTT: [4]float64{1, 2, 10, 20}})
	var hosts []string
	for h := 0; h < 8; h++ {
		hosts = append(hosts, fmt.Sprintf("node%03d", h))
	}
	rows, of, note := PlanSwitchGroups(s, declaredTree(t, hosts))
	if want := [][]int{{0, 0, 1, 1, 2, 2, 3, 3}, {0, 0, 0, 0, 1, 1, 1, 1}}; note != "" || !slices.EqualFunc(of, want, slices.Equal) || len(rows) != 16 {
		t.Errorf("declared: of %v (%d rows), note %q; want %v", of, len(rows), note, want)
	}
	latencies := [][]int{{0, 0, 0, 0, 1, 1, 1, 1}}
	if _, of, _ := PlanSwitchGroups(s, nil); !slices.EqualFunc(of, latencies, slices.Equal) {
		t.Fatalf("latencies alone: of %v, want %v", of, latencies)
	}
	short := append(append([]string(nil), hosts[:7]...), "other")
	_, of, note = PlanSwitchGroups(s, declaredTree(t, short))
	if !slices.EqualFunc(of, latencies, slices.Equal) || !strings.Contains(note, "does not describe host(s) node007") || !strings.Contains(note, "found in the latencies") {
		t.Errorf("description without node007: of %v, note %q", of, note)
	}
	torus, err := fabric.NewTorus(hosts, []int{4, 2}, 1e9, 1e-6, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, of, note = PlanSwitchGroups(s, torus); !slices.EqualFunc(of, latencies, slices.Equal) || !strings.Contains(note, "declares no groups") {
		t.Errorf("torus: of %v, note %q", of, note)
	}
}

// TestSwitchShares, by hand on declaredTree: leaf 0's 2 hosts sending to
// leaf 1's cross leaf 0's uplink twice (2 / 1 GB/s: the declared links
// allow 1,000 MB/s out) and measured 500 MB/s: up-1 at 50%; pod 0's 4
// hosts sending to pod 1 cross its uplink 4 times (4 / 1.5 GB/s, where
// each leaf uplink carries 2 / 1 GB/s): 1,500 MB/s allowed, 1,200
// measured, up-2 at 80%. A step bound by the node links, or by links
// of two classes alike, counts for no class; the latencies' level of 4 is the pods'; groups the description
// does not have give none.
func TestSwitchShares(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 8, Sockets: 1, Cores: 2, NodesPerSwitch: 4, RTT: [4]float64{1, 2, 10, 20}})
	hosts := hostNames(s)
	f := declaredTree(t, hosts)
	s.Switches, _, _ = DeclaredSwitchGroups(s, f)
	s.SwitchBandwidth = []survey.SwitchBandwidth{
		{Level: 1, Group: 0, PeerGroup: 1, Hosts: 2, Ranks: 4, AggregateMBps: 500},
		{Level: 2, Group: 0, PeerGroup: 1, Hosts: 4, Ranks: 8, AggregateMBps: 1200},
	}
	got := SwitchShares(s, f)
	want := []ClassShare{
		{Class: "up-1", Name: "leaf", Level: 1, Groups: 1, MeasuredMBps: 500, RoutedMBps: 1000, Share: 0.5},
		{Class: "up-2", Name: "pod", Level: 2, Groups: 1, MeasuredMBps: 1200, RoutedMBps: 1500, Share: 0.8},
	}
	if len(got) != len(want) {
		t.Fatalf("shares %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Class != w.Class || g.Name != w.Name || g.Level != w.Level || g.Groups != w.Groups || math.Abs(g.RoutedMBps-w.RoutedMBps) > 1e-6 || math.Abs(g.Share-w.Share) > 1e-9 {
			t.Errorf("share %d: %+v, want %+v", i, g, w)
		}
	}
	// With the pods' links at 2 GB/s, pod 0's step is bound as much by
	// its uplink (4 / 2 GB/s) as by its leaves' (2 / 1 GB/s): it
	// measures neither class alone, and gives none.
	tied := declaredTree(t, hosts)
	for l := range tied.Links {
		if strings.HasSuffix(tied.Links[l].Class, "-2") {
			tied.Links[l].Bandwidth = 2e9
		}
	}
	if got := SwitchShares(s, tied); len(got) != 1 || got[0].Class != "up-1" {
		t.Errorf("pod step bound by up-1 and up-2 alike: %+v, want up-1 alone", got)
	}
	// With node links of 0.5 GB/s, leaf 0's step is bound by them.
	for l := range f.Links {
		if f.Links[l].Class == "node" {
			f.Links[l].Bandwidth = 0.5e9
		}
	}
	if got := SwitchShares(s, f); len(got) != 1 || got[0].Class != "up-2" {
		t.Errorf("node links binding the leaf step: %+v, want up-2 alone", got)
	}
	// The latencies' switches of 4 are the declared pods: the level 1
	// row is then a pod's, 500 of 1,500 MB/s.
	s.Switches, _, _ = SwitchGroups(s)
	if got := SwitchShares(s, f); len(got) != 1 || got[0].Name != "pod" || got[0].Level != 1 || math.Abs(got[0].Share-1.0/3) > 1e-9 {
		t.Errorf("latency levels (switches of 4): %+v, want the pods at 1/3", got)
	}
	// Groups no declared level has (odd and even hosts): no share.
	s.Switches = nil
	for h, name := range hosts {
		s.Switches = append(s.Switches, survey.HostGroup{Host: name, Level: 1, Group: h % 2})
	}
	if got := SwitchShares(s, f); len(got) != 0 {
		t.Errorf("undeclared groups: %+v, want none", got)
	}
	// A topology.conf declares no bandwidth: a leaf's uplinks are what
	// its steps measured out of it (here to the rest of 4 leaves).
	conf, err := fabric.Parse([]byte("SwitchName=l0 Nodes=node[000-001]\nSwitchName=l1 Nodes=node[002-003]\nSwitchName=l2 Nodes=node[004-005]\nSwitchName=l3 Nodes=node[006-007]\nSwitchName=r Switches=l[0-3]\n"))
	if err != nil {
		t.Fatal(err)
	}
	s.Switches, _, _ = DeclaredSwitchGroups(s, conf)
	s.SwitchBandwidth = []survey.SwitchBandwidth{{Level: 1, Group: 0, PeerGroup: 0, Hosts: 2, Ranks: 4, AggregateMBps: 700}, {Level: 1, Group: 1, PeerGroup: 1, Hosts: 2, Ranks: 4, AggregateMBps: 900}}
	if got := SwitchShares(s, conf); len(got) != 1 || got[0].Class != "up-1" || got[0].RoutedMBps != 0 || got[0].Share != 0 || got[0].MeasuredMBps != 800 || got[0].Groups != 2 {
		t.Errorf("topology.conf: %+v, want up-1 measured at 800 MB/s (no bandwidth declared)", got)
	}
}
