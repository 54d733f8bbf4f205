package network

import (
	"fmt"
	"slices"
	"strings"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/fabric"
)

// Kind is the kind of network Discover found.
type Kind int

const (
	// KindNone: no network was found in the round trips (Network.Why says
	// why); the survey's levels are all there is.
	KindNone Kind = iota
	// KindDirect: a direct network between the nodes (a torus's or a
	// mesh's), found where each node drives several links at once.
	KindDirect
	// KindDragonfly: the dragonfly whose static minimal routes the round
	// trips follow (Network.Fit).
	KindDragonfly
	// KindRouters: a direct network between routers (Network.Router), the
	// innermost switch level's groups or each node its own.
	KindRouters
	// KindTree: no direct network; the survey's switch levels, a tree.
	KindTree
)

// String names the kind as latmap topo and place say it.
func (k Kind) String() string {
	return [...]string{"none", "direct network", "dragonfly", "graph of routers", "switch tree"}[k]
}

// Input is what Discover reads of a survey (FromSurvey).
type Input struct {
	// Hosts is how many hosts (nodes) the survey measured, numbered in
	// the order the survey's ranks name them.
	Hosts int
	// Latency is a message's one-way latency between hosts a and b, in
	// seconds (HostLatency); nil where not every host pair was measured.
	Latency func(a, b int) float64
	// Unmeasured says why Latency is nil ("" when it is not).
	Unmeasured string
	// Ports is how many links' worth a node drives at once (FanOut: the
	// node phase's fan-out; 1 without it).
	Ports float64
	// Switches are the survey's switch levels, innermost first:
	// Switches[k][host] is the host's group at level k (switches.csv).
	Switches [][]int32
}

// Network is the network Discover found, and how.
type Network struct {
	Kind Kind
	// Why says why no network of a kind before Kind was found ("" when
	// none was looked for or the first kind was found).
	Why string
	// Fit is the dragonfly fitted (KindDragonfly).
	Fit *DragonflyFit
	// Graph is the direct network between the routers (KindDirect,
	// KindRouters): its links join routers.
	Graph *Direct
	// Router is each host's router, numbered from 0, and Routers how
	// many there are (KindDirect: each host its own).
	Router  []int32
	Routers int
	// Groups is each router's group at the outermost switch level where
	// that level groups the routers as a dragonfly's groups (RouterGroups;
	// nil otherwise).
	Groups []int32
	// FromSwitches: the routers are the innermost switch level's groups,
	// not the nodes.
	FromSwitches bool
	// Moved are the routers moved from their group at the outermost
	// switch level to make Groups a dragonfly's (regroup; nil: none).
	Moved []int32
	// Hidden is how many of the routers no node of the job hangs off
	// (FindHidden): the last Hidden of Routers.
	Hidden int
	// Links is a graph of the innermost switch level's routers
	// (KindRouters) that the round trips between them fit, refused
	// because it miscounts their hops (offAnchor), where no other kind
	// was found: the links are not these, but a proposal may be held to
	// them as to another guess of the network (nil: none).
	Links *Network
	// Far says why the routers of a switch tree are no graph of their
	// own (offAnchor: their nearest are two hops apart or more, through
	// routers outside the job), whether or not Links fit them, where
	// they are not apart as a tree's leaves are (treeApart; "": they are
	// not so far apart, or apart as a tree's).
	Far string
}

