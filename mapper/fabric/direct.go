package fabric

import (
	"fmt"
	"slices"
	"sync"
)

// MaxDirectHosts bounds a direct network's hosts: its route table holds
// a hop count for every pair.
const MaxDirectHosts = 4096

// NewDirect is a direct network: hosts joined by a full-duplex link of
// bw bytes/s and lat seconds for each pair in links, and no switch (a
// torus's or a mesh's, found in a survey's round trips rather than
// declared: network.FindDirect). Its routing is not known: Route takes one
// shortest path (from each host on it, to the lowest-numbered neighbour
// one hop nearer the destination), RouteShares spreads a message evenly
// over the shortest paths, host by host. On a torus routed in dimension
// order the one path can load a link with two flows where the machine
// loads it with one (a ring's row ends on a 4 x 4 torus); the even
// spread loads it with half of each. The last shortcuts of links are
// network.FindDirect's shortcuts: a message that ends over one also crosses
// the link into its destination of the path the other links give.
func NewDirect(hosts []string, links [][2]int32, shortcuts int, bw, lat float64) (*Fabric, error) {
	if len(hosts) > MaxDirectHosts {
		return nil, fmt.Errorf("a direct network of %d hosts is more than the %d its route table holds", len(hosts), MaxDirectHosts)
	}
	f, _, _, err := newDirect(hosts, nil, len(hosts), links, shortcuts, bw, lat)
	if err != nil {
		return nil, err
	}
	f.Shape = fmt.Sprintf("direct network of %d nodes and %d links, shortest paths", len(hosts), len(links))
	return f, nil
}

// ClassGlobal is the class of a router network's links between groups
// (NewRouterNetwork).
const ClassGlobal = "global"

// NewRouterNetwork is a direct network of routers, each host attached
// to its router router[h] (0 ... nr-1) by a node link of class "node"
// (its bandwidth not declared: the model prices it from the survey's
// node phase), the routers joined by a full-duplex link of bw bytes/s
// and lat seconds for each pair in links (class "direct"): a
// dragonfly's, or a torus whose routers serve several nodes, found in a
// survey's round trips (network.FindDirect over the innermost switch
// level's groups). Its routing is not known: between routers as
// NewDirect's between hosts, unless groups (each router's group, 0 ...
// G-1; nil: none known) are a dragonfly's: each joined by its own links
// and every two by a link. Then it routes as a dragonfly's minimal
// routing does (local, global, local: minimal), one such path in
// dimension order in the routers' numbering (minimal.path), and Routed's
// RoutingAdaptive spreads every message over all shortest paths; its
// links between groups are then of class ClassGlobal, and the groups its
// one level (Levels). why says why groups were not so used. The last
// shortcuts of links are shortcuts, as NewDirect's.
func NewRouterNetwork(
	hosts []string, router []int32, nr int, links [][2]int32, shortcuts int, bw, lat float64, groups []int32,
) (f *Fabric, why string, err error) {
	if nr > MaxDirectHosts {
		return nil, "", fmt.Errorf("a direct network of %d routers is more than the %d its route table holds", nr, MaxDirectHosts)
	}
	if len(router) != len(hosts) {
		return nil, "", fmt.Errorf("%d hosts and %d routers of hosts", len(hosts), len(router))
	}
	for h, r := range router {
		if r < 0 || int(r) >= nr {
			return nil, "", fmt.Errorf("host %s on router %d of %d", hosts[h], r, nr)
		}
	}
	f, g, at, err := newDirect(hosts, router, nr, links, shortcuts, bw, lat)
	if err != nil {
		return nil, "", err
	}
	f.Shape = fmt.Sprintf("direct network of %d routers (%d nodes) and %d links between routers, shortest paths", nr, len(hosts), len(links))
	if groups == nil {
		return f, "", nil
	}
	m, _, why := newMinimal(g, groups)
	if m == nil {
		return f, why, nil
	}
	// The links between groups are their own class (global), and the
	// groups a level: the survey's switch phase prices them
	// (topo.SwitchShares). A pair of groups may be joined by parallel
	// links the round trips cannot tell from one.
	for v := range g.out {
		for _, h := range g.out[v] {
			if groups[v] != groups[h.to] {
				f.Links[h.link].Class = ClassGlobal
			}
		}
	}
	pairGlobals(f, g, groups)
	hostGroup := make([]int, len(hosts))
	for h, r := range router {
		hostGroup[h] = int(groups[r])
	}
	f.Levels = []GroupLevel{{Name: "group", Class: ClassGlobal, Group: hostGroup}}
	s := *f
	s.Shape += ", routed adaptive (every message spread evenly over its shortest paths)"
	f.spread = &s
	f.route = func(a, b int, visit func(int32)) {
		at.ends(a, b, func(l int32, _ float64) { visit(l) }, func(a, b int) { m.path(a, b, visit) })
	}
	f.shares, f.Routing = nil, RuleMinimal // Route's one path
	f.Shape = fmt.Sprintf("direct network of %d routers (%d nodes) in %d groups and %d links between routers, "+
		"minimal paths (local, global, local) in dimension order", nr, len(hosts), len(m.mem), len(links))
	f.measured = asMeasured(f, g, at, m)
	return f, "", nil
}

