package model

import (
	"math"
	"slices"

	"github.com/latmap/latmap/internal/maxtree"
	"github.com/latmap/latmap/placement/model/factors"
	"github.com/latmap/latmap/placement/model/links"
)

// Objective is what the solver minimises: the predicted run (the slowest
// rank's fixed time plus its modelled communication), then, as the
// tie-break, the summed pairwise transfer time.
type Objective struct{ Run, Transfer float64 }

// ObjEps is the relative difference below which two runs are equal: well
// above float64 rounding of sums over millions of pairs (1e-16 each),
// well below any gain worth reporting.
const ObjEps = 1e-9

// Better reports whether a is a better objective than b.
func (a Objective) Better(b Objective) bool {
	tol := ObjEps * math.Max(math.Abs(b.Run), 1e-30)
	if a.Run < b.Run-tol {
		return true
	}
	if a.Run > b.Run+tol {
		return false
	}
	return a.Transfer < b.Transfer-ObjEps*math.Abs(b.Transfer)
}

// Evaluator keeps the model's per-rank and per-node quantities of one
// placement so that exchanging two ranks is priced from their neighbours
// and the two nodes' ranks only: each rank's pairwise time on and off its
// node, each node's bytes out, in and between its own ranks, each node's
// slowest rank in a max-tree.
type Evaluator struct {
	md       *Model
	t        *Traffic
	base     []float64 // per rank: the time placement does not change (nil: 0)
	place    []int32   // rank -> slot (the caller's slice, changed by Swap)
	r        rankParts
	n        nodeLoads
	g        *groupLoads // nil when no switch uplink is priced
	net      *links.Net  // the links priced one by one (nil: none)
	wire     []float64   // per edge, the factor on its bytes between nodes (Machine.wireFactors; nil: 1)
	transfer float64
	tch      touchSet
}

// rankParts are the evaluator's per-rank quantities.
type rankParts struct {
	node      []int32   // rank -> node
	pOn, pOff []float64 // pairwise transfer time on / off its node
	nOn, nOff []int32   // number of peers on / off its node
	pos       []int32   // rank -> index in nodeLoads.members[node]
	// moved marks the ranks of the exchanges moveAll makes (stamp
	// mepoch), listed in movedRanks; undo is undoAll's reversed pairs.
	moved, movedRanks []int32
	mepoch            int32
	undo              [][2]int32
}

// nodeLoads are the evaluator's per-node quantities.
type nodeLoads struct {
	out, in, mem []float64    // bytes sent off, received, moved inside
	members      [][]int32    // node -> its ranks
	tree         maxtree.Tree // its slowest rank's run
}

// groupLoads are the evaluator's per switch group quantities, by switch
// level (Machine.NetGroups): the bytes leaving and entering each group,
// each rank's neighbours outside its group, and for the slowest run a
// rank bound by its group's uplinks could have: per group, over its
// nodes, the largest fixed time of a rank with traffic leaving the
// group (node[k][g], a tree per group, at each node's slot in it), and
// over the groups that plus the group's uplink time (top[k]). A rank's
// run is max(its node-local run, fixed + its groups' uplink times; its
// on-node part overlaps them, factors.Overlap): the max splits, so a
// group's uplink load changes its group's one value, never its ranks'
// runs one by one.
type groupLoads struct {
	of      [][]int32        // level -> node -> group
	out, in [][]float64      // level -> group -> bytes
	cross   [][]int32        // level -> rank -> neighbours outside its group
	node    [][]maxtree.Tree // level -> group -> over its nodes
	slot    [][]int32        // level -> node -> its place in its group's tree
	members [][][]int32      // level -> group -> its nodes
	top     []maxtree.Tree   // level -> over the groups
	// level -> g*groups+h -> bytes from group g to its sibling h (nil:
	// the level's sibling links are not priced).
	pair [][]float64
}

// groupRef names switch level k's group g.
type groupRef struct{ k, g int32 }

