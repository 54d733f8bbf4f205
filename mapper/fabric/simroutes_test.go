package fabric

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
)

// TestRoutesAsSimGrid: for every platform of testdata/sim (fat trees
// with and without parallel cables, the torus, the dragonflies) and of
// mapper/fabric/testdata/simgrid (zones routed Full, Floyd, Dijkstra and
// Cluster), the
// route latmap takes between every two hosts crosses the same links, in
// the same order, as the route SimGrid itself gives (its s4u route_to,
// printed by testdata/sim/routes.cpp): the two sets of link names are
// matched one to one, so two flows share a link in latmap's model
// exactly where they share one in the simulation. Before the fat tree
// was routed d-mod-k, a group's uplinks were one link of their summed
// bandwidth: 0 -> 5 and 0 -> 6 on the 16 x 4 tree shared an uplink that
// SimGrid does not.
func TestRoutesAsSimGrid(t *testing.T) {
	prog := buildRoutes(t)
	platforms, err := filepath.Glob(filepath.Join(testutil.RepoRoot(t), "testdata", "sim", "*.xml"))
	zones, err2 := filepath.Glob(filepath.Join("testdata", "simgrid", "*.xml"))
	if err != nil || err2 != nil || len(platforms) == 0 || len(zones) < 4 {
		t.Fatalf("no platforms in testdata/sim or testdata/simgrid: %v %v", err, err2)
	}
	platforms = append(platforms, zones...)
	for _, p := range platforms {
		t.Run(filepath.Base(p), func(t *testing.T) {
			f, err := Read(p)
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(prog, p).Output()
			if err != nil {
				t.Fatalf("%s %s: %v", prog, p, err)
			}
			idx := f.HostIndex()
			ours, theirs := map[int32]string{}, map[string]int32{}
			pairs, bad := 0, 0
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				w := strings.Fields(line)
				a, okA := idx[w[0]]
				b, okB := idx[w[1]]
				if !okA || !okB {
					t.Fatalf("SimGrid's host %s or %s is not in latmap's fabric", w[0], w[1])
				}
				pairs++
				path := f.Path(a, b)
				match := len(path) == len(w)-2
				for i := 0; match && i < len(path); i++ {
					l, name := path[i], w[2+i]
					if o, ok := ours[l]; ok && o != name {
						match = false
					} else if th, ok := theirs[name]; ok && th != l {
						match = false
					}
					ours[l], theirs[name] = name, l
				}
				if !match {
					if bad++; bad <= 3 {
						t.Errorf("%s -> %s: latmap routes over %v, SimGrid over %v (links matched so far: %d)", w[0], w[1], names(f, a, b), w[2:], len(ours))
					}
				}
			}
			if bad > 0 || pairs != len(f.Hosts)*(len(f.Hosts)-1) {
				t.Errorf("%d of %d routes differ (%d hosts)", bad, pairs, len(f.Hosts))
			}
			t.Logf("%d routes, %d links, the same as SimGrid's", pairs, len(ours))
		})
	}
}

// buildRoutes compiles testdata/sim/routes.cpp against SimGrid's s4u.
func buildRoutes(t *testing.T) string {
	t.Helper()
	gxx, err := exec.LookPath("g++")
	if err != nil {
		testutil.Missing(t, testutil.NeedSimGrid, "g++ not installed (apt-get install g++ libsimgrid-dev)")
	}
	if _, err := os.Stat("/usr/include/simgrid/s4u.hpp"); err != nil {
		testutil.Missing(t, testutil.NeedSimGrid, "SimGrid's headers are not installed (apt-get install libsimgrid-dev)")
	}
	prog := filepath.Join(t.TempDir(), "routes")
	src := filepath.Join(testutil.RepoRoot(t), "testdata", "sim", "routes.cpp")
	if out, err := exec.Command(gxx, "-std=c++17", "-O1", src, "-o", prog, "-lsimgrid").CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", src, err, out)
	}
	return prog
}
