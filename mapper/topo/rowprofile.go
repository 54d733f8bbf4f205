package topo

import (
	"math"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/survey"
)

// rowProfiles holds, for every rank, its round trips to a fixed set of
// reference ranks: the row of the latency matrix, which ranks on one node
// share (same NIC, same place in the network).
type rowProfiles struct {
	ref  []int     // reference ranks
	rows []float32 // n x len(ref): log round trips, NaN where unknown or the rank itself
}

// maxProfileWork bounds pairs x reference ranks of the profile distances
// (a few hundred milliseconds): every rank is a reference up to 512 ranks,
// fewer above (8 at 4096 ranks).
const maxProfileWork = 1 << 26

func newRowProfiles(n int, vals []float32) *rowProfiles {
	k := n
	if w := maxProfileWork / max(1, survey.TriLen(n)); w < k {
		k = min(n, max(8, w))
	}
	p := &rowProfiles{ref: make([]int, k), rows: make([]float32, n*k)}
	if k == n {
		for c := range p.ref {
			p.ref[c] = c
		}
	} else {
		// Spread by the golden ratio rather than at a fixed stride, which
		// could fall on one node in a cyclic layout.
		seen := map[int]bool{}
		for c, x := 0, 0.0; c < k; x++ {
			r := int(math.Mod(x*0.6180339887498949, 1) * float64(n))
			if !seen[r] {
				seen[r] = true
				p.ref[c] = r
				c++
			}
		}
	}
	nan := float32(math.NaN())
	for r := 0; r < n; r++ {
		for c, q := range p.ref {
			v := nan
			if q != r {
				if x := vals[survey.TriIndex(n, r, q)]; x > 0 {
					v = float32(math.Log(float64(x)))
				}
			}
			p.rows[r*k+c] = v
		}
	}
	return p
}

// distance is how unlike the rows of ranks a and b are: the mean, over the
// reference ranks other than a and b, of |ln x - ln y| (the relative
// difference of the round trips x and y), each term capped at 1 so that a
// few wild pairs cannot dominate. Ranks sharing a node score about the
// measurement noise; ranks on nodes at different places in the network
// score more.
func (p *rowProfiles) distance(a, b int) float64 {
	k := len(p.ref)
	ra, rb := p.rows[a*k:(a+1)*k], p.rows[b*k:(b+1)*k]
	var sum float32
	cnt := 0
	for c, x := range ra {
		d := x - rb[c]
		if d != d {
			continue // unknown, or a or b itself
		}
		if d < 0 {
			d = -d
		}
		sum += min(d, 1)
		cnt++
	}
	if cnt == 0 {
		return 0
	}
	return float64(sum) / float64(cnt)
}

// pairMerges returns, for every pair in packed-triangle order, the index
// of the merge that first joins its two ranks.
func (dg *Dendrogram) pairMerges() []int32 {
	n := dg.N
	lca := make([]int32, survey.TriLen(n))
	members := make([][]int, n+len(dg.Merges))
	for i := 0; i < n; i++ {
		members[i] = []int{i}
	}
	for k, m := range dg.Merges {
		a, b := members[m.A], members[m.B]
		for _, x := range a {
			for _, y := range b {
				lca[survey.TriIndex(n, x, y)] = int32(k)
			}
		}
		members[n+k] = append(a, b...)
		members[m.A], members[m.B] = nil, nil
	}
	return lca
}

// pairsByMerge groups the known values of vals by the merge that joins
// each pair (a counting sort): the values of merges k..j-1 are
// grouped[start[k]:start[j]], so a level, a run of merges, is one slice.
func pairsByMerge(vals []float32, lca []int32, merges int) (grouped []float32, start []int) {
	start = make([]int, merges+1)
	for i, v := range vals {
		if v == v {
			start[lca[i]+1]++
		}
	}
	for k := 1; k <= merges; k++ {
		start[k] += start[k-1]
	}
	grouped = make([]float32, start[merges])
	next := append([]int(nil), start[:merges]...)
	for i, v := range vals {
		if v == v {
			k := lca[i]
			grouped[next[k]] = v
			next[k]++
		}
	}
	return grouped, start
}

// levelMedians gives the median round trip of the pairs of each level,
// level i holding the pairs first joined by merges (ends[i-1], ends[i]],
// from the round trips grouped by merge (see pairsByMerge). Medians of runs
// of merges already seen are remembered: removing one boundary only costs
// the median of the level it joins.
type levelMedians struct {
	grouped []float32
	start   []int
	scratch []float32
	seen    map[[2]int]float64
}

func (lm *levelMedians) of(ends []int) []float64 {
	if lm.seen == nil {
		lm.seen = map[[2]int]float64{}
	}
	out := make([]float64, len(ends))
	lo := 0
	for i, e := range ends {
		key := [2]int{lo, e}
		v, ok := lm.seen[key]
		if !ok {
			v = math.NaN()
			if seg := lm.grouped[lm.start[lo]:lm.start[e+1]]; len(seg) > 0 {
				lm.scratch = append(lm.scratch[:0], seg...)
				v = stats.MedianInPlace(lm.scratch)
			}
			lm.seen[key] = v
		}
		out[i] = v
		lo = e + 1
	}
	return out
}
