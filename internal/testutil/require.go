package testutil

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// RequireEnv names the environment variable that lists, comma-separated,
// what a test run must have: a test that would skip because one of them
// is missing fails instead. CI sets it (.ci/run), so a missing tool there
// is a failure, never a silent pass. "all" requires everything.
const RequireEnv = "LATMAP_REQUIRE"

// What the tests can need, as LATMAP_REQUIRE names it.
const (
	NeedMPI      = "mpi"      // Open MPI: mpirun, mpicc
	NeedMPICH    = "mpich"    // MPICH: mpiexec.hydra, mpicc.mpich, make build-mpich
	NeedVCluster = "vcluster" // root and network namespaces
	NeedLAMMPS   = "lammps"   // lmp and lammps-examples' in.melt
	NeedShared   = "shared"   // ../shared beside the clone
	NeedSlurm    = "slurm"    // slurm-wlm and munge
	NeedChromium = "chromium" // Debian's chromium
	NeedFortran  = "fortran"  // gfortran through mpif90
	NeedScotch   = "scotch"   // scotch_gmap, to compare placements with
	NeedMetis    = "metis"    // gpmetis, to compare partitions with
	NeedElk      = "elk"      // elk-lapw, a Fortran MPI application from Debian
	NeedSimGrid  = "simgrid"  // SimGrid SMPI: smpicc, smpirun (libsimgrid-dev)
	NeedHwloc    = "hwloc"    // hwloc-calc (hwloc-nox), to check logical core numbers
	NeedOpenSM   = "opensm"   // ibsim, OpenSM and infiniband-diags: a subnet manager's real tables
)

// Required reports whether LATMAP_REQUIRE names need (or "all").
func Required(need string) bool {
	for _, n := range strings.Split(os.Getenv(RequireEnv), ",") {
		n = strings.TrimSpace(n)
		if n == need || n == "all" {
			return true
		}
	}
	return false
}

// Missing ends a test that cannot run because need is missing: it skips
// with the reason, or fails when LATMAP_REQUIRE requires need. Every skip
// for a missing tool goes through here.
func Missing(t testing.TB, need, format string, args ...any) {
	t.Helper()
	why := fmt.Sprintf(format, args...)
	if Required(need) {
		t.Fatalf("%s is required here (%s=%s) but missing: %s", need, RequireEnv, os.Getenv(RequireEnv), why)
	}
	t.Skipf("skipping: %s", why)
}

// Short skips t in -short mode (go test -short, make test-short), saying
// what it leaves out. It and Missing are the only skips: CI runs without
// -short, so a skip there is always a missing tool, which it fails on.
func Short(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("skipping in -short mode: %s", what)
	}
}
