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
			"MPI_Allreduce": 1, "MPI_Bcast": 1, "MPI_Alltoallv": 1, "MPI_Comm_split": 1,
			"MPI_Dist_graph_create_adjacent": 1, "MPI_Comm_free": 2}
		if rank == 0 {
			c["MPI_Recv"] = 3
		} else {
			c["MPI_Send"] = 1
		}
		return c
	}},
}

// f08Case is fhalo with use mpi_f08: the same traffic and calls.
func f08Case() fortranCase {
	c := fortranCases[1]
	c.prog, c.ok = "fhalo08", "fhalo08 ok"
	return c
}

// fsect08 is what only MPICH's use mpi_f08 binds: row sections that are
// not contiguous, of 8 and 4 integers in turn (MPICH sends each as count
// 1 of a temporary datatype), and the large-count (MPI_COUNT_KIND)
// spellings, mpi_send_f08ts_large_ and the like.
const (
	sectIter = 6
	sectM    = 8
)

// sectRowBytes are the bytes of fsect08's row sections: 8, 4, 8, ...
// integers.
func sectRowBytes() int64 {
	var b int64
	for i := 1; i <= sectIter; i++ {
		n := int64(sectM)
		if i%2 == 0 {
			n /= 2
		}
		b += 4 * n
	}
	return b
}

// sectCalls are fsect08's calls on every rank, with their bytes sent and
// received.
var sectCalls = map[string][3]int64{
	"MPI_Send":        {sectIter, sectRowBytes(), 0},
	"MPI_Irecv":       {sectIter, 0, sectRowBytes()},
	"MPI_Wait":        {sectIter, 0, 0},
	"MPI_Send_c":      {1, 4 * sectM, 0},
	"MPI_Recv_c":      {1, 0, 4 * sectM},
	"MPI_Isend_c":     {1, 4 * sectM, 0},
	"MPI_Irecv_c":     {1, 0, 4 * sectM},
	"MPI_Waitall":     {1, 0, 0},
	"MPI_Allreduce_c": {1, 4, 4},
}

func sectCase() fortranCase {
	return fortranCase{"fsect08", nil, 4, "fsect08 ok", func(np int) map[pair]traffic {
		// To the right: the row sections and a large-count row; to the
		// left: a large-count column.
		m := map[pair]traffic{}
		for r := 0; r < np; r++ {
			m[pair{r, (r + 1) % np}] = traffic{sectRowBytes() + 4*sectM, sectIter + 1}
			m[pair{r, (r - 1 + np) % np}] = traffic{4 * sectM, 1}
		}
		return m
	}, func(int) map[string]int64 {
		c := map[string]int64{}
		for fn, x := range sectCalls {
			c[fn] = x[0]
		}
		return c
	}}
}

// casesFor are the Fortran programs profiled under the flavour: under
// MPICH also fsect08, whose large counts Open MPI 4.1's mpi_f08 lacks.
func casesFor(f testutil.Flavor) []fortranCase {
	cs := append(append([]fortranCase{}, fortranCases...), f08Case())
	if f.Name == testutil.MPICH.Name {
		cs = append(cs, sectCase())
	}
	return cs
}

