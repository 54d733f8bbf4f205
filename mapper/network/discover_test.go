package network

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
)

// TestRouterGroups: the routers' groups are the outermost switch
// level's, numbered from 0 in the order met; none where that level is
// the routers' own, has one group, or splits a router's nodes.
func TestRouterGroups(t *testing.T) {
	router := []int32{0, 0, 1, 1, 2, 2, 3, 3}
	for _, c := range []struct {
		levels [][]int32
		want   []int32
	}{
		{[][]int32{{0, 0, 1, 1, 2, 2, 3, 3}, {7, 7, 7, 7, 5, 5, 5, 5}}, []int32{0, 0, 1, 1}},
		{[][]int32{{0, 0, 1, 1, 2, 2, 3, 3}, {0, 0, 1, 1, 0, 0, 1, 1}, {4, 4, 4, 4, 9, 9, 9, 9}}, []int32{0, 0, 1, 1}},
		{[][]int32{{0, 0, 1, 1, 2, 2, 3, 3}}, nil},
		{[][]int32{{0, 0, 1, 1, 2, 2, 3, 3}, {1, 1, 1, 1, 1, 1, 1, 1}}, nil},
		{[][]int32{{0, 0, 1, 1, 2, 2, 3, 3}, {0, 1, 1, 1, 2, 2, 2, 2}}, nil},
		{nil, nil},
	} {
		if got := RouterGroups(c.levels, router, 4); !slices.Equal(got, c.want) {
			t.Errorf("levels %v: groups %v, want %v", c.levels, got, c.want)
		}
	}
}

// TestDiscoverHidden: a job of two nodes on each of a fragment's
// routers (a dragonfly of 6 groups of 6 routers linked all to all, one
// global link a pair of groups on routers drawn at random), its switch
// levels the routers and the groups: Discover finds no dragonfly and no
// graph of the job's routers alone, but one with routers outside the
// job (FindHidden), the routers of the first switch level, each group's
// routers outside the job after the job's; and Describe says how many.
// A fat tree's leaves in pods (every two of different pods alike apart)
// stay the switch tree.
func TestDiscoverHidden(t *testing.T) {
	rng := rand.New(rand.NewPCG(69, 3))
	w := wireGroups(rng, 6, 6, 1, func(r, s int) bool { return true })
	kept, hops, grp := w.job(rng, 0.5)
	k := len(kept)
	in := Input{Hosts: 2 * k, Ports: 1, Switches: [][]int32{make([]int32, 2*k), make([]int32, 2*k)}}
	for h := range 2 * k {
		in.Switches[0][h], in.Switches[1][h] = int32(h/2), grp[h/2]
	}
	in.Latency = func(a, b int) float64 {
		if a/2 == b/2 {
			return 1e-6
		}
		return 1e-6 + 1e-6*float64(hops[(a/2)*k+b/2])
	}
	n := Discover(in)
	if n.Kind != KindRouters || !n.FromSwitches || n.Hidden == 0 || n.Routers != k+n.Hidden || len(n.Groups) != n.Routers {
		t.Fatalf("kind %v (from switches %v), %d routers, %d outside the job, %d groups: want a graph of the %d routers and some outside the job (%s)",
			n.Kind, n.FromSwitches, n.Routers, n.Hidden, len(n.Groups), k, n.Why)
	}
	if !slices.Equal(n.Groups[:k], grp) || !strings.Contains(n.Describe(), fmt.Sprintf("%d routers outside the job", n.Hidden)) {
		t.Errorf("groups %v (the job's routers' %v); %s", n.Groups, grp, n.Describe())
	}
	if _, why := FindRouters(in.Switches[0], in.Latency); why == "" {
		t.Error("the job's routers alone explain the round trips: the test checks nothing")
	}
	pods := Input{Hosts: 16, Ports: 1, Switches: [][]int32{make([]int32, 16), make([]int32, 16)}}
	for h := range 16 {
		pods.Switches[0][h], pods.Switches[1][h] = int32(h/2), int32(h/8)
	}
	pods.Latency = func(a, b int) float64 {
		switch {
		case a/2 == b/2:
			return 1e-6
		case a/8 == b/8:
			return 3e-6
		}
		return 5e-6
	}
	if n := Discover(pods); n.Kind != KindTree {
		t.Errorf("a fat tree's pods: %v (%s), want the switch tree", n.Kind, n.Describe())
	}
}

// TestDiscoverFarRouters: a job on two routers of each group of a
// dragonfly whose groups are rows and columns (Cray XC's Aries), in
// neither one row nor one column, so that every two of its routers are
// two hops apart or more, two nodes a router. A graph linking the
// nearest of them fits their round trips, a hop short everywhere; from
// the round trip between two nodes of one router, the nearest routers
// are two hops apart: Discover refuses the graph (the switch tree is the
// network) and keeps it as Links, and does not try each node as its own
// router.
func TestDiscoverFarRouters(t *testing.T) {
	in := ariesJob([]int{1, 6, 8, 15, 17, 22, 32, 39})
	k := 8
	n := Discover(in)
	if n.Kind != KindTree || !strings.Contains(n.Why, farRouters+" 2.0 hops apart") || !strings.HasPrefix(n.Far, farRouters+" 2.0 hops apart") {
		t.Fatalf("kind %v: want the switch tree, the routers found 2 hops apart (%s; far %q; %s)", n.Kind, n.Why, n.Far, n.Describe())
	}
	if n.Links == nil || n.Links.Kind != KindRouters || n.Links.Routers != k {
		t.Fatalf("the graph the round trips fit is not kept: %+v", n.Links)
	}
	if d := n.Describe(); !strings.Contains(d, farRouters) || !strings.Contains(d, "count a hop short") {
		t.Errorf("the switch tree's line does not say why: %s", d)
	}
	if d, _ := FindRouters(in.Switches[0], in.Latency); d == nil {
		t.Error("no graph of the job's routers fits their round trips: the test checks nothing")
	}
	if strings.Count(n.Why, "; routers: ") != 1 {
		t.Errorf("each node was tried as its own router: %s", n.Why)
	}
}

