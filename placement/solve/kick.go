package solve

import (
	"math/rand/v2"
	"slices"
)

// Leaving a local optimum. refine's descent and node exchanges stop where
// no single exchange of two ranks or two nodes improves the objective; on
// a network whose nodes differ in where they sit (switch groups, a routed
// network) that is often not the best placement the model knows of: on
// the simulated dragonfly, GROMACS's refinement stopped at 0.0694 s from
// three seeds of four and at 0.0619 s from the fourth. A kick perturbs the
// placement (two random nodes exchanged whole, or a few random ranks of
// different nodes), descends again, and keeps the result only when its
// run beats the best placement so far by WorthIt; otherwise every
// exchange since the kick is undone (iterated local search). A smaller
// difference is within the model's error, and chasing it exploits the
// error: on the simulated dragonfly with its network declared, a kick
// kept for 1.5% less predicted time made GROMACS's proposal (predicted
// 7% faster than block) simulate 1.3% slower than block.

// kicks is how many kicks refine makes for n ranks (at most: a start
// stops after kickPatience kicks in a row not kept): many for small jobs,
// where a descent is milliseconds, none from maxKickRanks on, where place
// must stay faster than scotch_gmap.
func kicks(n int) int {
	if n >= maxKickRanks {
		return 0
	}
	return max(4, min(32, 32*256/max(n, 1)))
}

// kickPatience is how many kicks in a row may fail to be kept before a
// start of n ranks stops kicking (issue 72: kicks tuned by what they
// buy): 8 up to 256 ranks, fewer above, 1 from 1,024. On 64 ranks of a
// declared 4x4x4 torus and 4x4x4 dragonfly with LAMMPS peptide and
// GROMACS (BenchmarkPlaceSmallRouted) 8 took 1.6-2.7x less time than
// every start's 32 kicks; on PSMN's kept survey GROMACS's proposal from
// the survey alone was predicted 1% slower (0.01849 s for 0.01831), the
// other proposals the same. At 1,024 ranks, on the two kept surveys of
// simulated dragonflies (SimGrid's generated one and a site-cabled
// fragment) with the periodic 16x8x8 stencil and a random sparse graph,
// none of 64 kicks was kept, and they were 0.07-1.9 s of place's
// 0.18-2.75 s. From 1,024 ranks a start stops at the first kick not
// kept: on three kept surveys of simulated 1,024-rank dragonflies with
// the stencil and the random sparse graph, the same proposals (one
// kick kept, on a site-cabled fragment's random sparse graph: its
// first), random sparse 1.42 -> 1.11 s and 3.96 -> 3.35 s.
func kickPatience(n int) int {
	if n >= 1024 {
		return 1
	}
	return max(2, min(8, 2048/max(n, 1)))
}

// maxKickRanks is the job size from which refine makes no kicks.
const maxKickRanks = 4096

// kickStream is the random stream of the first refined start's kicks
// (the seed is Options.Seed); the x-th start's is kickStream+x. With one
// stream for all, the starts' kicks were drawn alike, and which seeds
// reached GROMACS's better placements on the simulated 16 x 4 dragonfly
// was a draw shared by every start: of 24 proposals (that dragonfly and
// one with its green links doubled, declared and from the survey alone,
// seeds 0-5) five were advised and simulated slower than block (up to
// 4.9%) with one stream, two (up to 0.5%) with a stream each, their
// simulated time over block's 0.912 and 0.896 (geometric means).
const kickStream = 0x6b69636b

// kick makes k kicks from the swapper's placement with rng, descending
// with budget exchanges after each, and returns the swaps of the kicks
// kept. The placement ends at the best found.
func (sw *swapper) kick(k, budget int, rng *rand.Rand) int {
	nodes := sw.nodeGroups()
	kept, missed := 0, 0
	from := make([]int32, len(sw.place))
	for patience := kickPatience(len(sw.place)); k > 0 && missed < patience; k-- {
		best := sw.ev.Objective()
		copy(from, sw.place)
		sw.kicking, sw.kicked = true, 0
		if len(nodes) >= 2 && rng.IntN(2) == 0 {
			a, b := nodes[rng.IntN(len(nodes))], nodes[rng.IntN(len(nodes))]
			if a == b || len(sw.groups[a]) != len(sw.groups[b]) || !sw.swapNodes(a, b) {
				sw.kicking = false
				continue
			}
		} else {
			for x := 0; x < 3; x++ {
				i, j := int32(rng.IntN(len(sw.place))), int32(rng.IntN(len(sw.place)))
				if sw.nodeGroup[sw.place[i]] != sw.nodeGroup[sw.place[j]] {
					sw.swap(i, j)
				}
			}
		}
		sw.descents++
		sw.descend(budget)
		sw.exchangeNodes(4 * len(nodes))
		sw.kicking = false
		if sw.ev.Objective().Run < best.Run*(1-WorthIt) {
			kept += sw.kicked
			missed = 0
			continue
		}
		missed++
		sw.swapAll(sw.backTo(from))
	}
	return kept
}

// backTo is the exchanges, made in turn, that put every rank back on its
// slot in from: one per rank moved less one per cycle of the moves, which
// undoes a kick in one pricing (swapAll), not its exchanges one by one in
// reverse (the undo was half of place's time on routed networks).
func (sw *swapper) backTo(from []int32) [][2]int32 {
	var pairs [][2]int32
	at := slices.Clone(sw.slotRank)
	now := slices.Clone(sw.place)
	for r := range now {
		for now[r] != from[r] {
			s := at[from[r]] // the rank on r's slot to be
			pairs = append(pairs, [2]int32{int32(r), s})
			now[r], now[s] = now[s], now[r]
			at[now[r]], at[now[s]] = int32(r), s
		}
	}
	return pairs
}

// nodeGroups are the node groups of the slots the placement uses.
func (sw *swapper) nodeGroups() []int32 {
	var nodes []int32
	seen := map[int32]bool{}
	for _, s := range sw.place {
		if g := sw.nodeGroup[s]; !seen[g] {
			seen[g] = true
			nodes = append(nodes, g)
		}
	}
	return nodes
}
