package solve

import (
	"math/rand/v2"
	"slices"
	"sort"
	"sync"

	"github.com/latmap/latmap/placement/model"
)

// refine improves place in two steps: pair swaps that lower the summed
// transfer without raising the slowest rank (refineSwaps, pricing on up to
// workers goroutines), then exchanges that lower the slowest rank
// (descend), and where nodes differ, kicks (kick) drawn from the random
// stream kickStream+stream of the seed: refineBest gives each start its
// own. It returns the number of swaps and the placement's objective.
func refine(md *model.Model, t *model.Traffic, base []float64, place []int32, opt Options, workers int, stream uint64) (int, model.Objective) {
	sw := newSwapper(md, t, base, place, workers)
	n := sw.refineSwaps(opt.MaxPasses)
	// Descend, then move whole nodes, while that improves the objective.
	// Nodes differ in where they sit only above the node (switch groups,
	// a routed network): elsewhere moving a node whole changes nothing.
	nodesDiffer := len(md.NetGroups) > 0 || md.Routes != nil
	// settled: the node exchanges last stopped where none is kept, and
	// nothing has moved since, so a scan now would price the very same
	// placement and keep none again (on 102,400 ranks of a declared
	// dragonfly such a scan was 17 s of the slowest start's 95 s).
	settled := false
	for round := 0; round < maxRounds; round++ {
		before := sw.ev.Objective()
		if d := sw.descend(opt.Descent); d > 0 {
			n, settled = n+d, false
		}
		if !nodesDiffer {
			break
		}
		if !settled {
			var e int
			e, settled = sw.exchangeNodes(4 * len(md.Hosts))
			n += e
		}
		// Where that stalls, whole switch groups (one exchange moves
		// many nodes' ranks, so it is tried last).
		if !sw.ev.Objective().Better(before) {
			g, _ := sw.exchangeGroups(4 * len(md.Hosts))
			if g == 0 {
				break
			}
			n, settled = n+g, false
		}
	}
	if nodesDiffer {
		n += sw.kick(kicks(t.N), opt.Descent, rand.New(rand.NewPCG(opt.Seed, kickStream+stream)))
	}
	return n, sw.ev.Objective()
}

// refineSwaps improves the placement by exchanging pairs of ranks. A rank
// is tried against the ranks of the (up to three) node or socket groups it
// sends the most modelled cost to; the change of the summed transfer is
// computed from the two ranks' neighbours only (O(degree)), and the best
// exchange is kept when it does not make the slowest rank slower. Ranks
// whose neighbourhood changed are revisited; at most maxPasses sweeps. It
// returns the number of swaps.
//
// The sweep visits ranks in index order, one at a time, but prices them
// ahead in batches on the swapper's workers: each batch is priced against
// the placement as it stands, and used up to its first swap (after which
// the placement differs from the one priced). The batch doubles while no
// swap comes and shrinks to twice the ranks used when one does, so the
// swaps and the result are those of pricing one rank at a time.
func (sw *swapper) refineSwaps(maxPasses int) int {
	t := sw.t
	active := make([]bool, t.N)
	for i := range active {
		active[i] = true
	}
	swaps, batch := 0, 2
	var todo, best []int32
	for pass := 0; pass < maxPasses; pass++ {
		improved := 0
		for i := int32(0); i < int32(t.N); {
			todo = todo[:0]
			next := i
			for ; next < int32(t.N) && len(todo) < batch; next++ {
				if active[next] {
					todo = append(todo, next)
				}
			}
			best = sw.priceAll(todo, best)
			used := len(todo)
			for x, r := range todo {
				active[r] = false
				j := best[x]
				if j < 0 || !sw.swapUnlessSlower(r, j) {
					continue
				}
				swaps++
				improved++
				for _, u := range [2]int32{r, j} {
					active[u] = true
					for e := t.Start[u]; e < t.Start[u+1]; e++ {
						active[t.Adj[e]] = true
					}
				}
				used, next = x+1, r+1
				break
			}
			if used == len(todo) {
				batch = min(2*batch, maxBatch)
			} else {
				batch = max(2, 2*used)
			}
			i = next
		}
		if improved == 0 {
			break
		}
	}
	return swaps
}

// maxBatch bounds the ranks refineSwaps prices ahead.
const maxBatch = 1024

// priceAll is each rank's bestPartner in todo (into best, reused), on the
// swapper's workers when there are enough ranks to share.
func (sw *swapper) priceAll(todo, best []int32) []int32 {
	best = slices.Grow(best[:0], len(todo))[:len(todo)]
	w := min(len(sw.scratch), len(todo)/minShare)
	if w <= 1 {
		for x, r := range todo {
			best[x] = sw.bestPartner(r, &sw.scratch[0])
		}
		return best
	}
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			for x := k; x < len(todo); x += w {
				best[x] = sw.bestPartner(todo[x], &sw.scratch[k])
			}
		}(k)
	}
	wg.Wait()
	return best
}

// minShare is the fewest ranks per worker worth a goroutine.
const minShare = 8

// swapUnlessSlower exchanges ranks i and j unless that makes the slowest
// rank slower, and reports whether it did.
func (sw *swapper) swapUnlessSlower(i, j int32) bool {
	before := sw.ev.MaxRun()
	sw.swap(i, j)
	if after := sw.ev.MaxRun(); after > before+model.ObjEps*before {
		sw.swap(i, j)
		return false
	}
	return true
}

// descend lowers the predicted run: it prices exchanging the slowest rank
// (and, when its node's link or memory sets its time, the other ranks of
// that node with the most traffic) with the ranks of the groups it talks
// to most, keeps the best exchange that improves the objective, and
// repeats until none does or budget exchanges were priced. It returns the
// number of swaps.
func (sw *swapper) descend(budget int) int {
	ev := sw.ev
	swaps := 0
	for budget > 0 {
		cur := ev.Objective()
		c := ev.Critical()
		if c < 0 {
			break
		}
		if comm, _ := ev.Comm(c); comm == 0 {
			break // the slowest rank does not communicate
		}
		bi, bj, best := int32(-1), int32(-1), cur
		for _, u := range sw.movers(c) {
			for _, g := range sw.candidateGroups(u, &sw.scratch[0]) {
				for _, s := range sw.groups[g.g] {
					j := sw.slotRank[s]
					if j < 0 || j == u {
						continue
					}
					budget--
					if o := ev.Try(u, j); o.Better(best) {
						bi, bj, best = u, j, o
					}
				}
			}
			if bi >= 0 {
				break
			}
		}
		if bi < 0 {
			break
		}
		sw.swap(bi, bj)
		swaps++
	}
	return swaps
}

// maxMovers is how many ranks of the slowest rank's node descend tries
// when the node's link or memory sets that rank's time.
const maxMovers = 8

// movers is the slowest rank c, then, when its node sets its time, the
// other ranks of its node with the most pairwise transfer time.
func (sw *swapper) movers(c int32) []int32 {
	ev := sw.ev
	out := []int32{c}
	if _, bound := ev.Comm(c); !bound {
		return out
	}
	others := append([]int32(nil), ev.Members(ev.Node(c))...)
	sort.Slice(others, func(x, y int) bool {
		a, b := others[x], others[y]
		return ev.Pairwise(a) > ev.Pairwise(b)
	})
	for _, u := range others {
		if u != c && len(out) < maxMovers {
			out = append(out, u)
		}
	}
	return out
}
