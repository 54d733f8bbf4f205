package topo

import (
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

// TestNoteDirectBlueGeneL: latmap topo names the direct network of Blue
// Gene/L's 8 x 4 partition (network.TestFindDirectBlueGeneL finds its
// links) in its notes.
func TestNoteDirectBlueGeneL(t *testing.T) {
	s := readTestLog(t, "blue_gene_ammpi_32_64_100.dat", survey.MMPIOptions{})
	tp, err := Infer(s, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(tp.Notes, func(n string) bool {
		return strings.HasPrefix(n, "direct network: the round trips between nodes fit 56 links")
	}) {
		t.Errorf("latmap topo's notes %q do not name the direct network", tp.Notes)
	}
}

// TestNoteDirectRouters: 16 nodes of 2 ranks, two nodes behind each of
// 8 routers joined in a ring (4 us between the nodes of a router, 4 + 3
// us a hop between routers), the routers the survey's first switch
// level (switches.csv): latmap topo names the ring of 8 routers (8
// links, 4 hops across), not a network between the nodes, as latmap
// place prices it (both from network.Discover).
func TestNoteDirectRouters(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 16, Sockets: 1, Cores: 2, NodesPerSwitch: 2, RTT: [4]float64{0.5, 0.8, 4, 9}, Seed: 1})
	setHostRTT(s, func(ha, hb int) float32 {
		d := (ha/2 - hb/2 + 8) % 8
		return float32(4 + 3*min(d, 8-d))
	})
	for r := range s.Ranks {
		if r%2 == 0 {
			s.Switches = append(s.Switches, survey.HostGroup{Host: s.Ranks[r].Host, Level: 1, Group: r / 4})
		}
	}
	tp, err := Infer(s, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(tp.Notes, func(n string) bool {
		return strings.Contains(n, "the round trips between the 8 groups of the first switch level") && strings.Contains(n, "fit 8 links between them as routers (2-2 a router, 4 hops across)")
	}) {
		t.Errorf("latmap topo's notes %q do not name the ring of routers", tp.Notes)
	}
}

// TestNoteDirectTorusInOrder: 16 nodes whose round trips are 4 us + 3
// us a hop of a 4 x 4 torus with the nodes in coordinate order: latmap
// topo names the torus; with two nodes' places swapped, it names a
// direct network and no torus.
func TestNoteDirectTorusInOrder(t *testing.T) {
	for _, swapped := range []bool{false, true} {
		s := synth.New(synth.Spec{Nodes: 16, Sockets: 1, Cores: 1, RTT: [4]float64{0.5, 0.8, 4, 4}, Seed: 1})
		place := func(h int) int {
			if swapped && (h == 1 || h == 14) {
				return 15 - h
			}
			return h
		}
		setHostRTT(s, func(ha, hb int) float32 {
			pa, pb := place(ha), place(hb)
			h := 0
			for _, x := range []int{(pa%4 - pb%4 + 4) % 4, (pa/4 - pb/4 + 4) % 4} {
				h += min(x, 4-x)
			}
			return float32(4 + 3*h)
		})
		tp, err := Infer(s, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		direct := slices.ContainsFunc(tp.Notes, func(n string) bool {
			return strings.Contains(n, "fit 32 links between them (4-4 a node, 4 hops across)")
		})
		torus := slices.ContainsFunc(tp.Notes, func(n string) bool { return strings.Contains(n, "a 4x4 torus's with the hosts in the survey's order") })
		if !direct || torus == swapped {
			t.Errorf("swapped %v: latmap topo's notes %q: direct network %v, 4x4 torus %v", swapped, tp.Notes, direct, torus)
		}
	}
}

// setHostRTT sets every metric of survey s's first table, for each pair
// of ranks on different hosts, to rtt of their hosts (survey.HostIndex).
func setHostRTT(s *survey.Survey, rtt func(ha, hb int) float32) {
	host, _ := survey.HostIndex(s.Ranks)
	tab := s.Tables[0]
	tab.Each(func(a, b, i int) {
		if host[a] == host[b] {
			return
		}
		v := rtt(host[a], host[b])
		for _, m := range []survey.Metric{survey.Mean, survey.Min, survey.Median, survey.P99} {
			if len(tab.Values[m]) > 0 {
				tab.Values[m][i] = v
			}
		}
	})
}

// TestNoteDragonfly: 32 nodes whose round trips follow the routes of
// SimGrid's dragonfly of 4 groups x 2 chassis x 4 routers (4 us + 3 us
// a link, there and back averaged): latmap topo names the dragonfly;
// with two nodes' places swapped it names none (the graph of routers
// FindDirect finds, with the links it lacks added, is the rest).
func TestNoteDragonfly(t *testing.T) {
	f, err := fabric.NewDragonfly(make([]string, 32), fabric.DragonflyShape{Groups: 4, Chassis: 2, Routers: 4, Nodes: 1, Blue: 1, Black: 1, Green: 1}, 1e9, 1e-6, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, swapped := range []bool{false, true} {
		s := synth.New(synth.Spec{Nodes: 32, Sockets: 1, Cores: 1, RTT: [4]float64{0.5, 0.8, 4, 4}, Seed: 1})
		place := func(h int) int {
			if swapped && (h == 1 || h == 30) {
				return 31 - h
			}
			return h
		}
		setHostRTT(s, func(ha, hb int) float32 {
			a, b := place(ha), place(hb)
			return float32(4 + 3*float64(len(f.Path(a, b))+len(f.Path(b, a))-4)/2)
		})
		tp, err := Infer(s, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		found := slices.ContainsFunc(tp.Notes, func(n string) bool {
			return strings.Contains(n, "dragonfly of 4 groups x 2 chassis x 4 routers x 1 nodes, the nodes in the hosts' order (SimGrid's DRAGONFLY 4,1;2,1;4,1;1)")
		})
		if found == swapped {
			t.Errorf("swapped %v: latmap topo's notes %q: the dragonfly named %v", swapped, tp.Notes, found)
		}
	}
}
