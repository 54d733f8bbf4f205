package placement

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/slurmcluster"
	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/profile"
)

// TestPlaceSlurmLaunchLine: on a real Slurm over 4 virtual nodes x 2, a
// survey under srun, latmap place --format slurm for ranks 0-5, 1-4, 2-7
// and 3-6 that talk (block puts every pair across nodes), then the launch
// line latmap prints (SLURM_HOSTFILE, srun --distribution=arbitrary
// --cpu-bind=map_cpu) runs a program whose every rank lands on the host
// and cpu the proposal names, the talking pairs together.
func TestPlaceSlurmLaunchLine(t *testing.T) {
	_, s := slurmcluster.StartCluster(t, 4, 2)
	bin := testutil.LatmapBin(t)
	dir := t.TempDir()
	sv := filepath.Join(dir, "survey")
	s.Survey(t, bin, sv, []string{"-N", "4", "-n", "8", "--mpi=pmix", "--cpu-bind=cores"}, "--repeats", "20")
	var flows []profile.Flow
	// 64 MiB each way a pair: bandwidth-bound, so keeping a pair on one
	// node is worth far more than the 2% a proposal must gain (with 1
	// MiB, latency-bound, a survey distorted by a loaded 2-core machine
	// priced both layouts the same, and the proposal stayed block).
	for _, p := range [][2]int{{0, 5}, {1, 4}, {2, 7}, {3, 6}} {
		flows = append(flows, profile.Flow{Src: p[0], Dst: p[1], Bytes: 64 << 20, Messages: 100}, profile.Flow{Src: p[1], Dst: p[0], Bytes: 64 << 20, Messages: 100})
	}
	var report bytes.Buffer
	r, err := runReport(Options{Survey: sv, Matrix: writeMatrix(t, flows), Output: filepath.Join(dir, "hosts"), Format: "slurm",
		App: []string{"./app"}, Force: true, AlwaysWrite: true, AcceptUnbound: true}, &report)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", report.String())
	// SLURM_HOSTFILE=FILE srun -n 8 --distribution=arbitrary --cpu-bind=map_cpu:... ./app
	if len(r.Launch) < 4 || !strings.HasPrefix(r.Launch[0], "SLURM_HOSTFILE=") || r.Launch[1] != "srun" || r.Launch[len(r.Launch)-1] != "./app" {
		t.Fatalf("launch line %q", r.Launch)
	}
	t.Setenv("SLURM_HOSTFILE", strings.TrimPrefix(r.Launch[0], "SLURM_HOSTFILE="))
	got := testutil.Whereami(t, append([]string{"srun", "--partition", s.Partition}, r.Launch[2:len(r.Launch)-1]...))
	want := map[int]testutil.Place{}
	for _, p := range r.Placement {
		want[p.Rank] = testutil.Place{Host: p.Host, CPU: p.CPU}
	}
	checkLanded(t, want, got)
	for _, p := range [][2]int{{0, 5}, {1, 4}, {2, 7}, {3, 6}} {
		if got[p[0]].Host != got[p[1]].Host {
			t.Errorf("ranks %d and %d ran on %s and %s: the proposal pairs them", p[0], p[1], got[p[0]].Host, got[p[1]].Host)
		}
	}
}