// TestDiscoverFarRoutersNoLinks: another such job (routers 2 and 4 of
// group 1, 3 and 4 of 2, 0 and 5 of 3, 1 and 6 of 4: placement's
// pickAriesOther), whose round trips no graph of its routers fits: the
// routers are still found far apart (Far), which latmap place and topo
// say, without links.
func TestDiscoverFarRoutersNoLinks(t *testing.T) {
	in := ariesJob([]int{10, 12, 19, 20, 24, 29, 33, 38})
	if d, _ := FindRouters(in.Switches[0], in.Latency); d != nil {
		t.Fatalf("a graph of %d links fits the job's routers: the test checks nothing", len(d.Links))
	}
	n := Discover(in)
	if n.Kind != KindTree || n.Links != nil || !strings.HasPrefix(n.Far, farRouters+" 2.0 hops apart") {
		t.Fatalf("kind %v, links %v, far %q: want the switch tree, no links, the routers 2 hops apart", n.Kind, n.Links != nil, n.Far)
	}
	if d := n.Describe(); !strings.Contains(d, farRouters) || !strings.Contains(d, "no graph of links between them fits") {
		t.Errorf("the switch tree's line does not say why: %s", d)
	}
}

// ariesJob is the input of a job of two nodes on each of the routers
// kept of a dragonfly of 5 groups of 2 rows of 4 routers (Cray XC's
// rows and columns; group g's global link to h on its router
// (g + 3h) mod 8, h's on (h + 3g) mod 8: placement's ariesDragonfly),
// router r of group g numbered 8g + r, each at the next switch level in
// its group; a round trip 1 us, and 1 us a hop between routers.
func ariesJob(kept []int) Input {
	nbrs := make([][]int32, 40)
	link := func(a, b int) { nbrs[a], nbrs[b] = append(nbrs[a], int32(b)), append(nbrs[b], int32(a)) }
	for g := range 5 {
		for r := range 8 {
			for s := r + 1; s < 8; s++ {
				if r/4 == s/4 || r%4 == s%4 {
					link(8*g+r, 8*g+s)
				}
			}
		}
		for h := g + 1; h < 5; h++ {
			link(8*g+(g+3*h)%8, 8*h+(h+3*g)%8)
		}
	}
	all := fabric.HopTable(nbrs)
	k := len(kept)
	in := Input{Hosts: 2 * k, Ports: 1, Switches: [][]int32{make([]int32, 2*k), make([]int32, 2*k)}}
	for h := range 2 * k {
		in.Switches[0][h], in.Switches[1][h] = int32(h/2), int32(kept[h/2]/8)
	}
	in.Latency = func(a, b int) float64 {
		if a/2 == b/2 {
			return 1e-6
		}
		return 1e-6 + 1e-6*float64(all[kept[a/2]*40+kept[b/2]])
	}
	return in
}

// TestDiscoverTreeLeavesNotFar: a fat tree's 4 leaf switches of 4 nodes
// as a simulated 4:1 tree's survey measured them: two nodes of one leaf
// 8.11 us apart, two of different leaves 16.02 us, one pair of leaves
// 16.08. offAnchor reads the 0.06 us as a hop (the leaves 131.7 "hops"
// apart), but a hop crosses a link and a router: the leaves are as
// evenly apart as a tree's (treeApart), not Far.
func TestDiscoverTreeLeavesNotFar(t *testing.T) {
	k := 4
	in := Input{Hosts: 4 * k, Ports: 1, Switches: [][]int32{make([]int32, 4*k)}}
	for h := range 4 * k {
		in.Switches[0][h] = int32(h / 4)
	}
	in.Latency = func(a, b int) float64 {
		switch la, lb := a/4, b/4; {
		case la == lb:
			return 8.11e-6 / 2
		case min(la, lb) == 0 && max(la, lb) == 2:
			return 16.08e-6 / 2
		}
		return 16.02e-6 / 2
	}
	n := Discover(in)
	if !strings.Contains(n.Why, farRouters) {
		t.Fatalf("offAnchor does not read the leaves as far apart: the test checks nothing (%s)", n.Why)
	}
	if n.Far != "" {
		t.Errorf("far %q: a tree's leaves are not far", n.Far)
	}
}

// TestDescribeHiddenNodes: each node its own router with routers outside
// the job (Tartu's fabric of 8 switches from a survey of 16 of its
// hosts: 9 such routers) is named a graph of routers and said to be a
// switched fabric read from its nodes, not a torus's or a mesh's links.
func TestDescribeHiddenNodes(t *testing.T) {
	d := &Direct{Links: make([][2]int32, 58), MinDegree: 2, MaxDegree: 10, Diameter: 3}
	n := &Network{Kind: KindRouters, Graph: d, Router: OwnRouters(16), Routers: 25, Hidden: 9}
	got := n.Describe()
	for _, want := range []string{"graph of routers", "9 routers outside the job", "58 links", "no torus", "declare the fabric"} {
		if !strings.Contains(got, want) {
			t.Errorf("%s: want %q", got, want)
		}
	}
	n.Hidden, n.Routers = 0, 16
	if got := n.Describe(); !strings.Contains(got, "a torus's or a mesh's") {
		t.Errorf("no router outside the job: %s", got)
	}
}
