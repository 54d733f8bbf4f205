package solve

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey/synth"
	"github.com/latmap/latmap/mapper/topo"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
)

// TestConstructTree: 8 nodes of 2 cores under two switches of 4, and
// four rings of 4 ranks (rank r in ring r mod 4): down the tree two
// rings share each switch, so no byte crosses the switches, whatever
// order the ranks are visited in.
func TestConstructTree(t *testing.T) {
	m := shapes.MustSwitchMachine(t, synth.Spec{Nodes: 8, Sockets: 1, Cores: 2, NodesPerSwitch: 4, RTT: [4]float64{0.5, 0.8, 4, 9}, Seed: 1})
	var flows []profile.Flow
	for ring := 0; ring < 4; ring++ {
		for k := 0; k < 4; k++ {
			a, b := 4*k+ring, 4*((k+1)%4)+ring
			flows = append(flows, profile.Flow{Src: a, Dst: b, Bytes: 1e6, Messages: 10}, profile.Flow{Src: b, Dst: a, Bytes: 1e6, Messages: 10})
		}
	}
	tr, slots := trafficOn(t, m, flows, 16)
	for seed := uint64(0); seed < 4; seed++ {
		how := matching{last: seed == 1}
		if seed > 1 {
			how.rng = rand.New(rand.NewPCG(seed, 1))
		}
		checkTree(t, m, flows, constructTree(m, tr, slots, how))
	}
}

// checkTree fails when a flow crosses the switches or a slot holds two
// ranks.
func checkTree(t *testing.T, m *model.Machine, flows []profile.Flow, place []int32) {
	t.Helper()
	sw := func(r int) int32 { return m.NetGroups[0][m.Slots[place[r]].Node] }
	for _, f := range flows {
		if sw(f.Src) != sw(f.Dst) {
			t.Errorf("ranks %d and %d talk across the switches (placement %v)", f.Src, f.Dst, place)
		}
	}
	seen := map[int32]bool{}
	for _, p := range place {
		if seen[p] {
			t.Fatalf("slot %d holds two ranks: %v", p, place)
		}
		seen[p] = true
	}
}

// TestExchangeGroupsLeavesLocalOptimum: 8 nodes of 2 cores, 2 nodes a
// switch, 2 switches a pod; four blocks of 4 ranks that talk inside
// themselves, block A with block B and C with D. Placed one block a
// switch with A and C in one pod, B and D in the other, every A-B and
// C-D message crosses the pods. Exchanging ranks or whole nodes cannot
// leave that placement (a block split over two pods is slower still),
// exchanging whole switch groups does: B's switch with C's in one move,
// after which no message crosses the pods.
func TestExchangeGroupsLeavesLocalOptimum(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 8, Sockets: 1, Cores: 2, NodesPerSwitch: 2, NodesPerPod: 4, PodRTT: 30, RTT: [4]float64{0.5, 0.8, 4, 9}, Seed: 1})
	var of [][]int
	var note string
	if s.Switches, of, note = topo.SwitchGroups(s); len(of) != 2 {
		t.Fatalf("switch levels %v, want switches and pods: %s", of, note)
	}
	m, err := model.MachineFromSurvey(s, model.SurveyCostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	md, _ := model.NewModel(m, nil, model.ModelOptions{})
	var flows []profile.Flow
	talk := func(a, b int, msgs float64) {
		flows = append(flows, profile.Flow{Src: a, Dst: b, Bytes: 64 * msgs, Messages: msgs}, profile.Flow{Src: b, Dst: a, Bytes: 64 * msgs, Messages: msgs})
	}
	for blk := 0; blk < 4; blk++ {
		for i := 0; i < 4; i++ {
			for j := i + 1; j < 4; j++ {
				talk(4*blk+i, 4*blk+j, 1000)
			}
		}
	}
	for i := 0; i < 4; i++ {
		talk(i, 4+i, 800)    // A with B
		talk(8+i, 12+i, 800) // C with D
	}
	tr, slots := trafficOn(t, m, flows, 16)
	// A on switch 0, C on switch 1 (pod 0), B on switch 2, D on switch 3.
	start := make([]int32, 16)
	for r := range start {
		blk, i := r/4, r%4
		at := map[int]int{0: 0, 1: 2, 2: 1, 3: 3}[blk]
		start[r] = slots[4*at+i]
	}
	pod := func(place []int32, r int) int32 { return m.NetGroups[1][m.Slots[place[r]].Node] }
	nodesOnly := newSwapper(md, tr, nil, slices.Clone(start), 1)
	if n, settled := nodesOnly.exchangeNodes(1000); n != 0 || !settled {
		t.Errorf("exchanging whole nodes kept %d exchanges from the split start (settled %v): it is not the local optimum this test is about", n, settled)
	}
	// A budget spent by the first scan stops there, not settled: refine
	// scans again.
	if n, settled := newSwapper(md, tr, nil, slices.Clone(start), 1).exchangeGroups(1); n != 1 || settled {
		t.Errorf("exchanging switch groups with a budget of 1 kept %d, settled %v; want 1 kept, not settled", n, settled)
	}
	place := slices.Clone(start)
	sw := newSwapper(md, tr, nil, place, 1)
	before := sw.ev.Objective()
	if n, settled := sw.exchangeGroups(1000); n == 0 || !settled {
		t.Fatalf("exchanging switch groups kept %d (settled %v; objective %+v)", n, settled, before)
	}
	after := sw.ev.Objective()
	if !after.Better(before) || !near(after, model.NewEvaluator(md, tr, nil, slices.Clone(place)).Objective()) {
		t.Errorf("objective %+v -> %+v (a fresh evaluator: %+v)", before, after, model.NewEvaluator(md, tr, nil, slices.Clone(place)).Objective())
	}
	for i := 0; i < 4; i++ {
		if pod(place, i) != pod(place, 4+i) || pod(place, 8+i) != pod(place, 12+i) {
			t.Errorf("after the group exchanges A-B or C-D still cross the pods: %v", place)
			break
		}
	}
	t.Logf("predicted run %.4g s -> %.4g s", before.Run, after.Run)
}