// Discover names the network in's round trips show, trying in this order
// and taking the first found:
//
//   - where a node drives several links at once (in.Ports > 1), a direct
//     network between the nodes (FindDirect), or KindNone and why;
//   - the dragonfly whose static minimal routes the round trips follow
//     (FitDragonfly);
//   - a direct network between routers: the innermost switch level's
//     groups, then each node its own (FindDirect, on the round trips
//     between a node of each router, the first);
//   - the switch levels (KindTree), where the survey has them; else
//     KindNone.
//
// Nothing is looked for where some host pair was not measured.
func Discover(in Input) *Network {
	k := in.Hosts
	if in.Latency == nil {
		return &Network{Why: in.Unmeasured}
	}
	if in.Ports > 1 {
		d, why := FindDirect(k, in.Latency)
		if d == nil {
			return &Network{Why: why}
		}
		return &Network{Kind: KindDirect, Graph: d, Router: OwnRouters(k), Routers: k}
	}
	// The dragonfly is fitted while the graphs of routers are looked
	// for (each reads the latencies only); the first in the order above
	// that is found is the network.
	type fitted struct {
		fit *DragonflyFit
		why string
	}
	df := make(chan fitted, 1)
	go func() {
		fit, why := FitDragonfly(k, in.Latency)
		df <- fitted{fit, why}
	}()
	var tries [][]int32
	if len(in.Switches) > 0 {
		tries = append(tries, in.Switches[0])
	}
	var found, links *Network
	var routerWhys []string
	far := ""
	for i, router := range append(tries, OwnRouters(k)) {
		if why := offAnchor(router, in.Latency); why != "" {
			// No graph of these routers, nor each node its own router:
			// the nodes are these routers'. The graph their round trips
			// fit is kept as a guess to hold a proposal to.
			if routerWhys = append(routerWhys, "routers: "+why); !treeApart(router, in) {
				far = why
			}
			if d, _ := FindRouters(router, in.Latency); d != nil {
				nr := int(slices.Max(router)) + 1
				links = &Network{Kind: KindRouters, Graph: d, Router: router, Routers: nr, FromSwitches: true, Why: why}
			}
			break
		}
		var why string
		if found, why = findRouters(router, in); found != nil {
			found.FromSwitches = i < len(tries)
			break
		}
		routerWhys = append(routerWhys, "routers: "+why)
	}
	f := <-df
	if f.fit != nil {
		return &Network{Kind: KindDragonfly, Fit: f.fit}
	}
	if found != nil {
		return found
	}
	whys := append([]string{"dragonfly: " + f.why}, routerWhys...)
	n := &Network{Why: strings.Join(whys, "; "), Links: links, Far: far}
	if len(in.Switches) > 0 {
		n.Kind = KindTree
	}
	return n
}

// findRouters is the graph of routers router (router[node]: its
// router) found in in's round trips (FindRouters), else, where the
// outermost switch level groups them as a dragonfly's groups, with
// routers outside the job (FindHidden); nil and why where neither is.
// Where the level groups them and FindRouters' graph counts some pair
// other hops than the round trips' classes do (hopClasses), FindHidden's
// is taken where it finds one: FindRouters fits its own line, within
// maxHopResidual, and on jobs of random site-wired dragonfly fragments
// that needed no router outside the job its graph miscounted pairs in
// 40 of 43 (TestFindRoutersFragments), some at twice the hops' scale.
func findRouters(router []int32, in Input) (*Network, string) {
	nr := int(slices.Max(router)) + 1
	groups := RouterGroups(in.Switches, router, nr)
	var hops []int // the round trips' hop classes, where the level groups the routers
	if groups != nil {
		hops, _ = hopClasses(nr, routerLatencies(router, in.Latency))
	}
	d, why := FindRouters(router, in.Latency)
	if d != nil && hopsAsCounted(nr, hops, d) {
		return routersOnly(router, groups, hops, d), ""
	}
	if groups == nil {
		return nil, why
	}
	find := func(g []int32) (*Direct, []int32) {
		d, hidden, _ := FindHidden(router, g, in.Latency)
		return d, hidden
	}
	hd, hidden, hwhy := FindHidden(router, groups, in.Latency)
	var moved []int32
	if hops != nil {
		if better, bd, bh, m := regroup(nr, hops, groups, hd, hidden, find); better != nil {
			groups, hd, hidden, moved = better, bd, bh, m
		}
	}
	switch {
	case hd != nil:
		return &Network{Kind: KindRouters, Graph: hd, Router: router, Routers: nr + len(hidden), Hidden: len(hidden),
			Groups: append(groups, hidden...), Moved: moved}, ""
	case d != nil:
		return routersOnly(router, groups, hops, d), ""
	}
	return nil, why + "; with routers outside the job: " + hwhy
}

