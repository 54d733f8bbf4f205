package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/placefile"
)

func TestLaunchRanks(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want int
	}{
		{"mpirun -np 4 ./app", 4},
		{"mpirun --map-by node -n 8 ./app -n 3", 8},
		{"srun --ntasks=16 app", 16},
		{"mpiexec -f hosts -n 2 app", 2},
		{"mpirun --oversubscribe ./app -n 3", 0}, // the program's own -n
		{"mpirun --map-by node app -n 3", 0},
		{"mpirun -np x ./app", 0},
	} {
		if got := launchRanks(strings.Fields(c.cmd)); got != c.want {
			t.Errorf("launchRanks(%q) = %d, want %d", c.cmd, got, c.want)
		}
	}
}

// TestRefusedBeforeLaunch: runs below one, an output whose parent is
// missing, a --lib that is not there, garbage for --place and a rankfile
// of 2 ranks for -np 3 are refused before the launch command runs: the
// command here would leave a file if it ran.
func TestRefusedBeforeLaunch(t *testing.T) {
	dir := t.TempDir()
	rf := filepath.Join(dir, "rankfile")
	os.WriteFile(rf, []byte("rank 0=h0 slot=0\nrank 1=h0 slot=1\n"), 0o644)
	garbage := filepath.Join(dir, "garbage.json")
	os.WriteFile(garbage, []byte("not json\n"), 0o644)
	ran := filepath.Join(dir, "ran")
	cmd := []string{"mpirun", "-np", "2", "sh", "-c", "touch " + ran}
	base := Options{Output: filepath.Join(dir, "v"), File: rf, Format: "openmpi", Runs: 1, Launcher: "openmpi", Lib: "none", Command: cmd}
	for _, c := range []struct {
		name string
		edit func(o *Options)
		want string
	}{
		{"runs 0", func(o *Options) { o.Runs = 0 }, "--runs 0"},
		{"runs -3", func(o *Options) { o.Runs = -3 }, "--runs -3"},
		{"missing parent", func(o *Options) { o.Output = filepath.Join(dir, "no", "v") }, "does not exist"},
		{"missing lib", func(o *Options) { o.Lib = filepath.Join(dir, "no.so") }, "--lib"},
		{"garbage place", func(o *Options) { o.Place = garbage }, "--place"},
		{"np 3", func(o *Options) { o.Command = []string{"mpirun", "-np", "3", "sh", "-c", "touch " + ran} }, "places 2 ranks, the launch command starts 3"},
	} {
		o := base
		c.edit(&o)
		o.Out = &strings.Builder{}
		_, err := Run(t.Context(), o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.name, err, c.want)
		}
		if _, err := os.Stat(ran); err == nil {
			t.Fatalf("%s: the launch command ran", c.name)
		}
	}
}

func TestUnconfirmed(t *testing.T) {
	v := &placefile.Verification{}
	v.Speedup, v.SpeedupCI95 = 1.3, [2]float64{1.1, 1.5}
	if msg := Unconfirmed(v); msg != "" {
		t.Errorf("1.3x (1.1-1.5): %q, want confirmed", msg)
	}
	v.AppTimed, v.AppSpeedup, v.AppSpeedupCI95 = true, 1.02, [2]float64{0.97, 1.08}
	if msg := Unconfirmed(v); !strings.Contains(msg, "the application's run measured 1.02x faster (95% interval 0.97-1.08") {
		t.Errorf("app 1.02x (0.97-1.08): %q, want it unconfirmed, on the application's run", msg)
	}
}
