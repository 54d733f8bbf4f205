package placement

import (
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/placement/model"
	"github.com/latmap/latmap/placement/solve"
)

// TestHedgeFar: of the proposal searched on the switch levels and the
// one searched on the routers alone (in.hedge), the routers' is taken
// unless the other is predicted solve.WorthIt faster at worst over the
// models, and what runs today is kept where neither is solve.WorthIt
// faster than it at worst. On the grouped ring of routers (two cores a
// node), cyclic is predicted faster than block on every model, and
// block with two ranks swapped as slow as block.
func TestHedgeFar(t *testing.T) {
	in, slots, usable := pairedRingInputs(t)
	in.hedge = in.md
	block, cyc := model.Block(slots, in.t.N), in.md.Cyclic(usable, in.t.N)
	swapped := slices.Clone(block)
	swapped[0], swapped[8] = swapped[8], swapped[0]
	for _, c := range []struct {
		name        string
		levels, alt []int32
		want        []int32
		winner      string
	}{
		{"as fast at worst: the routers'", cyc, cyc, cyc, "alt (routers alone)"},
		{"the switch levels' faster", cyc, block, cyc, "levels"},
		{"the routers' faster", block, cyc, cyc, "alt (routers alone)"},
		{"neither faster than block", swapped, block, block, "block"},
	} {
		sol := &solve.Solution{Place: slices.Clone(c.levels), Winner: "levels"}
		solveOn := func(md *model.Model) (*solve.Solution, error) {
			if md != in.hedge {
				t.Fatalf("%s: searched another model than in.hedge", c.name)
			}
			return &solve.Solution{Place: slices.Clone(c.alt), Winner: "alt"}, nil
		}
		if err := hedgeFar(sol, in, slots, solveOn); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(sol.Place, c.want) || sol.Winner != c.winner || !strings.Contains(sol.Note, "group them by distance") {
			t.Errorf("%s: winner %q, note %q; want %q", c.name, sol.Winner, sol.Note, c.winner)
		}
	}
}

// TestHedgePick: the routers' proposal unless the switch levels' scores
// solve.WorthIt lower; the other where the one so chosen is not
// solve.WorthIt below what runs today; neither where neither is.
func TestHedgePick(t *testing.T) {
	for _, c := range []struct {
		ws, wa        float64
		routers, keep bool
	}{
		{0.688, 0.691, true, false},  // as good: the routers'
		{0.606, 1.088, false, false}, // the switch levels' 2% lower
		{0.975, 0.99, false, false},  // the routers' not 2% faster than today, the switch levels' are
		{0.99, 0.975, true, false},   // the switch levels' not 2% faster, the routers' are
		{0.99, 0.995, true, true},    // neither
		{1.524, 1.48, true, true},
	} {
		if r, k := hedgePick(c.ws, c.wa); r != c.routers || k != c.keep {
			t.Errorf("scores %.3f, %.3f: routers %v, keep %v; want %v, %v", c.ws, c.wa, r, k, c.routers, c.keep)
		}
	}
}

// TestPredictRanges: where the round trips allow more than one network
// (in.hedge set: here md itself, with the spread model the paired ring's
// round trips keep), every placement's prediction carries its range over
// them: the least and the most of its runs priced on each, around the
// predicted run; without in.hedge, none.
func TestPredictRanges(t *testing.T) {
	in, slots, usable := pairedRingInputs(t)
	proposal := in.md.Cyclic(usable, in.t.N)
	var a placefile.Advice
	predict(&a, in, slots, usable, proposal)
	for _, p := range a.Predictions {
		if p.Low != 0 || p.High != 0 {
			t.Errorf("%s: range %g-%g without in.hedge", p.Name, p.Low, p.High)
		}
	}
	in.hedge = in.md
	a = placefile.Advice{}
	predict(&a, in, slots, usable, proposal)
	wide := 0
	for i, p := range a.Predictions {
		place := [][]int32{model.Block(slots, in.t.N), in.md.Cyclic(usable, in.t.N), proposal}[i]
		r := model.Predict(p.Name, in.spread, in.t, place, in.rt).Run
		if p.Low != min(p.Run, r) || p.High != max(p.Run, r) {
			t.Errorf("%s: range %g-%g, want the least and most of %g (md) and %g (spread)", p.Name, p.Low, p.High, p.Run, r)
		}
		if p.Low < p.High {
			wide++
		}
	}
	if wide == 0 {
		t.Error("every range is one point: the spread model priced the placements as md does, and the test tests nothing")
	}
}

// TestCalibratedModels: with a profile whose communication the model
// folds (factors other than 1: here the profile measured twice the
// model's), the models made from md before the calibration (the hedge
// and the spread routing, copies of md priced otherwise) carry md's
// factors after propose, so that hedgeFar's worst ratios, the kept
// layouts and the ranges judge every model by the run the profile
// measured. Before, they were priced uncalibrated beside a calibrated md.
func TestCalibratedModels(t *testing.T) {
	sv := groupedRingSurveyOf(t, 2)
	var flows []profile.Flow
	for r := 0; r < 8; r++ {
		flows = append(flows, profile.Flow{Src: r, Dst: r + 8, Bytes: 1e8, Messages: 10}, profile.Flow{Src: r + 8, Dst: r, Bytes: 1e8, Messages: 10})
	}
	in0, err := loadInputs(Options{Survey: sv, Matrix: writeMatrix(t, flows), Ranks: 16})
	if err != nil {
		t.Fatal(err)
	}
	slots, _, err := selectSlots(Options{}, in0)
	if err != nil {
		t.Fatal(err)
	}
	block := model.Block(slots, 16)
	hosts, cpus := make([]string, 16), make([]int, 16)
	for r, sl := range block {
		hosts[r], cpus[r] = in0.m.Slots[sl].Host, in0.m.Slots[sl].CPU
	}
	comm := model.Predict("", in0.md, in0.t, block, nil).Run
	in, err := loadInputs(Options{Survey: sv, Profile: fakeProfile(t, hosts, cpus, 1, 2*comm, 0, 0, flows)})
	if err != nil {
		t.Fatal(err)
	}
	if in.spread == nil {
		t.Fatal("no spread model kept: the test tests nothing")
	}
	hedge := *in.md
	in.hedge = &hedge
	a, _, err := propose(Options{}, in)
	if err != nil {
		t.Fatal(err)
	}
	if c := a.Calibration; c == nil || !c.Folded || in.md.Scale == [2]float64{1, 1} {
		t.Fatalf("calibration %+v, md's factors %v: not folded, and the test tests nothing", c, in.md.Scale)
	}
	for name, m := range map[string]*model.Model{"hedge": in.hedge, "spread": in.spread} {
		if m.Scale != in.md.Scale {
			t.Errorf("%s model's factors %v, md's %v", name, m.Scale, in.md.Scale)
		}
	}
}
