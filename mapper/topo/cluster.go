package topo

import (
	"math"
	"runtime"
	"sort"
	"sync"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
)

// Merge is one step of an agglomerative clustering: clusters A and B (ids:
// 0..N-1 are the ranks, N+k is the cluster made by merge k in height order)
// join at Height, the average latency between their members.
type Merge struct {
	A, B   int
	Height float64
	Size   int
}

// Dendrogram is the result of average-linkage clustering of N ranks: N-1
// merges in increasing height.
type Dendrogram struct {
	N      int
	Merges []Merge
}

// AverageLinkage clusters n items by average linkage (UPGMA) on the
// dissimilarity dist(a, b), a < b, which may be NaN for unknown pairs (they
// are left out of the averages). dist is called from several goroutines at
// once. It uses the nearest-neighbour-chain algorithm, O(n^2) time and a
// packed triangle of memory (8 bytes a pair).
func AverageLinkage(n int, dist func(a, b int) float64) *Dendrogram {
	l := newLinkage(n, dist)
	raw := l.chainMerges()
	// Replay the merges in height order to give clusters dendrogram ids.
	sort.SliceStable(raw, func(i, j int) bool { return raw[i].height < raw[j].height })
	return replayMerges(n, raw, func(r rawMerge) (int, int, float64) { return r.a, r.b, r.height })
}

// linkage is average-linkage clustering under way: for every two slots,
// the sum and the count of the known distances between the members of
// the clusters they hold (packed triangles), and which slots still hold
// a cluster (a merged cluster keeps the lower slot of the two).
type linkage struct {
	n        int
	sum, cnt []float32
	active   []bool
}

// rawMerge is a merge of the clusters in slots a and b at height.
type rawMerge struct {
	a, b   int // slots
	height float64
}

// newLinkage is n singletons: dist is called for every pair, rows shared
// between GOMAXPROCS goroutines; NaN and infinite distances are left
// unknown.
func newLinkage(n int, dist func(a, b int) float64) *linkage {
	tri := survey.TriLen(n)
	l := &linkage{n: n, sum: make([]float32, tri), cnt: make([]float32, tri), active: make([]bool, n)}
	var wg sync.WaitGroup
	workers := max(1, runtime.GOMAXPROCS(0))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Rows w, w+workers, ... so that long and short rows share.
			for a := w; a < n; a += workers {
				base := survey.TriIndex(n, a, a+1) - (a + 1)
				for b := a + 1; b < n; b++ {
					v := dist(a, b)
					if !math.IsNaN(v) && !math.IsInf(v, 0) {
						l.sum[base+b] = float32(v)
						l.cnt[base+b] = 1
					}
				}
			}
		}()
	}
	wg.Wait()
	for i := range l.active {
		l.active[i] = true
	}
	return l
}

// inf is +Inf, for d to stay cheap enough to inline: it is called for
// every active slot at every step of the chain.
var inf = math.Inf(1)

// d is the average linkage between the clusters in slots a and b, +Inf
// when no distance between them is known.
func (l *linkage) d(a, b int) float64 {
	i := survey.TriIndex(l.n, a, b)
	if l.cnt[i] == 0 {
		return inf
	}
	return float64(l.sum[i]) / float64(l.cnt[i])
}

// chainMerges clusters every slot by following nearest-neighbour chains
// and merging reciprocal nearest neighbours; it returns the n-1 merges in
// the order they were made.
func (l *linkage) chainMerges() []rawMerge {
	n := l.n
	raw := make([]rawMerge, 0, n-1)
	chain := make([]int, 0, n)
	left := n
	next := 0
	for left > 1 {
		if len(chain) == 0 {
			for !l.active[next] {
				next++
			}
			chain = append(chain, next)
		}
		a := chain[len(chain)-1]
		prev := -1
		if len(chain) > 1 {
			prev = chain[len(chain)-2]
		}
		best, bestD := l.nearest(a, prev)
		if best != prev {
			chain = append(chain, best)
			continue
		}
		// a and prev are reciprocal nearest neighbours: merge into the
		// lower slot.
		chain = chain[:len(chain)-2]
		lo, hi := min(a, prev), max(a, prev)
		raw = append(raw, rawMerge{lo, hi, bestD})
		l.merge(lo, hi)
		left--
	}
	return raw
}

