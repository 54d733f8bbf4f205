package interpose_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/plots/report"
)

// siteLines finds the lines of the SITE:name markers in a source file.
func siteLines(t *testing.T, src string) map[string]int {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if i := strings.Index(sc.Text(), "/* SITE:"); i >= 0 {
			out[strings.TrimSuffix(strings.Fields(sc.Text()[i+8:])[0], "*/")] = n
		}
	}
	return out
}

// TestCallSites: testdata/mpi/callsites.c, built -g as a PIE with a
// shared-library caller (callsites_lib.c), sends from three call sites
// with counts we chose; the profile names each site's function, file and
// line, with exactly those calls and bytes, and the receiving site's.
func TestCallSites(t *testing.T) {
	testutil.OpenMPI.Require(t)
	dir := t.TempDir()
	mpi := filepath.Join(testutil.RepoRoot(t), "testdata", "mpi")
	src, libSrc := filepath.Join(mpi, "callsites.c"), filepath.Join(mpi, "callsites_lib.c")
	for _, argv := range [][]string{
		{"mpicc", "-g", "-O2", "-fPIC", "-shared", "-o", filepath.Join(dir, "libcsites.so"), libSrc},
		{"mpicc", "-g", "-O2", "-fPIE", "-pie", "-o", filepath.Join(dir, "callsites"), src, "-L" + dir, "-lcsites", "-Wl,-rpath," + dir},
	} {
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
		}
	}
	p, out := profileRun(t, 2, []string{"--call-sites"}, filepath.Join(dir, "callsites"))
	if !strings.Contains(out, "callsites ok") {
		t.Fatalf("the program did not finish:\n%s", out)
	}
	if !p.HasMode(profile.ModeCallSites) {
		t.Errorf("modes %v: want %s", p.Meta.Modes, profile.ModeCallSites)
	}
	lines, libLines := siteLines(t, src), siteLines(t, libSrc)
	frames := map[int]profile.SiteFrame{}
	for _, f := range p.Sites {
		if f.Frame == 0 {
			frames[f.Site] = f
		}
	}
	type key struct {
		rank     int
		fn, file string
		line     int
	}
	got := map[key]profile.CallSite{}
	for _, c := range p.CallSites {
		f := frames[c.Site]
		got[key{c.Rank, c.Function, filepath.Base(f.File), f.Line}] = c
		if !filepath.IsAbs(f.File) {
			t.Errorf("site %d: file %q is not absolute", c.Site, f.File)
		}
	}
	for _, w := range []struct {
		k           key
		fnPrefix    string
		calls       int64
		sent, recvd int64
	}{
		{key{0, "MPI_Send", "callsites.c", lines["helper"]}, "helper_send", 3, 1200, 0},
		{key{0, "MPI_Send", "callsites.c", lines["main"]}, "main", 5, 5000, 0},
		{key{0, "MPI_Send", "callsites_lib.c", libLines["lib"]}, "lib_send", 7, 448, 0},
		{key{1, "MPI_Recv", "callsites.c", lines["recv"]}, "main", 15, 0, 1200 + 5000 + 448},
	} {
		c, ok := got[w.k]
		if !ok {
			t.Errorf("no call site %+v; have %+v and sites %+v", w.k, p.CallSites, p.Sites)
			continue
		}
		if fn := frames[c.Site].Function; !strings.HasPrefix(fn, w.fnPrefix) {
			t.Errorf("%+v: function %q, want %s", w.k, fn, w.fnPrefix)
		}
		if c.Calls != w.calls || c.BytesSent != w.sent || c.BytesRecv != w.recvd || c.Time <= 0 {
			t.Errorf("%+v: %d calls, %d bytes sent, %d received, %g s; want %d, %d, %d, > 0", w.k, c.Calls, c.BytesSent, c.BytesRecv, c.Time, w.calls, w.sent, w.recvd)
		}
	}
	// latmap report names the sites with their lines.
	var rep bytes.Buffer
	if err := report.Report(&rep, p, report.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Call sites: the", fmt.Sprintf("callsites.c:%d)", lines["helper"]), fmt.Sprintf("callsites_lib.c:%d)", libLines["lib"])} {
		if !strings.Contains(rep.String(), w) {
			t.Errorf("latmap report does not say %q:\n%s", w, rep.String())
		}
	}
	// The sites add up to functions.csv.
	for _, f := range p.Functions {
		var calls int64
		var tm float64
		for _, c := range p.CallSites {
			if c.Rank == f.Rank && c.Function == f.Function {
				calls += c.Calls
				tm += c.Time
			}
		}
		if calls != f.Calls || (f.Time > 0 && (tm/f.Time < 0.999 || tm/f.Time > 1.001)) {
			t.Errorf("rank %d %s: call sites have %d calls %g s, functions.csv %d calls %g s", f.Rank, f.Function, calls, tm, f.Calls, f.Time)
		}
	}
}