// TestFortranBindings profiles Fortran programs (include 'mpif.h', use
// mpi and use mpi_f08) under Open MPI, whose Fortran bindings call PMPI_
// directly, and MPICH, whose mpif.h and use mpi bindings call the C MPI_
// functions, its use mpi_f08 ones PMPI_ (no buffer) or MPI_ (a buffer,
// through its C descriptors): the programs' own checks pass (results
// unchanged: handles, statuses, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE,
// ANY_SOURCE converted right), and the calls and the matrix are exactly
// what the programs do, counted once, with and without --slt.
func TestFortranBindings(t *testing.T) {
	t.Parallel() // counts, no clock: beside the other counting tests, after the timed ones
	testutil.Short(t, "MPI runs")
	for _, f := range testutil.Flavors() {
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
	t.Parallel() // counts, no clock: beside the other counting tests, after the timed ones
	testutil.Short(t, "MPI runs")
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

// TestFortranF08UnderMPICH: fsect08 (use mpi_f08) under MPICH: every
// rank's profile has exactly the program's calls, each with the bytes it
// moves (no other function; the row sections' bytes are 8, 4, 8, ...
// integers: right only if the size of MPICH's temporary datatype is not
// taken from latmap's cache for the next one, which gets the same handle),
// and the matrix is the program's exchanges.
func TestFortranF08UnderMPICH(t *testing.T) {
	testutil.Short(t, "MPI runs")
	f := testutil.MPICH
	tc := sectCase()
	exe := f.BuildFortran(t, t.TempDir(), tc.prog, filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", tc.prog+".f90"))
	p, out := profileRunFlavor(t, f, f.Local(tc.np), nil, exe)
	if !strings.Contains(out, tc.ok) {
		t.Errorf("the program's own checks failed under latmap:\n%s", out)
	}
	got := map[int]map[string][3]int64{}
	for _, fn := range p.Functions {
		if got[fn.Rank] == nil {
			got[fn.Rank] = map[string][3]int64{}
		}
		got[fn.Rank][fn.Function] = [3]int64{fn.Calls, fn.BytesSent, fn.BytesRecv}
	}
	if len(got) != tc.np {
		t.Fatalf("%d ranks in functions.csv, want %d", len(got), tc.np)
	}
	for r, fns := range got {
		for fn, w := range sectCalls {
			if fns[fn] != w {
				t.Errorf("rank %d %s: calls, bytes sent, received %v, want %v", r, fn, fns[fn], w)
			}
		}
		for fn, g := range fns {
			if _, ok := sectCalls[fn]; !ok {
				t.Errorf("rank %d: unexpected %s %v", r, fn, g)
			}
		}
	}
	checkMatrix(t, p, tc.want(tc.np))
}

// TestFortranF08SymbolsMPICH: liblatmap-mpich.so defines MPICH's use
// mpi_f08 entry points (nm -D of libmpichfort, which a use mpi_f08
// program loads) of every function it binds from Fortran, and none that
// MPICH lacks (a misspelt one would never be called).
func TestFortranF08SymbolsMPICH(t *testing.T) {
	testutil.Short(t, "MPI runs")
	f := testutil.MPICH
	lib := f.InterposeLib(t)
	exe := f.BuildFortran(t, t.TempDir(), "fhalo08", filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", "fhalo08.f90"))
	ldd, err := exec.Command("ldd", exe).Output()
	if err != nil {
		t.Fatalf("ldd %s: %v", exe, err)
	}
	fort := ""
	for _, l := range strings.Split(string(ldd), "\n") {
		if fs := strings.Fields(l); len(fs) >= 3 && strings.HasPrefix(fs[0], "libmpichfort.so") {
			fort = fs[2]
		}
	}
	if fort == "" {
		t.Fatalf("fhalo08 does not load libmpichfort:\n%s", ldd)
	}
	f08 := func(so string) map[string]bool {
		b, err := exec.Command("nm", "-D", "--defined-only", so).Output()
		if err != nil {
			t.Fatalf("nm -D %s: %v", so, err)
		}
		m := map[string]bool{}
		for _, l := range strings.Split(string(b), "\n") {
			if fs := strings.Fields(l); len(fs) == 3 && strings.HasPrefix(fs[2], "mpi_") && strings.Contains(fs[2], "_f08") {
				m[fs[2]] = true
			}
		}
		return m
	}
	ours, theirs := f08(lib), f08(fort)
	if len(ours) < 100 {
		t.Fatalf("%s defines %d use mpi_f08 entry points", lib, len(ours))
	}
	for s := range ours {
		if !theirs[s] {
			t.Errorf("%s defines %s, which %s does not", lib, s, fort)
		}
	}
	// Every MPICH f08 entry point of a function latmap wraps, but those
	// with strings (MPI_Comm_spawn, _accept, _connect, _set_name: not
	// bound from Fortran, see docs/profile.md).
	for s := range theirs {
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(s, "_large_"), "_"), "ts")
		base = strings.TrimSuffix(base, "_f08")
		fn := "MPI_" + strings.ToUpper(base[4:5]) + base[5:]
		if strings.HasSuffix(s, "_large_") {
			fn += "_c"
		}
		if !profile.Wrapped(fn) || strings.HasPrefix(fn, "MPI_Comm_spawn") || fn == "MPI_Comm_accept" || fn == "MPI_Comm_connect" || fn == "MPI_Comm_set_name" {
			continue
		}
		if !ours[s] {
			t.Errorf("%s does not define %s (%s)", lib, s, fn)
		}
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
	testutil.Short(t, "MPI runs")
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
