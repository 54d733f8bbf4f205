package interpose_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/profile"
)

// fortranCase is a Fortran test program with the traffic, calls and
// output its construction gives on np ranks.
type fortranCase struct {
	prog  string   // testdata/mpi/PROG.f90
	p2p   []string // its arguments for point-to-point traffic only
	np    int
	ok    string // what rank 0 prints when every result was right
	want  func(np int) map[pair]traffic
	calls func(rank int) map[string]int64
}

var fortranCases = []fortranCase{
	{"fring", nil, 4, "fring ok", func(np int) map[pair]traffic {
		// 12 x 250 integers to the right; rank 0 sends one more to 1.
		m := map[pair]traffic{}
		for r := 0; r < np; r++ {
			m[pair{r, (r + 1) % np}] = traffic{12 * 1000, 12}
		}
		m[pair{0, 1}] = traffic{12*1000 + 4, 13}
		return m
	}, func(rank int) map[string]int64 {
		c := map[string]int64{"MPI_Sendrecv": 12}
		switch rank {
		case 0:
			c["MPI_Send"] = 1
		case 1:
			c["MPI_Recv"] = 1
		}
		return c
	}},
	{"fhalo", []string{"p2p"}, 4, "fhalo ok", func(np int) map[pair]traffic {
		// 10 x 100 integers each way to both neighbours (Isend), 10 more
		// to the right (Sendrecv); one integer from every rank to rank 0.
		m := map[pair]traffic{}
		add := func(s, d int, b, n int64) {
			t := m[pair{s, d}]
			m[pair{s, d}] = traffic{t.bytes + b, t.msgs + n}
		}
		for r := 0; r < np; r++ {
			add(r, (r+1)%np, 2*10*400, 20)
			add(r, (r-1+np)%np, 10*400, 10)
			if r != 0 {
				add(r, 0, 4, 1)
			}
		}
		return m
	}, func(rank int) map[string]int64 {
		c := map[string]int64{"MPI_Isend": 20, "MPI_Irecv": 20, "MPI_Waitall": 10, "MPI_Sendrecv": 10,
			"MPI_Allreduce": 1, "MPI_Bcast": 1, "MPI_Alltoallv": 1, "MPI_Comm_split": 1, "MPI_Comm_free": 1}
		if rank == 0 {
			c["MPI_Recv"] = 3
		} else {
			c["MPI_Send"] = 1
		}
		return c
	}},
}

// f08Case is fhalo with use mpi_f08: the same traffic and calls. Only
// Open MPI's f08 bindings are bound (MPICH's take array descriptors).
func f08Case() fortranCase {
	c := fortranCases[1]
	c.prog, c.ok = "fhalo08", "fhalo08 ok"
	return c
}

// casesFor are the Fortran programs profiled under the flavour.
func casesFor(f testutil.Flavor) []fortranCase {
	if f.Name == testutil.OpenMPI.Name {
		return append(append([]fortranCase{}, fortranCases...), f08Case())
	}
	return fortranCases
}

// TestFortranBindings profiles Fortran programs (include 'mpif.h' and use
// mpi, and use mpi_f08 under Open MPI) under Open MPI, whose Fortran
// bindings call PMPI_ directly, and
// MPICH, whose bindings call the C MPI_ functions: the programs' own
// checks pass (results unchanged: handles, statuses, MPI_IN_PLACE,
// MPI_STATUS(ES)_IGNORE, ANY_SOURCE converted right), and the calls and
// the matrix are exactly what the programs do, counted once, with and
// without --slt.
func TestFortranBindings(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping MPI runs in -short mode")
	}
	for _, f := range testutil.Flavors {
		t.Run(f.Name, func(t *testing.T) {
			f.LatmapBin(t)
			f.InterposeLib(t)
			for _, tc := range casesFor(f) {
				exe := f.BuildFortran(t, t.TempDir(), tc.prog, filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", tc.prog+".f90"))
				for _, slt := range []bool{false, true} {
					var flags []string
					if slt {
						flags = []string{"--slt"}
					}
					p, out := profileRunFlavor(t, f, f.Local(tc.np), flags, exe)
					if !strings.Contains(out, tc.ok) {
						t.Errorf("%s (slt %v): the program's own checks failed under latmap:\n%s", tc.prog, slt, out)
					}
					if len(p.Ranks) != tc.np {
						t.Fatalf("%s: %d ranks in the profile, want %d", tc.prog, len(p.Ranks), tc.np)
					}
					checkMatrix(t, p, tc.want(tc.np))
					checkCalls(t, p, tc.calls)
				}
			}
		})
	}
}

// TestFortranMatrixEqualsOMPIMonitoring: for the Fortran programs, latmap's
// point-to-point matrix equals what Open MPI's own PML monitoring counted
// in a run without latmap.
func TestFortranMatrixEqualsOMPIMonitoring(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping MPI runs in -short mode")
	}
	f := testutil.OpenMPI
	for _, tc := range casesFor(f) {
		t.Run(tc.prog, func(t *testing.T) {
			exe := f.BuildFortran(t, t.TempDir(), tc.prog, filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", tc.prog+".f90"))
			mon := filepath.Join(t.TempDir(), "prof")
			argv := append(append(f.Local(tc.np), "--mca", "pml_monitoring_enable", "2",
				"--mca", "pml_monitoring_enable_output", "3", "--mca", "pml_monitoring_filename", mon), append([]string{exe}, tc.p2p...)...)
			if out, err := runTimeout(t, 2*time.Minute, argv[0], argv[1:]...); err != nil {
				t.Fatalf("%v: %v\n%s", argv, err, out)
			}
			truth, err := profile.ReadOMPIMonitoring(mon)
			if err != nil {
				t.Fatal(err)
			}
			want := map[pair]traffic{}
			for _, r := range truth {
				want[pair{r.Src, r.Dst}] = traffic{r.Bytes, r.Messages}
			}
			if len(want) == 0 {
				t.Fatal("the monitoring counted no point-to-point traffic")
			}
			p, out := profileRunFlavor(t, f, f.Local(tc.np), nil, exe, tc.p2p...)
			if !strings.Contains(out, tc.ok) {
				t.Errorf("the program's own checks failed under latmap:\n%s", out)
			}
			checkMatrix(t, p, want)
		})
	}
}

// TestFortranF08UnderMPICHSaysSo: a use mpi_f08 program under MPICH runs
// to the end but is not profiled (MPICH's f08 bindings call neither MPI_
// nor PMPI_); the error says so instead of blaming the program.
func TestFortranF08UnderMPICHSaysSo(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping MPI runs in -short mode")
	}
	f := testutil.MPICH
	bin, lib := f.LatmapBin(t), f.InterposeLib(t)
	exe := f.BuildFortran(t, t.TempDir(), "fhalo08", filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", "fhalo08.f90"))
	argv := append([]string{"profile", "-o", filepath.Join(t.TempDir(), "p"), "--lib", lib, "--"}, append(f.Local(4), exe)...)
	out, err := runTimeout(t, 2*time.Minute, bin, argv...)
	if err == nil || !strings.Contains(out, "fhalo08 ok") || !strings.Contains(out, "use mpi_f08 is not profiled under MPICH") {
		t.Errorf("latmap %v: %v, want the program to finish and the error to name mpi_f08 under MPICH:\n%s", argv, err, out)
	}
}