// touchSet collects the nodes one exchange touches, once each, with
// their slowest rank's run before it, and the switch groups it touches
// with their values before.
type touchSet struct {
	stamp   []int32 // per node: last epoch it was touched
	epoch   int32
	touched []int32
	before  []float64
	// Try's copy of touched and before.
	savedNodes []int32
	saved      []float64
	// groups: the groups touched (once each: gstamp per level and
	// group) with their top value and their nodes' values before.
	gstamp      [][]int32
	groups      []groupRef
	gbefore     []float64
	nodeBefore  [][]float64 // per touched node (by touched index): per level
	savedGroups []groupRef
	savedG      []float64
	savedNodeC  [][]float64
}

// NewEvaluator prices place (rank -> slot) under md; base may be nil.
func NewEvaluator(md *Model, t *Traffic, base []float64, place []int32) *Evaluator {
	return newEvaluator(md, t, base, place, false)
}

// PlacementObjective is NewEvaluator(md, t, base, place).Objective(),
// without what an exchange needs (links.Loads' flat).
func PlacementObjective(md *Model, t *Traffic, base []float64, place []int32) Objective {
	return newEvaluator(md, t, base, place, true).Objective()
}

// newEvaluator is NewEvaluator; flat, for a placement that is priced and
// never exchanged.
func newEvaluator(md *Model, t *Traffic, base []float64, place []int32, flat bool) *Evaluator {
	k := len(md.Hosts)
	ev := &Evaluator{md: md, t: t, base: base, place: place,
		r: rankParts{node: make([]int32, t.N), pOn: make([]float64, t.N), pOff: make([]float64, t.N),
			nOn: make([]int32, t.N), nOff: make([]int32, t.N), pos: make([]int32, t.N)},
		n:   nodeLoads{out: make([]float64, k), in: make([]float64, k), mem: make([]float64, k), members: make([][]int32, k), tree: maxtree.New(k)},
		tch: touchSet{stamp: make([]int32, k)}}
	ev.g = newGroupLoads(md, t.N, &ev.tch)
	ev.wire = md.wireFactors(t)
	ev.net = links.New(md.Routes, md.Ports, md.near, t.N, t.Start, t.Adj, flat)
	ev.net.Walkable(ev.flowNodes)
	for r, s := range place {
		n := int32(md.Slots[s].Node)
		ev.r.node[r] = n
		ev.r.pos[r] = int32(len(ev.n.members[n]))
		ev.n.members[n] = append(ev.n.members[n], int32(r))
	}
	for u := int32(0); u < int32(t.N); u++ {
		for e := t.Start[u]; e < t.Start[u+1]; e++ {
			if t.Adj[e] > u {
				ev.edge(u, e, 1)
			}
		}
	}
	// A routed rank's off-node part is its costliest pair (partsWith):
	// known before the nodes' runs are.
	ev.net.PairsPriced(ev.offCost)
	for n := range ev.n.members {
		ev.n.tree.Set(n, ev.nodeRun(int32(n)))
	}
	ev.net.PriceAll(md.Scale[1])
	if ev.g != nil {
		for k, groups := range ev.g.members {
			for g := range groups {
				ev.g.top[k].Set(g, ev.groupRun(int32(k), int32(g)))
			}
		}
	}
	return ev
}

// newGroupLoads makes the switch groups' state of md's priced uplinks
// (nil when none is priced), with each group's tree over its nodes.
func newGroupLoads(md *Model, n int, tch *touchSet) *groupLoads {
	priced := false
	for _, u := range md.Uplinks {
		priced = priced || u.InvUp != nil
	}
	if !priced {
		return nil
	}
	of := md.NetGroups
	if len(of) > maxSwitchLevels {
		of = of[:maxSwitchLevels]
	}
	gl := &groupLoads{of: of}
	tch.gstamp = make([][]int32, len(of))
	for k := range of {
		ng := md.numGroups(k)
		members := make([][]int32, ng)
		slot := make([]int32, len(of[k]))
		for node, g := range of[k] {
			slot[node] = int32(len(members[g]))
			members[g] = append(members[g], int32(node))
		}
		trees := make([]maxtree.Tree, ng)
		for g := range trees {
			trees[g] = maxtree.New(len(members[g]))
		}
		gl.out, gl.in = append(gl.out, make([]float64, ng)), append(gl.in, make([]float64, ng))
		gl.cross = append(gl.cross, make([]int32, n))
		gl.node, gl.slot, gl.members = append(gl.node, trees), append(gl.slot, slot), append(gl.members, members)
		gl.top = append(gl.top, maxtree.New(ng))
		var pair []float64
		if k < len(md.Uplinks) && md.Uplinks[k].InvPair > 0 {
			pair = make([]float64, ng*ng)
		}
		gl.pair = append(gl.pair, pair)
		tch.gstamp[k] = make([]int32, ng)
	}
	return gl
}

