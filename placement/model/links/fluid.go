package links

import "math"

// FluidFlow is one directed flow between ranks on different nodes: U on
// node A sends Bytes to V on node B.
type FluidFlow struct {
	U, V, A, B int32
	Bytes      float64
}

// maxFluidFlows bounds Fluid's flows: past it (an all-to-all of
// thousands of ranks) Fluid returns nil and the links' bound stands
// alone.
const maxFluidFlows = 100_000

// fluidBatch is how close (a fraction of the time so far) flows must
// end to end in one step of Fluid: a layout of 4,096 ranks whose flows
// end at 1,222 different times takes 339 steps, not 1,222.
const fluidBatch = 1e-3

// Fluid is each of n ranks' time until the last flow it sends or
// receives has arrived, when all flows start together and share every
// link by weighted max-min fairness (progressive filling): all rates
// rise in proportion to their flows' weights until a link is full, the
// flows crossing it keep their rates, the others rise on, and so on;
// when a flow ends the rest share the links again. A flow split over
// several paths (Share) takes that part of its rate on each link.
//
// A flow's weight is the inverse of its route's seconds per byte summed
// over its links: a flow crossing more (or slower) links gets less of a
// link it shares. That is TCP's round-trip unfairness, and the parking
// lot unfairness of credit-based fabrics, where each switch shares its
// output among its inputs, not among the flows behind them. SimGrid's
// network model shares links so (each flow's sharing penalty grows with
// its route's links), and it is what the links' bound (Loads) misses:
// the bound is reached only when the flows on the busiest link are
// served so that none is left behind. On a simulated dragonfly of 2
// groups joined by two global links, a 4 x 4 x 4 periodic stencil's
// nodes reordered to spread the local links' load was bound at 20% less
// than block, and ran 1% longer: the global link's short flows finished
// first, and the long ones then ran alone.
//
// Where the network carries cross traffic (Reverse: SimGrid's, 5% of a
// message's bytes on its way back), a flow also takes that share of its
// rate on the links of its route back, and is held to their level as a
// flow of theirs. On the simulated 16 x 4 dragonfly, GROMACS's
// proposal was predicted at 0.91 of its simulated run and block at
// 0.99; with the cross traffic (and the links priced at the node phase's
// streams, model.Routes) both at 0.99, and the proposal found ran 4%
// faster.
//
// Links with no limit (Inv 0) do not slow a flow; a flow crossing none
// that does takes no time. Nil when there are more than maxFluidFlows
// flows.
//
// After the first step, only the rates that change are filled again
// (update). Place on 16,384 ranks of a declared 16x8x8 torus of 16-core
// nodes took 51 s filling all from nothing at every step (2,675 steps of
// 11,400 live classes), 15 s so. On a 16x16x16 torus of 4-core nodes
// (3,228 steps of 38,000 live classes, whose changes reach most links)
// it gains 10% alone: 393 s, 352 s.
func (t *Table) Fluid(n int, flows []FluidFlow) []float64 {
	done, _ := t.fluid(n, flows, nil)
	return done
}

// FluidWithin is Fluid when only whether each rank's time stays within
// its limit matters: it stops, and reports true, as soon as every flow
// that ended did so within the limits of its two ranks and every flow
// still running is sure to (done then holds the times of those that
// ended). A flow is sure to by a bound on its rate that only rises as
// flows end: its class's level is at least the lowest, over its links,
// of the link's capacity over the weights of every class still on it
// (the level at which that link would be full were they all to rise
// together), so it ends by now + bytes left / that rate. False: some
// flow ended past a limit, and done is Fluid's. Nil limit: Fluid.
func (t *Table) FluidWithin(n int, flows []FluidFlow, limit []float64) ([]float64, bool) {
	return t.fluid(n, flows, limit)
}

func (t *Table) fluid(n int, flows []FluidFlow, limit []float64) ([]float64, bool) {
	if len(flows) > maxFluidFlows {
		return nil, false
	}
	done := make([]float64, n)
	f := newFluidState(t, flows)
	f.fillAll()
	now, over := 0.0, limit == nil
	for step, check := 0, 0; len(f.live) > 0; step++ {
		if !over && step == check {
			if f.within(now, flows, limit) {
				return done, true
			}
			check = step + max(1, step/4)
		}
		dt := math.Inf(1)
		for _, c := range f.live {
			if r := f.rate[c]; r > 0 {
				dt = min(dt, f.left[c]/r)
			}
		}
		if math.IsInf(dt, 1) {
			break
		}
		// Flows ending within fluidBatch of the first to end end with it
		// (at their own times): the others take their bandwidth that
		// much early.
		end := now + dt
		keep, ended := f.live[:0], f.ended[:0]
		for _, c := range f.live {
			r, at := f.rate[c], math.Inf(1)
			if r > 0 {
				at = now + f.left[c]/r
			}
			if at > end*(1+fluidBatch) {
				f.left[c] -= r * dt
				keep = append(keep, c)
				continue
			}
			ended = append(ended, c)
			for i := f.first[c]; i >= 0; i = f.next[i] {
				u, v := flows[i].U, flows[i].V
				done[u], done[v] = max(done[u], at), max(done[v], at)
				over = over || at > limit[u] || at > limit[v]
			}
		}
		now = end
		f.live, f.ended = keep, ended
		if len(f.live) > 0 {
			f.update(ended)
		}
	}
	return done, !over
}

