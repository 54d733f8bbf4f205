package solve

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/latmap/latmap/placement/model"
)

// buildStarts builds the multilevel trials in parallel (and the tree
// constructions, when search) and prices them with the given starts:
// the candidates, trials first, and the index of the first start.
func buildStarts(md *model.Model, t *model.Traffic, base []float64, slots []int32, starts []Start, opt Options, search bool) ([]Candidate, [][]int32, int) {
	type job struct {
		name  string
		build func() []int32
	}
	var jobs []job
	for tr := 0; tr < opt.Trials; tr++ {
		tr := tr
		name := "multilevel (index order)"
		if tr > 0 {
			name = fmt.Sprintf("multilevel (random order %d)", tr)
		}
		jobs = append(jobs, job{name, func() []int32 {
			var rng *rand.Rand
			if tr > 0 {
				rng = rand.New(rand.NewPCG(opt.Seed, uint64(tr)))
			}
			return construct(md.Machine, t, slots, matching{rng: rng})
		}})
	}
	first := len(jobs)
	for _, s := range starts {
		s := s
		jobs = append(jobs, job{s.Name, func() []int32 { return append([]int32(nil), s.Place...) }})
	}
	if search && len(md.NetGroups) > 0 {
		// Down the switch levels, outermost first (index order, its
		// ties to the last, and below maxKickRanks ranks one seeded
		// order). Coarsened with ties to the last neighbour, a grid
		// pairs its last dimension first: of two tilings that cut as
		// much, the one whose parts all touch the grid's edge loads the
		// busiest node least (the 1,024-rank stencil of make
		// bench-place, 9% faster; in the multilevel construction it
		// never won there). From 4,096 ranks, where place must stay
		// faster than scotch_gmap, a third tree took place on the 16^3
		// stencils from 0.14-0.16 s to 0.16-0.19 s (scotch_gmap
		// 0.16-0.19 s, alternating runs). Without the seeded one the
		// 4,096-rank random sparse graph's proposal is predicted 1.7%
		// slower (0.4609 s against 0.4530; KaHIP's mapping 0.4620).
		trees := []struct {
			name string
			how  matching
		}{
			{"tree (index order)", matching{}},
			{"tree (index order, ties to the last)", matching{last: true}},
			{"tree (random order)", matching{rng: rand.New(rand.NewPCG(opt.Seed, 1<<20))}},
		}
		if t.N >= maxKickRanks {
			trees = trees[:2]
		}
		for _, tr := range trees {
			jobs = append(jobs, job{tr.name, func() []int32 { return constructTree(md.Machine, t, slots, tr.how) }})
		}
	}
	order := longestFirst(first, len(starts), len(jobs))
	places := make([][]int32, len(jobs))
	cands := make([]Candidate, len(jobs))
	parallel(opt.Workers, len(jobs), func(x int) {
		i := order[x]
		places[i] = jobs[i].build()
		o := model.PlacementObjective(md, t, base, places[i])
		cands[i] = Candidate{Name: jobs[i].name, Cost: o.Transfer, Run: o.Run}
	})
	return cands, places, first
}

// longestFirst is the order in which buildStarts runs its jobs (trials
// 0..first-1, then the given starts, then the trees): the longest go
// first, so that no worker is left with one of them at the end: the
// seeded orders' constructions (their coarsening finds none of the
// numbering's locality; on the 64,000-rank stencil of make bench-place,
// 0.30 s each against 0.07 s in index order), the trees, trial 0, then
// the given starts. Each job writes its own entry: the order changes no
// result (place there: 0.98 -> 0.95 s, medians of 7).
func longestFirst(first, given, jobs int) []int {
	givenEnd := first + given
	var order []int
	for i := 1; i < first; i++ {
		order = append(order, i)
	}
	for i := givenEnd; i < jobs; i++ {
		order = append(order, i)
	}
	for i := 0; i < min(first, 1); i++ {
		order = append(order, i)
	}
	for i := first; i < givenEnd; i++ {
		order = append(order, i)
	}
	return order
}

// refineBest refines every start up to refineAllRanks ranks, the four
// best up to refineFourRanks, and above, the opt.Refine best that are
// within RefineMargin of the best; each refined placement is a new
// candidate, the start stays one as it is.
func refineBest(md *model.Model, t *model.Traffic, base []float64, cands []Candidate, places [][]int32, opt Options) ([]Candidate, [][]int32) {
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	obj := func(i int) model.Objective { return model.Objective{Run: cands[i].Run, Transfer: cands[i].Cost} }
	sort.SliceStable(order, func(x, y int) bool { return obj(order[x]).Better(obj(order[y])) })
	var pick []int
	switch top := obj(order[0]); {
	case t.N <= refineAllRanks:
		pick = order
	case t.N <= refineFourRanks:
		pick = order[:min(4, len(order))]
	default:
		for _, i := range order[:min(opt.Refine, len(order))] {
			if o := obj(i); o.Run <= (1+RefineMargin)*top.Run && o.Transfer <= (1+RefineMargin)*top.Transfer {
				pick = append(pick, i)
			}
		}
	}
	refined := make([]Candidate, len(pick))
	placed := make([][]int32, len(pick))
	parallel(opt.Workers, len(pick), func(x int) {
		i := pick[x]
		p := append([]int32(nil), places[i]...)
		swaps, o := refine(md, t, base, p, opt, max(1, opt.Workers/len(pick)), uint64(x))
		refined[x] = Candidate{Name: cands[i].Name, Cost: o.Transfer, Run: o.Run, Refined: true, Swaps: swaps}
		placed[x] = p
	})
	for x, i := range pick {
		// A multilevel start is replaced by its refinement (it is not a
		// baseline anyone asked for); a baseline stays, refined beside it.
		if constructed(cands[i].Name) {
			cands[i], places[i] = refined[x], placed[x]
			continue
		}
		refined[x].Name += ", refined"
		cands = append(cands, refined[x])
		places = append(places, placed[x])
	}
	return cands, places
}

// constructed reports whether a candidate is one of the solver's own
// constructions (not a baseline or a given start).
func constructed(name string) bool {
	return strings.HasPrefix(name, "multilevel") || strings.HasPrefix(name, "tree")
}

// refineAllRanks is the job size up to which every start is refined
// (neither Options.Refine nor RefineMargin applies): on a
// four-level machine of 64 ranks, GROMACS's best start (0.117 s
// predicted) refined to 0.0996 s while another start, 14% slower before
// refinement, refined to 0.0863 s, and which one was best depended on
// the seed. At 512 ranks refining every start took 3x as long (2.5 s
// against 0.8 s for a random sparse graph, 0.54 s against 0.16 s for a
// stencil) and found the same proposals.
const refineAllRanks = 128

// refineFourRanks is the job size up to which the four best starts are
// refined, however far above the best: on simulated dragonflies of 144
// and 200 ranks the open halo's best refinement came from the third best
// start (its bound 0.215 s, 0.4% above the best's, refined to 0.167 s;
// the two best to 0.214 and 0.185 s) and from the second (25% above the
// best, refined to 0.135 s; the best stayed at 0.144 s), which the two
// best within RefineMargin missed. At 1,024 ranks on a routed dragonfly
// four took place 2.4 times as long (18.5 s against 7.8 s) and found the
// same proposal.
const refineFourRanks = 512

// RefineMargin: above refineFourRanks ranks, starts whose run or total is
// more than this fraction above the best start's are not refined.
const RefineMargin = 0.10
