package interpose_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/slurmcluster"
)

// TestProfileUnderSrun: latmap profile -- srun -N 2 -n 4 --mpi=pmix ring,
// on a real Slurm over two virtual nodes: srun carries LD_PRELOAD to every
// rank, the program's output is unchanged, the matrix is exactly the
// ring's (each rank sends 12 messages of 1000 B to the next), and each
// rank's host is the node Slurm put it on (0-1 on the first, 2-3 on the
// second).
func TestProfileUnderSrun(t *testing.T) {
	c, s := slurmcluster.StartCluster(t, 2, 2)
	p, out := profileRunWith(t, s.Srun("-N", "2", "-n", "4", "--mpi=pmix", "--cpu-bind=cores"), nil, mpiProgram(t, "ring"), "12", "1000")
	want := map[pair]traffic{}
	for r := 0; r < 4; r++ {
		want[pair{r, (r + 1) % 4}] = traffic{12000, 12}
	}
	checkMatrix(t, p, want)
	for _, r := range p.Ranks {
		if w := c.Nodes[r.Rank.Rank/2]; r.Host != w {
			t.Errorf("rank %d on %q, want %q\n%s", r.Rank.Rank, r.Host, w, out)
		}
	}
	for _, line := range []string{"rank 0 sum", "rank 3 sum"} {
		if !strings.Contains(out, line) {
			t.Errorf("program output lacks %q:\n%s", line, out)
		}
	}
}

// TestPartialProfileUnderSrun: the same ring under srun on two virtual
// nodes, ended by scancel 6 s in as a time limit ends a job (SIGTERM to
// every task, SIGKILL KillWait later): a partial profile from the ranks'
// last snapshots, each rank's bytes the program's own count.
func TestPartialProfileUnderSrun(t *testing.T) {
	_, s := slurmcluster.StartCluster(t, 2, 2)
	s.Setenv(t)
	checkPartial(t, s.Srun("-J", "latmap-partial", "-N", "2", "-n", "4", "--mpi=pmix"), "1", func(*exec.Cmd) {
		if o, err := s.Command("scancel", "-n", "latmap-partial").CombinedOutput(); err != nil {
			t.Errorf("scancel: %v\n%s", err, o)
		}
	})
}
