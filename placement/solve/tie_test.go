package solve

import (
	"slices"
	"testing"

	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
)

// TestTieKeepsCurrent: ranks that talk in pairs on 2 nodes of 4 cores.
// The current placement puts pairs (0,1) and (4,5) on node 0 and the
// others on node 1: every pair inside a node, as good as any placement.
// The solver's own layouts can only tie with it, so the proposal is the
// current placement itself, not an equal-cost reshuffle; without a current
// placement, a tie with block is block.
func TestTieKeepsCurrent(t *testing.T) {
	tr, m, slots := pairsOnTwoNodes(t, 1<<20)
	current := []int32{slots[0], slots[1], slots[4], slots[5], slots[2], slots[3], slots[6], slots[7]}
	md := model.Pairwise(m)
	sol, err := Solve(md, tr, nil, slots, []Start{{CurrentStart, current}}, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if cur := model.NewEvaluator(md, tr, nil, slices.Clone(current)).Objective(); sol.Run != cur.Run || sol.Cost != cur.Transfer {
		t.Fatalf("the current placement is optimal (%+v), the proposal predicts %g / %g", cur, sol.Run, sol.Cost)
	}
	if !slices.Equal(sol.Place, current) {
		t.Errorf("proposal %v (%s) ties with the current placement %v but is not it", sol.Place, sol.Winner, current)
	}
	sol, err = Solve(md, tr, nil, slots, nil, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if block := model.Block(slots, 8); !slices.Equal(sol.Place, block) {
		t.Errorf("without a current placement the proposal %v (%s) ties with block %v but is not it", sol.Place, sol.Winner, block)
	}
}

// TestWorthItKeepsCurrent: pairs of ranks split across 2 nodes by the
// current placement, which costs d seconds more than keeping each pair
// on a node. With computation that makes d 1% of the run the proposal is
// the current placement (a gain under WorthIt); at 5% it moves.
func TestWorthItKeepsCurrent(t *testing.T) {
	tr, m, slots := pairsOnTwoNodes(t, 1<<24)
	md := model.Pairwise(m)
	current := []int32{slots[0], slots[4], slots[1], slots[5], slots[2], slots[6], slots[3], slots[7]}
	runC := model.NewEvaluator(md, tr, nil, slices.Clone(current)).MaxRun()
	runB := model.NewEvaluator(md, tr, nil, model.Block(slots, 8)).MaxRun()
	d := runC - runB
	if d <= 0 {
		t.Fatalf("premise: the split pairs run %g s, block %g s", runC, runB)
	}
	for _, c := range []struct {
		gain float64
		keep bool
	}{{0.01, true}, {0.05, false}} {
		base := make([]float64, 8)
		for i := range base {
			base[i] = d/c.gain - runC
		}
		sol, err := Solve(md, tr, base, slots, []Start{{CurrentStart, current}}, Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if kept := slices.Equal(sol.Place, current); kept != c.keep {
			t.Errorf("gain %.0f%%: proposal %v (%s), kept the current placement %v; want kept %v", 100*c.gain, sol.Place, sol.Winner, kept, c.keep)
		}
	}
}

// pairsOnTwoNodes is ranks 0-7 talking in pairs (0,1), (2,3), ... with
// 100 messages of bytes in all each way, on a level machine of 2 nodes
// of 4 cores, and its 8 slots.
func pairsOnTwoNodes(t *testing.T, bytes float64) (*model.Traffic, *model.Machine, []int32) {
	t.Helper()
	var flows []profile.Flow
	for a := 0; a < 8; a += 2 {
		flows = append(flows, profile.Flow{Src: a, Dst: a + 1, Messages: 100, Bytes: bytes}, profile.Flow{Src: a + 1, Dst: a, Messages: 100, Bytes: bytes})
	}
	tr, err := model.NewTraffic(8, flows)
	if err != nil {
		t.Fatal(err)
	}
	m := model.NewLevelMachine(2, 1, 4, shapes.BenchLevels)
	slots, err := m.SelectSlots(8, model.SelectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr, m, slots
}

// TestClearlyBetter: a candidate replaces an earlier one on a shorter
// run, or on the same run with at least transferTie less summed
// transfer; 0.002% less transfer (the halo's constructions on the
// simulated fat tree) is a tie, kept by the earlier.
func TestClearlyBetter(t *testing.T) {
	o := func(run, tr float64) model.Objective { return model.Objective{Run: run, Transfer: tr} }
	for _, c := range []struct {
		a, b model.Objective
		want bool
	}{
		{o(0.9, 2), o(1, 1), true},
		{o(1, 0.898328), o(1, 0.898345), false},
		{o(1, 0.99), o(1, 1), true},
		{o(1, 1.01), o(1, 1), false},
		{o(1.1, 0.5), o(1, 1), false},
	} {
		if got := clearlyBetter(c.a, c.b); got != c.want {
			t.Errorf("clearlyBetter(%+v, %+v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestRoutedCandidatesPredicted: on a routed 4 x 4 torus of 2-core nodes,
// random sparse graphs of 32 ranks with 10 MiB flows, whose flows share
// links unevenly: the proposal's run is its prediction (the flows'
// sharing, which the evaluator's bound the search descends on leaves
// out), and no candidate is predicted WorthIt faster. Chosen by the
// bound, the proposals of seeds 14-17 were predicted 3.4-6.9% slower
// than another candidate.
func TestRoutedCandidatesPredicted(t *testing.T) {
	md, slots, sparse := routedTorusSparse(t)
	for seed := uint64(14); seed <= 17; seed++ {
		tr := sparse(seed)
		sol, err := Solve(md, tr, nil, slots, nil, Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if pred := model.PredictedRun(md, tr, sol.Place, nil); !shapes.Near(sol.Run, pred) {
			t.Errorf("seed %d: proposal's run %.6g s, its prediction %.6g s", seed, sol.Run, pred)
		}
		for _, c := range sol.Candidates {
			if c.Run < (1-WorthIt)*sol.Run {
				t.Errorf("seed %d: candidate %s predicted %.6g s, the proposal (%s) %.6g s", seed, c.Name, c.Run, sol.Winner, sol.Run)
			}
		}
	}
}

// routedTorusSparse is a routed 4 x 4 torus of 2-core nodes, 32 of its
// slots, and the random sparse graph of 32 ranks with 10 MiB flows of a
// seed.
func routedTorusSparse(t *testing.T) (*model.Model, []int32, func(seed uint64) *model.Traffic) {
	t.Helper()
	md, slots, err := shapes.RoutedTorus(16, 2, []int{4, 4}, 1e9, 32)
	if err != nil {
		t.Fatal(err)
	}
	return md, slots, func(seed uint64) *model.Traffic {
		flows, n := shapes.RandomSparse(32, 4, seed)
		for i := range flows {
			flows[i].Bytes = 10 << 20
		}
		return shapes.MustTraffic(flows, n)
	}
}

// TestCollectivesCompareCandidates: pairs of ranks that the current
// placement splits across 2 nodes. Without collectives the proposal
// puts each pair on a node. With a second of small collectives for
// every rank wherever ranks 0 and 1 share a node (their rounds' slowest
// link, made up), every candidate doing so is predicted a second slower,
// and the current placement, which does not, wins; each candidate's run
// includes its collectives.
func TestCollectivesCompareCandidates(t *testing.T) {
	tr, m, slots := pairsOnTwoNodes(t, 1<<20)
	md := model.Pairwise(m)
	current := []int32{slots[0], slots[4], slots[1], slots[5], slots[2], slots[6], slots[3], slots[7]}
	sol, err := Solve(md, tr, nil, slots, []Start{{CurrentStart, current}}, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(sol.Place, current) {
		t.Fatalf("premise: without collectives the proposal is the current placement %v", current)
	}
	coll := func(place []int32) []float64 {
		c := make([]float64, 8)
		if m.Slots[place[0]].Node == m.Slots[place[1]].Node {
			for i := range c {
				c[i] = 1
			}
		}
		return c
	}
	sol, err = Solve(md, tr, nil, slots, []Start{{CurrentStart, current}}, Options{Seed: 1, Collectives: coll})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sol.Place, current) {
		t.Errorf("with collectives the proposal %v (%s) is not the current placement %v", sol.Place, sol.Winner, current)
	}
	for _, c := range sol.Candidates {
		if c.Name == "block" && c.Run < 1 {
			t.Errorf("block's candidate run %g s leaves out its second of collectives", c.Run)
		}
	}
}

// TestLongestFirstRunsEveryJobOnce: whatever the trials, given starts
// and trees, every job runs once, the seeded trials and trees before
// trial 0 and the given starts last.
func TestLongestFirstRunsEveryJobOnce(t *testing.T) {
	for first := 0; first <= 4; first++ {
		for given := 0; given <= 3; given++ {
			for trees := 0; trees <= 3; trees++ {
				jobs := first + given + trees
				order := longestFirst(first, given, jobs)
				seen := make([]bool, jobs)
				for _, i := range order {
					if i < 0 || i >= jobs || seen[i] {
						t.Fatalf("longestFirst(%d, %d, %d) = %v: job %d out of range or twice", first, given, jobs, order, i)
					}
					seen[i] = true
				}
				if len(order) != jobs {
					t.Fatalf("longestFirst(%d, %d, %d) = %v: %d jobs, want %d", first, given, jobs, order, len(order), jobs)
				}
				if given > 0 && order[len(order)-given] != first {
					t.Errorf("longestFirst(%d, %d, %d) = %v: the given starts are not last", first, given, jobs, order)
				}
				if first > 1 && order[0] != 1 {
					t.Errorf("longestFirst(%d, %d, %d) = %v: a seeded trial is not first", first, given, jobs, order)
				}
			}
		}
	}
}