// edge adds (sign 1) or removes (-1) the contribution of rank u's edge e.
func (ev *Evaluator) edge(u int32, e int32, sign float64) {
	t := ev.t
	v := t.Adj[e]
	c := sign * ev.md.EdgeCost(ev.place[u], ev.place[v], t, e)
	nu, nv := ev.r.node[u], ev.r.node[v]
	ev.transfer += c
	cnt := int32(sign)
	if nu == nv {
		ev.r.pOn[u] += c
		ev.r.pOn[v] += c
		ev.r.nOn[u] += cnt
		ev.r.nOn[v] += cnt
		ev.n.mem[nu] += sign * t.Bytes[e]
		return
	}
	ev.r.pOff[u] += c
	ev.r.pOff[v] += c
	ev.r.nOff[u] += cnt
	ev.r.nOff[v] += cnt
	out, in := ev.wireBytes(e)
	o, i := sign*out, sign*in
	ev.n.out[nu] += o
	ev.n.in[nu] += i
	ev.n.out[nv] += i
	ev.n.in[nv] += o
	ev.net.Flow(u, v, nu, nv, out, in, sign)
	if gl := ev.g; gl != nil {
		// The groups nest: once u and v share a level's group, they
		// share every group above it. (exchange touches both nodes, and
		// with them their groups.)
		for k, groups := range gl.of {
			gu, gv := groups[nu], groups[nv]
			if gu == gv {
				break
			}
			gl.out[k][gu] += o
			gl.in[k][gu] += i
			gl.out[k][gv] += i
			gl.in[k][gv] += o
			gl.cross[k][u] += cnt
			gl.cross[k][v] += cnt
			if p := gl.pair[k]; p != nil && (k+1 == len(gl.of) || gl.of[k+1][nu] == gl.of[k+1][nv]) {
				// Siblings: the link between them.
				ng := int32(len(gl.out[k]))
				p[gu*ng+gv] += o
				p[gv*ng+gu] += i
			}
		}
	}
}

// wireBytes are edge e's bytes each way as the links between nodes carry
// them (Machine.wireFactors).
func (ev *Evaluator) wireBytes(e int32) (out, in float64) {
	t := ev.t
	out, in = t.Out[e], t.Bytes[e]-t.Out[e]
	if ev.wire != nil {
		out, in = out*ev.wire[e], in*ev.wire[e]
	}
	return out, in
}

// parts are rank u's on-node and off-node communication times before
// calibration (each its pairwise time, raised to its node's memory or link
// time when that is larger), and whether its node raised either.
func (ev *Evaluator) parts(u int32) (on, off float64, bound bool) {
	mem, link := ev.nodeTimes(ev.r.node[u])
	return ev.partsWith(u, mem, link)
}

// nodeTimes are node n's memory and link times; on nodes that drive
// several links, its bytes to and from near nodes each over the links
// they spread over (links.Spread).
func (ev *Evaluator) nodeTimes(n int32) (mem, link float64) {
	out, in := ev.net.NodeBytes(n, ev.n.out[n], ev.n.in[n])
	return ev.md.memTime(n, ev.n.mem[n]), ev.md.linkTime(n, out, in)
}

// partsWith is parts with the node's memory and link times given.
func (ev *Evaluator) partsWith(u int32, mem, link float64) (on, off float64, bound bool) {
	on, off = math.Max(ev.r.pOn[u], 0), math.Max(ev.r.pOff[u], 0)
	if pm, ok := ev.net.PairMax(u); ok {
		off = pm
	}
	if ev.r.nOn[u] > 0 && mem > on {
		on, bound = mem, true
	}
	if ev.r.nOff[u] > 0 && link > off {
		off, bound = link, true
	}
	return on, off, bound
}

