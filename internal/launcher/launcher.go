package launcher

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Launcher names an MPI launcher family: how it forwards environment
// variables to every rank, and which placement files it takes.
type Launcher string

// The launchers latmap knows.
const (
	OpenMPI Launcher = "openmpi" // mpirun/mpiexec of Open MPI: -x VAR=VALUE
	Hydra   Launcher = "hydra"   // MPICH/Intel MPI mpiexec (Hydra): -genv VAR VALUE
	Slurm   Launcher = "slurm"   // srun: --export=ALL,VAR=VALUE
)

// Parse parses a launcher name given with --launcher.
func Parse(s string) (Launcher, error) {
	switch l := Launcher(strings.ToLower(s)); l {
	case OpenMPI, Hydra, Slurm:
		return l, nil
	}
	return "", fmt.Errorf("unknown launcher %q (want openmpi, hydra or slurm)", s)
}

// versionProbe runs "LAUNCHER --version" and returns its output.
type versionProbe func(ctx context.Context, path string) string

func runVersion(ctx context.Context, path string) string {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	b, _ := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	return string(b)
}

// Detect tells which launcher argv0 is, from its name and, for the
// ambiguous mpirun/mpiexec, from what it prints for --version.
func Detect(ctx context.Context, argv0 string) (Launcher, error) {
	return detect(ctx, argv0, runVersion)
}

func detect(ctx context.Context, argv0 string, probe versionProbe) (Launcher, error) {
	base := filepath.Base(argv0)
	switch {
	case base == "srun":
		return Slurm, nil
	case base == "orterun" || base == "prterun" || strings.HasSuffix(base, ".openmpi"):
		return OpenMPI, nil
	case base == "mpiexec.hydra" || strings.HasSuffix(base, ".mpich") || strings.HasSuffix(base, ".hydra"):
		return Hydra, nil
	case base == "mpirun" || base == "mpiexec":
		path, err := exec.LookPath(argv0)
		if err != nil {
			return "", fmt.Errorf("launcher %s: %w", argv0, err)
		}
		v := probe(ctx, path)
		switch {
		case strings.Contains(v, "Open MPI") || strings.Contains(v, "OpenRTE"):
			return OpenMPI, nil
		case strings.Contains(v, "HYDRA") || strings.Contains(v, "MPICH") || strings.Contains(v, "Intel(R) MPI"):
			return Hydra, nil
		}
		return "", fmt.Errorf("launcher %s: cannot tell Open MPI from MPICH by its --version output; use --launcher openmpi|hydra", argv0)
	}
	return "", fmt.Errorf("launch command %q is not a launcher latmap knows (mpirun, mpiexec, orterun, mpiexec.hydra, srun); "+
		"put the launcher first (latmap profile -o DIR -- mpirun -np 4 ./app), or say which with --launcher openmpi|hydra|slurm", argv0)
}

// OpenMPIMajor is the major version of the Open MPI whose launcher argv0
// is ("mpirun (Open MPI) 5.0.7", "mpirun (Open MPI) 4.1.4"), or 0 when
// it is not Open MPI or cannot be run. Open MPI 5 takes rankfiles by
// --map-by rankfile:file=FILE and reads their slots as logical cores.
func OpenMPIMajor(ctx context.Context, argv0 string) int {
	path, err := exec.LookPath(argv0)
	if err != nil {
		return 0
	}
	return openMPIMajor(runVersion(ctx, path))
}

func openMPIMajor(version string) int {
	for _, tag := range []string{"(Open MPI) ", "(OpenRTE) "} {
		if _, v, ok := strings.Cut(version, tag); ok {
			major, _, _ := strings.Cut(v, ".")
			n, err := strconv.Atoi(strings.TrimSpace(major))
			if err == nil {
				return n
			}
		}
	}
	return 0
}
