package model

import "math"

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
	transfer float64
	tch      touchSet
}

// rankParts are the evaluator's per-rank quantities.
type rankParts struct {
	node      []int32   // rank -> node
	pOn, pOff []float64 // pairwise transfer time on / off its node
	nOn, nOff []int32   // number of peers on / off its node
	pos       []int32   // rank -> index in nodeLoads.members[node]
}

// nodeLoads are the evaluator's per-node quantities.
type nodeLoads struct {
	out, in, mem []float64 // bytes sent off, received, moved inside
	members      [][]int32 // node -> its ranks
	tree         maxTree   // its slowest rank's run
}

// touchSet collects the nodes one exchange touches, once each, with
// their slowest rank's run before it.
type touchSet struct {
	stamp   []int32 // per node: last epoch it was touched
	epoch   int32
	touched []int32
	before  []float64
	// Try's copy of touched and before.
	savedNodes []int32
	saved      []float64
}

// NewEvaluator prices place (rank -> slot) under md; base may be nil.
func NewEvaluator(md *Model, t *Traffic, base []float64, place []int32) *Evaluator {
	k := len(md.Hosts)
	ev := &Evaluator{md: md, t: t, base: base, place: place,
		r: rankParts{node: make([]int32, t.N), pOn: make([]float64, t.N), pOff: make([]float64, t.N),
			nOn: make([]int32, t.N), nOff: make([]int32, t.N), pos: make([]int32, t.N)},
		n:   nodeLoads{out: make([]float64, k), in: make([]float64, k), mem: make([]float64, k), members: make([][]int32, k), tree: newMaxTree(k)},
		tch: touchSet{stamp: make([]int32, k)}}
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
	for n := range ev.n.members {
		ev.n.tree.set(n, ev.nodeRun(int32(n)))
	}
	return ev
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
	o, i := sign*t.Out[e], sign*(t.Bytes[e]-t.Out[e])
	ev.n.out[nu] += o
	ev.n.in[nu] += i
	ev.n.out[nv] += i
	ev.n.in[nv] += o
}

// parts are rank u's on-node and off-node communication times before
// calibration (each its pairwise time, raised to its node's memory or link
// time when that is larger), and whether its node raised either.
func (ev *Evaluator) parts(u int32) (on, off float64, bound bool) {
	mem, link := ev.nodeTimes(ev.r.node[u])
	return ev.partsWith(u, mem, link)
}

// nodeTimes are node n's memory and link times.
func (ev *Evaluator) nodeTimes(n int32) (mem, link float64) {
	return ev.md.memTime(n, ev.n.mem[n]), ev.md.linkTime(n, ev.n.out[n], ev.n.in[n])
}

// partsWith is parts with the node's memory and link times given.
func (ev *Evaluator) partsWith(u int32, mem, link float64) (on, off float64, bound bool) {
	on, off = math.Max(ev.r.pOn[u], 0), math.Max(ev.r.pOff[u], 0)
	if ev.r.nOn[u] > 0 && mem > on {
		on, bound = mem, true
	}
	if ev.r.nOff[u] > 0 && link > off {
		off, bound = link, true
	}
	return on, off, bound
}

// Comm is rank u's modelled communication time, and whether its node's
// link or memory (not its own transfers) sets it.
func (ev *Evaluator) Comm(u int32) (float64, bool) {
	on, off, bound := ev.parts(u)
	return ev.scaled(on, off), bound
}

// scaled is communication of on-node and off-node parts, calibrated.
func (ev *Evaluator) scaled(on, off float64) float64 {
	return ev.md.Scale[0]*on + ev.md.Scale[1]*off
}

// rankRun is rank u's predicted run: its fixed time plus communication.
func (ev *Evaluator) rankRun(u int32) float64 {
	mem, link := ev.nodeTimes(ev.r.node[u])
	return ev.runWith(u, mem, link)
}

// runWith is rankRun with u's node's memory and link times given.
func (ev *Evaluator) runWith(u int32, mem, link float64) float64 {
	on, off, _ := ev.partsWith(u, mem, link)
	c := ev.scaled(on, off)
	if ev.base != nil {
		c += ev.base[u]
	}
	return c
}

// nodeRun is the run of node n's slowest rank (0 for an empty node), with
// the node's memory and link times computed once.
func (ev *Evaluator) nodeRun(n int32) float64 {
	mem, link := ev.nodeTimes(n)
	best := 0.0
	for _, u := range ev.n.members[n] {
		best = math.Max(best, ev.runWith(u, mem, link))
	}
	return best
}

func (ev *Evaluator) Objective() Objective {
	return Objective{ev.n.tree.max(), ev.transfer}
}

// Critical is the rank with the largest run.
func (ev *Evaluator) Critical() int32 {
	n := ev.n.tree.argmax()
	best, arg := -1.0, int32(-1)
	for _, u := range ev.n.members[n] {
		if r := ev.rankRun(u); r > best {
			best, arg = r, u
		}
	}
	return arg
}