// within reports whether every live class is sure to end within the
// limits of its flows' ranks (FluidWithin), at time now.
func (f *fluidState) within(now float64, flows []FluidFlow, limit []float64) bool {
	if f.wsum == nil {
		f.wsum = make([]float64, f.t.NL)
	}
	weight := f.wsum // each link's summed weight
	for _, c := range f.live {
		for j := f.at[c]; j < f.at[c+1]; j++ {
			weight[f.links[j]] = 0
		}
	}
	for _, c := range f.live {
		for j := f.at[c]; j < f.at[c+1]; j++ {
			weight[f.links[j]] += f.xw[j]
		}
	}
	ok := true
	for _, c := range f.live {
		lvl := math.Inf(1)
		for j := f.at[c]; j < f.at[c+1]; j++ {
			lvl = min(lvl, f.capa[f.links[j]]/weight[f.links[j]])
		}
		end := (now + f.left[c]/(lvl*f.wt[c])) * (1 + 1e-9)
		for i := f.first[c]; ok && i >= 0; i = f.next[i] {
			ok = end <= limit[flows[i].U] && end <= limit[flows[i].V]
		}
		if !ok {
			break
		}
	}
	return ok
}

// fluidState is Fluid's working state: its classes, the classes still
// running (live) and those that ended at the last step, and its links.
type fluidState struct {
	t           *Table
	paths       PathCache // a lazy table's routes used
	wsum        []float64 // within's summed weights by link
	live, ended []int32
	fluidClasses
	fluidLinks
	fluidFill
}

// fluidClasses are Fluid's flows. Flows of one route and size run alike
// (max-min fairness gives them one rate), so they run as one class of m
// flows: per class its limited links and its share of its bytes on each
// (w), one flow's weight (wt), bytes left, rate and level (the rate over
// the weight), its flows (first, then next), and whether it is not
// being filled (frozen: it keeps its rate, or stopped rising).
type fluidClasses struct {
	at, links              []int32 // class c's links: links[at[c]:at[c+1]]
	w                      []float64
	m, wt, left, rate, lvl []float64
	first, next            []int32
	frozen                 []bool
}

// fluidLinks are Fluid's links: per link its frozen flows' bytes/s, the
// summed weights of the flows still rising on it, the level it fills at
// and its slack there (kept as those change), how many classes rise on
// it, and its live classes (onLink: their places j in links); the links
// a filling fills (active), those with rising classes (rise) or in a
// heap by the level they fill at (byFill), and those that may be full at
// a step's level (full); and its capacity (capa: 1/Inv) and a billionth
// of it (nano).
type fluidLinks struct {
	used, weight, fill, slk []float64
	capa, nano              []float64
	rising                  []int32
	onLink                  [][]int32
	active, rise, full      []int32
	byFill                  fillHeap
}

// fluidKey is what makes flows one class: their nodes and size.
type fluidKey struct {
	a, b  int32
	bytes float64
}

func newFluidState(t *Table, flows []FluidFlow) *fluidState {
	f := &fluidState{t: t, fluidClasses: fluidClasses{at: make([]int32, 1), next: make([]int32, len(flows))},
		fluidLinks: fluidLinks{used: make([]float64, t.NL), weight: make([]float64, t.NL), fill: make([]float64, t.NL),
			slk: make([]float64, t.NL), rising: make([]int32, t.NL), onLink: make([][]int32, t.NL)},
		fluidFill: newFluidFill(t)}
	class := make(map[fluidKey]int32)
	for i, fl := range flows {
		f.next[i] = -1
		if fl.Bytes <= 0 {
			continue
		}
		key := fluidKey{fl.A, fl.B, fl.Bytes}
		if c, ok := class[key]; ok {
			if c < 0 { // no limited link: no time
				continue
			}
			f.next[i], f.first[c] = f.first[c], int32(i)
			f.m[c]++
			continue
		}
		if route := f.addRoute(fl.A, fl.B); route > 0 {
			c := int32(len(f.first))
			class[key] = c
			f.first, f.m, f.wt, f.left = append(f.first, int32(i)), append(f.m, 1), append(f.wt, 1/route), append(f.left, fl.Bytes)
			f.live = append(f.live, c)
			continue
		}
		class[key] = -1
	}
	nc := len(f.first)
	f.rate, f.lvl, f.frozen = make([]float64, nc), make([]float64, nc), make([]bool, nc)
	f.link()
	return f
}

