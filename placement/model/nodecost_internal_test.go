package model

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

// TestNodeCostsInParts: a sparse survey's machine read in 1 to 5 parts
// at once (nodeCostParts) is the machine read in one: every slot pair's
// link, the level costs and every count, on a survey of the nodes'
// leaders.
func TestNodeCostsInParts(t *testing.T) {
	defer func(p int) { nodeCostPairs = p }(nodeCostPairs)
	for _, scope := range []string{survey.ScopeNodes} {
		dir := filepath.Join(t.TempDir(), "s")
		spec := synth.Spec{Nodes: 40, Sockets: 2, Cores: 4, RTT: [4]float64{1, 2, 10, 10}, Noise: 0.2, Seed: 5, Scope: scope}
		if err := survey.WriteSurvey(dir, synth.New(spec), false); err != nil {
			t.Fatal(err)
		}
		s, err := survey.ReadSurvey(dir, survey.LoadOptions{KeepSparse: true})
		if err != nil || !s.Sparse() {
			t.Fatalf("%s: sparse %v, %v", scope, s != nil && s.Sparse(), err)
		}
		var want *Machine
		for parts := 1; parts <= 5; parts++ {
			nodeCostPairs = max(1, s.Tables[0].Len()/parts)
			if got := nodeCostParts(s.Tables[0].Len()); got != min(parts, maxProcs()) {
				continue
			}
			m, err := MachineFromSurvey(s, SurveyCostOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if want == nil {
				want = m
				continue
			}
			if !reflect.DeepEqual(m.nodes, want.nodes) || !reflect.DeepEqual(m.Levels, want.Levels) || !reflect.DeepEqual(m.LevelMeasured, want.LevelMeasured) ||
				m.LeaderFilled != want.LeaderFilled || m.Filled != want.Filled {
				t.Errorf("%s: read in %d parts, the machine differs from the one read in one", scope, parts)
			}
		}
	}
}
