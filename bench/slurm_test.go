package bench_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/slurmcluster"
	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/survey"
)

// TestSurveyUnderSrun: latmap survey started by a real Slurm (slurmctld and
// one slurmd per virtual node) with srun -N 4 -n 8 --mpi=pmix runs ranks
// 0-1 on the first node, 2-3 on the second..., each bound to its own cpu,
// and says it ran under srun; MPICH's build does the same under
// srun --mpi=pmi2 on 2 nodes.
func TestSurveyUnderSrun(t *testing.T) {
	c, s := slurmcluster.StartCluster(t, 4, 2)
	for _, tc := range []struct {
		f     testutil.Flavor
		nodes int
		mpi   string
	}{{testutil.OpenMPI, 4, "pmix"}, {testutil.MPICH, 2, "pmi2"}} {
		t.Run(tc.f.Name, func(t *testing.T) {
			bin := tc.f.LatmapBin(t)
			n := 2 * tc.nodes
			out := filepath.Join(t.TempDir(), "survey")
			// The nodes named: Slurm may give any free ones, and the
			// nodes of the step before may still be finishing it.
			s.Survey(t, bin, out, []string{"-N", strconv.Itoa(tc.nodes), "-n", strconv.Itoa(n), "--nodelist=" + strings.Join(c.Nodes[:tc.nodes], ","),
				"--mpi=" + tc.mpi, "--cpu-bind=cores"},
				"--repeats", "20", "--sizes", "64,64K")
			sv, err := survey.ReadSurvey(out, survey.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if sv.N() != n || sv.Meta.Launcher != "slurm" {
				t.Errorf("%d ranks, launcher %q; want %d and slurm", sv.N(), sv.Meta.Launcher, n)
			}
			for r, rk := range sv.Ranks {
				if want := c.Nodes[r/2]; rk.Host != want {
					t.Errorf("rank %d ran on %q, want %q", r, rk.Host, want)
				}
				if r%2 == 1 && rk.CPU == sv.Ranks[r-1].CPU {
					t.Errorf("ranks %d and %d share cpu %d", r-1, r, rk.CPU)
				}
			}
			if got := sv.Tables[0].SamplesAt(0, n-1); got != 20 {
				t.Errorf("pair (0,%d): %d samples", n-1, got)
			}
		})
	}
	// scancel 5 s into a long survey, as a job's time limit ends it
	// (SIGTERM to every task, SIGKILL KillWait later, 5 s here): the
	// survey stops after its pass and writes a valid partial survey that
	// topo and plot read and call partial.
	t.Run("scancel", func(t *testing.T) {
		s.Setenv(t)
		bin := testutil.OpenMPI.LatmapBin(t)
		out := filepath.Join(t.TempDir(), "survey")
		args := append(s.Srun("-J", "latmap-stopped", "-N", "2", "-n", "4", "--nodelist="+strings.Join(c.Nodes[:2], ","), "--mpi=pmix", "--cpu-bind=cores"),
			bin, "survey", "-o", out, "--repeats", "100000", "--sizes", "64,1K")
		o, err := stopMidway(t, args, 5*time.Second, func(*os.Process) {
			if o, err := s.Command("scancel", "-n", "latmap-stopped").CombinedOutput(); err != nil {
				t.Errorf("scancel: %v\n%s", err, o)
			}
		})
		t.Logf("srun after scancel: %v\n%s", err, o)
		checkStopped(t, bin, out, 4, "SIGTERM", o)
		checkResumed(t, append(s.Srun("-N", "2", "-n", "4", "--nodelist="+strings.Join(c.Nodes[:2], ","), "--mpi=pmix", "--cpu-bind=cores"), bin), out, 4)
	})
}
