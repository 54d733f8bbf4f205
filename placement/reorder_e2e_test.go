package placement

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/internal/vcluster"
	"github.com/latmap/latmap/mapper/profile"
)

var cartOut = regexp.MustCompile(`(?m)^checksum (-?\d+)\ntime ([0-9.]+)\nworld_of_cart ([0-9 ]+)$`)

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
// already, the renumbering is the identity and no slower.
func TestReorderOnShapedCluster(t *testing.T) {
	testutil.Short(t, "the virtual-cluster reorder check")
	testutil.RequireMPI(t)
	c := vcluster.StartWith(t, vcluster.Options{Nodes: 2, SlotsPerNode: 2, Rate: "400mbit"})
	sv := surveyCluster(t, c, 4)
	bin := testutil.LatmapBin(t)
	dir := t.TempDir()
	prog := testutil.BuildMPIProgram(t, dir, "cart2d", filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", "cart2d.c"))
	launch := func(mapBy string) []string {
		return append(append(c.MpirunArgs(4), "--bind-to", "core", "--map-by", mapBy), prog, "2", "2", "10", strconv.Itoa(4<<20), strconv.Itoa(1<<20))
	}
	n := 0
	run := func(mapBy string, flags ...string) (sum string, secs float64, world string, meta profile.Meta) {
		n++
		out := filepath.Join(dir, fmt.Sprintf("p%d", n))
		argv := append(append(append([]string{bin, "profile", "-o", out}, flags...), "--"), launch(mapBy)...)
		o := testutil.MustRun(t, 5*time.Minute, argv...)
		m := cartOut.FindStringSubmatch(o)
		if m == nil {
			t.Fatalf("cart2d printed no checksum:\n%s", o)
		}
		p, err := profile.ReadProfile(out)
		if err != nil {
			t.Fatal(err)
		}
		secs, _ = strconv.ParseFloat(m[2], 64)
		return m[1], secs, m[3], p.Meta
	}
	sum0, _, world0, _ := run("node")
	matrix := filepath.Join(dir, "p1", profile.MatrixFile)
	var plain, reordered []float64
	var predicted float64
	for k := 0; k < 5; k++ {
		s, secs, w, _ := run("node")
		if s != sum0 || w != world0 {
			t.Fatalf("plain run %d: checksum %s, grid %s; first %s, %s", k, s, w, sum0, world0)
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
		var wr [4]int
		fmt.Sscan(w, &wr[0], &wr[1], &wr[2], &wr[3])
		if wr[0]%2 != wr[1]%2 || wr[2]%2 != wr[3]%2 {
			t.Fatalf("reordered run %d: grid ranks are world ranks %s: a heavy pair spans the nodes", k, w)
		}
		reordered = append(reordered, secs)
		predicted = meta.Reorders[0].PredictedSpeedup
	}
	measured := stats.Median(plain) / stats.Median(reordered)
	t.Logf("cart2d 2x2, cyclic start: plain %.3f s, reordered %.3f s (medians of 5): %.2fx measured, %.2fx predicted (grid world ranks %s)",
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
}
