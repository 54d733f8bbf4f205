package placement

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/internal/vcluster"
)

// rankfileSlots parses an Open MPI rankfile written by latmap.
func rankfileSlots(t *testing.T, path string) map[int]testutil.Place {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]testutil.Place{}
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "rank ") {
			continue
		}
		var r, cpu int
		var host string
		rest := strings.TrimPrefix(l, "rank ")
		eq := strings.Index(rest, "=")
		sp := strings.Index(rest, " slot=")
		r = atoiT(t, rest[:eq])
		host = rest[eq+1 : sp]
		cpu = atoiT(t, rest[sp+len(" slot="):])
		want[r] = testutil.Place{Host: host, CPU: cpu}
	}
	return want
}

// TestRankfileOnVirtualCluster: the Open MPI rankfile latmap writes is
// accepted by real mpirun on a virtual cluster of 2 nodes x 2 slots, and
// every rank lands on the host and cpu the file names. Ranks 0-3 and 1-2
// talk, so the proposal must pair them on nodes (block would split them).
func TestRankfileOnVirtualCluster(t *testing.T) {
	testutil.RequireMPI(t)
	c := vcluster.Start(t, 2, 2)
	sv := fakeSurveyHosts(t, c.Nodes, 2)
	flows := []Flow{{0, 3, 1e6, 100}, {3, 0, 1e6, 100}, {1, 2, 1e6, 100}, {2, 1, 1e6, 100}}
	out := filepath.Join(t.TempDir(), "app.rankfile")
	r, err := Run(Options{Survey: sv, Matrix: writeMatrix(t, flows), Output: out, Out: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	want := rankfileSlots(t, out)
	if len(want) != 4 {
		t.Fatalf("rankfile has %d ranks, want 4", len(want))
	}
	if want[0].Host != want[3].Host || want[1].Host != want[2].Host {
		t.Errorf("proposal does not pair 0-3 and 1-2 on nodes: %v", want)
	}
	// The launch line latmap prints, on the cluster's mpirun prefix.
	prefix := append(c.MpirunArgs(4), r.Launch[3:len(r.Launch)-1]...) // --mca rmaps_rank_file_physical 1 -rf FILE
	got := testutil.Whereami(t, prefix)
	for rank, w := range want {
		if got[rank] != w {
			t.Errorf("rank %d ran on %s cpu %d, rankfile says %s cpu %d", rank, got[rank].Host, got[rank].CPU, w.Host, w.CPU)
		}
	}
}

// TestRankfileLocal: on this machine alone (no namespaces needed), mpirun
// accepts the rankfile (with its comment header) and binds each rank to
// the cpu it names.
func TestRankfileLocal(t *testing.T) {
	testutil.RequireMPI(t)
	host, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	sv := fakeSurveyHosts(t, []string{host}, 2)
	flows := []Flow{{0, 1, 1e6, 100}}
	out := filepath.Join(t.TempDir(), "local.rankfile")
	r, err := Run(Options{Survey: sv, Matrix: writeMatrix(t, flows), Output: out, Out: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	want := rankfileSlots(t, out)
	if len(want) != 2 {
		t.Fatalf("rankfile has %d ranks, want 2", len(want))
	}
	prefix := append([]string{"mpirun", "-np", "2", "--mca", "mpi_yield_when_idle", "1"}, r.Launch[3:len(r.Launch)-1]...)
	got := testutil.Whereami(t, prefix)
	for rank, w := range want {
		if got[rank] != w {
			t.Errorf("rank %d ran on %s cpu %d, rankfile says %s cpu %d", rank, got[rank].Host, got[rank].CPU, w.Host, w.CPU)
		}
	}
}

// TestLatmapPlaceBinary runs the built bin/latmap place: flags reach the
// library (format, exclude, ranks-per-node, app), the file is written and
// the launch line printed; a bad flag value fails with latmap's message.
func TestLatmapPlaceBinary(t *testing.T) {
	bin := testutil.LatmapBin(t)
	sv := fakeSurvey(t, 3, 1, 4, testRTT, nil)
	flows, _ := ring(8)
	mx := writeMatrix(t, flows)
	out := filepath.Join(t.TempDir(), "hosts")
	cmd := exec.Command(bin, "place", "--survey", sv, "--matrix", mx, "--format", "slurm", "-o", out,
		"--exclude", "h0", "--ranks-per-node", "4", "--", "./app", "-x")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if !strings.Contains(string(b), "SLURM_HOSTFILE="+out+" srun -n 8 --distribution=arbitrary --cpu-bind=map_cpu:") || !strings.Contains(string(b), " ./app -x") {
		t.Errorf("no slurm launch line:\n%s", b)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !strings.HasPrefix(l, "#") && l != "h1" && l != "h2" {
			t.Errorf("host line %q: h0 was excluded", l)
		}
	}
	b, err = exec.Command(bin, "place", "--survey", sv, "--matrix", mx, "--format", "pbs").CombinedOutput()
	if err == nil || !strings.Contains(string(b), "latmap: place: unknown --format \"pbs\"") {
		t.Errorf("bad format: %v\n%s", err, b)
	}
}

// TestPlaceOnRealSurvey: the whole chain on the virtual cluster with real
// measurements: latmap survey (two sizes, so fit.csv too) on 2 nodes x 2
// slots, latmap place on that survey, and the rankfile run by mpirun.
// The measured hierarchy must show (shared memory inside a node, TCP
// between), and ranks 0-3 and 1-2, which talk, must share nodes.
func TestPlaceOnRealSurvey(t *testing.T) {
	testutil.RequireMPI(t)
	bin := testutil.LatmapBin(t)
	c := vcluster.Start(t, 2, 2)
	sv := filepath.Join(t.TempDir(), "survey")
	testutil.MustRun(t, 3*time.Minute, append(c.MpirunArgs(4), "--bind-to", "core", bin, "survey", "-o", sv, "--repeats", "30", "--sizes", "64,64K")...)
	flows := []Flow{{0, 3, 1e6, 100}, {3, 0, 1e6, 100}, {1, 2, 1e6, 100}, {2, 1, 1e6, 100}}
	out := filepath.Join(t.TempDir(), "app.rankfile")
	var report bytes.Buffer
	r, err := Run(Options{Survey: sv, Matrix: writeMatrix(t, flows), Output: out, Out: &report})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", report.String())
	if r.FilledPairs != 0 || r.Bandwidth != "fit.csv" {
		t.Errorf("filled %d pairs, bandwidth from %s: want 0 and fit.csv from a full two-size survey", r.FilledPairs, r.Bandwidth)
	}
	var inside, between float64
	for _, l := range r.Levels {
		switch l.Name {
		case SameNode.String(), SameSocket.String():
			inside = l.LatencyUs
		case OtherNode.String():
			between = l.LatencyUs
		}
	}
	if !(inside > 0 && between > 2*inside) {
		t.Errorf("measured latency inside a node %.2f us, between nodes %.2f us: want a two-level hierarchy", inside, between)
	}
	want := rankfileSlots(t, out)
	if want[0].Host != want[3].Host || want[1].Host != want[2].Host {
		t.Errorf("proposal does not pair 0-3 and 1-2 on nodes: %v", want)
	}
	got := testutil.Whereami(t, append(c.MpirunArgs(4), r.Launch[3:len(r.Launch)-1]...))
	for rank, w := range want {
		if got[rank] != w {
			t.Errorf("rank %d ran on %s cpu %d, rankfile says %s cpu %d", rank, got[rank].Host, got[rank].CPU, w.Host, w.CPU)
		}
	}
}
