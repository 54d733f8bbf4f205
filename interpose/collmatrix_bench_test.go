package interpose_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
)

// BenchmarkCollectiveCall prints the time liblatmap.so adds to a cheap
// collective (MPI_Bcast and MPI_Allreduce of one int on MPI_COMM_SELF,
// 1,000,000 calls per batch, median of 9 batches, median of 5 alternated
// runs) in basic mode, with --collectives-in-matrix and with mpiP -k 0
// when given. The targets: a collective wrapper costs what any wrapper
// costs (two clock reads and callBudgetNs), the flag adds one call of its
// hook (at most callBudgetNs more), and no more than mpiP.
func BenchmarkCollectiveCall(b *testing.B) {
	testutil.RequireMPI(b)
	lib := testutil.InterposeLib(b)
	vs := append([]variant{{"bare", "", nil}, {"basic", lib, nil}, {"matrix", lib, []string{"LATMAP_COLLMATRIX=1"}}}, mpip(b, 0)...)
	r := alternate(b, overheadProg(b), 1, 1000000, 5, vs, []string{"bcast_ns", "allreduce_ns", "rdtsc_ns", "clock_gettime_ns"}, "coll")
	limit := 2*r.clock() + callBudgetNs
	for _, fn := range []string{"Bcast", "Allreduce"} {
		k := strings.ToLower(fn) + "_ns"
		basic, mat := r.added("basic", k, 1), r.med("matrix", k)-r.med("basic", k)
		b.ReportMetric(basic, "added-"+k+"/call")
		b.ReportMetric(mat, "matrix-"+k+"/call")
		fmt.Fprintf(os.Stderr, "MPI_%s(MPI_COMM_SELF): %.1f ns bare, basic +%.1f (target %.1f: %s), --collectives-in-matrix +%.1f over basic (target %d: %s)\n",
			fn, r.med("bare", k), basic, limit, atMost(b, "MPI_"+fn+"'s added ns", basic, limit),
			mat, callBudgetNs, atMost(b, "MPI_"+fn+"'s matrix hook ns", mat, callBudgetNs))
		if r["mpip"] != nil {
			p := r.added("mpip", k, 1)
			fmt.Fprintf(os.Stderr, "  mpiP -k 0, same runs: +%.1f ns (latmap basic %.2fx of it: %s)\n", p, basic/p, atMost(b, "latmap's MPI_"+fn+" cost over mpiP's", basic, p))
		}
	}
}
