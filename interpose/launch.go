package interpose

import (
	"github.com/latmap/latmap/internal/launcher"
)

// noProfileHint says why a run that ended well may have written no
// profile: a library built for another MPI than the launcher's. (Every
// Fortran interface is profiled under both MPIs, MPICH's use mpi_f08
// included, so there is no Fortran hint any more.)
func noProfileHint(l launcher.Launcher, lib string) string {
	return launcher.MismatchHint(l, lib)
}
