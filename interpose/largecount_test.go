package interpose_test

import (
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
)

// TestLargeCountNamed: under MPICH 4, whose mpi.h defines the MPI-4
// large-count calls, a program using MPI_Send_c, MPI_Recv_c and
// MPI_Allreduce_c runs unchanged under the profiler; the calls are counted
// and timed, and meta.json names each as not measured (their bytes are
// not in the matrix yet) instead of leaving them silently out.
func TestLargeCountNamed(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping MPI runs in -short mode")
	}
	f := testutil.MPICH
	prog := flavorProgram(t, f, "largecount")
	p, out := profileRunFlavor(t, f, f.Local(2), nil, prog, "5")
	if !strings.Contains(out, "rank 0 sum 1") || !strings.Contains(out, "rank 1 sum 1") {
		t.Fatalf("the program's output changed under the profiler:\n%s", out)
	}
	all := strings.Join(p.Meta.Unmeasured, "\n")
	calls := map[string]int64{}
	for _, fn := range p.Functions {
		calls[fn.Function] += fn.Calls
	}
	for fn, want := range map[string]int64{"MPI_Send_c": 5, "MPI_Recv_c": 5, "MPI_Allreduce_c": 10} {
		if !strings.Contains(all, fn+" was called") {
			t.Errorf("meta.json unmeasured lacks %s:\n%s", fn, all)
		}
		if calls[fn] != want {
			t.Errorf("%s: %d calls, want %d", fn, calls[fn], want)
		}
	}
	if len(p.Matrix) != 0 {
		t.Errorf("matrix %v: large-count traffic is not counted yet, so it must not be half counted", p.Matrix)
	}
}