// routersOnly is the network of FindRouters' graph d between the job's
// routers, in groups (mended by regroup on the hop classes hops where
// they are no dragonfly's; nil hops: as they are).
func routersOnly(router, groups []int32, hops []int, d *Direct) *Network {
	n := &Network{Kind: KindRouters, Graph: d, Router: router, Routers: int(slices.Max(router)) + 1, Groups: groups}
	if hops == nil {
		return n
	}
	if better, _, _, moved := regroup(n.Routers, hops, groups, d, nil, func([]int32) (*Direct, []int32) { return d, nil }); better != nil {
		n.Groups, n.Moved = better, moved
	}
	return n
}

// hopsAsCounted says whether graph d counts every two of the nr routers
// as many hops apart as the round trips' classes hops do (hopClasses;
// true where there are none).
func hopsAsCounted(nr int, hops []int, d *Direct) bool {
	if hops == nil {
		return true
	}
	got := fabric.HopTable(adjacency(nr, d.Links))
	for a := range nr {
		for b := range nr {
			if a != b && int(got[a*nr+b]) != hops[a*nr+b] {
				return false
			}
		}
	}
	return true
}

// farRouters begins offAnchor's sentence.
const farRouters = "the nearest routers are"

// maxAnchorHops is how far, in hops, the round trip at no hop that the
// round trips between routers show may be above the round trip between
// two nodes of one router (which crosses no link between routers).
var maxAnchorHops = 0.5

// offAnchor says why the routers (router[node]: its router, numbered
// from 0) have no links between them ("" where they may, or no two
// nodes share a router): counted in hops as hopClasses counts them (the
// nearest routers a hop apart, the next class a hop more), the round
// trip at no hop is more than maxAnchorHops above the one between two
// nodes of one router. Their nearest routers are then two or more hops
// apart, through routers outside the job: routers of a Cray XC group in
// neither one row nor one column. A graph that links the nearest of
// them explains their round trips as well, a hop short everywhere, at a
// round trip of its own at no hop: on such a fragment
// (TestSimBuiltAries) 13 links between its 8 routers
// fitted within 0.19 of a hop, at 4.96 us + 3.38 us a hop where two
// nodes of a router were 4.20 us apart and the classes of round trips
// between routers 2.0 us apart from 8.23 us, and LAMMPS's proposal
// priced on them simulated 1.43x slower than block.
func offAnchor(router []int32, lat func(a, b int) float64) string {
	nr := int(slices.Max(router)) + 1
	if nr < 2 || nr > MaxDirectNodes {
		return "" // more than FindRouters looks between
	}
	zero := sameRouter(router, lat)
	if zero == 0 {
		return ""
	}
	base, per, why := hopScale(nr, routerLatencies(router, lat))
	if why != "" {
		return ""
	}
	// Below it, the groups are no routers (their nodes are hops apart:
	// the site-wired dragonfly's groups, each node its own router), and
	// each node is tried as its own.
	if off := (base - zero) / per; off > maxAnchorHops {
		return fmt.Sprintf("%s %.1f hops apart (two nodes of one router %.3g us apart, the routers' round trips "+
			"%.3g us a hop from %.3g us): routers outside the job lie between every two of the job's, whose links are not in the round trips",
			farRouters, 1+off, 2*zero*1e6, 2*per*1e6, 2*(base+per)*1e6)
	}
	return ""
}

