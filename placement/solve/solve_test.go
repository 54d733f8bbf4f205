package solve_test

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
	"github.com/latmap/latmap/placement/solve"
)

// The issue's reference optimum: 4x4x4 cubes per node cost 11.736 s for a
// 16^3 stencil on 64 nodes x 64 cores and 209.57 s for 40^3 on 1000 nodes,
// with both directions of an edge priced one after the other. By hand: an
// edge costs 100*L + 819200 B/B per direction, 1.8192e-4 s inside and
// 1.8192e-3 s between nodes; 16^3 has 11520 edges of which 3*3*16*16 =
// 2304 cross nodes: 2*(9216*1.8192e-4 + 2304*1.8192e-3) = 11.736 s; 40^3
// has 187200 edges, 3*9*40*40 = 43200 crossing: 209.57 s. The model moves
// the two directions of a pair on two nodes at once and prices one:
// 2*9216*1.8192e-4 + 2304*1.8192e-3 = 7.5446 s and 2*144000*1.8192e-4 +
// 43200*1.8192e-3 = 130.982 s.
func TestCubeCostMatchesIssue(t *testing.T) {
	for _, c := range []struct {
		n     int
		nodes int
		want  float64
	}{{16, 64, 7.5446}, {40, 1000, 130.982}} {
		if testing.Short() && c.n > 16 {
			continue
		}
		flows, n := shapes.Halo3D(c.n, c.n, c.n, false)
		tr := shapes.MustTraffic(flows, n)
		m := model.NewLevelMachine(c.nodes, 1, 64, shapes.BenchLevels)
		got := m.Cost(tr, shapes.CubePlacement(c.n))
		if math.Abs(got-c.want) > 0.0005*c.want {
			t.Errorf("%d^3 cubes: cost %.4f s, want %.3f s", c.n, got, c.want)
		}
	}
}

