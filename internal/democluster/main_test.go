package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/internal/vcluster"
	"github.com/latmap/latmap/mapper/placefile"
)

// TestDemoClusterPredictionComesTrue runs make demo-cluster's flow and
// checks its verify line: the speedup latmap place predicted (its model
// calibrated on the profiled run) against the one measured on separate
// reruns of the application, out of sample, within 0.8-1.25, and a gain
// of a few x, so that both are measured well.
func TestDemoClusterPredictionComesTrue(t *testing.T) {
	if why := vcluster.Unavailable(); why != "" {
		testutil.Missing(t, testutil.NeedVCluster, "%s", why)
	}
	testutil.OpenMPI.Require(t)
	bin := testutil.LatmapBin(t)
	t.Chdir(testutil.RepoRoot(t)) // the demo builds testdata/mpi/pairs.c
	out := filepath.Join(t.TempDir(), "demo")
	if err := run(out, bin); err != nil {
		t.Fatal(err)
	}
	v, runs, err := placefile.ReadVerification(filepath.Join(out, "verify"))
	if err != nil {
		t.Fatal(err)
	}
	if !v.AppTimed || v.MeasuredOn != "app" {
		t.Fatalf("verify did not time the application (%s): %+v", v.AppNote, v.Measured)
	}
	if v.PredictedOver < 0.8 || v.PredictedOver > 1.25 || v.AppSpeedup < 2 {
		t.Errorf("predicted %.2fx, measured %.2fx (application, %d runs): predicted/measured %.2f, want 0.8-1.25 and a gain of a few x", v.PredictedSpeedup, v.AppSpeedup, len(runs), v.PredictedOver)
	}
	t.Logf("predicted %.2fx, measured %.2fx (95%% %.2f-%.2f), predicted/measured %.2f; whole launches %.2fx with %.3f s of launch", v.PredictedSpeedup, v.AppSpeedup, v.AppSpeedupCI95[0], v.AppSpeedupCI95[1], v.PredictedOver, v.Speedup, v.LaunchMedian)
	testutil.Record(t, "make demo-cluster's verify line", "predicted speedup", fmt.Sprintf("%.2fx", v.PredictedSpeedup), "measured (application, 95%)", fmt.Sprintf("%.2fx (%.2f-%.2f)", v.AppSpeedup, v.AppSpeedupCI95[0], v.AppSpeedupCI95[1]), "predicted / measured", v.PredictedOver, "held to", "0.8-1.25, and a measured gain of 2x or more")
}