// treeApart reports whether the job's routers (router[node]: its
// router) are as far apart as a tree's leaves: every two of different
// groups at the outermost switch level (without such groups, every two)
// as many hops apart (alikeApart), or their round trips all alike. A
// fat tree's leaves are two hops apart through spines outside the job
// (offAnchor), as a fragment of a dragonfly's routers are, but over
// uplinks they share: theirs are the tree's.
func treeApart(router []int32, in Input) bool {
	nr := int(slices.Max(router)) + 1
	l := routerLatencies(router, in.Latency)
	// Classes a small fraction of a link apart are noise, not hops: a
	// hop crosses a link and a router, as two nodes of one router cross
	// two links and a router. On a simulated 4:1 fat tree the leaves'
	// round trips spread 16.02-16.08 us, two nodes of one leaf 8.11 us
	// apart: 0.06 us made a "hop".
	base, per, why := hopScale(nr, l)
	if why != "" || per < sameRouter(router, in.Latency)/minHopShare {
		return true
	}
	hops := roundHops(nr, l, base, per)
	groups := RouterGroups(in.Switches, router, nr)
	if groups == nil {
		groups = make([]int32, nr)
		for r := range groups {
			groups[r] = int32(r)
		}
	}
	return alikeApart(nr, hops, groups)
}

// minHopShare: a hop between routers costs at least 1/minHopShare of
// the latency between two nodes of one router (treeApart).
var minHopShare = 4.0

// sameRouter is the median latency between two nodes of one router
// (router[node]: its router; 0 where no router has two nodes).
func sameRouter(router []int32, lat func(a, b int) float64) float64 {
	var same []float64
	for a := range router {
		for b := a + 1; b < len(router); b++ {
			if router[a] == router[b] {
				same = append(same, lat(a, b))
			}
		}
	}
	if len(same) == 0 {
		return 0
	}
	return stats.Median(same)
}

// FindRouters is FindDirect between routers (router[node]: its router,
// numbered from 0), on the latencies lat between a node of each, the
// first.
func FindRouters(router []int32, lat func(a, b int) float64) (*Direct, string) {
	nr := int(slices.Max(router)) + 1
	rep := Representatives(router)
	return FindDirect(nr, func(a, b int) float64 { return lat(rep[a], rep[b]) })
}

// routerLatencies is the latencies lat between a node of each router
// (router[node]: its router, numbered from 0; Representatives), entry
// a*nr+b for routers a and b.
func routerLatencies(router []int32, lat func(a, b int) float64) []float64 {
	rep := Representatives(router)
	nr := len(rep)
	l := make([]float64, nr*nr)
	for a := range nr {
		for b := range nr {
			if a != b {
				l[a*nr+b] = lat(rep[a], rep[b])
			}
		}
	}
	return l
}

// Representatives is a node of each router (router[node]: its router,
// numbered from 0): the first.
func Representatives(router []int32) []int {
	rep := make([]int, int(slices.Max(router))+1)
	for h := len(router) - 1; h >= 0; h-- {
		rep[router[h]] = h
	}
	return rep
}

// OwnRouters numbers k nodes each its own router.
func OwnRouters(k int) []int32 {
	own := make([]int32, k)
	for h := range own {
		own[h] = int32(h)
	}
	return own
}

// RouterGroups is each of nr routers' group (router[node]: its router)
// at the outermost switch level (switches[k][node]: the node's group at
// level k), numbered from 0: a dragonfly's groups, where the levels
// found in the round trips are its routers, chassis and groups. Nil
// where that level does not group the routers (it is the routers' own,
// or has one group) or splits a router's nodes.
func RouterGroups(switches [][]int32, router []int32, nr int) []int32 {
	if len(switches) == 0 {
		return nil
	}
	top := switches[len(switches)-1]
	groups := slices.Repeat([]int32{-1}, nr)
	ids := map[int32]int32{}
	for h, r := range router {
		id, ok := ids[top[h]]
		if !ok {
			id = int32(len(ids))
			ids[top[h]] = id
		}
		if groups[r] >= 0 && groups[r] != id {
			return nil
		}
		groups[r] = id
	}
	if len(ids) < 2 || len(ids) == nr {
		return nil
	}
	return groups
}

// HiddenNote says how many routers outside the job n's links join
// ("" none).
func (n *Network) HiddenNote() string {
	if n.Hidden == 0 {
		return ""
	}
	return fmt.Sprintf(" and %d routers outside the job (no node of it hangs off them: the far ends of global links, "+
		"found where routers are fewer hops apart than the job's routers' links make them)", n.Hidden)
}