func (ev *Evaluator) touch(n int32) {
	if ev.tch.stamp[n] != ev.tch.epoch {
		ev.tch.stamp[n] = ev.tch.epoch
		ev.tch.touched = append(ev.tch.touched, n)
		ev.tch.before = append(ev.tch.before, ev.n.tree.value(int(n)))
	}
}

// Swap exchanges the slots of ranks i and j and updates everything they
// change: their and their neighbours' pairwise times, the two nodes'
// bytes, and the slowest rank of every node touched.
func (ev *Evaluator) Swap(i, j int32) {
	ev.exchange(i, j)
	for _, n := range ev.tch.touched {
		ev.n.tree.set(int(n), ev.nodeRun(n))
	}
}

// exchange is Swap without the nodes' slowest runs: it leaves the
// touched nodes (and their runs before) in ev.tch.
func (ev *Evaluator) exchange(i, j int32) {
	t := ev.t
	ev.tch.epoch++
	ev.tch.touched, ev.tch.before = ev.tch.touched[:0], ev.tch.before[:0]
	for _, u := range [2]int32{i, j} {
		ev.touch(ev.r.node[u])
		for e := t.Start[u]; e < t.Start[u+1]; e++ {
			if v := t.Adj[e]; u == i || v != i {
				ev.edge(u, e, -1)
				ev.touch(ev.r.node[v])
			}
		}
	}
	ni, nj := ev.r.node[i], ev.r.node[j]
	ev.place[i], ev.place[j] = ev.place[j], ev.place[i]
	ev.r.node[i], ev.r.node[j] = nj, ni
	ev.n.members[ni][ev.r.pos[i]] = j
	ev.n.members[nj][ev.r.pos[j]] = i
	ev.r.pos[i], ev.r.pos[j] = ev.r.pos[j], ev.r.pos[i]
	for _, u := range [2]int32{i, j} {
		for e := t.Start[u]; e < t.Start[u+1]; e++ {
			if v := t.Adj[e]; u == i || v != i {
				ev.edge(u, e, 1)
			}
		}
	}
}

// Try prices exchanging i and j without keeping it: it exchanges them,
// then exchanges them back and restores the touched nodes' runs as they
// were (not recomputed).
func (ev *Evaluator) Try(i, j int32) Objective {
	ev.Swap(i, j)
	o := ev.Objective()
	// The second exchange touches the same nodes (in another order) and
	// would record the runs Swap set: keep the runs from before.
	ev.tch.savedNodes = append(ev.tch.savedNodes[:0], ev.tch.touched...)
	ev.tch.saved = append(ev.tch.saved[:0], ev.tch.before...)
	ev.exchange(i, j)
	for x, n := range ev.tch.savedNodes {
		ev.n.tree.set(int(n), ev.tch.saved[x])
	}
	return o
}

// maxTree is a tournament tree: the largest of k values and where it is.
type maxTree struct {
	size int
	v    []float64
	at   []int32
}

func newMaxTree(k int) maxTree {
	size := 1
	for size < k {
		size *= 2
	}
	t := maxTree{size: size, v: make([]float64, 2*size), at: make([]int32, 2*size)}
	for i := 0; i < size; i++ {
		t.at[size+i] = int32(i)
	}
	for p := size - 1; p >= 1; p-- {
		t.at[p] = t.at[2*p]
	}
	return t
}

func (t *maxTree) set(i int, x float64) {
	p := t.size + i
	t.v[p] = x
	for p /= 2; p >= 1; p /= 2 {
		l, r := 2*p, 2*p+1
		if t.v[r] > t.v[l] {
			t.v[p], t.at[p] = t.v[r], t.at[r]
		} else {
			t.v[p], t.at[p] = t.v[l], t.at[l]
		}
	}
}

func (t *maxTree) max() float64 { return t.v[1] }

// value is value i.
func (t *maxTree) value(i int) float64 { return t.v[t.size+i] }

func (t *maxTree) argmax() int32 { return t.at[1] }

// MaxRun is the slowest rank's run.
func (ev *Evaluator) MaxRun() float64 { return ev.n.tree.max() }

// Node is the node rank u is on.
func (ev *Evaluator) Node(u int32) int32 { return ev.r.node[u] }

// Members are node n's ranks (the evaluator's slice: do not change it).
func (ev *Evaluator) Members(n int32) []int32 { return ev.n.members[n] }

// Pairwise is rank u's pairwise transfer time, on and off its node,
// before contention and calibration.
func (ev *Evaluator) Pairwise(u int32) float64 { return ev.r.pOn[u] + ev.r.pOff[u] }

// Transfer is the summed pairwise transfer time.
func (ev *Evaluator) Transfer() float64 { return ev.transfer }
