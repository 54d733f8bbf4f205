package interpose

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/launcher"
	"github.com/latmap/latmap/mapper/profile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/profile")

func TestInjectedArgs(t *testing.T) {
	env := [][2]string{{"LD_PRELOAD", "/l/liblatmap.so"}, {"LATMAP_SLT", "1"}}
	cmd := []string{"mpirun", "-np", "4", "./app", "-x"}
	for _, tc := range []struct {
		l    launcher.Launcher
		env  [][2]string
		want []string
		err  bool
	}{
		{launcher.OpenMPI, env, []string{"mpirun", "-x", "LD_PRELOAD=/l/liblatmap.so", "-x", "LATMAP_SLT=1", "-np", "4", "./app", "-x"}, false},
		{launcher.Hydra, env, []string{"mpirun", "-genv", "LD_PRELOAD", "/l/liblatmap.so", "-genv", "LATMAP_SLT", "1", "-np", "4", "./app", "-x"}, false},
		{launcher.Slurm, env, []string{"mpirun", "--export=ALL,LD_PRELOAD=/l/liblatmap.so,LATMAP_SLT=1", "-np", "4", "./app", "-x"}, false},
		{launcher.Slurm, [][2]string{{"A", "x,y"}}, nil, true},
		{"pbs", env, nil, true},
	} {
		got, err := injectedArgs(tc.l, cmd, tc.env)
		if (err != nil) != tc.err || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("injectedArgs(%s) = %q, %v; want %q, error %v", tc.l, got, err, tc.want, tc.err)
		}
	}
	if _, err := injectedArgs(launcher.OpenMPI, nil, env); err == nil {
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