// Describe is one line naming n as latmap topo and place say it, with the
// figures that found it (latencies in us).
func (n *Network) Describe() string {
	switch n.Kind {
	case KindDragonfly:
		f, sh := n.Fit, n.Fit.Shape
		return fmt.Sprintf("dragonfly: the round trips between nodes fit the routes of a dragonfly of %d groups x %d chassis x %d routers x %d nodes, "+
			"the nodes in the hosts' order (SimGrid's DRAGONFLY %s), %.3g us + %.3g us a link crossed (within %.2f of a link; the best other shape within %.2f)",
			sh.Groups, sh.Chassis, sh.Routers, sh.Nodes, sh, 2*f.Base*1e6, 2*f.PerHop*1e6, f.Residual, f.Next)
	case KindRouters, KindDirect:
		d := n.Graph
		if n.FromSwitches {
			return fmt.Sprintf("direct network: the round trips between the %d groups of the first switch level fit %d links between them%s as routers%s "+
				"(%d-%d a router, %d hops across), %.3g us + %.3g us a hop (within %.2f of a hop): a dragonfly's, or a torus whose routers serve several nodes%s",
				n.Routers-n.Hidden, len(d.Links), d.ShortcutsNote(), n.HiddenNote(), d.MinDegree, d.MaxDegree, d.Diameter, 2*d.Base*1e6, 2*d.PerHop*1e6,
				d.Residual, n.groupsNote())
		}
		if n.Hidden > 0 {
			return fmt.Sprintf("graph of routers: the round trips between nodes fit each node as its own router and %d routers outside "+
				"the job (no node of it hangs off them), joined by %d links%s (%d-%d a router, %d hops across), %.3g us + %.3g us a hop "+
				"(within %.2f of a hop): a switched fabric read from its nodes, no torus; its switches are not these routers one "+
				"for one, so declare the fabric (an ibnetdiscover dump, a list of links) to price it as wired",
				n.Hidden, len(d.Links), d.ShortcutsNote(), d.MinDegree, d.MaxDegree, d.Diameter, 2*d.Base*1e6, 2*d.PerHop*1e6, d.Residual)
		}
		what := "a torus's or a mesh's, no switch tree"
		if dims := fabric.TorusInOrder(n.Routers, d.Links); dims != nil {
			what = fmt.Sprintf("a %s torus's with the hosts in the survey's order (x = a host's place mod %d, ...), no switch tree", fabric.Dims(dims), dims[0])
		}
		return fmt.Sprintf("direct network: the round trips between nodes fit %d links between them%s (%d-%d a node, %d hops across), "+
			"%.3g us + %.3g us a hop (within %.2f of a hop): %s",
			len(d.Links), d.ShortcutsNote(), d.MinDegree, d.MaxDegree, d.Diameter, 2*d.Base*1e6, 2*d.PerHop*1e6, d.Residual, what)
	case KindTree:
		if l := n.Links; l != nil {
			return fmt.Sprintf("switch tree: %s; the %d links between the %d routers that their round trips fit "+
				"(%.3g us + %.3g us a hop, within %.2f of a hop) count a hop short, and latmap place holds a proposal to them too; "+
				"declare the network with --topology to price it as wired (a Cray XC's rtr --interconnect list, docs/fabrics.md)",
				l.Why, len(l.Graph.Links), l.Routers, 2*l.Graph.Base*1e6, 2*l.Graph.PerHop*1e6, l.Graph.Residual)
		}
		if n.Far != "" {
			return "switch tree: " + n.Far + "; no graph of links between them fits their round trips, and latmap place searches " +
				"a proposal with and without the uplinks above the routers; declare the network with --topology to price it as wired " +
				"(a Cray XC's rtr --interconnect list, docs/fabrics.md)"
		}
		return "switch tree: the round trips show no direct network between nodes or routers; the survey's switch levels are the network"
	}
	return ""
}
