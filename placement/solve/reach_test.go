package solve

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
)

// reachModels are machines of 16 nodes x 2 cores whose exchanges of
// whole nodes reach different things: routed links (a torus, a
// dragonfly), switch groups' uplinks, and nodes alone.
func reachModels(t *testing.T) map[string]*model.Model {
	t.Helper()
	out := map[string]*model.Model{}
	var err error
	if out["torus 4x4"], _, err = shapes.RoutedTorus(16, 2, []int{4, 4}, 1e9, 32); err != nil {
		t.Fatal(err)
	}
	out["dragonfly 2x2x2x2"], err = shapes.RoutedModel(16, 2, shapes.BenchLevels, func(h []string) (*fabric.Fabric, error) {
		return fabric.NewDragonfly(h, fabric.DragonflyShape{Groups: 2, Chassis: 2, Routers: 2, Nodes: 2, Blue: 1, Black: 1, Green: 1}, 1e9, 1e-6, false)
	})
	if err != nil {
		t.Fatal(err)
	}
	out["switches"] = switchedModel(t, []float64{300, 200, 400, 250})
	out["levels"] = model.Pairwise(model.NewLevelMachine(16, 1, 2, shapes.BenchLevels))
	return out
}

// switchedModel is shapes.SwitchedModel of 16 nodes x 2 cores, 4 nodes
// a switch, whose switches' uplinks carry up MB/s each (the test fails
// on a note).
func switchedModel(t *testing.T, up []float64) *model.Model {
	t.Helper()
	md, notes, err := shapes.SwitchedModel(16, 4, shapes.SwitchRows(4, up))
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 0 {
		t.Fatalf("premise: uplinks not priced: %q", notes)
	}
	return md
}

// TestReachSkipsOnlyLosers prices every exchange of the slowest rank's
// node, and of its pair and quad of nodes, with every other that the
// screen (model.Reach) skips: none may bring the run to the least the
// solver asks of it. Random traffic, placed at random and refined, and
// runs to reach 0.01% to 20% below the run now; the screen must skip
// some on each machine.
func TestReachSkipsOnlyLosers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	models := reachModels(t)
	for _, name := range slices.Sorted(maps.Keys(models)) {
		md := models[name]
		skipped, priced, reached := 0, 0, 0
		for trial := 0; trial < 200; trial++ {
			tr := sparseTraffic(t, 32, 1+trial%3, rng)
			sw := newSwapper(md, tr, nil, randomPlace(len(md.Slots), 32, rng), 1)
			if trial%2 == 1 {
				sw.refineSwaps(2)
			}
			c := sw.ev.Critical()
			if c < 0 {
				continue
			}
			ng := sw.nodeGroup[sw.place[c]]
			for _, margin := range []float64{1e-4, 1e-3, 0.01, 0.05, 0.2} {
				run := sw.ev.Objective().Run
				low := run * (1 - margin)
				for _, per := range []int{1, 2, 4} {
					lv := sw.groupedBy(per)
					var rc model.Reach
					var from, to []int32
					sw.ev.Reach(&rc, low, sw.evalNodes(lv.members[lv.of[ng]], &from))
					for gb := range lv.members {
						pairs := sw.groupPairs(lv.members[lv.of[ng]], lv.members[gb])
						if gb == lv.of[ng] || pairs == nil {
							continue
						}
						if rc.Can(sw.evalNodes(lv.members[gb], &to)) {
							priced++
							if o := sw.ev.TryAll(pairs); o.Run <= low {
								reached++
							}
							continue
						}
						skipped++
						if o := sw.ev.TryAll(pairs); o.Run <= low {
							t.Fatalf("%s trial %d: exchanging %d node(s) %v with %v reaches %.6g, at most %.6g (run %.6g), but the screen skipped it",
								name, trial, per, lv.members[lv.of[ng]], lv.members[gb], o.Run, low, run)
						}
					}
				}
			}
		}
		t.Logf("%s: %d exchanges skipped, %d priced, %d of which reach", name, skipped, priced, reached)
		if skipped == 0 || priced == 0 {
			t.Errorf("%s: the screen skipped %d exchanges and let %d through: want some of each", name, skipped, priced)
		}
	}
}

// sparseTraffic is n ranks each sending to deg random others, up to 16
// MiB a pair.
func sparseTraffic(t *testing.T, n, deg int, rng *rand.Rand) *model.Traffic {
	t.Helper()
	var flows []profile.Flow
	for a := range n {
		for range deg {
			flows = append(flows, profile.Flow{Src: a, Dst: rng.IntN(n), Messages: float64(1 + rng.IntN(100)), Bytes: float64(rng.IntN(1 << 24))})
		}
	}
	tr, err := model.NewTraffic(n, flows)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// groupedBy is a level of whole exchanges whose groups are per node
// groups each, in node order.
func (sw *swapper) groupedBy(per int) wholeLevel {
	nodes := sw.nodeGroups()
	slices.SortFunc(nodes, func(a, b int32) int { return sw.m.Slots[sw.groups[a][0]].Node - sw.m.Slots[sw.groups[b][0]].Node })
	lv := wholeLevel{of: sw.unplaced()}
	for i, ng := range nodes {
		if i%per == 0 {
			lv.members = append(lv.members, nil)
		}
		g := len(lv.members) - 1
		lv.members[g], lv.of[ng] = append(lv.members[g], ng), g
	}
	return lv
}

// TestReachKeepsWhatReaches: on the switched machine (4 nodes a
// switch), node A's ranks talk to node C's across the switches, and node
// B's to node N's, A and N on one switch, B and C on the other; all four
// nodes are as slow. Exchanging A with B puts every pair on a switch of
// its own: it reaches far below the run, and the screen must let it
// through, though B is neither a hot node of A's peers nor C (hot, a
// peer of A's ranks) one of B's.
func TestReachKeepsWhatReaches(t *testing.T) {
	md := switchedModel(t, []float64{1e6, 1e6, 1e6, 1e6})
	node := func(h int) []int32 {
		var s []int32
		for i, sl := range md.Slots {
			if sl.Node == h {
				s = append(s, int32(i))
			}
		}
		return s
	}
	a, n, c, b := node(0), node(1), node(4), node(5)
	place := []int32{a[0], a[1], n[0], n[1], c[0], c[1], b[0], b[1]}
	var flows []profile.Flow
	for _, p := range [][2]int{{0, 4}, {1, 5}, {6, 2}, {7, 3}} {
		flows = append(flows, profile.Flow{Src: p[0], Dst: p[1], Messages: 1e5, Bytes: 8e5}, profile.Flow{Src: p[1], Dst: p[0], Messages: 1e5, Bytes: 8e5})
	}
	sw := newSwapper(md, shapes.MustTraffic(flows, 8), nil, place, 1)
	run := sw.ev.Objective().Run
	low := run * 0.9
	var rc model.Reach
	sw.ev.Reach(&rc, low, []int32{0})
	pairs := [][2]int32{{0, 6}, {1, 7}}
	if o := sw.ev.TryAll(pairs); o.Run > low {
		t.Fatalf("premise: exchanging A and B reaches %.4g, not below %.4g", o.Run, low)
	}
	if !rc.Can([]int32{5}) {
		t.Errorf("the screen skips exchanging A with B, which reaches below the run by 10%%")
	}
}
