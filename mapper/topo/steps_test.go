package topo

import (
	"math"
	"reflect"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

// dragonflyPhase is a survey of 64 hosts of one rank, node000-node063,
// on a dragonfly of 4 groups of 4 routers of 4 nodes, with the switch
// phase SimGrid measured on it (4 groups x 1 chassis x 4 routers x 4
// nodes, 25 Gbit/s links, each pair of groups joined by 2 global links:
// topo_parameters "4,2;1,1;4,1;4", surveyed inside the simulation by
// latmap's own core): a router's 4 nodes to the rest 5,576-5,713 MB/s
// and to the next router 2,936; a group's 16 to the rest 11,288 and to
// the next group 5,289 (medians of the kept survey's rows).
func dragonflyPhase(t *testing.T) *survey.Survey {
	t.Helper()
	s := synth.New(synth.Spec{Nodes: 64, Sockets: 1, Cores: 1, NodesPerSwitch: 4, RTT: [4]float64{1, 2, 4, 6}})
	s.Switches = nil
	for h, name := range hostNames(s) {
		s.Switches = append(s.Switches, survey.HostGroup{Host: name, Level: 1, Group: h / 4}, survey.HostGroup{Host: name, Level: 2, Group: h / 16})
	}
	s.SwitchBandwidth = nil
	add := func(level, groups, hosts int, rest, pair float64) {
		for g := range groups {
			for range 3 {
				s.SwitchBandwidth = append(s.SwitchBandwidth, survey.SwitchBandwidth{Level: level, Group: g, PeerGroup: g, Hosts: hosts, Ranks: hosts, AggregateMBps: rest})
			}
			// The pair step: to the next sibling (of a router, in its group).
			peer := (g + 1) % groups
			if level == 1 {
				peer = g/4*4 + (g+1)%4
			}
			s.SwitchBandwidth = append(s.SwitchBandwidth, survey.SwitchBandwidth{Level: level, Group: g, PeerGroup: peer, Hosts: hosts, Ranks: hosts, AggregateMBps: pair})
		}
	}
	add(1, 16, 4, 5650, 2936)
	add(2, 4, 16, 11288, 5289)
	return s
}

// TestSwitchSharesEveryGroupAtOnce: the switch phase runs every group's
// step at once, and what the other groups send in shares the local
// links that carry a group's flows to its global links. Declared as the
// simulation's dragonfly (with its cross traffic), every class the
// phase measured runs at 85-100% of its declared bandwidth (SimGrid
// moves about 94% of a link's). Routed as each group alone, its flows
// and their way back only, a group's steps to the rest were bound by
// the global (blue) links, priced at 71% (11,288 MB/s against 15,873),
// and the layouts that crossed groups were priced too slow.
func TestSwitchSharesEveryGroupAtOnce(t *testing.T) {
	s := dragonflyPhase(t)
	f, err := fabric.NewDragonfly(hostNames(s), fabric.DragonflyShape{Groups: 4, Chassis: 1, Routers: 4, Nodes: 4, Blue: 2, Black: 1, Green: 1}, 25e9/8, 0.5e-6, false)
	if err != nil {
		t.Fatal(err)
	}
	f.Reverse = 0.05
	got := SwitchShares(s, f)
	if len(got) == 0 {
		t.Fatal("no shares")
	}
	for _, c := range got {
		if c.Share < 0.85 || c.Share > 1 {
			t.Errorf("%s links at level %d (%s): %.0f%% of declared (%.0f MB/s against %.0f), want 85-100%%", c.Class, c.Level, c.Name, 100*c.Share, c.MeasuredMBps, c.RoutedMBps)
		}
	}
}

// TestSwitchSharesFoundRouters: the same dragonfly found in the round
// trips (fabric.NewRouterNetwork: every link at one measured rate, 2,825
// MB/s, the 4 groups' links between them of class global) has its global
// links priced by the phase's pair steps: 5,289 MB/s between two groups,
// 1.87 times one link (two links in parallel, which the round trips
// cannot show). The steps to the rest, bound in that network by the
// global links too, run on the machine at what the local links feeding
// them carry (1.50 times one link): the larger kind's median is the
// class's. Before, a network found in the survey took no share of the
// switch phase: every global link at one link's rate, and block's 1 MiB
// halo was predicted at 1.71 times its simulated run.
func TestSwitchSharesFoundRouters(t *testing.T) {
	s := dragonflyPhase(t)
	router, groups := make([]int32, 64), make([]int32, 16)
	for h := range router {
		router[h] = int32(h / 4)
	}
	var links [][2]int32
	for r := range 16 {
		groups[r] = int32(r / 4)
		for q := r + 1; q < 16; q++ {
			if q/4 == r/4 {
				links = append(links, [2]int32{int32(r), int32(q)})
			}
		}
	}
	// Group i's router j to group j's router i, as SimGrid joins them.
	for i := range 4 {
		for j := i + 1; j < 4; j++ {
			links = append(links, [2]int32{int32(4*i + j), int32(4*j + i)})
		}
	}
	f, why, err := fabric.NewRouterNetwork(hostNames(s), router, 16, links, 0, 2825e6, 1e-6, groups)
	if err != nil || why != "" {
		t.Fatalf("router network: %v %s", err, why)
	}
	f.Source = fabric.FoundInSurvey
	got := SwitchShares(s, f)
	if len(got) != 1 || got[0].Class != fabric.ClassGlobal || got[0].Level != 2 || got[0].Groups != 4 || math.Abs(got[0].Share-5289.0/2825) > 0.01 {
		t.Fatalf("shares %+v, want the global links at level 2 at 5289/2825 = 1.87 (the 4 pair steps)", got)
	}
}

// TestShifts: the node and switch phases' shift steps, all of them up to
// PhaseShifts, else PhaseShifts spread evenly over 1 ... peers-1.
func TestShifts(t *testing.T) {
	for _, c := range []struct {
		hosts int
		want  []int
	}{{1, []int{}}, {2, []int{1}}, {5, []int{1, 2, 3, 4}}, {6, []int{1, 2, 3, 5}}, {64, []int{1, 21, 42, 63}}} {
		if got := Shifts(c.hosts); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Shifts(%d) = %v, want %v", c.hosts, got, c.want)
		}
	}
}