// fullParts is parts with the uplinks of the switch groups u's traffic
// leaves: the off-node part is raised to the slowest of them.
func (ev *Evaluator) fullParts(u int32) (on, off float64, bound bool) {
	on, off, bound = ev.parts(u)
	if up := ev.uplinkOf(u); up > off {
		off, bound = up, true
	}
	if lt := ev.net.LongT(u); lt > off {
		off, bound = lt, true
	}
	return on, off, bound
}

// uplinkOf is the longest uplink time of the switch groups rank u has
// traffic leaving (0 without priced uplinks).
func (ev *Evaluator) uplinkOf(u int32) float64 {
	gl := ev.g
	if gl == nil {
		return 0
	}
	up, n := 0.0, ev.r.node[u]
	for k := range gl.of {
		if gl.cross[k][u] > 0 {
			g := gl.of[k][n]
			up = math.Max(up, ev.groupTime(k, g))
		}
	}
	return up
}

// Comm is rank u's modelled communication time, and whether its node's
// link or memory or a switch group's uplinks (not its own transfers) set
// it.
func (ev *Evaluator) Comm(u int32) (float64, bool) {
	on, off, bound := ev.fullParts(u)
	return ev.scaled(on, off), bound
}

// scaled is communication of on-node and off-node parts, calibrated:
// the longer of the two (factors.Overlap).
func (ev *Evaluator) scaled(on, off float64) float64 {
	return factors.Overlap(ev.md.Scale[0]*on, ev.md.Scale[1]*off)
}

// fullRun is rank u's predicted run, Predict's per-rank figure: its
// fixed time plus communication with its node's link and memory and its
// switch groups' uplinks.
func (ev *Evaluator) fullRun(u int32) float64 {
	r, _ := ev.Comm(u)
	if ev.base != nil {
		r += ev.base[u]
	}
	return r
}

// runWith is rank u's node-local run (its fixed time plus communication
// without its groups' uplinks, given its node's memory and link times),
// and the fixed time an uplink-bound run keeps (on-node overlaps it).
func (ev *Evaluator) runWith(u int32, mem, link float64) (run, fixed float64) {
	on, off, _ := ev.partsWith(u, mem, link)
	if ev.base != nil {
		fixed = ev.base[u]
	}
	return fixed + ev.scaled(on, off), fixed
}

// nodeRun is the node-local run of node n's slowest rank (0 for an empty
// node), with the node's memory and link times computed once; with
// priced uplinks it also sets the node's value in each of its groups'
// trees.
func (ev *Evaluator) nodeRun(n int32) float64 {
	mem, link := ev.nodeTimes(n)
	best, gl := 0.0, ev.g
	var fixed [maxSwitchLevels]float64
	for _, u := range ev.n.members[n] {
		r, f := ev.runWith(u, mem, link)
		best = math.Max(best, r)
		ev.net.SetFixed(u, f)
		if gl != nil {
			for k := range gl.of {
				if gl.cross[k][u] > 0 {
					fixed[k] = math.Max(fixed[k], f)
				}
			}
		}
	}
	if gl != nil {
		for k := range gl.of {
			gl.node[k][gl.of[k][n]].Set(int(gl.slot[k][n]), fixed[k])
		}
	}
	return best
}

// maxSwitchLevels bounds the switch levels whose uplinks are priced (a
// fat tree of 100,000 nodes has 3 or 4).
const maxSwitchLevels = 8

// groupRun is the run of switch level k's group g's slowest rank bound
// by the group's uplinks: the largest fixed time of a rank with traffic
// leaving the group, plus the group's uplink time (0 when no
// rank's traffic leaves it: then no byte does either).
func (ev *Evaluator) groupRun(k, g int32) float64 {
	gl := ev.g
	return gl.node[k][g].Max() + ev.md.Scale[1]*ev.groupTime(int(k), g)
}