// trafficOn is flows among n ranks as traffic, and the n slots m's
// selection gives them.
func trafficOn(t *testing.T, m *model.Machine, flows []profile.Flow, n int) (*model.Traffic, []int32) {
	t.Helper()
	tr, err := model.NewTraffic(n, flows)
	if err != nil {
		t.Fatal(err)
	}
	slots, err := m.SelectSlots(n, model.SelectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr, slots
}

// TestSolveAllToAllNotSearched: on a machine of switches and pods, an
// all-to-all of equal messages has the same predicted run and transfer
// in any order of its ranks on the same slots (the premise of alike), so
// Solve prices its starts and says why it did not search; one pair's
// traffic doubled, it searches again.
func TestSolveAllToAllNotSearched(t *testing.T) {
	m := shapes.MustSwitchMachine(t, synth.Spec{Nodes: 8, Sockets: 1, Cores: 4, NodesPerSwitch: 2, NodesPerPod: 4, PodRTT: 30, RTT: [4]float64{0.5, 0.8, 4, 9}, Seed: 1})
	md, _ := model.NewModel(m, nil, model.ModelOptions{})
	const n = 24
	var flows []profile.Flow
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			if a != b {
				flows = append(flows, profile.Flow{Src: a, Dst: b, Bytes: 1 << 16, Messages: 4})
			}
		}
	}
	tr, slots := trafficOn(t, m, flows, n)
	want := model.NewEvaluator(md, tr, nil, slices.Clone(slots)).Objective()
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20; trial++ {
		place := slices.Clone(slots)
		rng.Shuffle(n, func(i, j int) { place[i], place[j] = place[j], place[i] })
		if got := model.NewEvaluator(md, tr, nil, place).Objective(); !near(got, want) {
			t.Fatalf("the all-to-all in another order on the same slots: %+v, in slot order %+v", got, want)
		}
	}
	sol, err := Solve(md, tr, nil, slots, nil, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Note != NoteAlike || len(sol.Candidates) != 2 || sol.Winner != "block" || !slices.Equal(sol.Place, model.Block(slots, n)) {
		t.Errorf("all-to-all: winner %s of %d candidates, note %q; want block of block and cyclic, note NoteAlike", sol.Winner, len(sol.Candidates), sol.Note)
	}
	flows[0].Bytes *= 2
	tr, _ = trafficOn(t, m, flows, n)
	if sol, err = Solve(md, tr, nil, slots, nil, Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if sol.Note != "" || !slices.ContainsFunc(sol.Candidates, func(c Candidate) bool { return constructed(c.Name) }) {
		t.Errorf("one pair doubled: note %q, candidates %+v; want a search", sol.Note, sol.Candidates)
	}
}
