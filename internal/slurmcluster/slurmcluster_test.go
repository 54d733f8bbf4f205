package slurmcluster_test

import (
	"testing"

	"github.com/latmap/latmap/internal/slurmcluster"
	"github.com/latmap/latmap/internal/testutil"
)

// TestSrunPlacesRanks: srun -N 2 -n 4 --mpi=pmix starts an Open MPI
// program's ranks 0-1 on the first virtual node and 2-3 on the second,
// each rank on its own cpu of its node.
func TestSrunPlacesRanks(t *testing.T) {
	c, s := slurmcluster.StartCluster(t, 2, 2)
	got := testutil.Whereami(t, s.Srun("-N", "2", "-n", "4", "--mpi=pmix", "--cpu-bind=cores"))
	for r := 0; r < 4; r++ {
		if want := c.Nodes[r/2]; got[r].Host != want {
			t.Errorf("rank %d on %q, want %q (all: %v)\n%s", r, got[r].Host, want, got, s.Logs())
		}
	}
	if got[0].CPU == got[1].CPU || got[2].CPU == got[3].CPU {
		t.Errorf("two ranks of a node on one cpu: %v", got)
	}
}
