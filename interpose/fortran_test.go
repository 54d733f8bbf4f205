package interpose_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
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

// elkRun runs the Elk ground state of aluminium (Debian's elk-lapw, a
// Fortran MPI code, example basic/Al with the species path set) on np
// ranks in a new directory, with argv before the launch (none: plain;
// latmap profile ...) and mca the Open MPI parameters; it returns the
// directory and the converged total energy line of INFO.OUT.
func elkRun(t *testing.T, np int, wrap []string, mca ...string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	in, err := os.ReadFile("/usr/share/doc/elk-lapw/examples/basic/Al/elk.in")
	if err != nil {
		testutil.Missing(t, testutil.NeedElk, "elk-lapw's examples not found: apt-get install elk-lapw")
	}
	in = bytes.ReplaceAll(in, []byte("'../../../species/'"), []byte("'/usr/share/elk-lapw/species/'"))
	if err := os.WriteFile(filepath.Join(dir, "elk.in"), in, 0o644); err != nil {
		t.Fatal(err)
	}
	argv := append(append(append([]string{}, wrap...), testutil.OpenMPI.Local(np)...), "-x", "OMP_NUM_THREADS=1")
	argv = append(append(argv, mca...), "elk-lapw")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", argv, err, out)
	}
	info, err := os.ReadFile(filepath.Join(dir, "INFO.OUT"))
	if err != nil {
		t.Fatal(err)
	}
	energy := ""
	for _, l := range strings.Split(string(info), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "total energy ") {
			energy = strings.TrimSpace(l)
		}
	}
	if energy == "" {
		t.Fatalf("%v: no total energy in INFO.OUT", argv)
	}
	return dir, energy
}

// TestFortranApplicationElk: a real Fortran MPI application from Debian
// (elk-lapw, the aluminium ground state on 2 ranks, about a second) under
// the profiler: the same total energy as without it, a profile whose
// calls came through the Fortran bindings (Open MPI's own bindings would
// have bypassed latmap: no profile at all before them), and a
// point-to-point matrix equal to Open MPI's PML monitoring of a run
// without latmap (Elk talks through collectives: both are empty).
func TestFortranApplicationElk(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping MPI runs in -short mode")
	}
	f := testutil.OpenMPI
	f.Require(t)
	if _, err := exec.LookPath("elk-lapw"); err != nil {
		testutil.Missing(t, testutil.NeedElk, "elk-lapw not installed: apt-get install elk-lapw")
	}
	bin, lib := f.LatmapBin(t), f.InterposeLib(t)
	mon := filepath.Join(t.TempDir(), "prof")
	_, plain := elkRun(t, 2, nil, "--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3", "--mca", "pml_monitoring_filename", mon)
	out := filepath.Join(t.TempDir(), "elkprof")
	_, profiled := elkRun(t, 2, []string{bin, "profile", "-o", out, "--lib", lib, "--"})
	if plain != profiled {
		t.Errorf("total energy %q under latmap, %q without", profiled, plain)
	}
	p, err := profile.ReadProfile(out)
	if err != nil {
		t.Fatal(err)
	}
	c := calls(p)
	for r := 0; r < 2; r++ {
		if c[r]["MPI_Allreduce"] == 0 || c[r]["MPI_Bcast"] == 0 || c[r]["MPI_Allreduce"] != c[1-r]["MPI_Allreduce"] {
			t.Errorf("rank %d calls %v: want Allreduce and Bcast, the same Allreduce count on both ranks", r, c[r])
		}
	}
	truth, err := profile.ReadOMPIMonitoring(mon)
	if err != nil {
		t.Fatal(err)
	}
	want := map[pair]traffic{}
	for _, r := range truth {
		want[pair{r.Src, r.Dst}] = traffic{r.Bytes, r.Messages}
	}
	checkMatrix(t, p, want)
}