// asMeasured is f, routed minimally (m), with the pairs of routers whose
// hops in g are fewer than any minimal path's (minimal.shorter: their
// round trips show a path through a third group) spread over their
// shortest paths instead, Route's one path the first of them
// (hopGraph.path; Fabric.Measured); nil where there are none.
func asMeasured(f *Fabric, g *hopGraph, at attached, m *minimal) *Fabric {
	short := m.shorter()
	if len(short) == 0 {
		return nil
	}
	off := make(map[[2]int32]bool, 2*len(short))
	for _, p := range short {
		off[p], off[[2]int32{p[1], p[0]}] = true, true
	}
	v := *f
	v.route = func(a, b int, visit func(int32)) {
		at.ends(a, b, func(l int32, _ float64) { visit(l) }, func(a, b int) {
			if off[[2]int32{int32(a), int32(b)}] {
				g.path(a, b, visit)
				return
			}
			m.path(a, b, visit)
		})
	}
	v.shares = func(a, b int, visit func(int32, float64)) {
		at.ends(a, b, visit, func(a, b int) {
			if off[[2]int32{int32(a), int32(b)}] {
				g.spread(a, b, visit)
				return
			}
			m.path(a, b, func(l int32) { visit(l, 1) })
		})
	}
	v.Shape += fmt.Sprintf(", but spread over the shortest paths for the %d pair(s) of routers whose round trips are shorter "+
		"than any minimal path's (through a third group)", len(short))
	return &v
}

// pairGlobals prices each pair of groups' global links in g as one link
// between them, each a share of it (bandwidth over how many join the
// two groups that way). How many of a pair's parallel links the round
// trips show is how many have the job's routers, or routers its round
// trips need, at their ends, not how the groups are wired: on a 1,024-rank
// fragment of a dragonfly whose every two groups two links join, the
// graph had two for five pairs of groups, one for five. With the
// switch phase's share on every link alike, random sparse traffic placed
// to the pairs of two was predicted at 0.74 of its simulated run and
// block, whose traffic crossed a pair of one, at 1.5x.
func pairGlobals(f *Fabric, g *hopGraph, groups []int32) {
	links := map[[2]int32]int{}
	for v := range g.out {
		for _, h := range g.out[v] {
			if a, b := groups[v], groups[h.to]; a != b {
				links[[2]int32{a, b}]++
			}
		}
	}
	for v := range g.out {
		for _, h := range g.out[v] {
			if k := links[[2]int32{groups[v], groups[h.to]}]; k > 1 {
				f.Links[h.link].Bandwidth /= float64(k)
			}
		}
	}
}

// newDirect is NewDirect (router nil: each host is its own router, with
// no node link) or NewRouterNetwork, with its graph and its hosts on it.
// The last shortcuts of links are shortcuts (hop.also).
func newDirect(hosts []string, router []int32, k int, links [][2]int32, shortcuts int, bw, lat float64) (*Fabric, *hopGraph, attached, error) {
	if shortcuts < 0 || shortcuts > len(links) {
		return nil, nil, attached{}, fmt.Errorf("%d shortcuts among %d links", shortcuts, len(links))
	}
	s := linkSet{}
	var up, down []int32 // each host's node link to and from its router
	if router != nil {
		for _, h := range hosts {
			u, d := s.duplex("node_"+h, "node", 0, 0)
			up, down = append(up, u), append(down, d)
		}
	}
	name := func(r int32) string {
		if router == nil {
			return hosts[r]
		}
		return fmt.Sprintf("router%d", r)
	}
	vertices := map[bool]string{true: "hosts", false: "routers"}[router == nil]
	g := newHopGraph(k)
	var base *hopGraph // the graph without the shortcuts (none without)
	if shortcuts > 0 {
		base = newHopGraph(k)
	}
	for i, l := range links {
		if err := checkLink(l, k); err != nil {
			return nil, nil, attached{}, err
		}
		a, b := l[0], l[1]
		u, d := s.duplex(fmt.Sprintf("direct_%s_to_%s", name(a), name(b)), "direct", bw, lat)
		g.out[a], g.out[b] = append(g.out[a], hop{b, u, -1}), append(g.out[b], hop{a, d, -1})
		if base != nil && i < len(links)-shortcuts {
			base.out[a], base.out[b] = append(base.out[a], hop{b, u, -1}), append(base.out[b], hop{a, d, -1})
		}
	}
	if err := g.hops(); err != nil {
		return nil, nil, attached{}, fmt.Errorf("%w of the network's %s", err, vertices)
	}
	if base != nil {
		if err := base.hops(); err != nil {
			return nil, nil, attached{}, fmt.Errorf("%w of the network's %s but its shortcuts", err, vertices)
		}
		for _, l := range links[len(links)-shortcuts:] {
			g.also(base, int(l[0]), int(l[1]))
			g.also(base, int(l[1]), int(l[0]))
		}
	}
	f := &Fabric{Kind: KindDirect, Routing: RoutesSpread, Hosts: hosts, Links: s.links}
	at := attached{g: g, router: router, up: up, down: down}
	f.route = func(a, b int, visit func(int32)) {
		at.ends(a, b, func(l int32, _ float64) { visit(l) }, func(a, b int) { g.path(a, b, visit) })
	}
	f.shares, f.paths = at.spread, at.paths
	return f, g, at, nil
}

