package interpose

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Launcher names how latmap profile injects the library into every rank.
type Launcher string

// The launchers latmap profile knows.
const (
	OpenMPI Launcher = "openmpi" // mpirun/mpiexec of Open MPI: -x VAR=VALUE
	Hydra   Launcher = "hydra"   // MPICH/Intel MPI mpiexec (Hydra): -genv VAR VALUE
	Slurm   Launcher = "slurm"   // srun: --export=ALL,VAR=VALUE
)

// ParseLauncher parses a launcher name given with --launcher.
func ParseLauncher(s string) (Launcher, error) {
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

// DetectLauncher tells which launcher argv0 is, from its name and, for the
// ambiguous mpirun/mpiexec, from what it prints for --version.
func DetectLauncher(ctx context.Context, argv0 string) (Launcher, error) {
	return detectLauncher(ctx, argv0, runVersion)
}

func detectLauncher(ctx context.Context, argv0 string, probe versionProbe) (Launcher, error) {
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

// injectedArgs returns the launch command with the environment variables
// env forwarded to every rank the way launcher l does it. The variables are
// not set in the launcher's own environment, so LD_PRELOAD never loads the
// library into mpirun or srun themselves.
func injectedArgs(l Launcher, command []string, env [][2]string) ([]string, error) {
	if len(command) == 0 {
		return nil, errors.New("no launch command")
	}
	var extra []string
	switch l {
	case OpenMPI:
		for _, kv := range env {
			extra = append(extra, "-x", kv[0]+"="+kv[1])
		}
	case Hydra:
		for _, kv := range env {
			extra = append(extra, "-genv", kv[0], kv[1])
		}
	case Slurm:
		var b strings.Builder
		b.WriteString("--export=ALL")
		for _, kv := range env {
			if strings.ContainsAny(kv[1], ",") {
				return nil, fmt.Errorf("srun --export cannot carry %s=%q (it contains a comma)", kv[0], kv[1])
			}
			b.WriteString("," + kv[0] + "=" + kv[1])
		}
		extra = append(extra, b.String())
	default:
		return nil, fmt.Errorf("unknown launcher %q", l)
	}
	out := append([]string{command[0]}, extra...)
	return append(out, command[1:]...), nil
}

// FindLibrary returns the interposition library: lib if given, else
// $LATMAP_LIB, else ../lib/liblatmap.so beside the running executable
// (../lib/liblatmap-X.so first when the executable is latmap-X, as make
// build-mpich makes bin/latmap-mpich and lib/liblatmap-mpich.so).
func FindLibrary(lib string) (string, error) {
	var tried []string
	try := func(p string) (string, bool) {
		if p == "" {
			return "", false
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", false
		}
		tried = append(tried, abs)
		st, err := os.Stat(abs)
		return abs, err == nil && !st.IsDir()
	}
	if lib != "" {
		if p, ok := try(lib); ok {
			return p, nil
		}
		return "", fmt.Errorf("interposition library %s not found; build it with make build or give the right --lib", lib)
	}
	if p, ok := try(os.Getenv("LATMAP_LIB")); ok {
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		if exe, err = filepath.EvalSymlinks(exe); err == nil {
			dir := filepath.Dir(exe)
			var cands []string
			// bin/latmap-mpich (make build-mpich) goes with lib/liblatmap-mpich.so.
			if suffix, ok := strings.CutPrefix(filepath.Base(exe), "latmap-"); ok && suffix != "" {
				name := "liblatmap-" + suffix + ".so"
				cands = append(cands, filepath.Join(dir, "..", "lib", name), filepath.Join(dir, name))
			}
			cands = append(cands, filepath.Join(dir, "..", "lib", "liblatmap.so"), filepath.Join(dir, "liblatmap.so"))
			for _, c := range cands {
				if p, ok := try(c); ok {
					return p, nil
				}
			}
		}
	}
	return "", fmt.Errorf("interposition library liblatmap.so not found (tried %s); run make build, or point --lib or $LATMAP_LIB at it",
		strings.Join(tried, ", "))
}

// libraryMPI names the MPI the interposition library at path was linked
// with, from its ELF dependencies: "MPICH" (libmpich.so), "Open MPI"
// (libmpi.so.4x), or "" when it cannot tell.
func libraryMPI(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		return ""
	}
	for _, l := range libs {
		switch {
		case strings.HasPrefix(l, "libmpich.so"):
			return "MPICH"
		case strings.HasPrefix(l, "libmpi.so.4"):
			return "Open MPI"
		}
	}
	return ""
}

// mismatchHint says, when a launch failed, that the library was built for
// another MPI than the launcher's ("" when they agree or it cannot tell).
func mismatchHint(l Launcher, lib string) string {
	switch mpi := libraryMPI(lib); {
	case l == Hydra && mpi == "Open MPI":
		return lib + " is built against Open MPI but the launcher is MPICH's: give --lib lib/liblatmap-mpich.so (make build-mpich)"
	case l == OpenMPI && mpi == "MPICH":
		return lib + " is built against MPICH but the launcher is Open MPI's: give --lib lib/liblatmap.so (make build)"
	}
	return ""
}
