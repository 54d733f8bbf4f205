package bench

import (
	"fmt"
	"strings"

	"github.com/latmap/latmap/internal/launcher"
)

// DetectLauncher names the MPI launcher that started this process from its
// environment (getenv is os.Getenv) and the number of processes it started,
// or -1 when the launcher does not say. It returns an error, before MPI is
// touched, when no launcher started the process or it started only one.
func DetectLauncher(getenv func(string) string) (name string, size int, err error) {
	name, size, ok := launcher.InEnv(getenv)
	switch {
	case !ok:
		return "", 0, fmt.Errorf("survey must be started by an MPI launcher: run mpirun -np N latmap survey -o DIR (or srun -n N, mpiexec -n N) with N >= 2")
	case size == 1:
		return name, size, fmt.Errorf("survey needs at least 2 ranks, but %s started 1; run mpirun -np N latmap survey -o DIR (or srun -n N ...) with N >= 2", name)
	}
	return name, size, nil
}

// MPIVersionLine returns the first line of what MPI_Get_library_version
// says, with runs of blanks made one space: "Open MPI v4.1.4, package: ...",
// "MPICH Version: 4.0.2" (MPICH separates with a tab and lists its build on
// further lines).
func MPIVersionLine(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.Join(strings.Fields(first), " ")
}