// attached is hosts on the vertices of a hop graph: host h on router[h]
// by its links up[h] (to it) and down[h] (from it); router nil: the
// hosts are the vertices, with no link of their own.
type attached struct {
	g        *hopGraph
	router   []int32
	up, down []int32
}

// ends wraps a walk between the hosts' routers with their links.
func (at *attached) ends(a, b int, visit func(int32, float64), walk func(ra, rb int)) {
	ra, rb := a, b
	if at.router != nil {
		ra, rb = int(at.router[a]), int(at.router[b])
		visit(at.up[a], 1)
	}
	if ra != rb {
		walk(ra, rb)
	}
	if at.router != nil {
		visit(at.down[b], 1)
	}
}

// spread is RouteShares over every shortest path between the hosts'
// routers (hopGraph.spread), as minimal adaptive routing spreads a
// message.
func (at *attached) spread(a, b int, visit func(int32, float64)) {
	at.ends(a, b, visit, func(a, b int) { at.g.spread(a, b, visit) })
}

// adaptive is f with RouteShares spreading every message evenly over
// its shortest paths in g (its hosts attached as at says): Routed's
// RoutingAdaptive for a torus or a dragonfly.
func adaptive(f *Fabric, at attached) (*Fabric, error) {
	if err := at.g.hops(); err != nil {
		return nil, err
	}
	s := *f
	s.shares, s.Routing = at.spread, RoutesSpread
	s.Shape += ", routed adaptive (every message spread evenly over its shortest paths)"
	return &s, nil
}

// hop is one link out of a vertex of a direct network: to its other end.
// A message that ends at to also crosses also (-1: none): a shortcut's
// way (network.FindDirect's links between vertices whose round trip is a
// hop shorter than the other links make it) ends over the link into to
// of the path those links give. SimGrid's dragonfly routes a message
// between two routers of a chassis other than the first over their own
// link and then the first chassis's link into the destination: that
// link carries both its own flows and theirs.
type hop struct{ to, link, also int32 }

// step visits h's link, and its also where the message ends at h.to (b).
func (h hop) step(b int, visit func(int32)) {
	visit(h.link)
	if h.also >= 0 && int(h.to) == b {
		visit(h.also)
	}
}

// cross is step for a share of the message.
func (h hop) cross(b int, share float64, visit func(int32, float64)) {
	visit(h.link, share)
	if h.also >= 0 && int(h.to) == b {
		visit(h.also, share)
	}
}

// hopGraph is a direct network's vertices (hosts or routers), out[a]
// a's links by neighbour, and the hops between every two (table).
type hopGraph struct {
	k    int
	out  [][]hop
	nbrs [][]int32 // out's neighbours, set by hops
	once sync.Once
	dist []uint16 // table's
	sp   spreader
}

// newHopGraph is a graph of k vertices and no link yet.
func newHopGraph(k int) *hopGraph {
	return &hopGraph{k: k, out: make([][]hop, k), sp: newSpreader(k)}
}

// hops sorts each vertex's links by neighbour; an error when the links
// do not join every vertex. The hops between every two are counted when
// first used (table): a declared torus of 4,096 nodes counted its 16
// million in 0.4 s that only routing adaptive uses.
func (g *hopGraph) hops() error {
	g.sortOut()
	if g.k == 0 {
		return nil
	}
	row := make([]uint16, g.k)
	HopRow(g.nbrs, 0, row, nil)
	if slices.Contains(row, Unreached) {
		return fmt.Errorf("the links do not join all %d", g.k)
	}
	return nil
}

