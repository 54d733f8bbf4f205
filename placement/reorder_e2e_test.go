package placement

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/internal/vcluster"
	"github.com/latmap/latmap/mapper/profile"
)

// reorderOut is what cart2d and distgraph print: the checksum, the
// exchanges' seconds and the world rank of each grid or graph rank.
var reorderOut = regexp.MustCompile(`(?m)^checksum (-?\d+)\ntime +([0-9.]+)\nworld_of_\w+ ([0-9 ]+)$`)

// reorderRun is one profiled run of a reorder test program.
type reorderRun struct {
	sum   string
	secs  float64
	world []int // world rank of grid or graph rank i
	meta  profile.Meta
	hosts []string // the host of each (world) rank, from the profile
}

// reorderCluster is the shared shaped 2 x 2 virtual cluster
// (shapedCluster: 400 Mbit/s links) and its survey, with
// testdata/mpi/NAME.c built into dir.
func reorderCluster(t *testing.T, name string) (c *vcluster.Cluster, sv, dir, prog string) {
	t.Helper()
	testutil.Short(t, "the virtual-cluster reorder check")
	testutil.RequireMPI(t)
	c, sv = shapedCluster(t)
	dir = t.TempDir()
	prog = testutil.BuildMPIProgram(t, dir, name, filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", name+".c"))
	return c, sv, dir, prog
}

// profiledRuns returns what runs launch under latmap profile with the
// flags, each into its own directory of dir (p1, p2, ...).
func profiledRuns(t *testing.T, dir string) func(launch []string, flags ...string) reorderRun {
	bin, n := testutil.LatmapBin(t), 0
	return func(launch []string, flags ...string) reorderRun {
		n++
		out := filepath.Join(dir, fmt.Sprintf("p%d", n))
		o := testutil.MustRun(t, 5*time.Minute, append(append(append([]string{bin, "profile", "-o", out}, flags...), "--"), launch...)...)
		m := reorderOut.FindStringSubmatch(o)
		if m == nil {
			t.Fatalf("%s printed no checksum:\n%s", launch, o)
		}
		p, err := profile.ReadProfile(out)
		if err != nil {
			t.Fatal(err)
		}
		r := reorderRun{sum: m[1], meta: p.Meta}
		for _, rk := range p.Ranks {
			r.hosts = append(r.hosts, rk.Host)
		}
		r.secs, _ = strconv.ParseFloat(m[2], 64)
		for _, f := range strings.Fields(m[3]) {
			w, _ := strconv.Atoi(f)
			r.world = append(r.world, w)
		}
		return r
	}
}

// cartSteps is how many exchange steps cart2d and fcart2d run. With 10,
// a plain run started cyclic took 3.5 s (its 4 MiB halos over the 400
// Mbit/s link) and the test 82 s.
const cartSteps = "5"

// TestReorderOnShapedCluster is issue 30's check of latmap profile
// --reorder: on 2 virtual nodes x 2 slots with 400 Mbit/s links, started
// cyclic (mpirun --map-by node), testdata/mpi/cart2d.c's 2x2 grid from
// MPI_Cart_create(reorder = 1) exchanges 4 MiB halos along its second
// dimension (grid ranks 0-1 and 2-3, which cyclic puts on different
// nodes) and 1 MiB along its first. A profile of a plain run gives the
// matrix; then five alternating runs without and with --reorder (the
// survey, that matrix): the same checksum, the grid renumbered (the heavy
// pairs on one node each), the reordered exchanges at least 1.3x faster
// (medians) and the model's predicted speedup within 0.8-1.25 of the
// measured one. Started block, where the heavy pairs share a node
// already, the renumbering is the identity and no slower. A grid over a
// subset of the world before the world's: two calls, each renumbered on
// its own. The same from Fortran (fcart2d.f90), three alternating runs.
func TestReorderOnShapedCluster(t *testing.T) {
	c, sv, dir, prog := reorderCluster(t, "cart2d")
	launch := func(mapBy string) []string {
		return append(append(c.MpirunArgs(4), "--bind-to", "core", "--map-by", mapBy), prog, "2", "2", cartSteps, strconv.Itoa(4<<20), strconv.Itoa(1<<20))
	}
	profiled := profiledRuns(t, dir)
	run := func(mapBy string, flags ...string) (string, float64, []int, profile.Meta) {
		r := profiled(launch(mapBy), flags...)
		return r.sum, r.secs, r.world, r.meta
	}
	sum0, _, world0, _ := run("node")
	matrix := filepath.Join(dir, "p1", profile.MatrixFile)
	var plain, reordered []float64
	var predicted float64
	for k := 0; k < 5; k++ {
		s, secs, w, _ := run("node")
		if s != sum0 || !slices.Equal(w, world0) {
			t.Fatalf("plain run %d: checksum %s, grid %v; first %s, %v", k, s, w, sum0, world0)
		}
		plain = append(plain, secs)
		s, secs, w, meta := run("node", "--reorder", sv, "--reorder-matrix", matrix)
		if s != sum0 {
			t.Fatalf("reordered run %d: checksum %s, plain %s", k, s, sum0)
		}
		if len(meta.Reorders) != 1 || meta.Reorders[0].Outcome != "reordered" {
			t.Fatalf("reordered run %d: meta.json's reorders %+v", k, meta.Reorders)
		}
		// The heavy pairs, grid ranks 0-1 and 2-3, each on one node:
		// world ranks of one parity (cyclic: world r on node r%2).
		if w[0]%2 != w[1]%2 || w[2]%2 != w[3]%2 {
			t.Fatalf("reordered run %d: grid ranks are world ranks %v: a heavy pair spans the nodes", k, w)
		}
		reordered = append(reordered, secs)
		predicted = meta.Reorders[0].PredictedSpeedup
	}
	measured := stats.Median(plain) / stats.Median(reordered)
	t.Logf("cart2d 2x2, cyclic start: plain %.3f s, reordered %.3f s (medians of 5): %.2fx measured, %.2fx predicted (grid world ranks %v)",
		stats.Median(plain), stats.Median(reordered), measured, predicted, world0)
	if measured < 1.3 {
		t.Errorf("reordered runs %.2fx faster, want at least 1.3x (plain %v, reordered %v)", measured, plain, reordered)
	}
	if r := predicted / measured; math.Abs(math.Log(r)) > math.Log(1.25) {
		t.Errorf("predicted %.2fx, measured %.2fx: ratio %.2f, want 0.8-1.25", predicted, measured, r)
	}
	// Started block (--map-by slot: grid ranks 0-1 on the first node),
	// already good: the identity, predicted 1x, and no slower.
	plain, reordered = nil, nil
	for k := 0; k < 3; k++ {
		_, secs, _, _ := run("slot")
		plain = append(plain, secs)
		s, secs, _, meta := run("slot", "--reorder", sv, "--reorder-matrix", matrix)
		if r := meta.Reorders; s != sum0 || len(r) != 1 || r[0].PredictedSpeedup != 1 || !slices.Equal(r[0].NewRanks, []int{0, 1, 2, 3}) {
			t.Fatalf("started block, run %d: checksum %s (plain %s), reorders %+v: want the identity, predicted 1x", k, s, sum0, r)
		}
		reordered = append(reordered, secs)
	}
	t.Logf("started block: plain %.3f s, --reorder %.3f s (medians of 3)", stats.Median(plain), stats.Median(reordered))
	if stats.Median(reordered) > 1.1*stats.Median(plain) {
		t.Errorf("started block, --reorder's identity ran %.3f s against %.3f s plain (medians): slower", stats.Median(reordered), stats.Median(plain))
	}
	// A grid over a subset first (world ranks 0 and 1, one on each node:
	// no numbering of two gains), then the whole one: each call is
	// renumbered on its own, and recorded in order.
	sub := profiled(append(launch("node"), "sub"), "--reorder", sv, "--reorder-matrix", matrix)
	if r := sub.meta.Reorders; sub.sum != sum0 || len(r) != 2 || r[0].Ranks != 2 || r[1].Ranks != 4 || r[0].Index != 0 || r[1].Index != 1 ||
		r[0].Outcome != "reordered" || r[1].Outcome != "reordered" || sub.world[0]%2 != sub.world[1]%2 {
		t.Fatalf("a subset's grid, then the world's: checksum %s (plain %s), reorders %+v, grid world ranks %v", sub.sum, sum0, r, sub.world)
	}
	checkRemap(t, sv, dir, launch, profiled)
	// The same grid from Fortran (fcart2d.f90, use mpi: latmap's binding
	// calls the C wrapper), started cyclic, three alternating runs.
	fprog := testutil.OpenMPI.BuildFortran(t, dir, "fcart2d", filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", "fcart2d.f90"))
	flaunch := append(append(c.MpirunArgs(4), "--bind-to", "core", "--map-by", "node"), fprog, "2", "2", cartSteps, strconv.Itoa(4<<20), strconv.Itoa(1<<20))
	plain, reordered = nil, nil
	for k := 0; k < 3; k++ {
		p := profiled(flaunch)
		r := profiled(flaunch, "--reorder", sv, "--reorder-matrix", matrix)
		if r.sum != p.sum || len(r.meta.Reorders) != 1 || r.world[0]%2 != r.world[1]%2 {
			t.Fatalf("Fortran run %d: checksums %s and %s, reorders %+v, grid world ranks %v", k, p.sum, r.sum, r.meta.Reorders, r.world)
		}
		plain, reordered, predicted = append(plain, p.secs), append(reordered, r.secs), r.meta.Reorders[0].PredictedSpeedup
	}
	measured = stats.Median(plain) / stats.Median(reordered)
	t.Logf("fcart2d (Fortran): plain %.3f s, reordered %.3f s (medians of 3): %.2fx measured, %.2fx predicted", stats.Median(plain), stats.Median(reordered), measured, predicted)
	if r := predicted / measured; measured < 1.3 || math.Abs(math.Log(r)) > math.Log(1.25) {
		t.Errorf("Fortran: %.2fx measured, %.2fx predicted: want at least 1.3x, predicted within 0.8-1.25 of it", measured, predicted)
	}
}

// checkRemap is issue 30's check of latmap profile --remap on the shaped
// cluster: cart2d's grid made with reorder = 0 ("plain": grid rank r is
// world rank r), started cyclic, so the heavy pairs (world ranks 0-1 and
// 2-3) span the nodes. latmap place --same-slots --json on a profile of
// one run gives the advice; a run without and one with --remap ADVICE:
// the same checksum, the heavy pairs on one node each (the profile's
// hosts of the renumbered ranks). That --remap's predicted speedup comes
// true is TestPredictionsComeTrue's check (five alternating runs a
// layout, three applications); five alternating runs of cart2d here
// too, held to at least 1.3x faster and predicted within 0.8-1.25 (3.95x
// measured, 3.97x predicted with 10 steps on 2026-11-28), took 21 s of
// make test. Started block, the advice is the identity and the remapped
// runs are no slower (three alternating runs each).
func checkRemap(t *testing.T, sv, dir string, launch func(string) []string, profiled func([]string, ...string) reorderRun) {
	bin := testutil.LatmapBin(t)
	for _, start := range []string{"node", "slot"} {
		app := append(launch(start), "plain")
		first := profiled(app)
		prof := filepath.Join(dir, fmt.Sprintf("p%d", profiledCount(dir)))
		advice := filepath.Join(dir, "advice-"+start+".json")
		out := testutil.MustRun(t, time.Minute, bin, "place", "--survey", sv, "--profile", prof, "--same-slots", "--json")
		if err := os.WriteFile(advice, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		var plain, remapped []float64
		var predicted float64
		reps := 1
		if start == "slot" {
			reps = 3 // the identity: the same layout both ways
		}
		for k := 0; k < reps; k++ {
			p := profiled(app)
			r := profiled(app, "--remap", advice)
			rs := r.meta.Reorders
			if p.sum != first.sum || r.sum != first.sum || len(rs) != 1 || rs[0].Call != "MPI_Init" || rs[0].Outcome != "reordered" {
				t.Fatalf("started %s, run %d: checksums %s and %s (first %s), reorders %+v", start, k, p.sum, r.sum, first.sum, rs)
			}
			if r.hosts[0] != r.hosts[1] || r.hosts[2] != r.hosts[3] {
				t.Fatalf("started %s, run %d: remapped ranks on hosts %v: a heavy pair spans the nodes", start, k, r.hosts)
			}
			plain, remapped, predicted = append(plain, p.secs), append(remapped, r.secs), rs[0].PredictedSpeedup
			if start == "slot" && !slices.Equal(rs[0].NewRanks, []int{0, 1, 2, 3}) {
				t.Fatalf("started block: --remap renumbered %v, want the identity", rs[0].NewRanks)
			}
		}
		measured := stats.Median(plain) / stats.Median(remapped)
		t.Logf("--remap, cart2d plain started %s: plain %.3f s, remapped %.3f s (medians of %d): %.2fx measured, %.2fx predicted", start, stats.Median(plain), stats.Median(remapped), reps, measured, predicted)
		if start == "slot" && measured < 1/1.1 {
			t.Errorf("started block, the remapped identity ran %.2fx the plain runs' speed: slower", measured)
		}
	}
}

// profiledCount is how many runs profiledRuns has written into dir (p1,
// p2, ...): the last one is p<count>.
func profiledCount(dir string) int {
	n := 0
	for {
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("p%d", n+1))); err != nil {
			return n
		}
		n++
	}
}

// TestReorderDistGraph: the same shaped cluster started cyclic (world
// ranks 0 and 2 on one node, 1 and 3 on the other), testdata/mpi/
// distgraph.c's ring of 4 from MPI_Dist_graph_create_adjacent(reorder =
// 1) with one heavy edge (weight 10 against 1; each edge's bytes its
// weight x 1 MiB a step). Every vertex has two neighbours, so a plain
// neighbour count cannot tell the pairs apart: the weights must steer.
// With the heavy edge 1-2, latmap puts vertices 1 and 2 on one node; with
// it on 0-1, vertices 0 and 1. The checksum is the plain run's; three
// alternating runs each of plain mpirun (Open MPI's treematch, its
// reorder for distributed graphs) and --reorder: latmap's median at
// least as fast. Five more with an earlier profile's matrix
// (--reorder-matrix; their median steadier than three's beside other
// work): a predicted gain of at least 2x (weights alone are
// unitless: taken as messages, their predicted gain is not a time). The
// ring from MPI_Graph_create and MPI_Dist_graph_create is renumbered the
// same way.
func TestReorderDistGraph(t *testing.T) {
	c, sv, dir, prog := reorderCluster(t, "distgraph")
	profiled := profiledRuns(t, dir)
	n := 0
	run := func(weights []string, flags ...string) (string, float64, []int, profile.Meta) {
		n++
		launch := append(append(c.MpirunArgs(4), "--bind-to", "core", "--map-by", "node", prog, "5", strconv.Itoa(1<<20)), weights...)
		r := profiled(launch, flags...)
		return r.sum, r.secs, r.world, r.meta
	}
	for _, c := range []struct {
		weights []string
		a, b    int // the heavy edge's vertices
	}{{[]string{"1", "10", "1", "1"}, 1, 2}, {[]string{"10", "1", "1", "1"}, 0, 1}} {
		var plain, reordered []float64
		var predicted float64
		sum0 := ""
		for k := 0; k < 3; k++ {
			s, secs, pw, _ := run(c.weights)
			plain = append(plain, secs)
			if k == 0 {
				t.Logf("weights %v: plain mpirun gives vertices the world ranks %v", c.weights, pw)
			}
			rs, rsecs, world, meta := run(c.weights, "--reorder", sv)
			if sum0 == "" {
				sum0 = s
			}
			if s != sum0 || rs != sum0 {
				t.Fatalf("weights %v: checksums %s and %s, first %s", c.weights, s, rs, sum0)
			}
			if len(meta.Reorders) != 1 || meta.Reorders[0].Call != "MPI_Dist_graph_create_adjacent" || meta.Reorders[0].Outcome != "reordered" {
				t.Fatalf("weights %v: reorders %+v", c.weights, meta.Reorders)
			}
			// Cyclic: world rank w runs on node w%2.
			if world[c.a]%2 != world[c.b]%2 {
				t.Fatalf("weights %v: vertices are world ranks %v: the heavy edge %d-%d spans the nodes", c.weights, world, c.a, c.b)
			}
			reordered = append(reordered, rsecs)
			predicted = meta.Reorders[0].PredictedSpeedup
		}
		measured := stats.Median(plain) / stats.Median(reordered)
		t.Logf("weights %v: plain mpirun (treematch) %.3f s, --reorder %.3f s (medians of 3): %.2fx measured, %.2fx predicted over MPI's numbering",
			c.weights, stats.Median(plain), stats.Median(reordered), measured, predicted)
		if measured < 1 {
			t.Errorf("weights %v: --reorder %.2fx the plain run's speed (slower than treematch)", c.weights, measured)
		}
		// Weights alone are unitless (taken as messages): the gain they
		// predict is not a time. With an earlier profile's matrix the
		// prediction is of bytes, and must come true.
		matrix := filepath.Join(dir, fmt.Sprintf("p%d", n-1), profile.MatrixFile)
		var withMatrix []float64
		for k := 0; k < 5; k++ {
			_, secs, world, meta := run(c.weights, "--reorder", sv, "--reorder-matrix", matrix)
			if world[c.a]%2 != world[c.b]%2 || len(meta.Reorders) != 1 {
				t.Fatalf("weights %v with the matrix: vertices are world ranks %v, reorders %+v", c.weights, world, meta.Reorders)
			}
			withMatrix = append(withMatrix, secs)
			predicted = meta.Reorders[0].PredictedSpeedup
		}
		measured = stats.Median(plain) / stats.Median(withMatrix)
		t.Logf("  with --reorder-matrix: %.3f s (median of 5): %.2fx measured, %.2fx predicted", stats.Median(withMatrix), measured, predicted)
		// The program shifts one way, then the other, so each direction
		// of the node links is busy half the time, where the model lets
		// a rank's sends and receives overlap. With a rank's on-node and
		// off-node parts added the model under-predicted this gain
		// (0.63-1.03 of it in ten runs here; 5.08x against 5.19-5.62x
		// on 2026-11-27); overlapped, as they are (factors.Overlap),
		// 6.47-6.50x against 5.78x, 5.82x, 5.89x and 7.67x (medians of
		// 5, idle machine; 5.10x and 5.79x, medians of 3, beside a
		// simulation): this 2-core machine runs the 4 ranks' copies and
		// TCP on 2 cpus, so they overlap only in part. Held to the direction and size of the
		// gain, not to 0.8-1.25 (issue 30 asks that of the Cartesian
		// check, which holds it).
		if predicted < 2 || predicted > 1.25*measured {
			t.Errorf("weights %v with the matrix: predicted %.2fx, measured %.2fx: want at least 2x and not over 1.25x the measured", c.weights, predicted, measured)
		}
	}
	// The same ring from MPI_Graph_create (no weights: the matrix of a
	// plain run steers) and MPI_Dist_graph_create (each process gives its
	// vertex's weighted out-edges): one run each, the heavy edge 1-2.
	heavy := []string{"1", "10", "1", "1"}
	sum, _, _, _ := run(append(heavy, "graph"))
	matrix := filepath.Join(dir, fmt.Sprintf("p%d", n), profile.MatrixFile)
	for _, c := range []struct {
		mode, call string
		flags      []string
	}{{"graph", "MPI_Graph_create", []string{"--reorder-matrix", matrix}}, {"dist", "MPI_Dist_graph_create", nil}} {
		s, _, world, meta := run(append(heavy, c.mode), append([]string{"--reorder", sv}, c.flags...)...)
		if r := meta.Reorders; s != sum || len(r) != 1 || r[0].Call != c.call || r[0].Outcome != "reordered" || world[1]%2 != world[2]%2 {
			t.Errorf("%s: checksum %s (plain %s), reorders %+v, vertices are world ranks %v: want vertices 1 and 2 on one node", c.call, s, sum, r, world)
		}
	}
}
