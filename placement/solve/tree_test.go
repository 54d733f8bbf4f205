package solve

import (
	"math/rand/v2"
	"testing"

	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey/synth"
	"github.com/latmap/latmap/mapper/topo"
	"github.com/latmap/latmap/placement/model"
)

// TestConstructTree: 8 nodes of 2 cores under two switches of 4, and
// four rings of 4 ranks (rank r in ring r mod 4): down the tree two
// rings share each switch, so no byte crosses the switches, whatever
// order the ranks are visited in.
func TestConstructTree(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 8, Sockets: 1, Cores: 2, NodesPerSwitch: 4, RTT: [4]float64{0.5, 0.8, 4, 9}, Seed: 1})
	var note string
	if s.Switches, _, note = topo.SwitchGroups(s); len(s.Switches) == 0 {
		t.Fatalf("no switch groups: %s", note)
	}
	m, err := model.MachineFromSurvey(s, model.SurveyCostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var flows []profile.Flow
	for ring := 0; ring < 4; ring++ {
		for k := 0; k < 4; k++ {
			a, b := 4*k+ring, 4*((k+1)%4)+ring
			flows = append(flows, profile.Flow{Src: a, Dst: b, Bytes: 1e6, Messages: 10}, profile.Flow{Src: b, Dst: a, Bytes: 1e6, Messages: 10})
		}
	}
	tr, err := model.NewTraffic(16, flows)
	if err != nil {
		t.Fatal(err)
	}
	slots, err := m.SelectSlots(16, model.SelectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(0); seed < 4; seed++ {
		var rng *rand.Rand
		if seed > 0 {
			rng = rand.New(rand.NewPCG(seed, 1))
		}
		checkTree(t, m, flows, constructTree(m, tr, slots, rng))
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
