package solve

// partSlack is the imbalance a part may take while the partition is
// refined, as a fraction of its size (at least one vertex weight):
// moves need room to happen, and a partition held to exact sizes at
// every level moves nothing. On random sparse graphs of 1,024 and 4,096
// ranks split in 4, refining with exact sizes left a cut 17-19% above
// METIS's and KaHIP's. The finest level then restores exact sizes at the
// least cost (mover.unload).
const partSlack = 0.03

// fmStall is how many moves in a row an FM pass makes past its best
// point before it stops.
const fmStall = 64

// fmPasses bounds the FM passes at one level.
const fmPasses = 8

// fmRefine lowers part's cut by passes of k-way Fiduccia-Mattheyses
// moves: the unlocked vertex whose move to a part it touches gains most
// (negative gains too) moves and is locked, as long as the part it goes
// to stays within limit; after fmStall moves past the lowest cut seen, the
// pass takes back every move after it. Passes repeat while one lowers the
// cut.
func fmRefine(g *pgraph, part []int32, limit []int) {
	r := newMover(g, part, limit)
	locked := make([]bool, g.n)
	for pass := 0; pass < fmPasses; pass++ {
		if r.fmPass(locked) <= 0 {
			break
		}
		clear(locked)
	}
}

// fmMove is a move an FM pass made: vertex v left part from.
type fmMove struct{ v, from int32 }

// fmPass is one FM pass; it returns how much it lowered the cut.
func (r *mover) fmPass(locked []bool) float64 {
	g := r.g
	h := &r.heap
	*h = (*h)[:0]
	for v := int32(0); v < int32(g.n); v++ {
		if _, gain, ok := r.bestTarget(v); ok {
			*h = append(*h, gainItem{gain, v})
		}
	}
	h.init()
	var log []fmMove
	total, best, bestAt := 0.0, 0.0, 0
	for h.Len() > 0 && len(log)-bestAt < fmStall {
		it := h.pop()
		v := it.v
		if locked[v] {
			continue
		}
		q, gain, ok := r.bestTarget(v)
		if !ok {
			continue
		}
		if gain != it.gain {
			h.push(gainItem{gain, v}) // stale: try again at its gain now
			continue
		}
		log = append(log, fmMove{v, r.part[v]})
		r.move(v, q)
		locked[v] = true
		total += gain
		if total > best+1e-12*max(1, best) {
			best, bestAt = total, len(log)
		}
		for e := g.xadj[v]; e < g.xadj[v+1]; e++ {
			if u := g.adj[e]; !locked[u] {
				if _, gu, ok := r.bestTarget(u); ok {
					h.push(gainItem{gu, u})
				}
			}
		}
	}
	for i := len(log) - 1; i >= bestAt; i-- {
		r.move(log[i].v, log[i].from)
	}
	return best
}

// bestTarget is the part v gains most by moving to, among the parts it
// is connected to that have room for it, and that gain (false: none).
func (r *mover) bestTarget(v int32) (int32, float64, bool) {
	r.connOf(v)
	p, vw := r.part[v], int(r.g.vw[v])
	bq, bg := int32(-1), 0.0
	for _, q := range r.touched {
		if q == p || r.load[q]+vw > r.caps[q] {
			continue
		}
		if gain := r.conn[q] - r.conn[p]; bq < 0 || gain > bg || (gain == bg && r.load[q] < r.load[bq]) {
			bq, bg = q, gain
		}
	}
	return bq, bg, bq >= 0
}
