package model

import "math"

// netLoads are the evaluator's per-link and per-rank quantities of a
// routed network (Model.Routes): each link's bytes, how many of each
// rank's flows cross each link, and per rank the longest time of a link
// they cross and its fixed and on-node time. A rank's value, fixed +
// Scale[1] x its longest link time, bounds its run; an exchange
// re-routes only the moved ranks' flows, and re-prices the ranks whose
// flows cross a link whose load changed.
type netLoads struct {
	rt    *Routes
	load  []float64
	cross []int32 // rank*nl + link: the rank's flows crossing it
	longT []float64
	fixed []float64
	// pairMax is each rank's costliest transfer off its node: its
	// off-node time before the links (not the sum of its transfers).
	pairMax []float64
	tree    maxTree
	// The links an exchange changed (once each), and the nodes it
	// re-priced with their values before.
	lstamp, nstamp []int32
	epoch          int32
	dirty          []int32
	saved          []netSaved
	kept           []netSaved // Try's copy of saved
}

// netSaved is a rank's values before an exchange.
type netSaved struct {
	n            int32 // the rank
	longT, fixed float64
	value        float64
}

// newNetLoads makes the state of n ranks (nil without routes).
func newNetLoads(rt *Routes, n int) *netLoads {
	if rt == nil {
		return nil
	}
	return &netLoads{rt: rt, load: make([]float64, rt.nl), cross: make([]int32, n*rt.nl), longT: make([]float64, n), fixed: make([]float64, n), pairMax: make([]float64, n),
		tree: newMaxTree(n), lstamp: make([]int32, rt.nl), nstamp: make([]int32, n)}
}

// flow adds (sign 1) or removes (-1) bytes from rank u on node a to rank
// v on node b; both ranks wait for the links it crosses.
func (nl *netLoads) flow(u, v, a, b int32, bytes, sign float64) {
	if bytes <= 0 {
		return
	}
	w, cnt := sign*bytes, int32(sign)
	ra, rb := int(u)*nl.rt.nl, int(v)*nl.rt.nl
	for _, l := range nl.rt.path(a, b) {
		nl.load[l] += w
		nl.cross[ra+int(l)] += cnt
		nl.cross[rb+int(l)] += cnt
		if nl.lstamp[l] != nl.epoch {
			nl.lstamp[l] = nl.epoch
			nl.dirty = append(nl.dirty, l)
		}
	}
}

// linkTime is link l's time to carry its load.
func (nl *netLoads) linkTime(l int) float64 { return math.Max(nl.load[l], 0) * nl.rt.Inv[l] }

// longest is the longest time of a link rank n's flows cross.
func (nl *netLoads) longest(n int32) float64 {
	best, row := 0.0, nl.cross[int(n)*nl.rt.nl:int(n+1)*nl.rt.nl]
	for l, c := range row {
		if c > 0 {
			best = math.Max(best, nl.linkTime(l))
		}
	}
	return best
}

// value is rank n's bound on its run.
func (nl *netLoads) value(n int32, scale float64) float64 {
	if nl.longT[n] == 0 {
		return 0
	}
	return nl.fixed[n] + scale*nl.longT[n]
}

// save records rank n's values once per exchange (before nodeRun
// changes its fixed time: touch saves a node's ranks first).
func (nl *netLoads) save(n int32) {
	if nl.nstamp[n] != nl.epoch {
		nl.nstamp[n] = nl.epoch
		nl.saved = append(nl.saved, netSaved{n, nl.longT[n], nl.fixed[n], nl.tree.value(int(n))})
	}
}

// begin starts an exchange.
func (nl *netLoads) begin() {
	nl.epoch++
	nl.dirty, nl.saved = nl.dirty[:0], nl.saved[:0]
}

// reprice recomputes the ranks of the nodes the exchange touched (saved
// by touch, their fixed times set by nodeRun since) and the ranks whose
// flows cross a changed link.
func (nl *netLoads) reprice(scale float64) {
	k := int32(len(nl.longT))
	for _, l := range nl.dirty {
		for n := int32(0); n < k; n++ {
			if nl.cross[int(n)*nl.rt.nl+int(l)] > 0 {
				nl.save(n)
			}
		}
	}
	for _, s := range nl.saved {
		nl.longT[s.n] = nl.longest(s.n)
		nl.tree.set(int(s.n), nl.value(s.n, scale))
	}
}

