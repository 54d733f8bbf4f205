package links

import (
	"slices"

	"github.com/latmap/latmap/internal/maxtree"
)

// Table is the routes between a machine's nodes and each link's
// capacity: the route from node a to node b is
// Links[Start[a*K+b]:Start[a*K+b+1]], each carrying Share of the bytes
// (nil: all of them); NL links, Inv[l] seconds per byte (0: not
// limited). Reverse is the share of a flow's bytes the route back
// carries as it flows (fabric.Fabric's). A Table too large to hold
// every route (Start nil) computes them as first used (lazy), into each
// user's own PathCache.
type Table struct {
	K, NL        int
	Start, Links []int32
	Share        []float32
	Inv          []float64
	Reverse      float64
	lazy         func(a, b int32, visit func(l int32, share float64))
}

// Path is the route from node a to node b.
func (t *Table) Path(a, b int32) []int32 {
	if t.Start == nil {
		var c PathCache
		links, _ := t.Route(&c, a, b)
		return links
	}
	i := int(a)*t.K + int(b)
	return t.Links[t.Start[i]:t.Start[i+1]]
}

// PathCache keeps the routes of a lazy Table one user (an evaluator, a
// fluid sharing) has used: a map by node pair into one array of links,
// so that memory grows with the node pairs that carry traffic, not with
// nodes squared.
type PathCache struct {
	idx   map[int64]int32
	start []int32
	links []int32
	share []float32 // nil while every share is 1
}

// Route is the route from node a to node b and each link's share of the
// bytes (nil: all), from the table, or on a lazy table computed once
// into c.
func (t *Table) Route(c *PathCache, a, b int32) ([]int32, []float32) {
	if t.Start != nil {
		i := int(a)*t.K + int(b)
		s, e := t.Start[i], t.Start[i+1]
		if t.Share == nil {
			return t.Links[s:e], nil
		}
		return t.Links[s:e], t.Share[s:e]
	}
	key := int64(a)*int64(t.K) + int64(b)
	if c.idx == nil {
		c.idx, c.start = map[int64]int32{}, []int32{0}
	}
	k, ok := c.idx[key]
	if !ok {
		t.lazy(a, b, func(l int32, x float64) {
			if x != 1 && c.share == nil {
				c.share = slices.Repeat([]float32{1}, len(c.links))
			}
			if c.links = append(c.links, l); c.share != nil {
				c.share = append(c.share, float32(x))
			}
		})
		k = int32(len(c.start) - 1)
		c.start = append(c.start, int32(len(c.links)))
		c.idx[key] = k
	}
	s, e := c.start[k], c.start[k+1]
	if c.share == nil {
		return c.links[s:e], nil
	}
	return c.links[s:e], c.share[s:e]
}

// Loads are the evaluator's per-link and per-rank quantities of a
// routed network (model.Routes' Table): each link's bytes, how many of
// each rank's flows cross each link, and per rank the longest time of a
// link they cross and its fixed time (the rest of its run, set by the
// evaluator). A rank's value, Fixed + scale x its longest link time,
// bounds its run; an exchange re-routes only the moved ranks' flows,
// and re-prices the ranks whose flows cross a link whose load changed.
type Loads struct {
	rt   *Table
	load []float64
	// LongT is each rank's longest link time, longL that link (-1: none).
	LongT []float64
	longL []int32
	Fixed []float64
	// PairMax is each rank's costliest transfer off its node: its
	// off-node time before the links (not the sum of its transfers).
	PairMax []float64
	Pairs   *Pairs // PairMax's transfers (set by the evaluator)
	Tree    maxtree.Tree
	exchange
	crossing
	paths PathCache // a lazy table's routes used
	// flat: no crossing index, for a placement priced once and never
	// exchanged (a start's objective, a prediction): Flow keeps the
	// flows, and PriceAll walks their routes once. Indexing each flow's
	// links was most of pricing a start on 4,096 nodes of 4 ranks.
	flat  bool
	flows []flatFlow
	walking
}

