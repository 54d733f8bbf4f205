package interpose_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
)

// TestThreadsExact: under MPI_THREAD_MULTIPLE, 4 threads per rank each
// exchanging 2,500 messages with the peer rank on their own tag
// (testdata/mpi/threads.c) give exact calls, bytes and matrix, 20 runs in
// a row. Before the library took a lock under MPI_THREAD_MULTIPLE the same
// program lost messages from the counts or crashed in most runs.
func TestThreadsExact(t *testing.T) {
	t.Parallel() // counts, no clock: beside the other counting tests, after the timed ones
	testutil.Short(t, "MPI runs")
	testutil.RequireMPI(t)
	prog := mpiProgram(t, "threads")
	const n, runs = 2500, 20
	// --bind-to none: the 4 threads of a rank may use both cores.
	mpirun := append(testutil.LocalMpirun(2), "--bind-to", "none")
	// Per direction: 4 threads x n messages of (t+1)*8 bytes.
	want := map[pair]traffic{{0, 1}: {n * 8 * (1 + 2 + 3 + 4), 4 * n}, {1, 0}: {n * 8 * (1 + 2 + 3 + 4), 4 * n}}
	for run := 0; run < runs; run++ {
		flags := []string{}
		if run == runs-1 {
			flags = []string{"--slt"} // tokens on their own tags: still exact
		}
		p, out := profileRunWith(t, mpirun, flags, prog, fmt.Sprint(n))
		if !strings.Contains(out, "provided 3") {
			t.Fatalf("MPI_THREAD_MULTIPLE not granted:\n%s", out)
		}
		if p.Meta.ThreadLevel != 3 {
			t.Errorf("run %d: meta.json thread_level %d, want 3", run, p.Meta.ThreadLevel)
		}
		checkMatrix(t, p, want)
		checkBalance(t, p)
		checkCalls(t, p, func(int) map[string]int64 { return map[string]int64{"MPI_Isend": 4 * n, "MPI_Irecv": 4 * n} })
		for _, f := range p.Functions {
			if (f.Function == "MPI_Isend" && f.BytesSent != want[pair{0, 1}].bytes) ||
				(f.Function == "MPI_Irecv" && f.BytesRecv != want[pair{0, 1}].bytes) {
				t.Errorf("run %d: rank %d %s sent %d received %d bytes, want %d", run, f.Rank, f.Function, f.BytesSent, f.BytesRecv, want[pair{0, 1}].bytes)
			}
		}
		if t.Failed() {
			t.Fatalf("run %d of %d (flags %v) is not exact", run+1, runs, flags)
		}
	}
}
