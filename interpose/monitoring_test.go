package interpose_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/profile"
)

// TestMatrixEqualsOMPIMonitoring checks latmap's point-to-point matrix
// against a truth that is not ours: Open MPI's own PML monitoring of the
// same program run without latmap (with latmap loaded, the monitoring also
// counts latmap's own messages: its --slt tokens and the Finalize gather,
// which are point to point too). The programs are deterministic in what
// each rank sends to whom. For every program, with and without --slt,
// every pair's bytes and messages are equal. (Persistent requests are left
// out: Open MPI 4.1's monitoring counts none of the messages MPI_Start
// sends; TestExactCounts checks persist.c against its construction.)
func TestMatrixEqualsOMPIMonitoring(t *testing.T) {
	t.Parallel() // counts, no clock: beside the other counting tests, after the timed ones
	testutil.Short(t, "MPI runs")
	for _, tc := range []struct {
		prog string
		np   int
		args []string
		slt  bool
	}{
		{"ring", 4, []string{"12", "1000"}, false},
		{"alltoone", 4, []string{"12"}, false},
		{"halo3d", 8, []string{"4", "2", "1", "12"}, false},
		{"halo3d", 8, []string{"4", "2", "1", "12"}, true},
		{"wild", 4, nil, true},
	} {
		t.Run(fmt.Sprintf("%s_slt=%v", tc.prog, tc.slt), func(t *testing.T) {
			prog := mpiProgram(t, tc.prog)
			mon := filepath.Join(t.TempDir(), "prof")
			argv := append(append(testutil.LocalMpirun(tc.np), "--mca", "pml_monitoring_enable", "2",
				"--mca", "pml_monitoring_enable_output", "3", "--mca", "pml_monitoring_filename", mon, prog), tc.args...)
			if out, err := runTimeout(t, 2*time.Minute, argv[0], argv[1:]...); err != nil {
				t.Fatalf("%v: %v\n%s", argv, err, out)
			}
			var flags []string
			if tc.slt {
				flags = []string{"--slt"}
			}
			p, _ := profileRun(t, tc.np, flags, prog, tc.args...)
			truth, err := profile.ReadOMPIMonitoring(mon)
			if err != nil {
				t.Fatal(err)
			}
			want := map[[2]int][2]int64{}
			for _, r := range truth {
				want[[2]int{r.Src, r.Dst}] = [2]int64{r.Bytes, r.Messages}
			}
			got := map[[2]int][2]int64{}
			for _, r := range p.Matrix {
				got[[2]int{r.Src, r.Dst}] = [2]int64{r.Bytes, r.Messages}
			}
			if len(want) == 0 {
				t.Fatal("the monitoring counted no point-to-point traffic")
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("pair %d->%d: latmap %d bytes / %d messages, Open MPI monitoring %d / %d", k[0], k[1], got[k][0], got[k][1], w[0], w[1])
				}
			}
			for k, g := range got {
				if _, ok := want[k]; !ok {
					t.Errorf("pair %d->%d: latmap %d bytes / %d messages, Open MPI monitoring none", k[0], k[1], g[0], g[1])
				}
			}
			t.Logf("%d pairs equal", len(want))
		})
	}
}
