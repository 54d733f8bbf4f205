package launcher

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestWithEnv(t *testing.T) {
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
		got, err := WithEnv(tc.l, cmd, tc.env)
		if (err != nil) != tc.err || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("WithEnv(%s) = %q, %v; want %q, error %v", tc.l, got, err, tc.want, tc.err)
		}
	}
	if _, err := WithEnv(OpenMPI, nil, env); err == nil {
		t.Error("no command accepted")
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
