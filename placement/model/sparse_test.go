package model_test

import (
	"path/filepath"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
)

// TestSparseSurveyMachine: a nodes-scope survey held sparse, priced node
// pair by node pair, makes the machine the same survey makes read dense
// and filled from its node leaders: every slot pair's link, the level
// costs (weighted medians against plain ones), the measured and
// leader-filled counts; and both differ from the all-pairs survey's
// links where the leaders' pair is not the pair's own.
func TestSparseSurveyMachine(t *testing.T) {
	spec := synth.Spec{Nodes: 16, Sockets: 2, Cores: 4, RTT: [4]float64{1, 2, 10, 10}, Noise: 0.2, Seed: 5, Scope: survey.ScopeNodes}
	dir := filepath.Join(t.TempDir(), "s")
	if err := survey.WriteSurvey(dir, synth.New(spec), false); err != nil {
		t.Fatal(err)
	}
	machine := func(keep bool) *model.Machine {
		s, err := survey.ReadSurvey(dir, survey.LoadOptions{KeepSparse: keep})
		if err != nil {
			t.Fatal(err)
		}
		if s.Sparse() != keep {
			t.Fatalf("KeepSparse %v: sparse %v (the survey covers %d of %d pairs)", keep, s.Sparse(), s.Tables[0].Len(), survey.TriLen(128))
		}
		m, err := model.MachineFromSurvey(s, model.SurveyCostOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	filled, sparse := machine(false), machine(true)
	if !sparse.PerPair() {
		t.Error("the sparse machine prices by level, not node pair by node pair")
	}
	for a := 0; a < 128; a++ {
		for b := a + 1; b < 128; b++ {
			x, y := filled.Link(a, b), sparse.Link(a, b)
			if !shapes.Near32(x.Latency, y.Latency) || !shapes.Near32(x.InvBandwidth, y.InvBandwidth) {
				t.Fatalf("link (%d, %d): %+v sparse, %+v filled", a, b, y, x)
			}
		}
	}
	for l := model.Level(0); l < model.Level(sparse.NumLevels()); l++ {
		if !shapes.Near32(filled.Levels[l].Latency, sparse.Levels[l].Latency) || !shapes.Near32(filled.Levels[l].InvBandwidth, sparse.Levels[l].InvBandwidth) {
			t.Errorf("%s: %+v, want %+v", sparse.LevelName(l), sparse.Levels[l], filled.Levels[l])
		}
		if filled.LevelPairs[l] != sparse.LevelPairs[l] || filled.LevelMeasured[l] != sparse.LevelMeasured[l] {
			t.Errorf("%s: %d pairs %d measured, want %d %d", sparse.LevelName(l), sparse.LevelPairs[l], sparse.LevelMeasured[l], filled.LevelPairs[l], filled.LevelMeasured[l])
		}
	}
	if sparse.LeaderFilled != filled.LeaderFilled || sparse.LeaderFilled == 0 || sparse.Filled != filled.Filled {
		t.Errorf("leader-filled %d, filled %d; want %d, %d", sparse.LeaderFilled, sparse.Filled, filled.LeaderFilled, filled.Filled)
	}
	// Ranks 1 and 9 are not leaders: their link is the leaders' (0, 8).
	if got, want := sparse.Link(1, 9), sparse.Link(0, 8); got != want {
		t.Errorf("link (1, 9) = %+v, want the leaders' %+v", got, want)
	}
}