// walking is how an exchange that is tried and undone (Evaluator.TryAll)
// prices the ranks whose flows it moves without indexing them: while
// trying, a light rank's flows (walkDegree peers or fewer) are not
// marked in the crossing, and when it is re-priced its longest link is
// found by walking its flows' routes (nodes lists them); a heavier rank
// is marked as before. The marks of a try and its undo cancel, so the
// index after the try is as before it, and on a 1,024-rank dragonfly
// marking was a fifth of place's time (each mark a miss in an index of
// ranks x links).
type walking struct {
	trying bool
	nodes  func(n int32, buf [][2]int32) [][2]int32 // n's flows' nodes, from and to
	buf    [][2]int32
}

// walkDegree is the most peers a rank may have to be priced by walking
// its flows while trying: walking costs its flows' hops where its index
// is its links once each, and a rank with hundreds of peers on the
// same few links would walk them again and again.
const walkDegree = 32

// walked reports whether rank n is priced by walking while trying.
func (nl *Loads) walked(n int32) bool {
	return nl.trying && nl.nodes != nil && nl.Pairs.start[n+1]-nl.Pairs.start[n] <= walkDegree
}

// flatFlow is a flow a flat Loads keeps: from rank u on node a to rank
// v on node b.
type flatFlow struct{ u, v, a, b int32 }

// crossing indexes which ranks' flows cross which links both ways:
// each rank's links with how many of its flows cross each, and each
// link's ranks (in no order). A rank's flows cross a few of a large
// network's links, and a link is crossed by a few of its ranks: pricing
// a rank, or finding the ranks a changed link re-prices, walks those,
// not every link or every rank; and the counts take memory by the flows'
// hops, not ranks x links (16,384 ranks on a torus of 8,192 links took
// 1.4 GB as a dense table).
type crossing struct {
	rlinks, lranks [][]int32
	// at finds them without a search where ranks x links is at most
	// denseCrossing: at[n*NL+l] is 1 + l's index in rlinks[n], 1 + n's
	// index in lranks[l], and the count (all 0: rank n's flows do not
	// cross l). A rank's flows on a torus cross a hundred links and
	// more: the search was most of the solver's time. Above it rcount
	// holds the counts, parallel to rlinks.
	at     [][3]int32
	rcount [][]int32
}

// denseCrossing is the most ranks x links crossing.at indexes (24 MB);
// above it, a rank's links and a link's ranks are searched.
const denseCrossing = 1 << 21

// mark adds (cnt 1) or removes (-1) a flow of rank n across link l,
// listing the link and the rank each with the other while any of the
// rank's flows cross it. Indexed, a flow that does not list or unlist
// touches one entry of at: this is the evaluator's innermost step.
func (nl *Loads) mark(n int32, l int32, cnt int32) {
	if nl.at == nil {
		nl.markSearched(n, l, cnt)
		return
	}
	nlinks := nl.rt.NL
	e := &nl.at[int(n)*nlinks+int(l)]
	if e[0] == 0 {
		nl.rlinks[n] = append(nl.rlinks[n], l)
		nl.lranks[l] = append(nl.lranks[l], n)
		*e = [3]int32{int32(len(nl.rlinks[n])), int32(len(nl.lranks[l])), cnt}
		return
	}
	if e[2] += cnt; e[2] != 0 {
		return
	}
	k, at := int(e[0])-1, int(e[1])-1
	links, ranks := nl.rlinks[n], nl.lranks[l]
	last, end := len(links)-1, len(ranks)-1
	links[k], ranks[at] = links[last], ranks[end]
	nl.rlinks[n], nl.lranks[l] = links[:last], ranks[:end]
	nl.at[int(n)*nlinks+int(links[k])][0] = int32(k + 1)
	nl.at[int(ranks[at])*nlinks+int(l)][1] = int32(at + 1)
	*e = [3]int32{}
}

