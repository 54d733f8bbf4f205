package ibsim

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/testutil"
)

// umad2sim is the library that puts infiniband-diags and OpenSM on
// ibsim's simulated fabric instead of an adapter (libumad2sim0).
const umad2sim = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"

// Fabric is a simulated fabric routed once by OpenSM, its files in Dir:
// fabric.ibnetdiscover (ibnetdiscover of the simulated fabric, with the
// LIDs OpenSM gave), fabric.dump_fts (dump_fts: every switch's table as
// read back from the switch), and OpenSM's own opensm-lfts.dump and
// opensm.fdbs. The simulator runs until the test ends.
type Fabric struct {
	Dir string
	env []string
}

// Need ends the test unless ibsim, OpenSM and infiniband-diags are
// installed (testutil.Missing).
func Need(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"ibsim", "opensm", "ibnetdiscover", "dump_fts", "ibtracert"} {
		if _, err := exec.LookPath(tool); err != nil {
			testutil.Missing(t, testutil.NeedOpenSM, "%s not found (apt-get install ibsim-utils opensm infiniband-diags)", tool)
		}
	}
	if _, err := os.Stat(umad2sim); err != nil {
		testutil.Missing(t, testutil.NeedOpenSM, "%s not found (apt-get install libumad2sim0)", umad2sim)
	}
}

// Route simulates the fabric of the ibnetdiscover dump net and routes it
// with OpenSM's routing engine engine (minhop, updn, dfsssp, ...).
func Route(t testing.TB, net, engine string) *Fabric {
	t.Helper()
	Need(t)
	dir := t.TempDir()
	net, err := filepath.Abs(net)
	if err != nil {
		t.Fatal(err)
	}
	f := &Fabric{Dir: dir, env: append(os.Environ(), fmt.Sprintf("IBSIM_SOCKNAME=latmap-%d-%s", os.Getpid(), filepath.Base(dir)),
		"OSM_TMP_DIR="+dir, "OSM_CACHE_DIR="+dir)}
	sim := exec.Command("ibsim", "-s", net)
	sim.Dir, sim.Env = dir, f.env
	var out testutil.LockedBuffer
	sim.Stdout, sim.Stderr = &out, &out
	// Its console stays open: at the end of its input ibsim spins.
	console, err := sim.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Process.Kill(); sim.Wait(); console.Close() })
	for end := time.Now().Add(30 * time.Second); !strings.Contains(out.String(), "sim>"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("ibsim did not start on %s:\n%s", net, out.String())
		}
	}
	// -o: route once and exit; -D 0x43: errors, information and the
	// routing dumps.
	log := f.Run(t, "opensm", "-o", "-R", engine, "-f", filepath.Join(dir, "osm.log"), "-D", "0x43", "--dump_files_dir", dir)
	if !strings.Contains(log, "MASTER") {
		t.Fatalf("opensm -R %s did not become master:\n%s", engine, log)
	}
	for name, tool := range map[string]string{"fabric.ibnetdiscover": "ibnetdiscover", "fabric.dump_fts": "dump_fts"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(f.Run(t, tool)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// Run runs an OpenSM or infiniband-diags tool on the simulated fabric
// and returns its standard output.
func (f *Fabric) Run(t testing.TB, tool string, args ...string) string {
	t.Helper()
	cmd := exec.Command(tool, args...)
	cmd.Dir, cmd.Env = f.Dir, append(slices.Clone(f.env), "LD_PRELOAD="+umad2sim)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", tool, strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

// Path is the file name in f.Dir.
func (f *Fabric) Path(name string) string { return filepath.Join(f.Dir, name) }
