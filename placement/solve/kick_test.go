package solve

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/latmap/latmap/placement/model"
)

// TestKickKeepsOnlyGains: from a random placement of 128 ranks (kept
// kicks: the descent after the first improves on it) and from its
// refinement (kicks mostly undone), 16 kicks leave a placement that is a permutation of the same slots,
// whose objective is the one the evaluator tracked incrementally through
// every kick and undo (a fresh evaluator agrees), and no worse than
// before; a kick kept gained at least WorthIt.
func TestKickKeepsOnlyGains(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	kept := 0
	for name, m := range pruneMachines(t) {
		md, tr, place := randomCase(t, m, rng)
		slots := slices.Sorted(slices.Values(place))
		sw := newSwapper(md, tr, nil, place, 1)
		for _, refined := range []bool{false, true} {
			if refined {
				sw.refineSwaps(30)
				sw.descend(1000)
			}
			before := sw.ev.Objective()
			n := sw.kick(16, 1000, rand.New(rand.NewPCG(1, 2)))
			after := sw.ev.Objective()
			fresh := model.NewEvaluator(md, tr, nil, slices.Clone(place)).Objective()
			if got := slices.Sorted(slices.Values(place)); !slices.Equal(got, slots) {
				t.Fatalf("%s: the kicks left a placement of other slots", name)
			}
			if !near(fresh, after) {
				t.Errorf("%s: tracked objective %+v, a fresh evaluator %+v", name, after, fresh)
			}
			if before.Better(after) && !near(before, after) || (n > 0 && after.Run >= before.Run*(1-WorthIt)) || (n == 0 && !near(after, before)) {
				t.Errorf("%s (refined %v): %d swaps kept, objective %+v before, %+v after", name, refined, n, before, after)
			}
			if n > 0 {
				kept++
			}
		}
	}
	if kept == 0 {
		t.Errorf("no kick was kept: the kept path was not tested")
	}
}

// near: two objectives equal but for the rounding of incremental sums.
func near(a, b model.Objective) bool {
	return math.Abs(a.Run-b.Run) <= 1e-9*math.Abs(b.Run) && math.Abs(a.Transfer-b.Transfer) <= 1e-9*math.Abs(b.Transfer)
}

// TestKickStreamsDiffer: each refined start kicks with its own random
// stream. Two starts that are the same placement (block), refined side by
// side, made the same kicks with one stream and ended alike; with a
// stream each they explore apart, and end apart for some traffic (the
// routed 4 x 4 torus of TestRoutedCandidatesPredicted, where kicks are
// kept).
func TestKickStreamsDiffer(t *testing.T) {
	md, slots, sparse := routedTorusSparse(t)
	apart := 0
	for seed := uint64(14); seed <= 17; seed++ {
		tr := sparse(seed)
		blk := model.Block(slots, tr.N)
		sol, err := Solve(md, tr, nil, slots, []Start{{"a", slices.Clone(blk)}, {"b", slices.Clone(blk)}}, Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]Candidate{}
		for _, c := range sol.Candidates {
			got[c.Name] = c
		}
		a, okA := got["a, refined"]
		b, okB := got["b, refined"]
		if !okA || !okB {
			t.Fatalf("seed %d: no refined candidates of the two starts among %+v", seed, sol.Candidates)
		}
		t.Logf("seed %d: the same start refined to %.6g s (%d swaps) and %.6g s (%d swaps)", seed, a.Run, a.Swaps, b.Run, b.Swaps)
		if a.Run != b.Run || a.Cost != b.Cost || a.Swaps != b.Swaps {
			apart++
		}
	}
	if apart == 0 {
		t.Errorf("two copies of a start refined alike for every traffic: their kicks share a random stream")
	}
}