// markSearched is mark without the index (above denseCrossing): the
// rank's links and the link's ranks searched, the counts in rcount.
func (nl *Loads) markSearched(n int32, l int32, cnt int32) {
	k := slices.Index(nl.rlinks[n], l)
	if k < 0 {
		nl.rlinks[n] = append(nl.rlinks[n], l)
		nl.lranks[l] = append(nl.lranks[l], n)
		nl.rcount[n] = append(nl.rcount[n], cnt)
		return
	}
	c := &nl.rcount[n][k]
	if *c += cnt; *c != 0 {
		return
	}
	links, counts, ranks := nl.rlinks[n], nl.rcount[n], nl.lranks[l]
	at := slices.Index(ranks, n)
	last, end := len(links)-1, len(ranks)-1
	links[k], counts[k], ranks[at] = links[last], counts[last], ranks[end]
	nl.rlinks[n], nl.rcount[n], nl.lranks[l] = links[:last], counts[:last], ranks[:end]
}

// counted is the count of rank n's flows across link l, its k-th link.
func (nl *Loads) counted(n, l int32, k int) *int32 {
	if nl.at != nil {
		return &nl.at[int(n)*nl.rt.NL+int(l)][2]
	}
	return &nl.rcount[n][k]
}

// exchange is what one exchange changed: the links (once each) and their
// loads before (lold, by link), and the ranks it re-priced with their
// values before; a rank whose own flows moved (full: fstamp) is priced
// again from all its links, the others from the links that changed.
type exchange struct {
	lstamp, nstamp, fstamp []int32
	epoch                  int32
	dirty, changed         []int32
	lold                   []float64
	saved                  []netSaved
	kept                   []netSaved // Keep's copy of saved
}

// netSaved is a rank's values before an exchange.
type netSaved struct {
	n            int32 // the rank
	longL        int32
	LongT, Fixed float64
	value        float64
}

// NewLoads makes the state of n ranks on the routes of rt; flat, without
// the crossing index an exchange needs (Loads.flat).
func NewLoads(rt *Table, n int, flat bool) *Loads {
	if flat {
		return &Loads{rt: rt, load: make([]float64, rt.NL), LongT: make([]float64, n), longL: slices.Repeat([]int32{-1}, n), Fixed: make([]float64, n),
			PairMax: make([]float64, n), Tree: maxtree.New(n), flat: true, exchange: exchange{lstamp: make([]int32, rt.NL), nstamp: make([]int32, n)}}
	}
	nl := &Loads{rt: rt, load: make([]float64, rt.NL), LongT: make([]float64, n), longL: make([]int32, n), Fixed: make([]float64, n), PairMax: make([]float64, n),
		Tree: maxtree.New(n), exchange: exchange{lstamp: make([]int32, rt.NL), lold: make([]float64, rt.NL), nstamp: make([]int32, n), fstamp: make([]int32, n)},
		crossing: crossing{rlinks: make([][]int32, n), rcount: make([][]int32, n), lranks: make([][]int32, rt.NL)}}
	if n*rt.NL <= denseCrossing {
		nl.at = make([][3]int32, n*rt.NL)
	}
	return nl
}

// Flow adds (sign 1) or removes (-1) bytes from rank u on node a to rank
// v on node b; both ranks wait for the links it crosses.
func (nl *Loads) Flow(u, v, a, b int32, bytes, sign float64) {
	if bytes <= 0 {
		return
	}
	w, cnt := sign*bytes, int32(sign)
	if nl.flat {
		nl.flows = append(nl.flows, flatFlow{u, v, a, b})
	} else {
		nl.Save(u, true)
		nl.Save(v, true)
	}
	wu, wv := nl.walked(u), nl.walked(v)
	links, share := nl.rt.Route(&nl.paths, a, b)
	for i, l := range links {
		x := w
		if share != nil {
			x *= float64(share[i])
		}
		if nl.flat {
			nl.load[l] += x
			continue
		}
		if nl.lstamp[l] != nl.epoch {
			nl.lstamp[l], nl.lold[l] = nl.epoch, nl.load[l]
			nl.dirty = append(nl.dirty, l)
		}
		nl.load[l] += x
		if !wu {
			nl.mark(u, l, cnt)
		}
		if !wv {
			nl.mark(v, l, cnt)
		}
	}
}

