package interpose_test

import (
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
)

// TestLargeCountMeasured: under MPICH 4, whose mpi.h defines the MPI-4
// large-count calls, a program using MPI_Send_c, MPI_Recv_c,
// MPI_Isend_c/MPI_Irecv_c, MPI_Sendrecv_c and the _c collectives runs
// unchanged under the profiler; the point-to-point calls are in the matrix
// exactly as the program sends, each _c collective counts the same bytes
// as its int-count twin called with the same arguments, and none is named
// as not measured.
func TestLargeCountMeasured(t *testing.T) {
	testutil.Short(t, "MPI runs")
	f := testutil.MPICH
	prog := flavorProgram(t, f, "largecount")
	for _, slt := range []bool{false, true} {
		var flags []string
		if slt {
			flags = []string{"--slt"}
		}
		p, out := profileRunFlavor(t, f, f.Local(2), flags, prog, "5")
		if !strings.Contains(out, "rank 0 sum 1 1") || !strings.Contains(out, "rank 1 sum 1 1") {
			t.Fatalf("the program's output changed under the profiler:\n%s", out)
		}
		checkMatrix(t, p, map[pair]traffic{
			{0, 1}: {5 * (256 + 128 + 64), 15},
			{1, 0}: {5 * (128 + 64), 10},
		})
		checkCalls(t, p, func(rank int) map[string]int64 {
			c := map[string]int64{"MPI_Isend_c": 5, "MPI_Irecv_c": 5, "MPI_Sendrecv_c": 5,
				"MPI_Allreduce_c": 5, "MPI_Bcast_c": 5, "MPI_Alltoallv_c": 5}
			if rank == 0 {
				c["MPI_Send_c"] = 5
			} else {
				c["MPI_Recv_c"] = 5
			}
			return c
		})
		type bytes struct{ sent, recv int64 }
		per := map[int]map[string]bytes{}
		for _, fn := range p.Functions {
			if per[fn.Rank] == nil {
				per[fn.Rank] = map[string]bytes{}
			}
			per[fn.Rank][fn.Function] = bytes{fn.BytesSent, fn.BytesRecv}
		}
		for r, fns := range per {
			for _, coll := range []string{"MPI_Allreduce", "MPI_Bcast", "MPI_Alltoallv"} {
				if c, i := fns[coll+"_c"], fns[coll]; c != i || (i.sent == 0 && i.recv == 0) {
					t.Errorf("rank %d: %s_c counted %+v bytes, %s %+v", r, coll, c, coll, i)
				}
			}
			if got := fns["MPI_Recv_c"].recv; r == 1 && got != 5*256 {
				t.Errorf("rank 1 MPI_Recv_c received %d bytes, want %d", got, 5*256)
			}
		}
		if all := strings.Join(p.Meta.Unmeasured, "\n"); strings.Contains(all, "_c ") {
			t.Errorf("meta.json still names large-count calls as not measured:\n%s", all)
		}
	}
}

// TestPersistentCollectiveWaitall: under MPICH 4, an MPI-4 persistent
// collective (MPI_Allreduce_init, MPI_Start) completed in one MPI_Waitall
// with point-to-point requests: with --slt the wait ends when the
// application's requests are complete (the persistent one inactive) —
// no hang — the results are right, and the ring's traffic is counted
// exactly.
func TestPersistentCollectiveWaitall(t *testing.T) {
	testutil.Short(t, "MPI runs")
	f := testutil.MPICH
	prog := flavorProgram(t, f, "pcoll")
	const np, iter = 3, 10
	for _, flags := range [][]string{nil, {"--slt"}} {
		p, out := profileRunFlavor(t, f, f.Local(np), flags, prog, "10")
		if !strings.Contains(out, "pcoll ok 30") {
			t.Fatalf("with %v the program printed:\n%s", flags, out)
		}
		want := map[pair]traffic{}
		for r := 0; r < np; r++ {
			want[pair{r, (r + 1) % np}] = traffic{iter * 64 * 4, iter}
		}
		checkMatrix(t, p, want)
		checkCalls(t, p, func(int) map[string]int64 { return map[string]int64{"MPI_Waitall": iter, "MPI_Start": iter} })
	}
}
