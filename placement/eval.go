package placement

import "math"

// objective is what the solver minimises: the predicted run (the slowest
// rank's fixed time plus its modelled communication), then, as the
// tie-break, the summed pairwise transfer time.
type objective struct{ Run, Transfer float64 }

// objEps is the relative difference below which two runs are equal.
const objEps = 1e-9

// better reports whether a is a better objective than b.
func (a objective) better(b objective) bool {
	tol := objEps * math.Max(math.Abs(b.Run), 1e-30)
	if a.Run < b.Run-tol {
		return true
	}
	if a.Run > b.Run+tol {
		return false
	}
	return a.Transfer < b.Transfer-objEps*math.Abs(b.Transfer)
}

// evaluator keeps the model's per-rank and per-node quantities of one
// placement so that exchanging two ranks is priced from their neighbours
// and the two nodes' ranks only: each rank's pairwise time on and off its
// node, each node's bytes out, in and between its own ranks, each node's
// slowest rank in a max-tree.
type evaluator struct {
	md    *Model
	t     *Traffic
	base  []float64 // per rank: the time placement does not change (nil: 0)
	place []int32   // rank -> slot (the caller's slice, changed by swap)
	node  []int32   // rank -> node

	pOn, pOff []float64 // per rank pairwise transfer time on / off its node
	nOn, nOff []int32   // per rank number of peers on / off its node

	out, in, mem []float64 // per node: bytes sent off, received, moved inside
	members      [][]int32 // node -> its ranks
	pos          []int32   // rank -> index in members[node]
	tree         maxTree   // per node: its slowest rank's run
	transfer     float64

	stamp   []int32 // per node: last epoch it was touched
	epoch   int32
	touched []int32
}

// newEvaluator prices place (rank -> slot) under md; base may be nil.
func newEvaluator(md *Model, t *Traffic, base []float64, place []int32) *evaluator {
	k := len(md.Hosts)
	ev := &evaluator{md: md, t: t, base: base, place: place, node: make([]int32, t.N),
		pOn: make([]float64, t.N), pOff: make([]float64, t.N), nOn: make([]int32, t.N), nOff: make([]int32, t.N),
		out: make([]float64, k), in: make([]float64, k), mem: make([]float64, k),
		members: make([][]int32, k), pos: make([]int32, t.N), stamp: make([]int32, k), tree: newMaxTree(k)}
	for r, s := range place {
		n := int32(md.Slots[s].Node)
		ev.node[r] = n
		ev.pos[r] = int32(len(ev.members[n]))
		ev.members[n] = append(ev.members[n], int32(r))
	}
	for u := int32(0); u < int32(t.N); u++ {
		for e := t.Start[u]; e < t.Start[u+1]; e++ {
			if t.Adj[e] > u {
				ev.edge(u, e, 1)
			}
		}
	}
	for n := range ev.members {
		ev.tree.set(n, ev.nodeRun(int32(n)))
	}
	return ev
}

// edge adds (sign 1) or removes (-1) the contribution of rank u's edge e.
func (ev *evaluator) edge(u int32, e int32, sign float64) {
	t := ev.t
	v := t.Adj[e]
	c := sign * ev.md.pairCost(ev.place[u], ev.place[v], t.Msgs[e], t.Bytes[e])
	nu, nv := ev.node[u], ev.node[v]
	ev.transfer += c
	cnt := int32(sign)
	if nu == nv {
		ev.pOn[u] += c
		ev.pOn[v] += c
		ev.nOn[u] += cnt
		ev.nOn[v] += cnt
		ev.mem[nu] += sign * t.Bytes[e]
		return
	}
	ev.pOff[u] += c
	ev.pOff[v] += c
	ev.nOff[u] += cnt
	ev.nOff[v] += cnt
	o, i := sign*t.Out[e], sign*(t.Bytes[e]-t.Out[e])
	ev.out[nu] += o
	ev.in[nu] += i
	ev.out[nv] += i
	ev.in[nv] += o
}