// longestWalked is longest of rank n from its flows' routes, not the
// crossing index (walking).
func (nl *Loads) longestWalked(n int32) (float64, int32) {
	nl.buf = nl.nodes(n, nl.buf[:0])
	best, arg := 0.0, int32(-1)
	for _, f := range nl.buf {
		links, _ := nl.rt.Route(&nl.paths, f[0], f[1])
		best, arg = nl.longestOf(links, best, arg)
	}
	return best, arg
}

// linkTime is link l's time to carry its load (a load rounded below 0
// is none). Plain comparisons, not math.Max: this is the evaluator's
// innermost loop, and loads are never NaN.
func (nl *Loads) linkTime(l int) float64 {
	if x := nl.load[l]; x > 0 {
		return x * nl.rt.Inv[l]
	}
	return 0
}

// longest is the longest time of a link rank n's flows cross, and that
// link (-1: none; of equal times the first link).
func (nl *Loads) longest(n int32) (float64, int32) {
	return nl.longestOf(nl.rlinks[n], 0, -1)
}

// longestOf is the longest of links and of best (on link arg, -1: none
// yet), as longer chooses.
func (nl *Loads) longestOf(links []int32, best float64, arg int32) (float64, int32) {
	for _, l := range links {
		if t := nl.linkTime(int(l)); longer(t, l, best, arg) {
			best, arg = t, l
		}
	}
	return best, arg
}

// longer reports whether link l taking t is the longest link so far
// over best's arg (-1: none yet): longer, or as long and a lower link.
func longer(t float64, l int32, best float64, arg int32) bool {
	return t > best || arg < 0 || t == best && l < arg
}

// moved is whether the exchange changed link l's load (touched it, and
// it is not as before).
func (nl *Loads) moved(l int32) bool {
	return nl.lstamp[l] == nl.epoch && nl.load[l] != nl.lold[l]
}

// value is rank n's bound on its run.
func (nl *Loads) value(n int32, scale float64) float64 {
	if nl.LongT[n] == 0 {
		return 0
	}
	return nl.Fixed[n] + scale*nl.LongT[n]
}

// Save records rank n's values once per exchange, before they change
// (Flow saves the ranks whose flows it moves, full: their links are
// walked again; SetFixed a rank whose fixed time changes).
func (nl *Loads) Save(n int32, full bool) {
	if nl.nstamp[n] != nl.epoch {
		nl.nstamp[n] = nl.epoch
		nl.saved = append(nl.saved, netSaved{n, nl.longL[n], nl.LongT[n], nl.Fixed[n], nl.Tree.Value(int(n))})
	}
	if full {
		nl.fstamp[n] = nl.epoch
	}
}

// Begin starts an exchange.
func (nl *Loads) Begin() {
	nl.epoch++
	nl.dirty, nl.saved = nl.dirty[:0], nl.saved[:0]
}

