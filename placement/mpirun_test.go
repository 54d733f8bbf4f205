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
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
)

// checkLanded fails for every rank that did not run on the host and cpu
// the rankfile names.
func checkLanded(t *testing.T, want, got map[int]testutil.Place) {
	t.Helper()
	for rank, w := range want {
		if got[rank] != w {
			t.Errorf("rank %d ran on %s cpu %d, rankfile says %s cpu %d", rank, got[rank].Host, got[rank].CPU, w.Host, w.CPU)
		}
	}
}

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
	flows := []profile.Flow{{Src: 0, Dst: 3, Bytes: 1e6, Messages: 100}, {Src: 3, Dst: 0, Bytes: 1e6, Messages: 100}, {Src: 1, Dst: 2, Bytes: 1e6, Messages: 100}, {Src: 2, Dst: 1, Bytes: 1e6, Messages: 100}}
	out := filepath.Join(t.TempDir(), "app.rankfile")
	r, err := runReport(Options{Survey: sv, Matrix: writeMatrix(t, flows), Output: out, Force: true, AlwaysWrite: true, AcceptUnbound: true}, &bytes.Buffer{})
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
	checkLanded(t, want, got)
}

// TestRankfileLocal: on this machine alone (no namespaces needed), mpirun
// accepts the rankfile (with its comment header) and binds each rank to
// the cpu it names.
func TestRankfileLocal(t *testing.T) {
	testutil.RequireMPI(t)
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	sv := fakeSurveyHosts(t, []string{host}, 2)
	flows := []profile.Flow{{Src: 0, Dst: 1, Bytes: 1e6, Messages: 100}}
	out := filepath.Join(t.TempDir(), "local.rankfile")
	r, err := runReport(Options{Survey: sv, Matrix: writeMatrix(t, flows), Output: out, Force: true, AlwaysWrite: true, AcceptUnbound: true}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want := rankfileSlots(t, out)
	if len(want) != 2 {
		t.Fatalf("rankfile has %d ranks, want 2", len(want))
	}
	prefix := append([]string{"mpirun", "-np", "2", "--mca", "mpi_yield_when_idle", "1"}, r.Launch[3:len(r.Launch)-1]...)
	got := testutil.Whereami(t, prefix)
	checkLanded(t, want, got)
}

// machineFileSlots parses a Hydra machine file written by latmap
// (host:count binding=user:cpu,... lines) into each rank's host and cpu,
// the way Hydra reads it: consecutive ranks fill the lines in order.
func machineFileSlots(t *testing.T, data []byte) map[int]testutil.Place {
	t.Helper()
	want := map[int]testutil.Place{}
	for _, l := range strings.Split(string(data), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		hc, bind, ok := strings.Cut(l, " binding=user:")
		host, count, ok2 := strings.Cut(hc, ":")
		if !ok || !ok2 {
			t.Fatalf("machine file line %q is not host:count binding=user:cpus", l)
		}
		cpus := strings.Split(bind, ",")
		if len(cpus) != atoiT(t, count) {
			t.Fatalf("machine file line %q: %d cpus for %s ranks", l, len(cpus), count)
		}
		for _, c := range cpus {
			want[len(want)] = testutil.Place{Host: host, CPU: atoiT(t, c)}
		}
	}
	return want
}

// hydraLaunch is the launch line latmap prints for --format mpich, run by
// MPICH's own mpiexec.hydra (plain mpiexec may be Open MPI's).
func hydraLaunch(t *testing.T, launch []string) []string {
	t.Helper()
	if len(launch) < 5 || launch[0] != "mpiexec" || launch[1] != "-f" || launch[3] != "-n" {
		t.Fatalf("mpich launch line %q, want mpiexec -f FILE -n N APP", launch)
	}
	return append([]string{testutil.MPICH.Launcher}, launch[1:len(launch)-1]...) // without ./app
}

// TestMachineFileLocal: real MPICH mpiexec.hydra on this machine accepts the
// machine file latmap writes (comment header, binding=user: on each line)
// and binds each rank to the cpu it names. Two cases: latmap place on a
// survey of this host's 2 cpus, and a file written for ranks that
// alternate between two host names (this host and localhost, both started
// here by Hydra), with the cpus reversed on every other line: Hydra starts
// one proxy per line and counts a user binding from each line's first
// rank, so one -bind-to list for all lines would bind ranks 2 and 3 wrong.
func TestMachineFileLocal(t *testing.T) {
	testutil.MPICH.Require(t)
	host, err := os.Hostname()
	if err != nil || host == "localhost" {
		testutil.Missing(t, testutil.NeedMPICH, "need a host name other than localhost (got %q, %v)", host, err)
	}
	sv := fakeSurveyHosts(t, []string{host}, 2)
	out := filepath.Join(t.TempDir(), "local.hosts")
	r, err := runReport(Options{Survey: sv, Matrix: writeMatrix(t, []profile.Flow{{Src: 0, Dst: 1, Bytes: 1e6, Messages: 100}}), Output: out, Format: placefile.FormatMPICH, Force: true, AlwaysWrite: true, AcceptUnbound: true}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	checkHydra(t, data, hydraLaunch(t, r.Launch), nil)

	m := &model.Machine{Hosts: []string{host, "localhost"}}
	for n, h := range m.Hosts {
		for cpu := 0; cpu < 2; cpu++ {
			m.Slots = append(m.Slots, model.Slot{Host: h, CPU: cpu, Node: n})
		}
	}
	file := filepath.Join(t.TempDir(), "alternate.hosts")
	lf, err := placefile.Write(placefile.FormatMPICH, m.RankSlots([]int32{1, 2, 0, 3}), []string{"test"}, file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, lf.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	checkHydra(t, lf.Data, hydraLaunch(t, lf.Launch), map[string]string{"localhost": host})
}

// checkHydra runs whereami under the Hydra launch prefix and checks every
// rank ran where the machine file data says (alias maps a file's host name
// to the one the rank reports).
func checkHydra(t *testing.T, data []byte, prefix []string, alias map[string]string) {
	t.Helper()
	want := machineFileSlots(t, data)
	got := testutil.MPICH.Whereami(t, prefix)
	if len(got) != len(want) {
		t.Fatalf("%d ranks reported, machine file has %d:\n%s", len(got), len(want), data)
	}
	for rank, w := range want {
		if a, ok := alias[w.Host]; ok {
			w.Host = a
		}
		if got[rank] != w {
			t.Errorf("rank %d ran on %s cpu %d, machine file says %s cpu %d:\n%s", rank, got[rank].Host, got[rank].CPU, w.Host, w.CPU, data)
		}
	}
}

// TestLatmapPlaceBinary runs the built bin/latmap place: flags reach the
// library (format, exclude, ranks-per-node, app), the file is written and
// the launch line printed; a bad flag value fails with latmap's message.
func TestLatmapPlaceBinary(t *testing.T) {
	bin := testutil.LatmapBin(t)
	sv := fakeSurvey(t, 3, 1, 4, shapes.TestRTT, nil)
	flows, _ := shapes.Ring(8)
	mx := writeMatrix(t, flows)
	out := filepath.Join(t.TempDir(), "hosts")
	cmd := exec.Command(bin, "place", "--survey", sv, "--matrix", mx, "--format", "slurm", "-o", out,
		"--exclude", "h0", "--ranks-per-node", "4", "--always-write", "--", "./app", "-x")
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
	if err == nil || !strings.Contains(string(b), "latmap place: unknown --format \"pbs\"") {
		t.Errorf("bad format: %v\n%s", err, b)
	}
}

// TestPlaceOnRealSurvey: the whole chain on the virtual cluster with real
// measurements: latmap survey (two sizes, so fit.csv too) on 2 nodes x 2
// slots with 400 Mbit/s links (the shared shapedCluster), latmap place on
// that survey, and the rankfile run by mpirun.
// The measured hierarchy must show (shared memory inside a node, TCP
// between), and ranks 0-3 and 1-2, which talk, must share nodes.
func TestPlaceOnRealSurvey(t *testing.T) {
	testutil.RequireMPI(t)
	// The shared shaped cluster's survey (shapedCluster: latmap survey
	// of every slot, 64 B and 256 KiB, with the node bandwidth phase).
	c, sv := shapedCluster(t)
	flows := []profile.Flow{{Src: 0, Dst: 3, Bytes: 1e6, Messages: 100}, {Src: 3, Dst: 0, Bytes: 1e6, Messages: 100}, {Src: 1, Dst: 2, Bytes: 1e6, Messages: 100}, {Src: 2, Dst: 1, Bytes: 1e6, Messages: 100}}
	out := filepath.Join(t.TempDir(), "app.rankfile")
	var report bytes.Buffer
	r, err := runReport(Options{Survey: sv, Matrix: writeMatrix(t, flows), Output: out}, &report)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", report.String())
	if r.FilledPairs != 0 || r.Bandwidth != "fit.csv" {
		t.Errorf("filled %d pairs, bandwidth from %s: want 0 and fit.csv from a full two-size survey", r.FilledPairs, r.Bandwidth)
	}
	// The links are shaped to 400 Mbit/s (50 MB/s): the fitted bandwidth
	// between nodes is the link's, far below shared memory's. (At 64 B
	// the latencies inside and across virtual nodes overlap on 2 cpus.)
	var inside, between float64
	for _, l := range r.Levels {
		switch l.Name {
		case survey.WordNode, survey.WordSocket:
			inside = l.BandwidthGBps
		case survey.WordNetwork:
			between = l.BandwidthGBps
		}
	}
	if !(between > 0.02 && between < 0.1 && inside > 5*between) {
		t.Errorf("fitted bandwidth inside a node %.3f GB/s, between nodes %.3f GB/s: want about the 0.05 GB/s link between nodes (its 64 KiB burst lifts a 256 KiB fit toward 0.067) and at least 5x that inside", inside, between)
	}
	want := rankfileSlots(t, out)
	if want[0].Host != want[3].Host || want[1].Host != want[2].Host {
		t.Errorf("proposal does not pair 0-3 and 1-2 on nodes: %v", want)
	}
	got := testutil.Whereami(t, append(c.MpirunArgs(4), r.Launch[3:len(r.Launch)-1]...))
	checkLanded(t, want, got)
}

// TestScopeNodesAgreesWithAll: on 4 virtual nodes x 2 with 400 Mbit/s
// links, a survey of scope nodes (the pairs inside each node and the node
// leaders' pairs: 10 of 28) gives the same inferred topology and the same
// placement as one of every pair: the same nodes, the same levels from
// the node up, and a proposal that puts the same ranks together on a
// node.
func TestScopeNodesAgreesWithAll(t *testing.T) {
	testutil.RequireMPI(t)
	bin := testutil.LatmapBin(t)
	c := vcluster.StartWith(t, vcluster.Options{Nodes: 4, SlotsPerNode: 2, Rate: "400mbit"})
	dir := t.TempDir()
	// Ranks 0-5, 1-4, 2-7 and 3-6 talk: a block layout puts every pair
	// across nodes.
	var flows []profile.Flow
	for _, p := range [][2]int{{0, 5}, {1, 4}, {2, 7}, {3, 6}} {
		flows = append(flows, profile.Flow{Src: p[0], Dst: p[1], Bytes: 1 << 20, Messages: 100}, profile.Flow{Src: p[1], Dst: p[0], Bytes: 1 << 20, Messages: 100})
	}
	mx := writeMatrix(t, flows)
	type outcome struct {
		levels    []string
		nodes     int
		together  map[[2]int]bool
		filled    int
		predicted float64
	}
	run := func(scope string) outcome {
		sv := filepath.Join(dir, scope)
		testutil.MustRun(t, 5*time.Minute, append(c.MpirunArgs(8), "--bind-to", "core", bin, "survey", "-o", sv, "--scope", scope,
			"--repeats", "20", "--sizes", "64,256K", "--schedule", "sequential", "--node-bandwidth", "off")...)
		s, err := survey.ReadSurvey(sv, survey.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Meta.Scope != scope {
			t.Fatalf("meta scope %q, want %q", s.Meta.Scope, scope)
		}
		tp, err := topo.Infer(s, topo.Options{Size: 256 << 10, Metric: -1})
		if err != nil {
			t.Fatal(err)
		}
		var txt strings.Builder
		tp.WriteText(&txt)
		t.Logf("scope %s:\n%s", scope, txt.String())
		o := outcome{nodes: tp.Nodes, together: map[[2]int]bool{}, filled: s.Filled}
		if !tp.HostsAgree {
			t.Errorf("scope %s: inferred nodes disagree with the hosts: %v", scope, tp.Disagreements)
		}
		// The levels from the node up. Below it, 4 same-node pairs at
		// 256 KiB on this 2-core machine (8 ranks) spread 115-361 us in
		// one CI run and 144-347 us in another, and their median split
		// them into a "core" level under "node" in scope all, whatever
		// the scope does with pairs between nodes.
		for _, l := range tp.Levels {
			if l.Name == topo.LevelNode || len(o.levels) > 0 {
				o.levels = append(o.levels, l.Name)
			}
		}
		var report bytes.Buffer
		r, err := runReport(Options{Survey: sv, Matrix: mx, Output: filepath.Join(dir, scope+".rankfile"), Force: true, AlwaysWrite: true, AcceptUnbound: true}, &report)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s", report.String())
		if scope != "all" && !strings.Contains(report.String(), "cross-node pairs filled from their nodes' leader pair") {
			t.Errorf("place does not say it filled pairs")
		}
		for _, a := range r.Placement {
			for _, b := range r.Placement {
				if a.Rank < b.Rank && a.Host == b.Host {
					o.together[[2]int{a.Rank, b.Rank}] = true
				}
			}
		}
		o.predicted = r.Predictions[len(r.Predictions)-1].Run
		return o
	}
	all, nodes := run("all"), run("nodes")
	if all.filled != 0 || nodes.filled != 28-10 {
		t.Errorf("filled %d (all) and %d (nodes) pairs, want 0 and 18", all.filled, nodes.filled)
	}
	if strings.Join(all.levels, ",") != strings.Join(nodes.levels, ",") || all.nodes != nodes.nodes || all.nodes != 4 {
		t.Errorf("topology: all %d nodes %v, nodes %d nodes %v", all.nodes, all.levels, nodes.nodes, nodes.levels)
	}
	for _, p := range [][2]int{{0, 5}, {1, 4}, {2, 7}, {3, 6}} {
		if !all.together[p] || !nodes.together[p] {
			t.Errorf("ranks %v share a node: all %v, nodes %v", p, all.together[p], nodes.together[p])
		}
	}
	if len(all.together) != len(nodes.together) {
		t.Errorf("ranks together: all %v, nodes %v", all.together, nodes.together)
	}
	t.Logf("predicted run: all %.4g s, nodes %.4g s", all.predicted, nodes.predicted)
}
