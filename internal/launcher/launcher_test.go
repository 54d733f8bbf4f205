package launcher

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	ompi := func(context.Context, string) string { return "mpirun (Open MPI) 4.1.4\n" }
	mpich := func(context.Context, string) string { return "HYDRA build details:\n    Version: 4.0\n" }
	other := func(context.Context, string) string { return "something else" }
	for _, tc := range []struct {
		argv0 string
		probe versionProbe
		want  Launcher
		err   string
	}{
		{"srun", other, Slurm, ""},
		{"/usr/bin/srun", other, Slurm, ""},
		{"orterun", other, OpenMPI, ""},
		{"mpirun.openmpi", other, OpenMPI, ""},
		{"mpiexec.hydra", other, Hydra, ""},
		{"mpirun.mpich", other, Hydra, ""},
		{"sh", ompi, OpenMPI, ""}, // resolved below: an executable the test writes, named mpirun
		{"./app", ompi, "", "not a launcher latmap knows"},
		{"python3", ompi, "", "not a launcher latmap knows"},
	} {
		argv0 := tc.argv0
		if argv0 == "sh" {
			// An "mpirun" that exists: an executable file in a temp dir
			// (detect only finds it on PATH and hands it to the probe,
			// which the test fakes, so it never runs).
			dir := t.TempDir()
			argv0 = filepath.Join(dir, "mpirun")
			if err := os.WriteFile(argv0, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, p := range []struct {
				probe versionProbe
				want  Launcher
				err   string
			}{{ompi, OpenMPI, ""}, {mpich, Hydra, ""}, {other, "", "cannot tell Open MPI from MPICH"}} {
				got, err := detect(context.Background(), argv0, p.probe)
				if got != p.want || (err == nil) != (p.err == "") || (err != nil && !strings.Contains(err.Error(), p.err)) {
					t.Errorf("mpirun with probe: got %q, %v; want %q, %q", got, err, p.want, p.err)
				}
			}
			continue
		}
		got, err := detect(context.Background(), argv0, tc.probe)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("detect(%q) = %q, %v; want %q, error %q", argv0, got, err, tc.want, tc.err)
		}
	}
}

// TestOpenMPIMajor: the major version from --version as Open MPI 5.0.7
// (Debian trixie), 4.1.4 (bookworm) and 3.x's OpenRTE print it; MPICH is 0.
func TestOpenMPIMajor(t *testing.T) {
	for _, c := range []struct {
		out  string
		want int
	}{
		{"mpirun (Open MPI) 5.0.7\n\nReport bugs to https://www.open-mpi.org/community/help/\n", 5},
		{"mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/\n", 4},
		{"mpirun (OpenRTE) 3.1.3\n", 3},
		{"HYDRA build details:\n    Version:                                 4.0.2\n", 0},
		{"", 0},
	} {
		if got := openMPIMajor(c.out); got != c.want {
			t.Errorf("%q: %d, want %d", c.out, got, c.want)
		}
	}
}