// nearest is the active slot nearest to a, and its linkage; prev (the
// chain's previous slot, -1 for none) wins ties, else the lowest slot.
func (l *linkage) nearest(a, prev int) (int, float64) {
	best, bestD := prev, math.Inf(1)
	if prev >= 0 {
		bestD = l.d(a, prev)
	}
	for c := 0; c < l.n; c++ {
		if c == a || !l.active[c] {
			continue
		}
		if dc := l.d(a, c); dc < bestD || (best < 0 && dc == bestD) {
			best, bestD = c, dc
		}
	}
	return best, bestD
}

// merge joins the cluster of slot hi into the one of slot lo: the sums and
// counts of hi's distances are added to lo's, and hi is no longer active.
func (l *linkage) merge(lo, hi int) {
	for k := 0; k < l.n; k++ {
		if !l.active[k] || k == lo || k == hi {
			continue
		}
		il, ih := survey.TriIndex(l.n, k, lo), survey.TriIndex(l.n, k, hi)
		l.sum[il] += l.sum[ih]
		l.cnt[il] += l.cnt[ih]
	}
	l.active[hi] = false
}

// replayMerges turns merges of slots (a merged cluster keeps its lower
// slot), already in height order, into a dendrogram with cluster ids.
func replayMerges[T any](n int, raw []T, get func(T) (a, b int, h float64)) *Dendrogram {
	// Slot-based merges are only valid in the order they were made, but
	// with average linkage (no inversions) and a stable sort, merges of the
	// same slots keep their relative order; union-find on ranks makes the
	// ids independent of slot reuse.
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	id := make([]int, n) // dendrogram id of the cluster whose root is i
	size := make([]int, n)
	for i := range id {
		id[i] = i
		size[i] = 1
	}
	dg := &Dendrogram{N: n, Merges: make([]Merge, 0, len(raw))}
	for _, r := range raw {
		a, b, h := get(r)
		ra, rb := find(a), find(b)
		if ra == rb {
			continue
		}
		m := Merge{A: min(id[ra], id[rb]), B: max(id[ra], id[rb]), Height: h, Size: size[ra] + size[rb]}
		dg.Merges = append(dg.Merges, m)
		parent[rb] = ra
		size[ra] += size[rb]
		id[ra] = n + len(dg.Merges) - 1
	}
	return dg
}

// CutMerges returns the clusters after the first k merges.
func (dg *Dendrogram) CutMerges(k int) []int {
	n := dg.N
	parent := make([]int, 2*n)
	for i := range parent {
		parent[i] = i
	}
	for j := 0; j < k && j < len(dg.Merges); j++ {
		m := dg.Merges[j]
		parent[m.A] = n + j
		parent[m.B] = n + j
	}
	root := func(x int) int {
		r := x
		for parent[r] != r {
			r = parent[r]
		}
		for parent[x] != r {
			parent[x], x = r, parent[x]
		}
		return r
	}
	roots := make([]int, n)
	for i := range roots {
		roots[i] = root(i)
	}
	return fabric.Renumber(roots)
}

// Members lists the items of cluster id (an item, or N+k for merge k).
func (dg *Dendrogram) Members(id int) []int {
	if id < dg.N {
		return []int{id}
	}
	m := dg.Merges[id-dg.N]
	return append(dg.Members(m.A), dg.Members(m.B)...)
}

// rawAverage is the average of vals (a packed triangle) between the two
// clusters merge k joins, NaN pairs left out.
func (dg *Dendrogram) rawAverage(k int, vals []float32) float64 {
	m := dg.Merges[k]
	sum, cnt := 0.0, 0
	for _, x := range dg.Members(m.A) {
		for _, y := range dg.Members(m.B) {
			if v := vals[survey.TriIndex(dg.N, x, y)]; v == v {
				sum += float64(v)
				cnt++
			}
		}
	}
	if cnt == 0 {
		return math.NaN()
	}
	return sum / float64(cnt)
}
