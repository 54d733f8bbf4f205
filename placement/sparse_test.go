package placement

import (
	"testing"

	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
	"github.com/latmap/latmap/placement/model"
)

// TestSparseSurveyMachine: a nodes-scope survey held sparse (as a large
// one is read) makes the same machine as the all-pairs survey of the same
// made-up cluster: the same level costs (each level's median, noise-free
// here) and pair counts, its unmeasured pairs counted as filled, and no
// pair table.
func TestSparseSurveyMachine(t *testing.T) {
	spec := synth.Spec{Nodes: 6, Sockets: 2, Cores: 4, RTT: [4]float64{1, 2, 10, 10}, Seed: 5}
	full, err := model.MachineFromSurvey(synth.New(spec), model.SurveyCostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec.Scope = survey.ScopeNodes
	s := synth.New(spec)
	sparse, err := model.MachineFromSurvey(s, model.SurveyCostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sparse.PerPair() {
		t.Error("a sparse survey made a dense pair table")
	}
	for l := model.Level(0); l < model.Level(sparse.NumLevels()); l++ {
		if !near32(full.Levels[l].Latency, sparse.Levels[l].Latency) || !near32(full.Levels[l].InvBandwidth, sparse.Levels[l].InvBandwidth) {
			t.Errorf("%s: %+v, want %+v", sparse.LevelName(l), sparse.Levels[l], full.Levels[l])
		}
		if full.LevelPairs[l] != sparse.LevelPairs[l] {
			t.Errorf("%s: %d pairs, want %d", sparse.LevelName(l), sparse.LevelPairs[l], full.LevelPairs[l])
		}
	}
	if want := survey.TriLen(48) - s.Tables[0].Len(); sparse.Filled != want {
		t.Errorf("filled %d, want %d", sparse.Filled, want)
	}
	if got := sparse.Link(1, 9); got != sparse.Levels[model.Network] {
		t.Errorf("link (1, 9) = %+v, want the other-node level %+v", got, sparse.Levels[model.Network])
	}
}
