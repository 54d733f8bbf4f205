package placement

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/placement/internal/shapes"
)

// replayProfiled simulates the replay of flows in iter iterations with
// compute seconds of computation before each, the ranks on rankHosts, and
// returns the simulated run and the profile of it that replay.c writes
// (what latmap profile would have measured: each rank's elapsed and
// computation time, its time in MPI by function), with the matrix.csv of
// the flows as replayed.
func (c *simCluster) replayProfiled(t testing.TB, flows []profile.Flow, iter int, compute float64, rankHosts []string) (float64, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "profile")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The profile's matrix.csv is the replay's input too (replay.c reads
	// the first four columns).
	mx := filepath.Join(dir, profile.MatrixFile)
	writeFlows(t, mx, flows, iter, true)
	out := c.run(t, rankHosts, "replay", mx, strconv.Itoa(iter), strconv.FormatFloat(compute, 'g', -1, 64), dir)
	return appSeconds(t, out), dir
}

// appSeconds is the simulated run replay.c prints ("app_s 0.123").
func appSeconds(t testing.TB, out string) float64 {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "app_s "); ok {
			if s, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
				return s
			}
		}
	}
	t.Fatalf("replay printed no app_s:\n%s", out)
	return 0
}

// TestSimComputationOutOfSample: on the simulated 16 x 4 fat tree with
// 2:1 uplinks, an application that computes between its exchanges (a
// random sparse pattern of 1 MiB messages, 10 ms of computation before
// each of 10 exchanges) is profiled in the layout the scheduler gave it
// (cyclic); latmap place calibrates on that profile and predicts block
// and its proposal, which are then simulated: runs it was not fitted on.
// Each predicted run is within 0.8-1.25 of the simulated one, each
// predicted speedup over the profiled layout whose simulated speedup is
// above 1.05x within 0.8-1.25 of it, and the proposal simulates faster
// than the profiled layout and no slower than block.
func TestSimComputationOutOfSample(t *testing.T) {
	t.Parallel() // simulated time: see simMemo
	c := fatTree16x4(t)
	sv := c.survey(t, "all", []int{64, 1 << 20}, 10)
	flows := scaleFlows(first(shapes.RandomSparse(64, 4, 1)), 10<<20)
	const iter, compute = 10, 0.01
	simCurrent, prof := c.replayProfiled(t, flows, iter, compute, c.cyclic(64))
	a, prop := placeHosts(t, Options{Survey: sv, Profile: prof})
	if a.Calibration == nil || len(a.Predictions) < 2 || a.Predictions[0].Name != "current" {
		t.Fatalf("no calibration or no current placement in the advice: %+v", a.Predictions)
	}
	pred := map[string]float64{"current": a.Predictions[0].Run, "proposal": a.Predictions[len(a.Predictions)-1].Run}
	for _, p := range a.Predictions {
		if p.Name == "block" {
			pred["block"] = p.Run
		}
	}
	sim := map[string]float64{"current": simCurrent}
	sim["block"], _ = c.replayProfiled(t, flows, iter, compute, c.block(64))
	sim["proposal"], _ = c.replayProfiled(t, flows, iter, compute, prop)
	t.Logf("calibrated on the cyclic run (factors on-node %.3f, off-node %.3f; raw predicted %.4f s for %.4f s profiled)",
		a.Calibration.OnNode, a.Calibration.OffNode, a.Calibration.RawPredictedS, simCurrent)
	for _, l := range []string{"current", "block", "proposal"} {
		p, s := pred[l], sim[l]
		t.Logf("%-8s predicted %.4f s, simulated %.4f s (%.2f); speedup over the profiled layout predicted %.2fx, simulated %.2fx",
			l, p, s, p/s, pred["current"]/p, sim["current"]/s)
		if l == "current" {
			continue // in sample: the factors were fitted on this run
		}
		if p/s < 0.8 || p/s > 1.25 {
			t.Errorf("%s: predicted %.4f s, simulated %.4f s: %.2fx (want 0.8-1.25, out of sample)", l, p, s, p/s)
		}
		if ps, ss := pred["current"]/p, sim["current"]/s; ss > 1.05 && (ps/ss < 0.8 || ps/ss > 1.25) {
			t.Errorf("%s over the profiled layout: predicted %.2fx, simulated %.2fx", l, ps, ss)
		}
		testutil.Record(t, "calibrated on the profiled cyclic run, predicting the others", "layout", l, "predicted s", p, "simulated s", s, "predicted / simulated", p/s, "speedup over the profiled layout, predicted / simulated", fmt.Sprintf("%.2fx / %.2fx", pred["current"]/p, sim["current"]/s), "held to", "run 0.8-1.25 of its simulation; speedup 0.8-1.25 of the simulated one where that is over 1.05x; the proposal faster than the profiled layout, no slower than block")
	}
	if sim["proposal"] >= sim["current"] || sim["proposal"] > sim["block"]*(1+1e-6) {
		t.Errorf("the proposal simulates %.4f s; the profiled layout %.4f s, block %.4f s", sim["proposal"], sim["current"], sim["block"])
	}
}