// sortOut sorts each vertex's links by neighbour, and sets nbrs.
func (g *hopGraph) sortOut() {
	g.nbrs = make([][]int32, g.k)
	for a := range g.out {
		slices.SortFunc(g.out[a], func(x, y hop) int { return int(x.to - y.to) })
		for _, h := range g.out[a] {
			g.nbrs[a] = append(g.nbrs[a], h.to)
		}
	}
}

// table is the hops between every two vertices (HopTable), from b's row:
// table()[b*k+a], counted once (hops first).
func (g *hopGraph) table() []uint16 {
	g.once.Do(func() { g.dist = HopTable(g.nbrs) })
	return g.dist
}

// also sets the shortcut from a to b's also: the last link of base's
// path from a to b (hopGraph.path: SimGrid's dragonfly's route into the
// destination from the first chassis).
func (g *hopGraph) also(base *hopGraph, a, b int) {
	last := int32(-1)
	base.path(a, b, func(l int32) { last = l })
	for i, h := range g.out[a] {
		if int(h.to) == b {
			g.out[a][i].also = last
		}
	}
}

// path visits one shortest path's links from a to b: from each vertex
// on it, to the lowest-numbered neighbour one hop nearer b.
func (g *hopGraph) path(cur, b int, visit func(int32)) {
	dist := g.table()
	for cur != b {
		here := dist[b*g.k+cur]
		for _, h := range g.out[cur] {
			if dist[b*g.k+int(h.to)] == here-1 {
				h.step(b, visit)
				cur = int(h.to)
				break
			}
		}
	}
}

// spread visits the links of every shortest path from a to b with the
// share of a message that crosses each (spreader.pass: from each
// vertex, evenly over its links one hop nearer b).
func (g *hopGraph) spread(a, b int, visit func(int32, float64)) {
	g.sp.mu.Lock()
	defer g.sp.mu.Unlock()
	k, dist := g.k, g.table()
	g.sp.pass(a, b, func(cur int, out []hop) []hop {
		here := dist[b*k+cur]
		for _, h := range g.out[cur] {
			if dist[b*k+int(h.to)] == here-1 {
				out = append(out, h)
			}
		}
		return out
	}, visit)
}

// spreader is the scratch of spreading messages over several paths,
// one message at a time (its users hold mu): each vertex's share of the
// message (0 between messages), the vertices reached, a vertex's links
// onward.
type spreader struct {
	mu    sync.Mutex
	share []float64
	order []int32
	next  []hop
}

// newSpreader is a spreader over k vertices.
func newSpreader(k int) spreader { return spreader{share: make([]float64, k)} }

// pass visits the links a message from a to b crosses with the share of
// it that crosses each: the vertices it reaches, nearest a first, each
// pass their share on evenly over the links next appends to out (every
// link onward on the paths taken; none at b). The caller holds mu.
func (sp *spreader) pass(a, b int, next func(cur int, out []hop) []hop, visit func(int32, float64)) {
	share := sp.share
	sp.order = append(sp.order[:0], int32(a))
	share[a] = 1
	for i := 0; i < len(sp.order); i++ {
		cur := int(sp.order[i])
		sp.next = next(cur, sp.next[:0])
		for _, h := range sp.next {
			if to := int(h.to); share[to] == 0 && to != b {
				sp.order = append(sp.order, h.to)
			}
			h.cross(b, share[cur]/float64(len(sp.next)), visit)
			share[h.to] += share[cur] / float64(len(sp.next))
		}
		share[cur] = 0
	}
	share[b] = 0
}

// Unreached is HopTable's count between hosts no path joins.
const Unreached = ^uint16(0)

// HopTable is the number of hops between every two of len(nbrs) hosts
// (nbrs[a]: a's neighbours), by breadth-first search: entry b*k+a is the
// hops from a to b, Unreached where no path joins them.
func HopTable(nbrs [][]int32) []uint16 {
	k := len(nbrs)
	dist := make([]uint16, k*k)
	queue := make([]int32, 0, k)
	for b := 0; b < k; b++ {
		queue = HopRow(nbrs, b, dist[b*k:(b+1)*k], queue)
	}
	return dist
}

// HopRow fills row (len(nbrs) counts) with the hops from b to every
// host, Unreached where no path joins them, by a search from b; queue is
// scratch, returned for reuse.
func HopRow(nbrs [][]int32, b int, row []uint16, queue []int32) []int32 {
	for i := range row {
		row[i] = Unreached
	}
	row[b] = 0
	queue = append(queue[:0], int32(b))
	for i := 0; i < len(queue); i++ {
		u := queue[i]
		for _, v := range nbrs[u] {
			if row[v] == Unreached {
				row[v] = row[u] + 1
				queue = append(queue, v)
			}
		}
	}
	return queue
}