// solveAll places all ranks of flows on m's first slots with seed 1.
func solveAll(t *testing.T, m *model.Machine, flows []profile.Flow, n int) (*model.Traffic, []int32, *solve.Solution) {
	t.Helper()
	tr := shapes.MustTraffic(flows, n)
	slots, err := m.SelectSlots(n, model.SelectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The node links priced (each carries one pair's bandwidth between
	// nodes): a rank's on-node and off-node parts overlap, so without
	// them a layout that moves fewer bytes off its nodes need not run
	// faster (a rank whose copies on its node outlast its transfers off
	// it runs as long).
	md, _ := model.NewModel(m, nil, model.ModelOptions{})
	sol, err := solve.Solve(md, tr, nil, slots, nil, solve.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return tr, slots, sol
}

func TestSolveFindsCubes16(t *testing.T) {
	flows, n := shapes.Halo3D(16, 16, 16, false)
	m := model.NewLevelMachine(64, 1, 64, shapes.BenchLevels)
	tr, _, sol := solveAll(t, m, flows, n)
	opt := m.Cost(tr, shapes.CubePlacement(16))
	t.Logf("16^3: proposal %.4f s (%s), block %.4f, cyclic %.4f, cubes %.4f; candidates %+v", sol.Cost, sol.Winner, sol.Block, sol.Cyclic, opt, sol.Candidates)
	best := slices.MinFunc(sol.Candidates, func(a, b solve.Candidate) int { return cmp.Compare(a.Cost, b.Cost) })
	if best.Cost > opt*1.0001 {
		t.Errorf("16^3: the solver's best layout (%s) costs %.4f s, the 4x4x4 cube optimum %.4f s", best.Name, best.Cost, opt)
	}
	// With the node links priced the cubes' slowest rank is 40% below
	// block's (each node sends a cube's faces off it, not a slab's): the
	// proposal is the cubes. (Priced pairwise, without the links, a
	// cube's corner rank and a slab's rank wait as long for their
	// transfers off the node, and block was kept.)
	blk := sol.Candidates[slices.IndexFunc(sol.Candidates, func(c solve.Candidate) bool { return c.Name == "block" })]
	if sol.Cost > opt*1.0001 || sol.Run > 0.7*blk.Run {
		t.Errorf("16^3: proposal %s (run %g, cost %.4f), the cubes' cost %.4f, block's run %g: want the cubes, 30%% below block", sol.Winner, sol.Run, sol.Cost, opt, blk.Run)
	}
}

// TestSolvePairsShareNode: ranks that talk only in pairs, on a two-level
// machine, must end with every pair on one node (the known optimum: no
// traffic crosses nodes), whatever the rank numbering.
func TestSolvePairsShareNode(t *testing.T) {
	for _, c := range []struct{ n, nodes, cores int }{{16, 4, 4}, {64, 8, 8}, {256, 16, 16}} {
		flows, n := shapes.ShuffledPairs(c.n, uint64(c.n))
		tr := shapes.MustTraffic(flows, n)
		m := model.NewLevelMachine(c.nodes, 1, c.cores, shapes.BenchLevels)
		slots, _ := m.SelectSlots(n, model.SelectOptions{})
		sol, err := solve.Pairwise(m, tr, slots, solve.Options{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range flows {
			if a, b := m.Slots[sol.Place[f.Src]], m.Slots[sol.Place[f.Dst]]; a.Node != b.Node {
				t.Errorf("n=%d: ranks %d and %d talk but sit on %s and %s", c.n, f.Src, f.Dst, a.Host, b.Host)
			}
		}
		// Optimum: every pair inside a node (both directions priced).
		want := 0.0
		for _, f := range flows {
			want += shapes.BenchLevels[model.SameNode].Cost(f.Messages, f.Bytes)
		}
		if !shapes.Near(sol.Cost, want) {
			t.Errorf("n=%d: cost %g, optimum %g", c.n, sol.Cost, want)
		}
	}
}

// TestSolvePairsShareSocket: on nodes of two sockets, the pairs share a
// socket too (the three-level optimum).
func TestSolvePairsShareSocket(t *testing.T) {
	levels := [3]model.LinkCost{model.SameSocket: {Latency: 0.3e-6, InvBandwidth: 1 / 20e9}, model.SameNode: {Latency: 0.8e-6, InvBandwidth: 1 / 8e9}, model.Network: {Latency: 5e-6, InvBandwidth: 1 / 2e9}}
	flows, n := shapes.ShuffledPairs(64, 11)
	tr := shapes.MustTraffic(flows, n)
	m := model.NewLevelMachine(4, 2, 8, levels)
	slots, _ := m.SelectSlots(n, model.SelectOptions{})
	sol, err := solve.Pairwise(m, tr, slots, solve.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range flows {
		if m.Level(int(sol.Place[f.Src]), int(sol.Place[f.Dst])) != model.SameSocket {
			t.Errorf("ranks %d and %d: %v apart", f.Src, f.Dst, m.Level(int(sol.Place[f.Src]), int(sol.Place[f.Dst])))
		}
	}
}

// minGain is how far below the better of block and cyclic the proposal
// must be, by case (TestSolveNeverWorseThanBaselines).
var minGain = map[string]float64{"halo2d-64x64": 0.2, "halo3d-periodic-8x8x8": 0.05, "random-sparse-64": 0.15, "random-sparse-512": 0.15, "random-sparse-4096": 0.15}

// TestSolveNeverWorseThanBaselines runs the solver on the shapes real
// applications have, 64 to 4096 ranks, and checks the proposal is a valid
// placement, costs what it reports, and that the solver's own
// constructions reach the baselines (checkConstructionNotWorse). (The
// proposal itself is never worse than block or cyclic by construction:
// both are candidates and the best is kept, so that is not checked; where
// they are far from the best layout, it must be minGain below them.)
// The rings have a hand-known optimum: on k nodes every node holds at
// least one arc of the ring, and each arc ends in two edges leaving it,
// so at least k edges cross nodes, and likewise at least s edges leave
// the s sockets used; contiguous arcs reach both. The proposal must be
// that optimum: k edges between nodes, s - k between sockets of a node.
func TestSolveNeverWorseThanBaselines(t *testing.T) {
	type gen func() ([]profile.Flow, int)
	cases := []struct {
		name  string
		g     gen
		nodes int
		socks int
		cores int
	}{
		{"halo2d-8x8", func() ([]profile.Flow, int) { return shapes.Halo2D(8, 8, false) }, 4, 2, 8},
		{"halo2d-periodic-32x32", func() ([]profile.Flow, int) { return shapes.Halo2D(32, 32, true) }, 16, 2, 32},
		{"halo2d-64x64", func() ([]profile.Flow, int) { return shapes.Halo2D(64, 64, false) }, 64, 2, 32},
		{"halo3d-4x4x4", func() ([]profile.Flow, int) { return shapes.Halo3D(4, 4, 4, false) }, 4, 1, 16},
		{"halo3d-periodic-8x8x8", func() ([]profile.Flow, int) { return shapes.Halo3D(8, 8, 8, true) }, 8, 2, 32},
		{"halo3d-periodic-16x16x16", func() ([]profile.Flow, int) { return shapes.Halo3D(16, 16, 16, true) }, 64, 2, 32},
		{"halo3d-12x10x6 on 48-core nodes", func() ([]profile.Flow, int) { return shapes.Halo3D(12, 10, 6, false) }, 15, 2, 24},
		{"ring-64", func() ([]profile.Flow, int) { return shapes.Ring(64) }, 4, 2, 8},
		{"ring-1000", func() ([]profile.Flow, int) { return shapes.Ring(1000) }, 16, 2, 32},
		{"alltoall-64", func() ([]profile.Flow, int) { return shapes.AllToAll(64) }, 4, 2, 8},
		{"alltoall-256", func() ([]profile.Flow, int) { return shapes.AllToAll(256) }, 8, 2, 16},
		{"master-worker-64", func() ([]profile.Flow, int) { return shapes.MasterWorker(64) }, 4, 2, 8},
		{"master-worker-1024", func() ([]profile.Flow, int) { return shapes.MasterWorker(1024) }, 32, 2, 16},
		{"random-sparse-64", func() ([]profile.Flow, int) { return shapes.RandomSparse(64, 4, 1) }, 4, 2, 8},
		{"random-sparse-512", func() ([]profile.Flow, int) { return shapes.RandomSparse(512, 6, 2) }, 8, 2, 32},
		{"random-sparse-4096", func() ([]profile.Flow, int) { return shapes.RandomSparse(4096, 4, 3) }, 64, 2, 32},
	}
	levels := [3]model.LinkCost{model.SameSocket: {Latency: 0.4e-6, InvBandwidth: 1 / 12e9}, model.SameNode: {Latency: 0.7e-6, InvBandwidth: 1 / 8e9}, model.Network: {Latency: 2.5e-6, InvBandwidth: 1 / 3e9}}
	for _, s := range cases {
		t.Run(s.name, func(t *testing.T) {
			if s.nodes*s.socks*s.cores > 1024 {
				testutil.Short(t, "over 1,024 ranks")
			}
			flows, n := s.g()
			m := model.NewLevelMachine(s.nodes, s.socks, s.cores, levels)
			tr, slots, sol := solveAll(t, m, flows, n)
			checkPermutation(t, sol.Place, slots)
			if strings.HasPrefix(s.name, "alltoall-") {
				// Every rank alike: nothing to search (TestSolveAllToAllNotSearched).
				if sol.Note != solve.NoteAlike {
					t.Errorf("all-to-all: note %q, want solve.NoteAlike", sol.Note)
				}
			} else {
				checkConstructionNotWorse(t, sol, "block", "cyclic")
			}
			if strings.HasPrefix(s.name, "ring-") {
				nodes, sockets := map[int]bool{}, map[[2]int]bool{}
				for r := 0; r < n; r++ {
					sl := m.Slots[sol.Place[r]]
					nodes[sl.Node], sockets[[2]int{sl.Node, sl.Socket}] = true, true
				}
				// Each edge is two flows, one each way.
				checkCut(t, m, flows, sol.Place, 2*len(nodes), 2*(len(sockets)-len(nodes)))
			}
			best := math.Min(sol.Block, sol.Cyclic)
			// Where block and cyclic are far from the best layout, the
			// proposal must be well below them (this machine: the 64x64
			// halo 30% below, the periodic 8x8x8 halo 7.8%, random
			// sparse graphs 26-30%); elsewhere block is the optimum and
			// the proposal ties it. A solver whose construction and swaps
			// did nothing would propose block.
			if floor := minGain[s.name]; sol.Cost > (1-floor)*best*(1+1e-9) {
				t.Errorf("proposal %.4g s, %.1f%% below the better of block and cyclic (%.4g s): want at least %.0f%%", sol.Cost, 100*(1-sol.Cost/best), best, 100*floor)
			}
			if got := m.Cost(tr, sol.Place); !shapes.Near(got, sol.Cost) {
				t.Errorf("reported cost %g, placement costs %g", sol.Cost, got)
			}
			t.Logf("%d ranks: proposal %.4g s (%s), block %.4g, cyclic %.4g (%.1f%% below the better)", n, sol.Cost, sol.Winner, sol.Block, sol.Cyclic, 100*(1-sol.Cost/best))
		})
	}
}

// TestSolveDenseSurveyMachine: on a machine from a survey (per-pair costs,
// some pairs filled) the proposal for a periodic 8x4 halo on 4 nodes of 2
// sockets x 4 cores is the hand-known optimum, and is deterministic for a
// seed. By hand: 8 ranks a node; a part of 8 cells of the 8x4 torus has at
// least 8 edges leaving it (a 2x4 strip spanning the periodic 4, its two
// sides of 4), so at least 4 x 8 / 2 = 16 edges cross nodes (block's rows
// of 8 cut 32: each row meets two others). Each strip's 2 sockets of 4
// cells cut it at least 4 edges (2x2 squares: 2 edges across, 2 around
// the period; 1x4 columns: 4 across), 16 in all. Both directions of an
// edge are flows: 32 flows between nodes, 32 between sockets.
func TestSolveDenseSurveyMachine(t *testing.T) {
	s := shapes.Survey(4, 2, 4, shapes.TestRTT, func(a, b int) bool { return (a*7+b)%11 == 0 })
	m, err := model.MachineFromSurvey(s, model.SurveyCostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	flows, n := shapes.Halo2D(8, 4, true)
	tr := shapes.MustTraffic(flows, n)
	slots, _ := m.SelectSlots(n, model.SelectOptions{})
	a, err := solve.Pairwise(m, tr, slots, solve.Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := solve.Pairwise(m, tr, slots, solve.Options{Seed: 5, Workers: 1})
	checkPermutation(t, a.Place, slots)
	checkCut(t, m, flows, a.Place, 32, 32)
	for i := range a.Place {
		if a.Place[i] != b.Place[i] {
			t.Fatalf("same seed, different placements (rank %d: %d vs %d)", i, a.Place[i], b.Place[i])
		}
	}
}

// checkCut fails unless the placement puts exactly network flows between
// nodes and socket flows between the sockets of a node (a hand-known
// optimum's counts).
func checkCut(t *testing.T, m *model.Machine, flows []profile.Flow, place []int32, network, socket int) {
	t.Helper()
	var gotNet, gotSock int
	for _, f := range flows {
		switch m.Level(int(place[f.Src]), int(place[f.Dst])) {
		case model.Network:
			gotNet++
		case model.SameNode:
			gotSock++
		}
	}
	if gotNet != network || gotSock != socket {
		t.Errorf("%d flows between nodes and %d between sockets of a node, want the optimum's %d and %d", gotNet, gotSock, network, socket)
	}
}

// checkConstructionNotWorse: the solver's own placements (the multilevel
// constructions and their refinements, which do not start from the
// baselines) have a summed transfer at most 1% above the named
// baselines'. The proposal itself is never worse than a baseline by
// construction (every baseline is a candidate): this is what says the
// construction works. (Its slowest rank is not always as fast: on the 2-D
// halos of 8x8 and 32x32, block's slowest rank is 28% faster than the
// construction's, and block is the proposal.)
func checkConstructionNotWorse(t *testing.T, sol *solve.Solution, names ...string) {
	t.Helper()
	own := -1
	for i, c := range sol.Candidates {
		if strings.HasPrefix(c.Name, "multilevel") && (own < 0 || c.Cost < sol.Candidates[own].Cost) {
			own = i
		}
	}
	if own < 0 {
		t.Fatalf("no multilevel candidate in %+v", sol.Candidates)
	}
	o := sol.Candidates[own]
	for _, c := range sol.Candidates {
		if slices.Contains(names, c.Name) && o.Cost > 1.01*c.Cost {
			t.Errorf("the solver's best own placement (%s: total %.6g s) transfers more than %s (total %.6g s)", o.Name, o.Cost, c.Name, c.Cost)
		}
	}
}

func checkPermutation(t *testing.T, place, slots []int32) {
	t.Helper()
	allowed := map[int32]bool{}
	for _, s := range slots {
		allowed[s] = true
	}
	seen := map[int32]bool{}
	for r, s := range place {
		if !allowed[s] || seen[s] {
			t.Fatalf("rank %d on slot %d: not a free chosen slot", r, s)
		}
		seen[s] = true
	}
}

// TestSolveUsesNodeDistances: on a survey where nodes 0-3 and 1-2 are
// close (5 us round trip) and other node pairs far (50 us), four groups of
// ranks that talk inside and to one partner group (g0-g2, g1-g3) must put
// partner groups on close nodes, which neither rank order, block nor
// cyclic does. (Inside lighter than to the partner: a rank's transfers
// on and off its node overlap, so off-node time shorter than its copies
// on the node would cost nothing wherever the partner group is.)
func TestSolveUsesNodeDistances(t *testing.T) {
	s := &survey.Survey{}
	for i := 0; i < 16; i++ {
		s.Ranks = append(s.Ranks, survey.Rank{Rank: i, Host: fmt.Sprintf("n%d", i/4), CPU: i % 4})
	}
	tab := survey.NewPairTable(16, 64)
	for a := 0; a < 16; a++ {
		for b := a + 1; b < 16; b++ {
			na, nb := a/4, b/4
			v := 50.0
			switch {
			case na == nb:
				v = 1
			case na+nb == 3:
				v = 5
			}
			tab.Set(&survey.PairStats{A: a, B: b, Size: 64, Samples: 1, Mean: v, Median: v})
		}
	}
	s.Tables = []*survey.PairTable{tab}
	m, err := model.MachineFromSurvey(s, model.SurveyCostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var flows []profile.Flow
	for g := 0; g < 4; g++ {
		for i := 0; i < 4; i++ {
			for j := 0; j < 4; j++ {
				if i != j {
					flows = append(flows, profile.Flow{Src: g*4 + i, Dst: g*4 + j, Bytes: 1e5, Messages: 10})
				}
			}
		}
	}
	for _, pr := range [][2]int{{0, 2}, {1, 3}} {
		for i := 0; i < 4; i++ {
			flows = append(flows, profile.Flow{Src: pr[0]*4 + i, Dst: pr[1]*4 + i, Bytes: 1e5, Messages: 10}, profile.Flow{Src: pr[1]*4 + i, Dst: pr[0]*4 + i, Bytes: 1e5, Messages: 10})
		}
	}
	tr := shapes.MustTraffic(flows, 16)
	slots, _ := m.SelectSlots(16, model.SelectOptions{})
	sol, err := solve.Pairwise(m, tr, slots, solve.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	node := func(r int) int { return m.Slots[sol.Place[r]].Node }
	for g := 0; g < 4; g++ {
		for i := 1; i < 4; i++ {
			if node(g*4+i) != node(g*4) {
				t.Fatalf("group %d split over nodes", g)
			}
		}
	}
	for _, pr := range [][2]int{{0, 2}, {1, 3}} {
		if a, b := node(pr[0]*4), node(pr[1]*4); a+b != 3 {
			t.Errorf("groups %d and %d on nodes n%d and n%d, which are far apart", pr[0], pr[1], a, b)
		}
	}
}

// TestRefinesFourBestStarts: from 129 to 512 ranks the four best starts are
// refined, however far the third and fourth are above the best (on a
// simulated 200-rank dragonfly the best refinement came from a start 25%
// above the best one, which refining two starts within 10% missed).
func TestRefinesFourBestStarts(t *testing.T) {
	flows, n := shapes.Halo3D(8, 8, 4, false)
	m := model.NewLevelMachine(16, 1, 16, shapes.BenchLevels)
	_, _, sol := solveAll(t, m, flows, n)
	var refined []string
	for _, c := range sol.Candidates {
		if c.Refined {
			refined = append(refined, c.Name)
		}
	}
	if len(refined) != 4 {
		t.Errorf("%d ranks: %d starts refined (%q), want the 4 best of %d", n, len(refined), refined, len(sol.Candidates))
	}
}