// addRoute appends the limited links of the route from node a to node b
// as the next class's, and returns its seconds per byte (0: none limits
// it, and nothing was appended). The way back carries Reverse of the
// bytes, and the flow's rate is shared there as on its own links
// (SimGrid's cross traffic).
func (f *fluidState) addRoute(a, b int32) float64 {
	route := f.addPath(a, b, 1)
	if route > 0 && f.t.Reverse > 0 {
		f.addPath(b, a, f.t.Reverse)
	}
	if route > 0 {
		f.at = append(f.at, int32(len(f.links)))
	}
	return route
}

// addPath appends the limited links of the route from node a to node b,
// each carrying scale of the bytes it carries of the flow, and returns
// the route's seconds per byte over them.
func (f *fluidState) addPath(a, b int32, scale float64) float64 {
	t, route := f.t, 0.0
	links, share := t.Route(&f.paths, a, b)
	for j, l := range links {
		x := 1.0
		if share != nil {
			x = float64(share[j])
		}
		if t.Inv[l] <= 0 || x <= 0 {
			continue
		}
		f.links = append(f.links, l)
		f.w = append(f.w, scale*x)
		route += x * t.Inv[l]
	}
	return route
}

// fillRates sets the weighted max-min fair rates (bytes/s) of the classes of
// d, the others keeping theirs (frozen): the level rises until a link is
// full, whose rising flows then keep level x their weight. A link with
// frozen flows using used bytes/s and rising flows of summed weight
// weight fills at level (capacity - used) / weight, which changes only
// when a flow on it freezes: the links wait in a heap by that level,
// moved as it changes. A scan of every rising link for the lowest level,
// once per level, made place on 16,384 ranks of a declared torus take
// 65 s.
func (f *fluidState) fillRates(d []int32) {
	for _, c := range d {
		f.frozen[c], f.rate[c] = false, 0
	}
	f.stamp++
	f.active = f.active[:0]
	for _, c := range d {
		for j := f.at[c]; j < f.at[c+1]; j++ {
			if l := f.links[j]; f.seen[l] != f.stamp {
				f.seen[l] = f.stamp
				f.active = append(f.active, l)
			}
		}
	}
	for _, l := range f.active {
		used, weight, rising, peak := 0.0, 0.0, int32(0), 0.0
		for _, j := range f.onLink[l] {
			c := f.cls[j]
			x := f.xw[j]
			if f.frozen[c] {
				used += f.lvl[c] * x
				peak = max(peak, f.lvl[c])
				continue
			}
			weight += x
			rising++
		}
		f.used[l], f.weight[l], f.rising[l], f.peak[l] = used, weight, rising, peak
	}
	f.byFill.reset(f.fill)
	for _, l := range f.active {
		f.level(l)
	}
	if len(f.active) >= heapLinks {
		f.fillByHeap()
	} else {
		f.fillByScan()
	}
}

// heapLinks is the number of links from which fillRates keeps them in a heap
// by level: below it a scan of the rising links is faster (place on 64
// ranks of a simulated dragonfly: 2.9 s by scan, 3.8 s by heap).
var heapLinks = 1024

// fillByScan is fillRates' progressive filling by a scan of the rising links
// for the lowest level, once per level.
func (f *fluidState) fillByScan() {
	rise := append(f.rise[:0], f.active...)
	for len(rise) > 0 {
		level, full, keep := math.Inf(1), f.full[:0], rise[:0]
		for _, l := range rise {
			if f.rising[l] == 0 {
				continue
			}
			keep = append(keep, l)
			if at := f.fill[l]; at <= level+f.slk[l] {
				full = append(full, l)
				level = min(level, at)
			}
		}
		rise = keep
		f.freezeFull(full, level)
		f.full = full
	}
	f.rise = rise
}

// fillWindow is how far above a step's level (a fraction of it) a link
// is looked at for being full there, by its own slack.
var fillWindow = 1e-9