// Reprice recomputes the ranks of the nodes the exchange touched (saved
// by touch, their Fixed times set by nodeRun since) and the ranks whose
// flows cross a changed link.
func (nl *Loads) Reprice(scale float64) {
	// Only the links whose load changed re-price the ranks that cross
	// them (a flow moved off a link and another onto it leaves it as it
	// was); the ranks whose own flows moved are saved already.
	changed := nl.changed[:0]
	for _, l := range nl.dirty {
		if nl.moved(l) {
			changed = append(changed, l)
		}
	}
	nl.changed = changed
	// A rank saved before (its flows moved, or its fixed time) is priced
	// again; a rank whose flows stayed where they were keeps its longest
	// link unless that got shorter (then all its links are walked), and
	// the changed links raise it from the links' side. A changed global
	// link re-prices hundreds of ranks, each crossing many links: walking
	// each rank's links for the changed ones was most of place's time at
	// 1,024 ranks.
	for _, s := range nl.saved {
		n, arg := s.n, nl.longL[s.n]
		if nl.fstamp[n] == nl.epoch && nl.walked(n) {
			nl.LongT[n], nl.longL[n] = nl.longestWalked(n)
		} else if nl.fstamp[n] == nl.epoch || nl.shrank(arg) {
			nl.LongT[n], nl.longL[n] = nl.longest(n)
		} else {
			nl.LongT[n] = nl.linkTime(int(arg))
		}
	}
	// The other ranks that cross a changed link are saved only when it
	// changes them: most of a global link's ranks have a longer link. A
	// rank not saved yet has its longest link from before: if that
	// shrank, all its links are walked (and later raises change
	// nothing); else each changed link raises it, and once raised it is
	// above every link that did not change. A rank whose flows moved has
	// its longest link from all its links already (and while trying, a
	// walked rank's index is stale).
	for _, l := range changed {
		t := nl.linkTime(int(l))
		for _, n := range nl.lranks[l] {
			if nl.fstamp[n] == nl.epoch {
				continue
			}
			if nl.nstamp[n] != nl.epoch && nl.shrank(nl.longL[n]) {
				nl.Save(n, false)
				nl.LongT[n], nl.longL[n] = nl.longest(n)
				continue
			}
			if t > nl.LongT[n] || t == nl.LongT[n] && l < nl.longL[n] {
				nl.Save(n, false)
				nl.LongT[n], nl.longL[n] = t, l
			}
		}
	}
	for _, s := range nl.saved {
		if v := nl.value(s.n, scale); v != s.value {
			nl.Tree.Set(int(s.n), v)
		}
	}
}

// shrank reports whether a rank whose longest link was l must walk its
// links again: it had none (l -1), or the exchange lowered l's load.
func (nl *Loads) shrank(l int32) bool {
	return l < 0 || nl.lstamp[l] == nl.epoch && nl.load[l] < nl.lold[l]
}

// Restore puts back the values saved (Keep's copy).
func (nl *Loads) Restore() {
	for _, s := range nl.kept {
		nl.LongT[s.n], nl.longL[s.n], nl.Fixed[s.n] = s.LongT, s.longL, s.Fixed
		nl.Tree.Set(int(s.n), s.value)
	}
}

// Keep copies the values the last exchange saved, for Restore after it
// is undone (Evaluator.Try).
func (nl *Loads) Keep() { nl.kept = append(nl.kept[:0], nl.saved...) }

// PriceAll sets every rank's longest link and value from scratch, as
// Price of each: a flat Loads walks its flows' routes once.
func (nl *Loads) PriceAll(scale float64) {
	if !nl.flat {
		for u := range int32(len(nl.LongT)) {
			nl.Price(u, scale)
		}
		return
	}
	// longest's choice, over each rank's flows instead of its indexed
	// links.
	for _, f := range nl.flows {
		links, _ := nl.rt.Route(&nl.paths, f.a, f.b)
		for _, l := range links {
			t := nl.linkTime(int(l))
			for _, n := range [2]int32{f.u, f.v} {
				if longer(t, l, nl.LongT[n], nl.longL[n]) {
					nl.LongT[n], nl.longL[n] = t, l
				}
			}
		}
	}
	for u := range int32(len(nl.LongT)) {
		nl.Tree.Set(int(u), nl.value(u, scale))
	}
}

// Price sets rank u's longest link and value from scratch.
func (nl *Loads) Price(u int32, scale float64) {
	nl.LongT[u], nl.longL[u] = nl.longest(u)
	nl.Tree.Set(int(u), nl.value(u, scale))
}
