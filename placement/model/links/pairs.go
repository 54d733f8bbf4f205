package links

import "slices"

// Pairs are the costs of each rank's transfers off its node (0 for a
// peer on its node), by edge of the traffic's adjacency (rank u's edges
// start[u]:start[u+1], edge e to rank adj[e]), kept from both ends: a
// rank's largest is its PairMax (its off-node part before the links),
// and an exchange re-prices the two moved ranks' edges, not every edge
// of every neighbour.
type Pairs struct {
	cost            []float64
	rev, start, adj []int32 // rev: per edge u->v, v's edge to u
}

// NewPairs indexes the edges of an adjacency whose rows are sorted.
func NewPairs(start, adj []int32) *Pairs {
	p := &Pairs{cost: make([]float64, len(adj)), rev: make([]int32, len(adj)), start: start, adj: adj}
	for u := range int32(len(start) - 1) {
		for e := start[u]; e < start[u+1]; e++ {
			v := adj[e]
			k, _ := slices.BinarySearch(adj[start[v]:start[v+1]], u)
			p.rev[e] = start[v] + int32(k)
		}
	}
	return p
}

// Reprice sets the costs of rank u's edges from both ends: cost(x, e)
// is rank x's edge e's.
func (p *Pairs) Reprice(u int32, cost func(x, e int32) float64) {
	for e := p.start[u]; e < p.start[u+1]; e++ {
		r := p.rev[e]
		p.cost[e], p.cost[r] = cost(u, e), cost(p.adj[e], r)
	}
}

// largest is rank u's costliest transfer off its node.
func (p *Pairs) largest(u int32) float64 {
	best := 0.0
	for _, c := range p.cost[p.start[u]:p.start[u+1]] {
		if c > best {
			best = c
		}
	}
	return best
}

// PairsMoved sets the PairMax of rank u and of its peers, once the
// exchange's edges are repriced.
func (nl *Loads) PairsMoved(u int32) {
	p := nl.Pairs
	nl.PairMax[u] = p.largest(u)
	for _, v := range p.adj[p.start[u]:p.start[u+1]] {
		nl.PairMax[v] = p.largest(v)
	}
}

// PairsPriced sets the cost of every edge, each from its own end
// (cost(x, e) is rank x's edge e's), and every rank's PairMax.
func (nl *Loads) PairsPriced(cost func(x, e int32) float64) {
	p := nl.Pairs
	for u := range int32(len(p.start) - 1) {
		for e := p.start[u]; e < p.start[u+1]; e++ {
			p.cost[e] = cost(u, e)
		}
	}
	for u := range nl.PairMax {
		nl.PairMax[u] = p.largest(int32(u))
	}
}
