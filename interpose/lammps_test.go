package interpose_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/profile"
)

// lammps returns the LAMMPS binary and its in.melt example, skipping the
// test when the Debian packages lammps and lammps-examples are missing.
func lammps(t testing.TB) (bin, input string) {
	t.Helper()
	testutil.RequireMPI(t)
	for _, name := range []string{"lmp", "lmp_openmpi", "lmp_mpi"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		testutil.Missing(t, testutil.NeedLAMMPS, "LAMMPS not found (apt-get install lammps lammps-examples, or make test)")
	}
	for _, p := range []string{
		"/usr/share/lammps/examples/melt/in.melt",
		"/usr/share/doc/lammps-examples/examples/melt/in.melt",
		"/usr/share/doc/lammps/examples/melt/in.melt",
	} {
		if _, err := os.Stat(p); err == nil {
			return bin, p
		}
	}
	testutil.Missing(t, testutil.NeedLAMMPS, "in.melt not found (apt-get install lammps-examples)")
	return "", ""
}

// thermo returns LAMMPS's thermo table: the lines from "Step" to "Loop time".
func thermo(out string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(strings.TrimSpace(l), "Step"):
			in = true
		case strings.HasPrefix(l, "Loop time"):
			in = false
		}
		if in {
			b.WriteString(strings.TrimSpace(l) + "\n")
		}
	}
	return b.String()
}

func TestLAMMPSMelt(t *testing.T) {
	testutil.Short(t, "LAMMPS")
	lmp, input := lammps(t)
	dir := t.TempDir()
	t.Chdir(dir) // LAMMPS writes into the current directory
	argv := append(testutil.LocalMpirun(4), lmp, "-in", input, "-log", "none")
	plain, err := runTimeout(t, 5*time.Minute, argv[0], argv[1:]...)
	if err != nil {
		t.Fatalf("LAMMPS without the profiler: %v\n%s", err, plain)
	}
	want := thermo(plain)
	if strings.Count(want, "\n") < 3 {
		t.Fatalf("no thermo output from LAMMPS:\n%s", plain)
	}
	p, out := profileRun(t, 4, nil, lmp, "-in", input, "-log", "none")
	if got := thermo(out); got != want {
		t.Errorf("thermo output differs under the profiler:\n%s\nwant\n%s", got, want)
	}
	// The halo exchange: every rank talks to its domain neighbours both
	// ways; the bytes each way are close but not equal (they follow the
	// atoms that move).
	bytes := map[pair]int64{}
	for _, x := range p.Matrix {
		if x.Src != x.Dst {
			bytes[pair{x.Src, x.Dst}] = x.Bytes
		}
	}
	sends, recvs := map[int]bool{}, map[int]bool{}
	unequal := false
	for k, b := range bytes {
		sends[k.src], recvs[k.dst] = true, true
		back, ok := bytes[pair{k.dst, k.src}]
		if !ok {
			t.Errorf("%d sends %d bytes to %d, which sends nothing back", k.src, b, k.dst)
			continue
		}
		if r := float64(b) / float64(back); r < 0.9 || r > 1.1 {
			t.Errorf("bytes %d->%d = %d, back %d: not a halo exchange", k.src, k.dst, b, back)
		}
		if b != back {
			unequal = true
		}
	}
	if len(sends) != 4 || len(recvs) != 4 {
		t.Errorf("ranks sending %v, receiving %v: want all 4 in the halo exchange", sends, recvs)
	}
	if !unequal {
		t.Error("bytes are exactly equal both ways on every pair; LAMMPS's halo depends on moving atoms")
	}
	if len(p.Functions) == 0 || p.Ranks[0].Comput <= 0 {
		t.Error("no functions or no computation time")
	}
}

// TestReorderLeavesLAMMPSAlone: LAMMPS in.melt with its default
// processors grid calls MPI_Cart_create with reorder = 0, so latmap
// profile --reorder leaves it as it is: no reorder recorded, the same
// thermo output as the plain run. (LAMMPS's "processors ... map
// cart/reorder" asks for reorder = 1 and then uses the grid's ranks on its
// world: docs/profile.md says not to profile it with --reorder.)
func TestReorderLeavesLAMMPSAlone(t *testing.T) {
	testutil.Short(t, "LAMMPS")
	lmp, input := lammps(t)
	bin, lib := testutil.OpenMPI.LatmapBin(t), testutil.OpenMPI.InterposeLib(t)
	dir := t.TempDir()
	t.Chdir(dir) // LAMMPS writes into the current directory
	launch := append(testutil.LocalMpirun(2), "--bind-to", "core")
	sv := filepath.Join(dir, "survey")
	testutil.MustRun(t, 2*time.Minute, append(append([]string{}, launch...), bin, "survey", "-o", sv, "--repeats", "50")...)
	app := []string{lmp, "-in", input, "-log", "none"}
	want := thermo(testutil.MustRun(t, 5*time.Minute, append(append([]string{}, launch...), app...)...))
	out := filepath.Join(dir, "prof")
	got := testutil.MustRun(t, 5*time.Minute, append(append([]string{bin, "profile", "-o", out, "--lib", lib, "--reorder", sv, "--"}, launch...), app...)...)
	p, err := profile.ReadProfile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Meta.Reorders) != 0 || thermo(got) != want || strings.Count(want, "\n") < 3 {
		t.Errorf("reorders %+v; thermo with --reorder:\n%s\nwithout:\n%s", p.Meta.Reorders, thermo(got), want)
	}
	for _, f := range p.Functions {
		if f.Function == "MPI_Cart_create" && f.Calls > 0 {
			return
		}
	}
	t.Errorf("no MPI_Cart_create in LAMMPS's profile: the check proves nothing")
}
