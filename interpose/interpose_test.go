package interpose

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/profile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/profile")

func TestDetectLauncher(t *testing.T) {
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
		{"sh", ompi, OpenMPI, ""}, // resolved below: sh is on PATH, named mpirun by the test
		{"./app", ompi, "", "not a launcher latmap knows"},
		{"python3", ompi, "", "not a launcher latmap knows"},
	} {
		argv0 := tc.argv0
		if argv0 == "sh" {
			// An "mpirun" that exists: a symlink to sh in a temp dir.
			dir := t.TempDir()
			sh, err := exec.LookPath("sh")
			if err != nil {
				t.Skip("no sh")
			}
			argv0 = filepath.Join(dir, "mpirun")
			if err := os.Symlink(sh, argv0); err != nil {
				t.Fatal(err)
			}
			for _, p := range []struct {
				probe versionProbe
				want  Launcher
				err   string
			}{{ompi, OpenMPI, ""}, {mpich, Hydra, ""}, {other, "", "cannot tell Open MPI from MPICH"}} {
				got, err := detectLauncher(context.Background(), argv0, p.probe)
				if got != p.want || (err == nil) != (p.err == "") || (err != nil && !strings.Contains(err.Error(), p.err)) {
					t.Errorf("mpirun with probe: got %q, %v; want %q, %q", got, err, p.want, p.err)
				}
			}
			continue
		}
		got, err := detectLauncher(context.Background(), argv0, tc.probe)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("detectLauncher(%q) = %q, %v; want %q, error %q", argv0, got, err, tc.want, tc.err)
		}
	}
}

func TestInjectedArgs(t *testing.T) {
	env := [][2]string{{"LD_PRELOAD", "/l/liblatmap.so"}, {"LATMAP_SLT", "1"}}
	cmd := []string{"mpirun", "-np", "4", "./app", "-x"}
	for _, tc := range []struct {
		l    Launcher
		env  [][2]string
		want []string
		err  bool
	}{
		{OpenMPI, env, []string{"mpirun", "-x", "LD_PRELOAD=/l/liblatmap.so", "-x", "LATMAP_SLT=1", "-np", "4", "./app", "-x"}, false},
		{Hydra, env, []string{"mpirun", "-genv", "LD_PRELOAD", "/l/liblatmap.so", "-genv", "LATMAP_SLT", "1", "-np", "4", "./app", "-x"}, false},
		{Slurm, env, []string{"mpirun", "--export=ALL,LD_PRELOAD=/l/liblatmap.so,LATMAP_SLT=1", "-np", "4", "./app", "-x"}, false},
		{Slurm, [][2]string{{"A", "x,y"}}, nil, true},
		{"pbs", env, nil, true},
	} {
		got, err := injectedArgs(tc.l, cmd, tc.env)
		if (err != nil) != tc.err || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("injectedArgs(%s) = %q, %v; want %q, error %v", tc.l, got, err, tc.want, tc.err)
		}
	}
	if _, err := injectedArgs(OpenMPI, nil, env); err == nil {
		t.Error("no command accepted")
	}
}

func TestParseWindow(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Window
		err  bool
	}{
		{"MPI_Allreduce:10:20", Window{"MPI_Allreduce", 10, 20}, false},
		{"Barrier:1:2", Window{"MPI_Barrier", 1, 2}, false},
		{"MPI_Send:1:2", Window{}, true},
		{"MPI_Allreduce:5:5", Window{}, true},
		{"MPI_Allreduce:0:5", Window{}, true},
		{"MPI_Allreduce:a:5", Window{}, true},
		{"MPI_Allreduce:5", Window{}, true},
		{"", Window{}, true},
	} {
		got, err := ParseWindow(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseWindow(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestMergeMatrix(t *testing.T) {
	sent := []sentRow{{0, 1, 100, 2, 0.5}, {1, 0, 50, 1, 0.1}, {0, 1, 10, 1, 0}}
	recv := []profile.Transfer{{Src: 0, Dst: 1, Bytes: 110, Messages: 3, Time: 0.2, Late: 0.3}, {Src: 2, Dst: 0, Bytes: 7, Messages: 1, Time: 1}}
	m, sb, rb := mergeMatrix(sent, recv, nil)
	want := []profile.Transfer{
		{Src: 0, Dst: 1, Bytes: 110, Messages: 3, Time: 0.2, Late: 0.3}, // bytes as sent, time as received
		{Src: 1, Dst: 0, Bytes: 50, Messages: 1},                        // never received
		{Src: 2, Dst: 0, Bytes: 7, Messages: 1, Time: 1},                // never seen sent
	}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("mergeMatrix = %+v, want %+v", m, want)
	}
	if sb != 160 || rb != 117 {
		t.Errorf("totals sent %d received %d, want 160 and 117", sb, rb)
	}
}

func TestMergeMatrixCollectives(t *testing.T) {
	sent := []sentRow{{0, 1, 110, 3, 0}}
	recv := []profile.Transfer{{Src: 0, Dst: 1, Bytes: 110, Messages: 3, Time: 0.2, Late: 0.3}, {Src: 2, Dst: 0, Bytes: 7, Messages: 1, Time: 1}}
	coll := []sentRow{{Src: 2, Dst: 1, Bytes: 40, Messages: 4}, {Src: 0, Dst: 1, Bytes: 8, Messages: 1}, {Src: 1, Dst: 0, Bytes: 16, Messages: 2}}
	got, sb, rb := mergeMatrix(sent, recv, coll)
	if sb != 110 || rb != 117 { // the collectives are not point-to-point totals
		t.Errorf("totals sent %d received %d, want 110 and 117", sb, rb)
	}
	want := []profile.Transfer{
		{Src: 0, Dst: 1, Bytes: 118, Messages: 4, Time: 0.2, Late: 0.3}, // point-to-point plus collectives, time kept
		{Src: 1, Dst: 0, Bytes: 16, Messages: 2},                        // collectives only: no time
		{Src: 2, Dst: 0, Bytes: 7, Messages: 1, Time: 1},
		{Src: 2, Dst: 1, Bytes: 40, Messages: 4},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mergeMatrix with collectives = %+v, want %+v", got, want)
	}
}

func TestFindLibrary(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "liblatmap.so")
	if err := os.WriteFile(lib, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := FindLibrary(lib); err != nil || got != lib {
		t.Errorf("FindLibrary(%s) = %q, %v", lib, got, err)
	}
	if _, err := FindLibrary(filepath.Join(dir, "missing.so")); err == nil || !strings.Contains(err.Error(), "make build") {
		t.Errorf("missing library: %v", err)
	}
	t.Setenv("LATMAP_LIB", lib)
	if got, err := FindLibrary(""); err != nil || got != lib {
		t.Errorf("FindLibrary via $LATMAP_LIB = %q, %v", got, err)
	}
}
