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

// TestKickPatience: from refined placements, where kicks seldom pay, 32
// kicks stop after kickPatience in a row not kept: a start whose kicks
// all failed descended kickPatience times, not 32.
func TestKickPatience(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	stopped := 0
	for name, m := range pruneMachines(t) {
		md, tr, place := randomCase(t, m, rng)
		sw := newSwapper(md, tr, nil, place, 1)
		sw.refineSwaps(30)
		sw.descend(1000)
		sw.descents = 0
		if n := sw.kick(32, 1000, rand.New(rand.NewPCG(1, 2))); n > 0 {
			continue
		}
		if want := kickPatience(tr.N); sw.descents != want {
			t.Errorf("%s: no kick kept in %d descents, want %d (kickPatience)", name, sw.descents, want)
		}
		stopped++
	}
	if stopped == 0 {
		t.Fatal("a kick was kept on every machine: the patience was not tested")
	}
}

// near: two objectives equal but for the rounding of incremental sums.
func near(a, b model.Objective) bool {
	return math.Abs(a.Run-b.Run) <= 1e-9*math.Abs(b.Run) && math.Abs(a.Transfer-b.Transfer) <= 1e-9*math.Abs(b.Transfer)
}

// TestKickStreamsDiffer: the kicks are drawn from Options.Seed, each
// refined start from its own stream of it (kickStream+x for the x-th start
// refined), on the routed 4 x 4 torus of TestRoutedCandidatesPredicted,
// where kicks are kept. Block and two more starts that are block
// ("a", "b") are three copies of one placement, refined side by side; the
// refinement but for the kicks is deterministic, so what they end at
// differs only by their kicks. For each of four traffics:
//
//   - a seed's solution is the seed's: Solve again with the same seed
//     gives the same candidates (names, runs, costs, swaps) and the same
//     placement;
//
// and over the four traffics, with each of seeds 1 and 2:
//
//   - the copies end apart for at least two of the four traffics (three
//     today: for traffic 16 they end alike under both seeds); with one
//     stream for all starts (the kicks drawn alike) they would end alike
//     for every one;
//   - the seed reaches the kicks: a copy ends otherwise with seed 2 than
//     with seed 1 for some traffic (were the kicks' seed fixed, the
//     copies would end alike under every seed).
func TestKickStreamsDiffer(t *testing.T) {
	md, slots, sparse := routedTorusSparse(t)
	copies := []string{"block, refined", "a, refined", "b, refined"}
	apart := map[uint64]int{}
	seedMoved := 0
	for traffic := uint64(14); traffic <= 17; traffic++ {
		tr := sparse(traffic)
		blk := model.Block(slots, tr.N)
		solve := func(seed uint64) (*Solution, map[string]Candidate) {
			sol, err := Solve(md, tr, nil, slots, []Start{{"a", slices.Clone(blk)}, {"b", slices.Clone(blk)}}, Options{Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]Candidate{}
			for _, c := range sol.Candidates {
				got[c.Name] = c
			}
			for _, name := range copies {
				if _, ok := got[name]; !ok {
					t.Fatalf("traffic %d, seed %d: no candidate %q among %+v", traffic, seed, name, sol.Candidates)
				}
			}
			return sol, got
		}
		sol1, by1 := solve(1)
		again, _ := solve(1)
		if i := slices.IndexFunc(sol1.Candidates, func(c Candidate) bool { return !slices.Contains(again.Candidates, c) }); i >= 0 || len(sol1.Candidates) != len(again.Candidates) {
			var first, second Candidate
			if i >= 0 {
				first = sol1.Candidates[i]
				second = again.Candidates[slices.IndexFunc(again.Candidates, func(c Candidate) bool { return c.Name == first.Name })]
			}
			t.Errorf("traffic %d: Solve twice with seed 1 gave two solutions: %d and %d candidates, %+v and %+v", traffic, len(sol1.Candidates), len(again.Candidates), first, second)
		} else if !slices.Equal(sol1.Place, again.Place) || sol1.Winner != again.Winner {
			t.Errorf("traffic %d: Solve twice with seed 1 proposed %v (%s) and %v (%s)", traffic, sol1.Place, sol1.Winner, again.Place, again.Winner)
		}
		_, by2 := solve(2)
		for seed, by := range map[uint64]map[string]Candidate{1: by1, 2: by2} {
			a, b, c := by[copies[0]], by[copies[1]], by[copies[2]]
			t.Logf("traffic %d, seed %d: one placement refined to %.6g s (%d swaps), %.6g s (%d), %.6g s (%d)", traffic, seed, a.Run, a.Swaps, b.Run, b.Swaps, c.Run, c.Swaps)
			if !sameEnd(a, b) || !sameEnd(a, c) || !sameEnd(b, c) {
				apart[seed]++
			}
		}
		for _, name := range copies {
			if !sameEnd(by1[name], by2[name]) {
				seedMoved++
				break
			}
		}
	}
	for _, seed := range []uint64{1, 2} {
		if apart[seed] < 2 {
			t.Errorf("seed %d: the copies of one start refined apart for %d of 4 traffics, want 2 or more: their kicks share a random stream", seed, apart[seed])
		}
	}
	if seedMoved == 0 {
		t.Errorf("seeds 1 and 2 refined every copy alike for every traffic: the kicks do not draw from Options.Seed")
	}
}

// sameEnd: two refined candidates ended at the same run and cost (but
// for the rounding of incremental sums, which differs with the path taken
// to one placement) and swaps.
func sameEnd(a, b Candidate) bool {
	return near(model.Objective{Run: a.Run, Transfer: a.Cost}, model.Objective{Run: b.Run, Transfer: b.Cost}) && a.Swaps == b.Swaps
}