// groupTime is switch level k's group g's time on its uplinks and, where
// priced, on the busiest link to a sibling.
func (ev *Evaluator) groupTime(k int, g int32) float64 {
	gl := ev.g
	t := ev.md.uplinkTime(k, g, gl.out[k][g], gl.in[k][g])
	if p := gl.pair[k]; p != nil {
		ng := int32(len(gl.out[k]))
		most := 0.0
		for h := int32(0); h < ng; h++ {
			most = max(most, p[g*ng+h], p[h*ng+g])
		}
		t = max(t, most*ev.md.Uplinks[k].InvPair)
	}
	return t
}

func (ev *Evaluator) Objective() Objective {
	return Objective{ev.MaxRun(), ev.transfer}
}

// Critical is the rank with the largest run.
func (ev *Evaluator) Critical() int32 {
	n := ev.n.tree.Argmax()
	level, run := -1, ev.n.tree.Max()
	if gl := ev.g; gl != nil {
		for k := range gl.top {
			if v := gl.top[k].Max(); v > run {
				level, run = k, v
			}
		}
	}
	if lr, who, ok := ev.net.Slowest(); ok && lr > run {
		// A rank bound by a link its flows cross.
		return who
	}
	if level >= 0 {
		// A rank bound by its group's uplinks: on the group's node with
		// the largest fixed time of a rank leaving it.
		gl := ev.g
		g := gl.top[level].Argmax()
		n = gl.members[level][g][gl.node[level][g].Argmax()]
	}
	best, arg := -1.0, int32(-1)
	for _, u := range ev.n.members[n] {
		if level >= 0 && ev.g.cross[level][u] == 0 {
			continue
		}
		if r := ev.fullRun(u); r > best {
			best, arg = r, u
		}
	}
	return arg
}

func (ev *Evaluator) touch(n int32) {
	if ev.tch.stamp[n] != ev.tch.epoch {
		ev.tch.stamp[n] = ev.tch.epoch
		ev.tch.touched = append(ev.tch.touched, n)
		ev.tch.before = append(ev.tch.before, ev.n.tree.Value(int(n)))
		if gl := ev.g; gl != nil {
			x := len(ev.tch.touched) - 1
			if x == len(ev.tch.nodeBefore) {
				ev.tch.nodeBefore = append(ev.tch.nodeBefore, make([]float64, len(gl.of)))
			}
			for k := range gl.of {
				g := gl.of[k][n]
				ev.tch.nodeBefore[x][k] = gl.node[k][g].Value(int(gl.slot[k][n]))
				ev.touchGroup(int32(k), g)
			}
		}
	}
}

// touchGroup records switch level k's group g as touched by the
// exchange, with its value before.
func (ev *Evaluator) touchGroup(k, g int32) {
	if ev.tch.gstamp[k][g] != ev.tch.epoch {
		ev.tch.gstamp[k][g] = ev.tch.epoch
		ev.tch.groups = append(ev.tch.groups, groupRef{k, g})
		ev.tch.gbefore = append(ev.tch.gbefore, ev.g.top[k].Value(int(g)))
	}
}

// Swap exchanges the slots of ranks i and j and updates everything they
// change: their and their neighbours' pairwise times, the two nodes'
// bytes, the slowest rank of every node touched, and with priced uplinks
// the switch groups touched.
func (ev *Evaluator) Swap(i, j int32) {
	ev.begin()
	ev.move(i, j)
	ev.settle()
}

// SwapAll exchanges the slots of each pair of ranks in turn, as Swap
// does, but moves their transfers once (moveAll) and prices the nodes,
// switch groups and links the exchanges touch once, after the last: a
// whole node exchanged costs one pricing of each node it touches, not
// one per rank.
func (ev *Evaluator) SwapAll(pairs [][2]int32) {
	ev.begin()
	ev.moveAll(pairs)
	ev.settle()
}

// settle prices the nodes, switch groups and links the exchanges since
// begin touched.
func (ev *Evaluator) settle() {
	for _, n := range ev.tch.touched {
		ev.n.tree.Set(int(n), ev.nodeRun(n))
	}
	for _, r := range ev.tch.groups {
		ev.g.top[r.k].Set(int(r.g), ev.groupRun(r.k, r.g))
	}
	ev.net.Reprice(ev.md.Scale[1])
}

