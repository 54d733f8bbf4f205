package links

// Net is the network's links as the model's evaluator prices them, its
// one entry into this package: the loads of a routed network
// description's links (Loads, with each rank's costliest pair), or the
// bytes of nodes that drive several links at once spread over them
// (Spread), or neither. Its methods take a nil Net as a network with
// nothing to price.
type Net struct {
	loads  *Loads  // nil without a routed network
	spread *Spread // nil unless nodes drive several links (and no network is routed)
}

// New is the links' state for n ranks whose traffic graph is (start,
// adj): routed over rt's links when rt is given, else spread over ports
// links a node (near: each node's near nodes, Near) when ports > 1; nil
// when neither prices anything. Flat, its placement is priced once and
// never exchanged (Loads.flat).
func New(rt *Routes, ports float64, near [][]int32, n int, start, adj []int32, flat bool) *Net {
	nt := &Net{}
	if rt != nil {
		nt.loads = NewLoads(&rt.Table, n, flat)
		nt.loads.Pairs = NewPairs(start, adj)
	}
	if ports > 1 && rt == nil && near != nil {
		nt.spread = NewSpread(ports, near)
	}
	if nt.loads == nil && nt.spread == nil {
		return nil
	}
	return nt
}

// Routed reports whether nt prices a routed network's links.
func (nt *Net) Routed() bool { return nt != nil && nt.loads != nil }

// Flow adds (sign 1) or removes (-1) the flows of ranks u and v, on
// nodes a and b, that carry out bytes from u to v and in bytes back.
func (nt *Net) Flow(u, v, a, b int32, out, in, sign float64) {
	if nt == nil {
		return
	}
	if nl := nt.loads; nl != nil {
		nl.Flow(u, v, a, b, out, sign)
		nl.Flow(v, u, b, a, in, sign)
	}
	if sp := nt.spread; sp != nil {
		sp.Add(a, b, sign*out)
		sp.Add(b, a, sign*in)
	}
}

// NodeBytes are node n's bytes out and in (its totals) as its links
// carry them: on nodes that drive several links, its bytes to and from
// near nodes each over the links they spread over (Spread).
func (nt *Net) NodeBytes(n int32, out, in float64) (float64, float64) {
	if nt == nil || nt.spread == nil {
		return out, in
	}
	return nt.spread.Out(n, out), nt.spread.In(n, in)
}

// PairMax is rank u's costliest pair off its node, when routed.
func (nt *Net) PairMax(u int32) (float64, bool) {
	if !nt.Routed() {
		return 0, false
	}
	return nt.loads.PairMax[u], true
}

// LongT is rank u's longest link time (0 when not routed).
func (nt *Net) LongT(u int32) float64 {
	if !nt.Routed() {
		return 0
	}
	return nt.loads.LongT[u]
}

// SetFixed sets rank u's fixed time, which its link times add to; a
// change is saved first, and re-prices u when the exchange settles (a
// rank is not saved for being on a node an exchange touches: its fixed
// time is its own, and a whole node exchanged touches a few dozen nodes
// of 64 ranks each, whose links re-priced in full were a seventh of
// place's time on a declared dragonfly).
func (nt *Net) SetFixed(u int32, f float64) {
	if nt.Routed() && nt.loads.Fixed[u] != f {
		nt.loads.Save(u, false)
		nt.loads.Fixed[u] = f
	}
}

// Slowest is the slowest run of a rank bound by a link its flows cross,
// and that rank (ok false when not routed).
func (nt *Net) Slowest() (run float64, rank int32, ok bool) {
	if !nt.Routed() {
		return 0, -1, false
	}
	return nt.loads.Tree.Max(), nt.loads.Tree.Argmax(), true
}

// PairsPriced prices every rank's pairs with cost (routed only).
func (nt *Net) PairsPriced(cost func(x, e int32) float64) {
	if nt.Routed() {
		nt.loads.PairsPriced(cost)
	}
}

// PriceAll sets every rank's link time at scale (routed only).
func (nt *Net) PriceAll(scale float64) {
	if nt.Routed() {
		nt.loads.PriceAll(scale)
	}
}

// Begin starts the exchanges whose touched ranks settle prices.
func (nt *Net) Begin() {
	if nt.Routed() {
		nt.loads.Begin()
	}
}

// Reprice settles the touched ranks' link times at scale.
func (nt *Net) Reprice(scale float64) {
	if nt.Routed() {
		nt.loads.Reprice(scale)
	}
}

// Moved reprices the pairs of ranks that exchanged slots among
// themselves, from either end with cost.
func (nt *Net) Moved(ranks []int32, cost func(x, e int32) float64) {
	if !nt.Routed() {
		return
	}
	nl := nt.loads
	for _, u := range ranks {
		nl.Pairs.Reprice(u, cost)
	}
	for _, u := range ranks {
		nl.PairsMoved(u)
	}
}

// Walkable lets exchanges that are tried price ranks with few peers by
// walking their flows, whose nodes flows lists (walking).
func (nt *Net) Walkable(flows func(n int32, buf [][2]int32) [][2]int32) {
	if nt.Routed() && !nt.loads.flat {
		nt.loads.nodes = flows
	}
}

// Trying marks the exchanges from now (on) until Trying(false) as tried
// and undone (walking).
func (nt *Net) Trying(on bool) {
	if nt.Routed() {
		nt.loads.trying = on
	}
}

// Keep keeps the state saved since Begin, for Restore.
func (nt *Net) Keep() {
	if nt.Routed() {
		nt.loads.Keep()
	}
}

// Restore puts back the state Keep kept.
func (nt *Net) Restore() {
	if nt.Routed() {
		nt.loads.Restore()
	}
}

// Above calls visit with each rank whose run bound by a link its flows
// cross is above x, until visit returns false (none when not routed).
func (nt *Net) Above(x float64, visit func(rank int32) bool) {
	if nt.Routed() {
		nt.loads.Tree.Above(x, visit)
	}
}

// Crossing are the ranks with a flow across rank u's longest link (both
// ends of each flow; u among them), and whether u crosses a link at all.
// Only an exchange that moves one of them can lower that link's load.
func (nt *Net) Crossing(u int32) ([]int32, bool) {
	if !nt.Routed() || nt.loads.flat || nt.loads.longL[u] < 0 {
		return nil, false
	}
	return nt.loads.lranks[nt.loads.longL[u]], true
}
