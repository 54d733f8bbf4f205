package fabric

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
)

// TestWriteSimGridRoutes: a fabric written as a SimGrid platform
// (WriteSimGrid) is routed by SimGrid itself exactly as latmap routes it:
// for the 4 x 4 torus and a fat tree of testdata/sim, each of 10 hosts'
// route to each other crosses, in SimGrid's own route_to (routes.cpp),
// the links latmap's Path names, in order, and a host to itself its
// loopback.
func TestWriteSimGridRoutes(t *testing.T) {
	prog := buildRoutes(t)
	for _, name := range []string{"torus-4x4.xml", "fattree-16x4-dmodk.xml"} {
		t.Run(name, func(t *testing.T) {
			f, err := Read(filepath.Join(testutil.RepoRoot(t), "testdata", "sim", name))
			if err != nil {
				t.Fatal(err)
			}
			var hosts []SimGridHost
			for i := 0; i < len(f.Hosts); i += len(f.Hosts)/10 + 1 {
				hosts = append(hosts, SimGridHost{Index: i, Name: fmt.Sprintf("h%d", i), Cores: 4})
			}
			path := filepath.Join(t.TempDir(), "built.xml")
			out, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.WriteSimGrid(out, hosts, 1.25e9, 1e-6, 12.5e9, 1e-7); err != nil {
				t.Fatal(err)
			}
			out.Close()
			b, err := exec.Command(prog, path).CombinedOutput()
			if err != nil {
				t.Fatalf("%s %s: %v\n%s", prog, path, err, b)
			}
			byName := map[string]int{}
			for _, h := range hosts {
				byName[h.Name] = h.Index
			}
			pairs := 0
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				w := strings.Fields(line)
				a, b := byName[w[0]], byName[w[1]]
				var want []string
				for _, l := range f.Path(a, b) {
					want = append(want, fmt.Sprintf("l%d", l))
				}
				if a == b {
					continue
				}
				if got := strings.Join(w[2:], " "); got != strings.Join(want, " ") {
					t.Errorf("%s -> %s: SimGrid routes over %q, latmap over %q", w[0], w[1], got, want)
				}
				pairs++
			}
			if want := len(hosts) * (len(hosts) - 1); pairs != want {
				t.Errorf("SimGrid gave %d routes between distinct hosts, want %d", pairs, want)
			}
		})
	}
}