// begin starts the exchanges whose touched nodes settle prices.
func (ev *Evaluator) begin() {
	ev.tch.epoch++
	ev.net.Begin()
	ev.tch.touched, ev.tch.before = ev.tch.touched[:0], ev.tch.before[:0]
	ev.tch.groups, ev.tch.gbefore = ev.tch.groups[:0], ev.tch.gbefore[:0]
}

// move exchanges the slots of ranks i and j and their pairs' costs,
// recording the nodes it touches.
func (ev *Evaluator) move(i, j int32) {
	t := ev.t
	for _, u := range [2]int32{i, j} {
		ev.touch(ev.r.node[u])
		for e := t.Start[u]; e < t.Start[u+1]; e++ {
			if v := t.Adj[e]; u == i || v != i {
				ev.edge(u, e, -1)
				ev.touch(ev.r.node[v])
			}
		}
	}
	ev.place1(i, j)
	for _, u := range [2]int32{i, j} {
		for e := t.Start[u]; e < t.Start[u+1]; e++ {
			if v := t.Adj[e]; u == i || v != i {
				ev.edge(u, e, 1)
			}
		}
	}
	// Only the moved ranks' edges changed cost, from either end.
	ev.net.Moved([]int32{i, j}, ev.offCost)
}

// place1 exchanges the slots of ranks i and j, and nothing else.
func (ev *Evaluator) place1(i, j int32) {
	ni, nj := ev.r.node[i], ev.r.node[j]
	ev.place[i], ev.place[j] = ev.place[j], ev.place[i]
	ev.r.node[i], ev.r.node[j] = nj, ni
	ev.n.members[ni][ev.r.pos[i]] = j
	ev.n.members[nj][ev.r.pos[j]] = i
	ev.r.pos[i], ev.r.pos[j] = ev.r.pos[j], ev.r.pos[i]
}

// moveAll is move of each pair in turn, made at once: every edge of a
// moved rank is taken off at the slots before and put back at the slots
// after, once (an edge between two moved ranks from its lower rank, as
// NewEvaluator adds it). Two whole nodes exchanged rank by rank would
// route each edge inside them across the network and back (its ends a
// node apart between their moves): on a declared dragonfly of 64-rank
// nodes that was most of the node exchanges' time.
func (ev *Evaluator) moveAll(pairs [][2]int32) {
	if len(pairs) == 1 {
		ev.move(pairs[0][0], pairs[0][1])
		return
	}
	r, t := &ev.r, ev.t
	r.mepoch++
	if r.moved == nil {
		r.moved = make([]int32, t.N)
	}
	ranks := r.movedRanks[:0]
	for _, p := range pairs {
		for _, u := range p {
			if r.moved[u] != r.mepoch {
				r.moved[u] = r.mepoch
				ranks = append(ranks, u)
			}
		}
	}
	r.movedRanks = ranks
	// each reports whether the moves price rank u's edge e (to v).
	each := func(u, e int32) bool { v := t.Adj[e]; return r.moved[v] != r.mepoch || v > u }
	for _, u := range ranks {
		ev.touch(r.node[u])
		for e := t.Start[u]; e < t.Start[u+1]; e++ {
			if each(u, e) {
				ev.edge(u, e, -1)
				ev.touch(r.node[t.Adj[e]])
			}
		}
	}
	for _, p := range pairs {
		ev.place1(p[0], p[1])
	}
	for _, u := range ranks {
		for e := t.Start[u]; e < t.Start[u+1]; e++ {
			if each(u, e) {
				ev.edge(u, e, 1)
			}
		}
	}
	ev.net.Moved(ranks, ev.offCost)
}