// parts are rank u's on-node and off-node communication times before
// calibration (each its pairwise time, raised to its node's memory or link
// time when that is larger), and whether its node raised either.
func (ev *evaluator) parts(u int32) (on, off float64, bound bool) {
	n := ev.node[u]
	on, off = math.Max(ev.pOn[u], 0), math.Max(ev.pOff[u], 0)
	if ev.nOn[u] > 0 {
		if m := ev.md.memTime(n, ev.mem[n]); m > on {
			on, bound = m, true
		}
	}
	if ev.nOff[u] > 0 {
		if l := ev.md.linkTime(n, ev.out[n], ev.in[n]); l > off {
			off, bound = l, true
		}
	}
	return on, off, bound
}

// comm is rank u's modelled communication time, and whether its node's
// link or memory (not its own transfers) sets it.
func (ev *evaluator) comm(u int32) (float64, bool) {
	on, off, bound := ev.parts(u)
	return ev.md.Scale[0]*on + ev.md.Scale[1]*off, bound
}

// rankRun is rank u's predicted run: its fixed time plus communication.
func (ev *evaluator) rankRun(u int32) float64 {
	c, _ := ev.comm(u)
	if ev.base != nil {
		c += ev.base[u]
	}
	return c
}

// nodeRun is the run of node n's slowest rank (0 for an empty node).
func (ev *evaluator) nodeRun(n int32) float64 {
	best := 0.0
	for _, u := range ev.members[n] {
		best = math.Max(best, ev.rankRun(u))
	}
	return best
}

func (ev *evaluator) objective() objective {
	return objective{ev.tree.max(), ev.transfer}
}

// critical is the rank with the largest run.
func (ev *evaluator) critical() int32 {
	n := ev.tree.argmax()
	best, arg := -1.0, int32(-1)
	for _, u := range ev.members[n] {
		if r := ev.rankRun(u); r > best {
			best, arg = r, u
		}
	}
	return arg
}

func (ev *evaluator) touch(n int32) {
	if ev.stamp[n] != ev.epoch {
		ev.stamp[n] = ev.epoch
		ev.touched = append(ev.touched, n)
	}
}

// swap exchanges the slots of ranks i and j and updates everything they
// change: their and their neighbours' pairwise times, the two nodes'
// bytes, and the slowest rank of every node touched.
func (ev *evaluator) swap(i, j int32) {
	t := ev.t
	ev.epoch++
	ev.touched = ev.touched[:0]
	for _, u := range [2]int32{i, j} {
		ev.touch(ev.node[u])
		for e := t.Start[u]; e < t.Start[u+1]; e++ {
			if v := t.Adj[e]; u == i || v != i {
				ev.edge(u, e, -1)
				ev.touch(ev.node[v])
			}
		}
	}
	ni, nj := ev.node[i], ev.node[j]
	ev.place[i], ev.place[j] = ev.place[j], ev.place[i]
	ev.node[i], ev.node[j] = nj, ni
	ev.members[ni][ev.pos[i]] = j
	ev.members[nj][ev.pos[j]] = i
	ev.pos[i], ev.pos[j] = ev.pos[j], ev.pos[i]
	for _, u := range [2]int32{i, j} {
		for e := t.Start[u]; e < t.Start[u+1]; e++ {
			if v := t.Adj[e]; u == i || v != i {
				ev.edge(u, e, 1)
			}
		}
	}
	for _, n := range ev.touched {
		ev.tree.set(int(n), ev.nodeRun(n))
	}
}

// try prices exchanging i and j without keeping it.
func (ev *evaluator) try(i, j int32) objective {
	ev.swap(i, j)
	o := ev.objective()
	ev.swap(i, j)
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

func (t *maxTree) max() float64  { return t.v[1] }
func (t *maxTree) argmax() int32 { return t.at[1] }
