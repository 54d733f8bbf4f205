package model

import (
	"github.com/latmap/latmap/internal/maxtree"
)

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
	// longT is each rank's longest link time, longL that link (-1: none).
	longT []float64
	longL []int32
	fixed []float64
	// pairMax is each rank's costliest transfer off its node: its
	// off-node time before the links (not the sum of its transfers).
	pairMax []float64
	tree    maxtree.Tree
	// The links an exchange changed (once each) and their loads before
	// (lold, by link), and the ranks it re-priced with their values
	// before; a rank whose own flows moved (full) is priced again from
	// all its links, the others from the links that changed.
	lstamp, nstamp, fstamp []int32
	epoch                  int32
	dirty, changed         []int32
	lold                   []float64
	saved                  []netSaved
	kept                   []netSaved // Try's copy of saved
}

// netSaved is a rank's values before an exchange.
type netSaved struct {
	n            int32 // the rank
	longL        int32
	longT, fixed float64
	value        float64
}

// newNetLoads makes the state of n ranks (nil without routes).
func newNetLoads(rt *Routes, n int) *netLoads {
	if rt == nil {
		return nil
	}
	return &netLoads{rt: rt, load: make([]float64, rt.nl), cross: make([]int32, n*rt.nl), longT: make([]float64, n), longL: make([]int32, n), fixed: make([]float64, n), pairMax: make([]float64, n),
		tree: maxtree.New(n), lstamp: make([]int32, rt.nl), lold: make([]float64, rt.nl), nstamp: make([]int32, n), fstamp: make([]int32, n)}
}

// flow adds (sign 1) or removes (-1) bytes from rank u on node a to rank
// v on node b; both ranks wait for the links it crosses.
func (nl *netLoads) flow(u, v, a, b int32, bytes, sign float64) {
	if bytes <= 0 {
		return
	}
	w, cnt := sign*bytes, int32(sign)
	nl.save(u, true)
	nl.save(v, true)
	ra, rb, at := int(u)*nl.rt.nl, int(v)*nl.rt.nl, int(nl.rt.start[int(a)*nl.rt.k+int(b)])
	for i, l := range nl.rt.path(a, b) {
		x := w
		if nl.rt.share != nil {
			x *= float64(nl.rt.share[at+i])
		}
		if nl.lstamp[l] != nl.epoch {
			nl.lstamp[l], nl.lold[l] = nl.epoch, nl.load[l]
			nl.dirty = append(nl.dirty, l)
		}
		nl.load[l] += x
		nl.cross[ra+int(l)] += cnt
		nl.cross[rb+int(l)] += cnt
	}
}

// linkTime is link l's time to carry its load (a load rounded below 0
// is none). Plain comparisons, not math.Max: this is the evaluator's
// innermost loop, and loads are never NaN.
func (nl *netLoads) linkTime(l int) float64 {
	if x := nl.load[l]; x > 0 {
		return x * nl.rt.Inv[l]
	}
	return 0
}

// longest is the longest time of a link rank n's flows cross, and that
// link (-1: none).
func (nl *netLoads) longest(n int32) (float64, int32) {
	best, arg, row := 0.0, int32(-1), nl.cross[int(n)*nl.rt.nl:int(n+1)*nl.rt.nl]
	for l, c := range row {
		if c > 0 {
			if t := nl.linkTime(l); t > best || arg < 0 {
				best, arg = t, int32(l)
			}
		}
	}
	return best, arg
}

// longer is longest for a rank whose flows stayed where they were: the
// longer of its longest link's time and those of the links the exchange
// changed that it crosses, unless its longest link got shorter (then
// all its links).
func (nl *netLoads) longer(n int32, changed []int32) (float64, int32) {
	arg := nl.longL[n]
	if arg < 0 || nl.lstamp[arg] == nl.epoch && nl.load[arg] < nl.lold[arg] {
		return nl.longest(n)
	}
	best, row := nl.linkTime(int(arg)), nl.cross[int(n)*nl.rt.nl:int(n+1)*nl.rt.nl]
	for _, l := range changed {
		if row[l] > 0 {
			if t := nl.linkTime(int(l)); t > best {
				best, arg = t, l
			}
		}
	}
	return best, arg
}

// value is rank n's bound on its run.
func (nl *netLoads) value(n int32, scale float64) float64 {
	if nl.longT[n] == 0 {
		return 0
	}
	return nl.fixed[n] + scale*nl.longT[n]
}

// save records rank n's values once per exchange (before nodeRun
// changes its fixed time: touch saves a node's ranks first, flow the
// ranks whose flows it moves, both full).
func (nl *netLoads) save(n int32, full bool) {
	if nl.nstamp[n] != nl.epoch {
		nl.nstamp[n] = nl.epoch
		nl.saved = append(nl.saved, netSaved{n, nl.longL[n], nl.longT[n], nl.fixed[n], nl.tree.Value(int(n))})
	}
	if full {
		nl.fstamp[n] = nl.epoch
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
	// Only the links whose load changed re-price the ranks that cross
	// them (a flow moved off a link and another onto it leaves it as it
	// was); the ranks whose own flows moved are saved already.
	changed := nl.changed[:0]
	for _, l := range nl.dirty {
		if nl.load[l] != nl.lold[l] {
			changed = append(changed, l)
		}
	}
	nl.changed = changed
	for _, l := range changed {
		for n := int32(0); n < k; n++ {
			if nl.cross[int(n)*nl.rt.nl+int(l)] > 0 {
				nl.save(n, false)
			}
		}
	}
	for _, s := range nl.saved {
		if nl.fstamp[s.n] == nl.epoch {
			nl.longT[s.n], nl.longL[s.n] = nl.longest(s.n)
		} else {
			nl.longT[s.n], nl.longL[s.n] = nl.longer(s.n, changed)
		}
		if v := nl.value(s.n, scale); v != s.value {
			nl.tree.Set(int(s.n), v)
		}
	}
}

// restore puts back the values saved (Try's kept copy).
func (nl *netLoads) restore() {
	for _, s := range nl.kept {
		nl.longT[s.n], nl.longL[s.n], nl.fixed[s.n] = s.longT, s.longL, s.fixed
		nl.tree.Set(int(s.n), s.value)
	}
}