// flowNodes appends the nodes, from and to, of each of rank u's flows
// that edge sends through the network: to and from each peer off its
// node, each way that carries bytes.
func (ev *Evaluator) flowNodes(u int32, buf [][2]int32) [][2]int32 {
	t, nu := ev.t, ev.r.node[u]
	for e := t.Start[u]; e < t.Start[u+1]; e++ {
		nv := ev.r.node[t.Adj[e]]
		if nv == nu {
			continue
		}
		out, in := ev.wireBytes(e)
		if out > 0 {
			buf = append(buf, [2]int32{nu, nv})
		}
		if in > 0 {
			buf = append(buf, [2]int32{nv, nu})
		}
	}
	return buf
}

// undoAll undoes moveAll(pairs): the same exchanges in reverse order.
func (ev *Evaluator) undoAll(pairs [][2]int32) {
	rev := append(ev.r.undo[:0], pairs...)
	slices.Reverse(rev)
	ev.r.undo = rev
	ev.moveAll(rev)
}

// offCost is the cost of rank u's edge e if it leaves u's node, else 0:
// on a routed network a rank's transfers to several partners overlap,
// up to what the links they cross carry (netload prices the links), so
// its off-node part is its costliest (PairMax).
func (ev *Evaluator) offCost(u, e int32) float64 {
	if v := ev.t.Adj[e]; ev.r.node[v] != ev.r.node[u] {
		return ev.md.EdgeCost(ev.place[u], ev.place[v], ev.t, e)
	}
	return 0
}

// Try prices exchanging i and j without keeping it: it exchanges them,
// then exchanges them back and restores the touched nodes' runs as they
// were (not recomputed).
func (ev *Evaluator) Try(i, j int32) Objective {
	p := [1][2]int32{{i, j}}
	return ev.TryAll(p[:])
}

// TryAll is Try of SwapAll's exchanges: the whole-node exchanges the
// solver prices one after another.
func (ev *Evaluator) TryAll(pairs [][2]int32) Objective {
	ev.net.Trying(true)
	ev.SwapAll(pairs)
	o := ev.Objective()
	// The second exchange touches the same nodes (in another order) and
	// would record the runs Swap set: keep the runs from before.
	tc := &ev.tch
	tc.savedNodes = append(tc.savedNodes[:0], tc.touched...)
	tc.saved = append(tc.saved[:0], tc.before...)
	gl := ev.g
	if gl != nil {
		tc.savedGroups = append(tc.savedGroups[:0], tc.groups...)
		tc.savedG = append(tc.savedG[:0], tc.gbefore...)
		for len(tc.savedNodeC) < len(tc.touched) {
			tc.savedNodeC = append(tc.savedNodeC, make([]float64, len(gl.of)))
		}
		for x := range tc.touched {
			copy(tc.savedNodeC[x], tc.nodeBefore[x])
		}
	}
	ev.net.Keep()
	ev.begin()
	ev.undoAll(pairs)
	ev.net.Restore()
	ev.net.Trying(false)
	for x, n := range tc.savedNodes {
		ev.n.tree.Set(int(n), tc.saved[x])
		if gl != nil {
			for k := range gl.of {
				gl.node[k][gl.of[k][n]].Set(int(gl.slot[k][n]), tc.savedNodeC[x][k])
			}
		}
	}
	for x, r := range tc.savedGroups {
		gl.top[r.k].Set(int(r.g), tc.savedG[x])
	}
	return o
}

// MaxRun is the slowest rank's run.
func (ev *Evaluator) MaxRun() float64 {
	run := ev.n.tree.Max()
	if gl := ev.g; gl != nil {
		for k := range gl.top {
			run = math.Max(run, gl.top[k].Max())
		}
	}
	if lr, _, ok := ev.net.Slowest(); ok {
		run = math.Max(run, lr)
	}
	return run
}

// Node is the node rank u is on.
func (ev *Evaluator) Node(u int32) int32 { return ev.r.node[u] }

// Members are node n's ranks (the evaluator's slice: do not change it).
func (ev *Evaluator) Members(n int32) []int32 { return ev.n.members[n] }

// Pairwise is rank u's pairwise transfer time, on and off its node,
// before contention and calibration.
func (ev *Evaluator) Pairwise(u int32) float64 { return ev.r.pOn[u] + ev.r.pOff[u] }

// Transfer is the summed pairwise transfer time.
func (ev *Evaluator) Transfer() float64 { return ev.transfer }
