package interpose

import (
	"github.com/latmap/latmap/internal/launcher"
)

// noProfileHint says why a run that ended well may have written no
// profile, beyond a library built for the other MPI.
func noProfileHint(l launcher.Launcher, lib string) string {
	if h := launcher.MismatchHint(l, lib); h != "" {
		return h
	}
	if launcher.LibraryMPI(lib) == "MPICH" {
		return "a Fortran program with use mpi_f08 is not profiled under MPICH yet (MPICH's f08 calls bypass MPI_ and PMPI_ alike); mpif.h and use mpi are"
	}
	return ""
}
