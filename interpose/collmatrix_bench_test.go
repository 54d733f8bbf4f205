package interpose_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/internal/testutil"
)

// BenchmarkCollectiveCall prints the time liblatmap.so adds to a cheap
// collective (MPI_Bcast and MPI_Allreduce of one int on MPI_COMM_SELF,
// 1,000,000 calls per batch, median of 9 batches, median of 5 alternated
// runs) in basic mode and with --collectives-in-matrix: without the flag a
// collective wrapper costs what any wrapper costs (two clock reads), the
// flag adds one call of its hook.
func BenchmarkCollectiveCall(b *testing.B) {
	testutil.RequireMPI(b)
	lib := testutil.InterposeLib(b)
	prog := testutil.BuildMPIProgram(b, b.TempDir(), "overhead", filepath.Join(testutil.RepoRoot(b), "testdata", "mpi", "overhead.c"))
	run := func(env ...string) map[string]float64 {
		argv := testutil.LocalMpirun(1)
		if len(env) > 0 {
			argv = append(argv, "-x", "LD_PRELOAD="+lib, "-x", "LATMAP_PROFILE_DIR="+b.TempDir())
			for _, e := range env[1:] {
				argv = append(argv, "-x", e)
			}
		}
		argv = append(argv, prog, "1000000", "9", "coll")
		out, err := runTimeout(b, 5*time.Minute, argv[0], argv[1:]...)
		if err != nil {
			b.Fatalf("%v: %v\n%s", argv, err, out)
		}
		return figures(out)
	}
	modes := [][]string{nil, {"basic"}, {"matrix", "LATMAP_COLLMATRIX=1"}}
	got := make([]map[string][]float64, len(modes))
	for i := range got {
		got[i] = map[string][]float64{}
	}
	for r := 0; r < 5; r++ {
		for i, env := range modes {
			for k, v := range run(env...) {
				got[i][k] = append(got[i][k], v)
			}
		}
	}
	for fn, name := range map[string]string{"bcast": "MPI_Bcast", "allreduce": "MPI_Allreduce"} {
		bare, basic, mat := stats.Median(got[0][fn+"_ns"]), stats.Median(got[1][fn+"_ns"]), stats.Median(got[2][fn+"_ns"])
		b.ReportMetric(basic-bare, "added-"+fn+"-ns/call")
		b.ReportMetric(mat-basic, "matrix-"+fn+"-ns/call")
		fmt.Fprintf(os.Stderr, "%s(MPI_COMM_SELF): %.1f ns bare, %.1f ns basic (+%.1f), %.1f ns --collectives-in-matrix (+%.1f over basic)\n",
			name, bare, basic, basic-bare, mat, mat-basic)
	}
}