// TestCallSitesFortran: a use mpi program under Open MPI (through latmap's
// Fortran bindings, whose frames are left out) has its MPI_Isend and
// MPI_Irecv call sites on the source lines that call them.
func TestCallSitesFortran(t *testing.T) {
	checkFortranSites(t, testutil.OpenMPI, "fhalo", []string{"--call-sites"})
}

// TestCallSitesFortranF08MPICH: so has a use mpi_f08 program under MPICH,
// whose MPI_Isend and MPI_Irecv go from latmap's forwarder through MPICH's
// own f08ts procedure and its MPIR_*_cdesc to the C wrapper (MPICH's
// frames are left out too), with one frame and with three.
func TestCallSitesFortranF08MPICH(t *testing.T) {
	for _, flag := range []string{"--call-sites", "--call-sites=3"} {
		checkFortranSites(t, testutil.MPICH, "fhalo08", []string{flag})
	}
}

// checkFortranSites profiles testdata/mpi/NAME.f90 (built with -g) on 2
// ranks of flavour f with flags and checks that rank 0's MPI_Isend and
// MPI_Irecv sites are (frame 0) exactly the source lines that call them.
func checkFortranSites(t *testing.T, f testutil.Flavor, name string, flags []string) {
	t.Helper()
	f.Require(t)
	f.LatmapBin(t)
	f.InterposeLib(t)
	src := filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", name+".f90")
	prog := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command(f.FC, "-g", "-O1", "-o", prog, src).CombinedOutput(); err != nil {
		t.Fatalf("%s -g: %v\n%s", f.FC, err, out)
	}
	p, out := profileRunFlavor(t, f, f.Local(2), flags, prog)
	if !strings.Contains(out, name+" ok") {
		t.Fatalf("the program did not finish:\n%s", out)
	}
	want := map[string]map[int]bool{"MPI_Isend": {}, "MPI_Irecv": {}}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		for fn := range want {
			if strings.Contains(l, "call "+fn+"(") {
				want[fn][i+1] = true
			}
		}
	}
	frames := map[int]profile.SiteFrame{}
	for _, s := range p.Sites {
		if s.Frame == 0 {
			frames[s.Site] = s
		}
	}
	for fn, lines := range want {
		got := map[int]bool{}
		for _, c := range p.CallSites {
			if c.Rank == 0 && c.Function == fn {
				fr := frames[c.Site]
				if filepath.Base(fr.File) != name+".f90" {
					t.Errorf("%v: %s site %d at %s: want %s.f90", flags, fn, c.Site, fr.Where(), name)
				}
				got[fr.Line] = true
			}
		}
		for l := range lines {
			if !got[l] {
				t.Errorf("%v: %s: no call site at %s.f90:%d (sites at %v)", flags, fn, name, l, got)
			}
		}
		if len(got) != len(lines) {
			t.Errorf("%v: %s: sites at lines %v, the source calls it at %v", flags, fn, got, lines)
		}
	}
}
