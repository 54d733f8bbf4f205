package schedule

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Pair is an unordered rank pair with A < B.
type Pair struct{ A, B int }

// Other is rank's partner in the pair, or -1 when rank is not in it.
func (p Pair) Other(rank int) int {
	switch rank {
	case p.A:
		return p.B
	case p.B:
		return p.A
	}
	return -1
}

// Plan is a measurement schedule: a sequence of rounds, each a set of
// disjoint pairs measured at the same time, with a barrier between rounds.
// Partner is O(1) so that no rank needs the whole N x N schedule in memory.
type Plan interface {
	// Rounds is the number of rounds.
	Rounds() int
	// Partner is rank's partner in a round, or -1 when rank is idle.
	Partner(round, rank int) int
}

// CirclePlan is the circle-method (round-robin tournament) schedule of N
// ranks: N-1 rounds for even N, N rounds for odd N (one rank has a bye in
// each), every unordered pair exactly once, no rank in two pairs of a round.
type CirclePlan struct{ N int }

func (c CirclePlan) m() int {
	if c.N%2 == 1 {
		return c.N + 1
	}
	return c.N
}

// Rounds returns N-1 for even N and N for odd N.
func (c CirclePlan) Rounds() int { return c.m() - 1 }

// Partner returns rank's partner in round r (-1 for a bye). Rank M-1 (M = N
// rounded up to even) is fixed; the others turn around a circle, and in
// round r ranks x and y meet when x + y = 2r (mod M-1).
func (c CirclePlan) Partner(r, rank int) int {
	m := c.m()
	var p int
	switch {
	case rank == m-1:
		p = r
	case rank == r:
		p = m - 1
	default:
		p = ((2*r-rank)%(m-1) + (m - 1)) % (m - 1)
	}
	if p >= c.N {
		return -1
	}
	return p
}

// Sequential is a schedule of one pair per round, sequenced by hand-offs
// instead of barriers (the sequential schedule).
type Sequential interface {
	Plan
	PairOfRound(r int) Pair
}

// SequentialPlan measures one pair per round in mmpi's order: (0,1),
// (0,2) ... (0,N-1), (1,2) ... (N-2,N-1).
type SequentialPlan struct{ N int }

// Rounds returns N(N-1)/2.
func (s SequentialPlan) Rounds() int { return s.N * (s.N - 1) / 2 }

// Partner returns rank's partner in round k, or -1.
func (s SequentialPlan) Partner(k, rank int) int {
	return PairAt(s.N, k).Other(rank)
}

// PairOfRound is the pair of round k.
func (s SequentialPlan) PairOfRound(k int) Pair { return PairAt(s.N, k) }

// PairAt is the inverse of survey.TriIndex: the k-th unordered pair of n
// ranks in (0,1), (0,2) ... (n-2,n-1) order.
func PairAt(n, k int) Pair {
	// Row a starts at a*n - a(a+1)/2; solve for the last start <= k.
	start := func(a int) int { return a*n - a*(a+1)/2 }
	fn := float64(2*n - 1)
	a := int((fn - math.Sqrt(fn*fn-8*float64(k))) / 2)
	if a < 0 {
		a = 0
	}
	for a > 0 && start(a) > k {
		a--
	}
	for a+1 < n && start(a+1) <= k {
		a++
	}
	return Pair{A: a, B: a + 1 + k - start(a)}
}

// ListPlan measures the given pairs one at a time, in order.
type ListPlan []Pair

// Rounds returns the number of pairs.
func (l ListPlan) Rounds() int { return len(l) }

// Partner returns rank's partner in round k, or -1.
func (l ListPlan) Partner(k, rank int) int {
	return l[k].Other(rank)
}

// Seed makes every rank draw the same isolation sample (and scope
// sample) without talking to the others.
const Seed = 0x6c61746d6170 // "latmap"

// IsolationMax bounds the isolation sample: each of its pairs is a round
// of its own, a barrier of all ranks each pass, and a few thousand pairs
// give the interference figure (a median) to a fraction of a percent;
// 5% of a 4,096-rank survey was 420,000 rounds.
const IsolationMax = 4096

// isolationCount is how many of total pairs the isolation sample takes:
// frac of them, at least n, at most IsolationMax and all.
func isolationCount(total, n int, frac float64) int {
	return min(max(int(math.Ceil(frac*float64(total))), n), IsolationMax, total)
}

// IsolationSample returns the pairs to re-measure in isolation: frac of the
// N(N-1)/2 pairs, at least N, at most IsolationMax and all, chosen at
// random with a fixed seed (so every rank computes the same list) and
// sorted. frac 0 returns none.
func IsolationSample(n int, frac float64) []Pair {
	return IsolationPairs(n*(n-1)/2, n, frac, uint64(n), func(k int) Pair { return PairAt(n, k) })
}

// IsolationPairs draws isolationCount of total pairs of n ranks, numbered
// 0..total-1 and named by pairOf, with the fixed seed and stream (so every
// rank draws the same), in order of their numbers; frac 0 draws none.
func IsolationPairs(total, n int, frac float64, stream uint64, pairOf func(int) Pair) []Pair {
	if frac <= 0 || total == 0 {
		return nil
	}
	idx := sampleIndices(rand.New(rand.NewPCG(Seed, stream)), total, isolationCount(total, n, frac))
	out := make([]Pair, len(idx))
	for i, t := range idx {
		out[i] = pairOf(t)
	}
	return out
}

// sampleIndices draws k distinct indices of 0..total-1, sorted: all of them
// when k >= total, else by Floyd's algorithm in O(k) memory.
func sampleIndices(rng *rand.Rand, total, k int) []int {
	if k >= total {
		idx := make([]int, total)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	seen := make(map[int]bool, k)
	idx := make([]int, 0, k)
	for j := total - k; j < total; j++ {
		t := rng.IntN(j + 1)
		if seen[t] {
			t = j
		}
		seen[t] = true
		idx = append(idx, t)
	}
	sort.Ints(idx)
	return idx
}

// Spread keeps at most k of the pairs, evenly spaced.
func Spread(pairs []Pair, k int) []Pair {
	if len(pairs) <= k {
		return pairs
	}
	out := make([]Pair, k)
	for i := range out {
		out[i] = pairs[i*len(pairs)/k]
	}
	return out
}