// restore puts back the values saved (Try's kept copy).
func (nl *netLoads) restore() {
	for _, s := range nl.kept {
		nl.longT[s.n], nl.fixed[s.n] = s.longT, s.fixed
		nl.tree.set(int(s.n), s.value)
	}
}

// nodeSpread is what the evaluator keeps on nodes that drive several
// links at once (Model.Ports). The fan-out measured them to a node's
// nearest nodes, and only there do they hold: on a torus a farther node
// is reached over several hops whose links other nodes' traffic crosses
// too. So per node it keeps the bytes to and from its near nodes (within
// nearSlack of its nearest's round trip) apart: by node pair, with their
// sum and sum of squares, so that near bytes spread over d equal nodes
// count over d links (s1² / s2 of them, at most Ports) and one heavy
// node among light ones over about one; bytes to or from farther nodes
// go over one link.
type nodeSpread struct {
	k            int
	ports        float64
	near         [][]int32         // per node: its near nodes
	pair         map[int64]float64 // a*k+b: near bytes node a sends to node b
	s1out, s2out []float64         // per node: near bytes out, their sum of squares by peer
	s1in, s2in   []float64
}

// nearSlack is how much above a node's nearest node's round trip another
// node's may be and still be near (a torus's one-hop neighbours; its
// second hop is some 35% above the first).
const nearSlack = 1.15

func newNodeSpread(md *Model) *nodeSpread {
	k := len(md.Hosts)
	sp := &nodeSpread{k: k, ports: md.Ports, near: make([][]int32, k), pair: map[int64]float64{},
		s1out: make([]float64, k), s2out: make([]float64, k), s1in: make([]float64, k), s2in: make([]float64, k)}
	first := make([]int, k)
	for i := len(md.Slots) - 1; i >= 0; i-- {
		first[md.Slots[i].Node] = i
	}
	lat := make([]float64, k)
	for a := 0; a < k; a++ {
		best := math.Inf(1)
		for b := 0; b < k; b++ {
			if b != a {
				lat[b] = md.Link(first[a], first[b]).Latency
				best = math.Min(best, lat[b])
			}
		}
		for b := 0; b < k; b++ {
			if b != a && lat[b] <= nearSlack*best {
				sp.near[a] = append(sp.near[a], int32(b))
			}
		}
	}
	return sp
}

// isNear reports whether node b is near node a.
func (sp *nodeSpread) isNear(a, b int32) bool {
	for _, x := range sp.near[a] {
		if x == b {
			return true
		}
	}
	return false
}

// add adds x bytes (negative: removes) from node a to node b.
func (sp *nodeSpread) add(a, b int32, x float64) {
	nearOut, nearIn := sp.isNear(a, b), sp.isNear(b, a)
	if x == 0 || !nearOut && !nearIn {
		return
	}
	key := int64(a)*int64(sp.k) + int64(b)
	old := sp.pair[key]
	nw := old + x
	if math.Abs(nw) <= 1e-9*math.Abs(x) {
		nw = 0 // what was added is removed: no rounding left behind
	}
	d := nw*nw - old*old
	if nearOut {
		sp.s1out[a] += x
		sp.s2out[a] += d
	}
	if nearIn {
		sp.s1in[b] += x
		sp.s2in[b] += d
	}
	if nw == 0 {
		delete(sp.pair, key)
	} else {
		sp.pair[key] = nw
	}
}

// bytes is what total bytes of which near are to or from near nodes (sum
// of squares by node s2) weigh on one link: the near bytes over the links
// they spread over, and the rest as they are.
func (sp *nodeSpread) bytes(total, near, s2 float64) float64 {
	if near <= 0 || s2 <= 0 {
		return total
	}
	links := math.Max(1, math.Min(sp.ports, near*near/s2))
	return near/links + math.Max(total-near, 0)
}