// fillByHeap is fillRates' progressive filling with the rising links in a
// heap by level, moved as it changes.
func (f *fluidState) fillByHeap() {
	h := &f.byFill
	for _, l := range f.active {
		h.push(l)
	}
	for len(h.e) > 0 {
		// The links full at this level, to a billionth of their
		// capacity (slk), among those within a billionth of it or the
		// first's slack: a link just beyond (rounding left it a hair
		// above) is full at its own level in a later round.
		top := h.e[0]
		level, full := f.fill[top], f.full[:0]
		for window := level + max(f.slk[top], fillWindow*level); len(h.e) > 0 && f.fill[h.e[0]] <= window; {
			full = append(full, h.pop())
		}
		f.freezeFull(full, level)
		// A link taken out but not full (or no longer, once flows on
		// it froze) waits again at its level.
		for _, l := range full {
			if f.rising[l] > 0 {
				h.push(l)
			}
		}
		f.full = full
	}
}

// freezeFull freezes the rising flows of the links of full that are
// full at level (still, as flows on them freeze).
func (f *fluidState) freezeFull(full []int32, level float64) {
	for _, l := range full {
		if f.rising[l] == 0 || f.fill[l]-level > f.slk[l] {
			continue
		}
		for _, j := range f.onLink[l] {
			if c := f.cls[j]; !f.frozen[c] {
				f.freeze(c, level)
			}
		}
	}
}

// level sets the level at which link l is full (fill), and how far above
// the lowest level a link fills at still counts as full there (slk): a
// billionth of its capacity left.
func (f *fluidState) level(l int32) {
	f.fill[l] = (f.capa[l] - f.used[l]) / f.weight[l]
	f.slk[l] = f.nano[l] / f.weight[l]
}

// freeze keeps class c at the level's rate: it no longer rises on its
// links, each of which, still with rising flows, waits at its new level
// (and has a class at that level: peak).
func (f *fluidState) freeze(c int32, level float64) {
	f.frozen[c], f.rate[c], f.lvl[c] = true, level*f.wt[c], level
	for j := f.at[c]; j < f.at[c+1]; j++ {
		l, x := f.links[j], f.xw[j]
		f.used[l] += level * x
		f.peak[l] = max(f.peak[l], level)
		f.weight[l] -= x
		f.rising[l]--
		if f.rising[l] > 0 {
			f.level(l)
		}
		f.byFill.fix(l, f.rising[l] > 0)
	}
}

// fillHeap is a min-heap of links by the level they fill at (key), with
// each link's place in it (pos: index + 1, 0 when out).
type fillHeap struct {
	e   []int32
	pos []int32
	key []float64
}

// reset empties the heap, keyed by key.
func (h *fillHeap) reset(key []float64) {
	for _, l := range h.e {
		h.pos[l] = 0
	}
	if len(h.pos) < len(key) {
		h.pos = make([]int32, len(key))
	}
	h.e, h.key = h.e[:0], key
}

func (h *fillHeap) push(l int32) {
	h.e = append(h.e, l)
	h.pos[l] = int32(len(h.e))
	h.up(len(h.e) - 1)
}

func (h *fillHeap) pop() int32 {
	l := h.e[0]
	h.remove(0)
	return l
}

// fix restores link l's place after its key changed, or takes it out
// (keep false); a link not in the heap is left out.
func (h *fillHeap) fix(l int32, keep bool) {
	i := int(h.pos[l]) - 1
	switch {
	case i < 0:
	case !keep:
		h.remove(i)
	default:
		h.up(i)
		h.down(int(h.pos[l]) - 1)
	}
}

// remove takes out the link at index i.
func (h *fillHeap) remove(i int) {
	n := len(h.e) - 1
	h.pos[h.e[i]] = 0
	if i != n {
		h.e[i] = h.e[n]
		h.pos[h.e[i]] = int32(i + 1)
	}
	h.e = h.e[:n]
	if i < n {
		moved := h.e[i]
		h.up(i)
		h.down(int(h.pos[moved]) - 1)
	}
}

func (h *fillHeap) less(i, j int) bool { return h.key[h.e[i]] < h.key[h.e[j]] }

func (h *fillHeap) swap(i, j int) {
	h.e[i], h.e[j] = h.e[j], h.e[i]
	h.pos[h.e[i]], h.pos[h.e[j]] = int32(i+1), int32(j+1)
}

func (h *fillHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.swap(i, p)
		i = p
	}
}

func (h *fillHeap) down(i int) {
	for n := len(h.e); ; {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && h.less(c+1, c) {
			c++
		}
		if !h.less(c, i) {
			return
		}
		h.swap(i, c)
		i = c
	}
}
