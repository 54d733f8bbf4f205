package interpose_test

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/profile"
)

var checksum = regexp.MustCompile(`(?m)^checksum (-?\d+)$`)

// TestReorderLocal: latmap profile --reorder on this machine, under Open
// MPI and MPICH, of testdata/mpi/cart2d.c's 1x2 grid (MPI_Cart_create
// with reorder = 1): with the ranks bound to a cpu each, the call is
// renumbered through latmap place --same-slots (on one host of two alike
// cpus any numbering ties, so the identity, predicted 1x) and meta.json
// and the report say so; unbound, MPI's numbering is kept and the reason
// given. The checksum is the plain run's every time. The same for
// fcart2d.f90, the grid from Fortran's use mpi (latmap's binding calls
// the C wrapper), and for distgraph.c's ring from each graph constructor. (The gain itself: placement's
// TestReorderOnShapedCluster.)
func TestReorderLocal(t *testing.T) {
	testutil.Short(t, "MPI runs")
	for _, f := range testutil.Flavors() {
		t.Run(f.Name, func(t *testing.T) {
			bin, lib := f.LatmapBin(t), f.InterposeLib(t)
			dir := t.TempDir()
			prog := flavorProgram(t, f, "cart2d")
			sv := filepath.Join(dir, "survey")
			bind := []string{"--bind-to", "core"}
			unbind := []string{"--bind-to", "none"}
			if f.Name == testutil.MPICH.Name {
				bind, unbind = []string{"-bind-to", "core"}, []string{"-bind-to", "none"}
			}
			testutil.MustRun(t, 2*time.Minute, append(append(f.Local(2), bind...), bin, "survey", "-o", sv, "--repeats", "50")...)
			fprog := f.BuildFortran(t, dir, "fcart2d", filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", "fcart2d.f90"))
			for _, c := range []struct {
				name, prog string
				binding    []string
				outcome    string
			}{{"bound", prog, bind, "reordered"}, {"unbound", prog, unbind, "the processes are not bound to one cpu each"}, {"fortran", fprog, bind, "reordered"}} {
				app := []string{c.prog, "1", "2", "5", "65536", "1024"}
				want := checksum.FindString(testutil.MustRun(t, time.Minute, append(append(f.Local(2), bind...), app...)...))
				out := filepath.Join(dir, c.name)
				argv := append(append(append([]string{bin, "profile", "-o", out, "--lib", lib, "--reorder", sv, "--"}, f.Local(2)...), c.binding...), app...)
				o := testutil.MustRun(t, time.Minute, argv...)
				if got := checksum.FindString(o); want == "" || got != want {
					t.Errorf("%s: %q, the plain run %q", c.name, got, want)
				}
				p, err := profile.ReadProfile(out)
				if err != nil {
					t.Fatal(err)
				}
				rs := p.Meta.Reorders
				if len(rs) != 1 || rs[0].Call != "MPI_Cart_create" || rs[0].Ranks != 2 || !strings.HasPrefix(rs[0].Outcome, c.outcome) || !slices.Equal(rs[0].NewRanks, []int{0, 1}) ||
					!slices.Contains(p.Meta.Modes, profile.ModeReorder) {
					t.Fatalf("%s: meta.json modes %v, reorders %+v; want one call, %q, the identity", c.name, p.Meta.Modes, rs, c.outcome)
				}
				if c.outcome == "reordered" && rs[0].PredictedSpeedup != 1 {
					t.Errorf("%s: predicted %gx, want 1 (a tie keeps the identity)", c.name, rs[0].PredictedSpeedup)
				}
				rep := testutil.MustRun(t, time.Minute, bin, "report", out)
				if !strings.Contains(rep, "--reorder: MPI_Cart_create #0 over 2 ranks") {
					t.Errorf("%s: the report does not say what --reorder did:\n%s", c.name, rep)
				}
			}
			// The graph constructors: distgraph.c's ring of 2 from each.
			gprog := flavorProgram(t, f, "distgraph")
			for mode, call := range map[string]string{"": "MPI_Dist_graph_create_adjacent", "graph": "MPI_Graph_create", "dist": "MPI_Dist_graph_create"} {
				app := []string{gprog, "3", "65536", "2", "1", mode}
				want := checksum.FindString(testutil.MustRun(t, time.Minute, append(append(f.Local(2), bind...), app...)...))
				out := filepath.Join(dir, "graph"+mode)
				o := testutil.MustRun(t, time.Minute, append(append(append([]string{bin, "profile", "-o", out, "--lib", lib, "--reorder", sv, "--"}, f.Local(2)...), bind...), app...)...)
				p, err := profile.ReadProfile(out)
				if err != nil {
					t.Fatal(err)
				}
				if r := p.Meta.Reorders; checksum.FindString(o) != want || len(r) != 1 || r[0].Call != call || r[0].Outcome != "reordered" {
					t.Errorf("%s: checksum %q (plain %q), reorders %+v", call, checksum.FindString(o), want, r)
				}
			}
		})
	}
}
