package model_test

import (
	"math"
	"testing"

	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
)

// TestCalibrateOnTheRanksThatSetTheRun: 4 nodes x 2 slots, block; ranks
// 0 and 2 (nodes 0 and 1) exchange 100 MB each way, ranks 4 and 6 (nodes
// 2 and 3) 20 MB, at 50 MB/s between nodes (no nodebw.csv: each node's
// link carries that each way). A barrier after each step makes every
// rank measure the heavy pair's time: 1.5x its modelled 2 s. Fitted on
// the ranks whose modelled communication is within 10% of the largest
// (0 and 2), the off-node factor is 1.5 and the run is predicted as it
// was measured. Over all four communicating ranks the light ones' wait
// pulls the factor to (2x2x3 + 2x0.4x3) / (2x2^2 + 2x0.4^2) = 1.73, and
// with it their median rank is off by 46%: not folded at all.
func TestCalibrateOnTheRanksThatSetTheRun(t *testing.T) {
	levels := [3]model.LinkCost{model.SameSocket: {Latency: 1e-6, InvBandwidth: 1 / 10e9}, model.SameNode: {Latency: 1e-6, InvBandwidth: 1 / 10e9}, model.Network: {Latency: 0, InvBandwidth: 1 / 50e6}}
	m := model.NewLevelMachine(4, 1, 2, levels)
	md, _ := model.NewModel(m, nil, model.ModelOptions{})
	flows := []profile.Flow{{Src: 0, Dst: 2, Bytes: 100e6, Messages: 1}, {Src: 2, Dst: 0, Bytes: 100e6, Messages: 1},
		{Src: 4, Dst: 6, Bytes: 20e6, Messages: 1}, {Src: 6, Dst: 4, Bytes: 20e6, Messages: 1}}
	tr := shapes.MustTraffic(flows, 8)
	slots, _ := m.SelectSlots(8, model.SelectOptions{})
	place := model.Block(slots, 8)
	n := 8
	rt := &model.RankTimes{Comput: make([]float64, n), Sync: make([]float64, n), Late: make([]float64, n), Elapsed: make([]float64, n), MPI: make([]float64, n), Comm: make([]float64, n)}
	for i := range rt.Comm {
		rt.Comm[i], rt.MPI[i], rt.Elapsed[i] = 3, 3, 3
	}
	// The all-ranks case: the model's per-rank times are 2 s for ranks 0
	// and 2, 0.4 s for 4 and 6 (100 MB and 20 MB at 50 MB/s), nothing for
	// the others; one least-squares factor over those four is
	// sum(model x 3) / sum(model^2) = (2x2x3 + 2x0.4x3) / (2x2^2 + 2x0.4^2)
	// = 14.4 / 8.32 = 1.73, with which ranks 0 and 2 are off by
	// |1.73x2/3 - 1| = 15% and 4 and 6 by |1.73x0.4/3 - 1| = 77%: the
	// median, 46%, is beyond FoldRankError, so fitted there it would not
	// fold.
	ev := model.NewEvaluator(md, tr, nil, place)
	wantModel := []float64{2, 0, 2, 0, 0.4, 0, 0.4, 0}
	var num, den float64
	for i, w := range wantModel {
		if got := ev.Pairwise(int32(i)); math.Abs(got-w) > 1e-6 {
			t.Fatalf("rank %d: modelled %g s, want %g", i, got, w)
		}
		num, den = num+w*3, den+w*w
	}
	all := num / den
	errs := []float64{math.Abs(all*2/3 - 1), math.Abs(all*0.4/3 - 1)}
	if math.Abs(all-14.4/8.32) > 1e-9 || math.Abs(all-1.73) > 0.005 || !((errs[0]+errs[1])/2 > model.FoldRankError) {
		t.Fatalf("all-ranks factor %.4f, median error %.3f: want 1.73, beyond %g", all, (errs[0]+errs[1])/2, model.FoldRankError)
	}
	c := model.Calibrate(md, tr, place, rt, 3)
	if !c.Folded || math.Abs(c.OffNode-1.5) > 1e-9 || math.Abs(c.Error) > 1e-9 || math.Abs(c.OffNode-all) < 0.1 {
		t.Fatalf("calibration %+v: want folded, off-node factor 1.5 (not the all-ranks %.2f), the run predicted as measured", c, all)
	}
	if got := model.Predict("current", md, tr, place, rt).Run; math.Abs(got-3) > 1e-9 {
		t.Errorf("calibrated run %g s, want 3", got)
	}
}
