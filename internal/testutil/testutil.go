// Package testutil finds what latmap's end-to-end tests need (the built
// bin/latmap and lib/liblatmap.so, Open MPI's mpirun and mpicc) and skips a
// test with a stated reason when something is missing.
package testutil

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RepoRoot returns the repository's top directory (the one with go.mod).
func RepoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Dir(file)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("testutil: no go.mod above %s", file)
		}
		dir = parent
	}
}

// SharedDir returns ../shared beside the repository, skipping when absent.
func SharedDir(t testing.TB) string {
	t.Helper()
	d := filepath.Join(RepoRoot(t), "..", "shared")
	if _, err := os.Stat(d); err != nil {
		t.Skipf("skipping: %s not found (CI has shared/ beside the clone)", d)
	}
	return d
}

func builtFile(t testing.TB, env, rel, what string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		p = filepath.Join(RepoRoot(t), rel)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("skipping: %s %s not built (run make build, or make test which builds it)", what, p)
	}
	return p
}

// LatmapBin returns the MPI-enabled bin/latmap ($LATMAP_BIN), skipping the
// test when it has not been built.
func LatmapBin(t testing.TB) string {
	return builtFile(t, "LATMAP_BIN", "bin/latmap", "MPI-enabled latmap binary")
}

// InterposeLib returns lib/liblatmap.so ($LATMAP_LIB), skipping when absent.
func InterposeLib(t testing.TB) string {
	return builtFile(t, "LATMAP_LIB", "lib/liblatmap.so", "interposition library")
}

// RequireMPI skips the test unless mpirun and mpicc are on PATH, and sets
// the variables Open MPI needs to run as root.
func RequireMPI(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"mpirun", "mpicc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipping: %s not found; install Open MPI (apt-get install openmpi-bin libopenmpi-dev) or run make test", tool)
		}
	}
	os.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
	os.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
}

// LocalMpirun returns the mpirun command line prefix that starts np ranks on
// this machine, oversubscribed when it has fewer cores.
func LocalMpirun(np int) []string {
	return []string{"mpirun", "-np", strconv.Itoa(np), "--oversubscribe", "--mca", "mpi_yield_when_idle", "1"}
}

// BuildMPIProgram compiles C MPI sources with mpicc into dir and returns
// the executable's path.
func BuildMPIProgram(t testing.TB, dir string, out string, srcs ...string) string {
	t.Helper()
	RequireMPI(t)
	exe := filepath.Join(dir, out)
	args := append([]string{"-O2", "-o", exe}, srcs...)
	cmd := exec.Command("mpicc", args...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mpicc %v: %v\n%s", args, err, b)
	}
	return exe
}

// Run runs a command line (args[0] is the program) with extra environment
// and a time limit, and returns its combined output and error. A command
// still running at the limit is killed and the test fails, saying so.
func Run(t testing.TB, timeout time.Duration, env []string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s: still running after %v (deadlock?)\n%s", strings.Join(args, " "), timeout, out)
	}
	return string(out), err
}

// MustRun is Run that fails the test when the command fails.
func MustRun(t testing.TB, timeout time.Duration, args ...string) string {
	t.Helper()
	out, err := Run(t, timeout, nil, args...)
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// Place is where a rank ran, as testdata/mpi/whereami.c reports it.
type Place struct {
	Host string
	CPU  int
}

// Whereami builds testdata/mpi/whereami.c, runs it under the mpirun
// command line prefix and returns each rank's host and cpu.
func Whereami(t testing.TB, prefix []string) map[int]Place {
	t.Helper()
	exe := BuildMPIProgram(t, t.TempDir(), "whereami", filepath.Join(RepoRoot(t), "testdata", "mpi", "whereami.c"))
	out := MustRun(t, 2*time.Minute, append(append([]string(nil), prefix...), exe)...)
	got := map[int]Place{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 6 || f[0] != "rank" || f[2] != "host" || f[4] != "cpu" {
			continue
		}
		r, err1 := strconv.Atoi(f[1])
		cpu, err2 := strconv.Atoi(f[5])
		if err1 != nil || err2 != nil {
			t.Fatalf("whereami: bad line %q", line)
		}
		got[r] = Place{Host: f[3], CPU: cpu}
	}
	return got
}