// TestRoutedStepsShares: a step is routed as the model routes it. Two
// groups of two routers (one host each) joined by two crossed global
// links (0-3, 1-2), routed adaptive: each host's flow to the other
// group's host at its position has two shortest paths, one over each
// global link, and loads each with half its bytes. The pair's two
// links are one link's bandwidth between them (a share each), so the
// group's two flows are allowed one link's rate out (1 GB/s), not half
// of it as counted whole on one path.
func TestRoutedStepsShares(t *testing.T) {
	links := [][2]int32{{0, 1}, {2, 3}, {0, 3}, {1, 2}}
	f, why, err := fabric.NewRouterNetwork([]string{"a", "b", "c", "d"}, []int32{0, 1, 2, 3}, 4, links, 0, 1e9, 1e-6, []int32{0, 0, 1, 1})
	if err != nil || why != "" {
		t.Fatal(err, why)
	}
	if f, err = f.Routed(fabric.RoutingAdaptive); err != nil {
		t.Fatal(err)
	}
	_, pair := routedSteps(f, []int{0, 1, 2, 3}, [][]int{{0, 1}, {2, 3}}, [][]int{{0, 1}, {0, 1}}, []int{0, 1})
	for g, b := range pair {
		if b.class != fabric.ClassGlobal || math.Abs(b.bps-1e9) > 1e6 {
			t.Errorf("group %d: %.4g B/s bound by %q links, want 1e9 by the global ones", g, b.bps, b.class)
		}
	}
}
