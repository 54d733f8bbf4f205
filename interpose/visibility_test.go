package interpose_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
)

// exportedName is what the interposer may export (c/latmap.map): the
// MPI entry points it wraps, C and Fortran.
var exportedName = regexp.MustCompile(`^(MPI_|PMPI_|mpi_|pmpi_)`)

// TestExportsOnlyMPI: nm -D --defined-only of liblatmap.so and
// liblatmap-mpich.so lists the MPI entry points (hundreds of them, in C
// and Fortran spellings) and nothing else: not latmap's state (lm,
// lm_mu) nor its helpers (bprintf, lm_...).
func TestExportsOnlyMPI(t *testing.T) {
	if _, err := exec.LookPath("nm"); err != nil {
		testutil.Missing(t, testutil.NeedMPI, "nm not found (apt-get install binutils)")
	}
	for _, f := range testutil.Flavors() {
		t.Run(f.Name, func(t *testing.T) {
			lib := f.InterposeLib(t)
			out, err := exec.Command("nm", "-D", "--defined-only", lib).Output()
			if err != nil {
				t.Fatalf("nm -D %s: %v", lib, err)
			}
			var other []string
			mpi := 0
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				fields := strings.Fields(line)
				name := fields[len(fields)-1]
				if exportedName.MatchString(name) {
					mpi++
				} else {
					other = append(other, name)
				}
			}
			if len(other) > 0 {
				t.Errorf("%s exports %d names besides the MPI entry points: %s", lib, len(other), strings.Join(other[:min(20, len(other))], " "))
			}
			if mpi < 300 {
				t.Errorf("%s exports %d MPI entry points; want the wrappers (over 300)", lib, mpi)
			}
		})
	}
}

// TestProgramsOwnNames: a program with globals of its own named lm,
// lm_mu and bprintf, linked with -rdynamic (its names in its dynamic
// symbol table, as programs that load plugins are), runs under the
// profiler with its output unchanged (its bprintf printed, its lm
// counting what it sent), and latmap's matrix is the ring it sent:
// neither binds to the other's names.
func TestProgramsOwnNames(t *testing.T) {
	testutil.Short(t, "MPI runs")
	for _, f := range testutil.Flavors() {
		t.Run(f.Name, func(t *testing.T) {
			prog := f.Build(t, t.TempDir(), "namesake", filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", "namesake.c"), "-rdynamic")
			p, out := profileRunFlavor(t, f, f.Local(3), nil, prog, "10")
			for r := 0; r < 3; r++ {
				if want := fmt.Sprintf("namesake: rank %d sent 10000 bytes", r); !strings.Contains(out, want) {
					t.Errorf("the program's output lacks %q:\n%s", want, out)
				}
			}
			checkMatrix(t, p, map[pair]traffic{{0, 1}: {10000, 10}, {1, 2}: {10000, 10}, {2, 0}: {10000, 10}})
		})
	}
}
