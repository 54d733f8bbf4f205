package launcher

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WithEnv returns the launch command with the environment variables
// env forwarded to every rank the way launcher l does it. The variables are
// not set in the launcher's own environment, so LD_PRELOAD never loads the
// library into mpirun or srun themselves.
func WithEnv(l Launcher, command []string, env [][2]string) ([]string, error) {
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

// FindLibrary returns latmap's preload library (the interposer, which
// latmap profile and latmap verify's run timing load): lib if given, else
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

// LibraryMPI names the MPI the interposition library at path was linked
// with, from its ELF dependencies: "MPICH" (libmpich.so), "Open MPI"
// (libmpi.so.4x), or "" when it cannot tell.
func LibraryMPI(path string) string {
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

// MismatchHint says, when a launch failed, that the library was built for
// another MPI than the launcher's ("" when they agree or it cannot tell).
func MismatchHint(l Launcher, lib string) string {
	switch mpi := LibraryMPI(lib); {
	case l == Hydra && mpi == "Open MPI":
		return lib + " is built against Open MPI but the launcher is MPICH's: give --lib lib/liblatmap-mpich.so (make build-mpich)"
	case l == OpenMPI && mpi == "MPICH":
		return lib + " is built against MPICH but the launcher is Open MPI's: give --lib lib/liblatmap.so (make build)"
	}
	return ""
}
