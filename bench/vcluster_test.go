package bench_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/internal/vcluster"
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
)

// TestSurveyVirtualCluster surveys 2 nodes x 2 ranks of network namespaces
// whose links are shaped to 400 Mbit/s: ranks on one node talk through
// shared memory, across nodes through TCP over a shared link, so the
// survey must see two levels. They are told apart at 256 KiB, where the
// link's bandwidth decides: at 64 B, cpu sharing on a 2-core machine makes
// same-node round trips 2-18 us and cross-node ones 22-60 us from run to
// run, too close to assert on.
func TestSurveyVirtualCluster(t *testing.T) {
	testutil.RequireMPI(t)
	bin := testutil.LatmapBin(t)
	c := vcluster.StartWith(t, vcluster.Options{Nodes: 2, SlotsPerNode: 2, Rate: "400mbit"})
	dir := t.TempDir()
	// 40 round trips per pair and size: a shaped 256 KiB round trip takes
	// about 8.6 ms.
	const repeats = 40

	// Sequential: one pair at a time, as mmpi measured.
	seq := filepath.Join(dir, "seq")
	runSurvey(t, c.MpirunArgs(4), bin, seq, "--schedule", "sequential", "--repeats", fmt.Sprint(repeats), "--sizes", "64,256K")
	s := checkSurvey(t, seq, 4, repeats)
	// By-slot mapping fills the first node first.
	want := []string{c.Nodes[0], c.Nodes[0], c.Nodes[1], c.Nodes[1]}
	for i, r := range s.Ranks {
		if r.Host != want[i] {
			t.Errorf("rank %d ran on %q, want %q", i, r.Host, want[i])
		}
	}
	tb, err := s.Table(256 << 10)
	if err != nil {
		t.Fatal(err)
	}
	// Minima: the best round trip of each pair is what the link allows;
	// medians of same-node pairs swell when other work takes the 2 cpus.
	maxSame, minCross := 0.0, 1e18
	for a := 0; a < 4; a++ {
		for b := a + 1; b < 4; b++ {
			m := tb.At(survey.Min, a, b)
			if s.Ranks[a].Host == s.Ranks[b].Host {
				maxSame = max(maxSame, m)
			} else {
				minCross = min(minCross, m)
			}
		}
	}
	t.Logf("sequential, 256 KiB: slowest same-node minimum %.1f us, fastest cross-node minimum %.1f us", maxSame, minCross)
	// At 400 Mbit/s (50 MB/s), with the token bucket's 64 KiB burst
	// passed at once, a 256 KiB round trip takes at least 2 x 192 KiB /
	// 50 MB/s = 7.9 ms on the link (8.6 ms measured); shared memory moves
	// it in tens of microseconds.
	if !(10*maxSame <= minCross) || minCross < 7000 {
		t.Errorf("256 KiB: same-node minima (up to %.1f us) are not at least 10x lower than cross-node ones (from %.1f us, want >= 7000 on a 400 Mbit/s link)", maxSame, minCross)
	}
	checkNodeBandwidth(t, s, c.Nodes)
	// The sequential schedule reports its interference too: the pairs
	// measured in turn against a sample re-measured with the other ranks
	// asleep. The waiting ranks yield, so the two medians are alike: 0.98-
	// 1.11 in 5 runs here, and docs/survey.md's 8 unbound ranks on 2 cpus
	// 0.84-1.01 (noisy: 0.61-1.58 over 7 runs). Outside 0.6-1.6 the figure
	// (or the waiting) is wrong.
	if s.Meta.Interference == nil || !(*s.Meta.Interference >= 0.6 && *s.Meta.Interference <= 1.6) || s.Meta.IsolatedPairs != 4 {
		t.Errorf("sequential survey: interference %v over %d pairs, want 0.6-1.6 over 4 pairs", fmtPtr(s.Meta.Interference), s.Meta.IsolatedPairs)
	} else {
		t.Logf("sequential: interference %.3f", *s.Meta.Interference)
	}

	// Rounds: the interference figure is reported.
	// Rounds measure two pairs at once: 4 ranks on the 2 cpus, and the
	// cross-node pairs on the one shaped link, so the concurrent medians
	// are clearly slower than the isolated ones: 1.69-2.45 in 5 runs here,
	// 2.16 in docs/survey.md's make bench-survey on this oversubscribed
	// machine. At 64 KiB and 256 KiB the shared link sets the round
	// trips: at the default 64 B the cpus do, and with another test
	// package running beside this one (as CI runs them) the isolated
	// pairs lost their cpus too: 1.03 in one CI run, 1.20-1.48 alone
	// (2026-11-26). At 64 KiB and 256 KiB: 1.26-1.60 alone, 1.26-1.74
	// with two processes spinning on both cpus; 1.176 in one clean-clone
	// CI run (2026-12-02), 1.037 in another (2026-12-03, nothing beside
	// it; 1.42-2.00 in three runs right after). Two pairs sharing what
	// one had alone make it about 2x; at 1.1 or below the concurrency
	// went unseen (a figure turned upside down, isolated over concurrent,
	// gives about 0.5), and above 4 it is more than sharing explains. The
	// 4 ranks on 2 cpus are scheduled by chance, so a survey outside that
	// is measured once more: what fails is a figure wrong twice in a row,
	// as a wrong figure is every time.
	var r *survey.Survey
	for attempt := 1; ; attempt++ {
		rounds := filepath.Join(dir, fmt.Sprintf("rounds%d", attempt))
		runSurvey(t, c.MpirunArgs(4), bin, rounds, "--repeats", fmt.Sprint(repeats), "--sizes", "64K,256K")
		r = checkSurvey(t, rounds, 4, repeats)
		if r.Meta.Interference != nil && *r.Meta.Interference > 1.1 && *r.Meta.Interference < 4 && r.Meta.IsolatedPairs == 4 {
			break
		}
		if attempt == 2 {
			t.Fatalf("rounds survey: interference %v over %d pairs, want 1.1-4 over 4 pairs (twice)", fmtPtr(r.Meta.Interference), r.Meta.IsolatedPairs)
		}
		t.Logf("rounds survey: interference %v over %d pairs, want 1.1-4 over 4 pairs: measured again", fmtPtr(r.Meta.Interference), r.Meta.IsolatedPairs)
	}
	isolated := 0
	for a := 0; a < 4; a++ {
		for b := a + 1; b < 4; b++ {
			if v := r.Tables[0].At(survey.Isolated, a, b); v > 0 {
				isolated++
			}
		}
	}
	if isolated != 4 {
		t.Errorf("%d pairs have an isolated median, want 4", isolated)
	}
	t.Logf("rounds: interference %.3f", *r.Meta.Interference)
}

// checkNodeBandwidth: the node bandwidth phase ran one step on 2 nodes x 2
// ranks with 400 Mbit/s links (50 MB/s each way). Two ranks sending at
// once share the link: their aggregate stays under its rate (29-43 MB/s
// measured). One rank alone gets less (24-25 MB/s measured here: its one
// TCP connection carries both directions, and its acknowledgements queue
// behind the other direction's data in the shaper).
func checkNodeBandwidth(t *testing.T, s *survey.Survey, nodes []string) {
	t.Helper()
	if m := s.Meta.NodeBandwidth; m == nil || m.Steps != 1 || m.SizeBytes != 1<<20 {
		t.Fatalf("meta node_bandwidth %+v, want 1 step of 1 MiB", m)
	}
	rows := s.NodeBandwidth
	if len(rows) != 3 {
		t.Fatalf("nodebw rows %+v, want one per node and the both-ways row", rows)
	}
	checkBothWays(t, rows[2], nodes)
	for i, r := range rows[:2] {
		t.Logf("nodebw %s -> %s: %d ranks, aggregate %.1f MB/s, one rank %.1f MB/s (%.3f s)", r.Host, r.Peer, r.Ranks, r.AggregateMBps, r.PairMBps, r.Seconds)
		if r.Host != nodes[i] || r.Peer != nodes[1-i] || r.Ranks != 2 {
			t.Errorf("row %d: %+v, want %s -> %s with 2 ranks", i, r, nodes[i], nodes[1-i])
		}
		if !(r.AggregateMBps > 15 && r.AggregateMBps < 55) || !(r.PairMBps > 10 && r.PairMBps < 55) {
			t.Errorf("row %d: aggregate %.1f MB/s, one rank %.1f MB/s; want the aggregate near and under the link's 50 MB/s, one rank under it", i, r.AggregateMBps, r.PairMBps)
		}
	}
}

// checkBothWays: the both-ways row (bench/bothways.go) of 2 virtual nodes
// with 400 Mbit/s (50 MB/s) links. One rank sending alone moves near the
// link's rate (47.9 MB/s measured); the two sending to each other at
// once move about half of it each way (24.0 MB/s): each node's
// acknowledgements of what it receives queue behind its own data in its
// link's shaper, as the node phase's one rank a node shows (24-25 MB/s).
// Not always: once in a clean-clone CI run (2026-12-02) both moved 47.0
// MB/s each way, the acknowledgements not held behind the data, where
// four runs alone then read 28.4-30.9. So each way is held to the link's
// rate, not to half of it: a row over it (each way timed by its sends'
// copies to the socket buffers, as a former lm_exchange did: 50.8 MB/s)
// still fails. latmap place prices that cross traffic at its most (100%:
// as if the link were half-duplex) on a network found in the survey.
func checkBothWays(t *testing.T, r survey.NodeBandwidth, nodes []string) {
	t.Helper()
	t.Logf("both ways %s <-> %s: %.1f MB/s each way, one way alone %.1f MB/s", r.Host, strings.TrimPrefix(r.Peer, survey.BothWaysPeer), r.AggregateMBps, r.PairMBps)
	if r.Host != nodes[0] || r.Peer != survey.BothWaysPeer+nodes[1] || r.Ranks != 1 {
		t.Errorf("both-ways row %+v, want %s to %s%s, one rank", r, nodes[0], survey.BothWaysPeer, nodes[1])
	}
	if !(r.PairMBps > 30 && r.PairMBps < 55) || !(r.AggregateMBps > 15 && r.AggregateMBps < 49) {
		t.Errorf("both-ways row: one way %.1f MB/s, each way both sending %.1f MB/s; want one way near the link's 50 MB/s and each way 15-49", r.PairMBps, r.AggregateMBps)
	}
}

// TestFanOutVirtualCluster: latmap survey's node fan-out under real Open
// MPI on 4 virtual nodes x 2 ranks, each node one shaped link (400
// Mbit/s) to the bridge, like a fat tree's node: two sampled nodes each
// send from both ranks to one node, then one rank to each of two nodes,
// and both rates are one link's (the fan-out 0.7-1.3x the one-node
// rate), so latmap place prices every node as one link ("one link
// each"). The many-link case (a torus node's four links, 3.99x) is
// placement's TestSimTorusSurveyAlone.
func TestFanOutVirtualCluster(t *testing.T) {
	testutil.RequireMPI(t)
	bin := testutil.LatmapBin(t)
	c := vcluster.StartWith(t, vcluster.Options{Nodes: 4, SlotsPerNode: 2, Rate: "400mbit"})
	out := filepath.Join(t.TempDir(), "survey")
	s := runSurvey(t, append(c.MpirunArgs(8), "--bind-to", "core"), bin, out, "--repeats", "10", "--sizes", "64,64K", "--schedule", "sequential")
	checkFanOutRows(t, s, 2, 2, 0.7, 1.3)
	matrix := filepath.Join(t.TempDir(), "app.csv")
	if err := os.WriteFile(matrix, []byte("src,dst,bytes,messages\n0,2,1e8,100\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := testutil.MustRun(t, time.Minute, bin, "place", "--survey", out, "--matrix", matrix)
	if !strings.Contains(o, "one link each") {
		t.Errorf("latmap place does not say a node is one link:\n%s", o)
	}
}

// TestFanOutOneRankVirtualCluster: the fan-out with one rank a node,
// under real Open MPI on 4 virtual nodes x 1 rank whose traffic to each
// other node goes through a shaped class of its own (100 Mbit/s a node
// pair, vcluster's LinkRates: a node that drives a link to every other
// node, as a torus node drives its neighbours'). The sampled nodes' one
// rank sends to its nearest node, then to the 3 others at once
// (FanOutOneRankPeers, capped by the hosts there are): 3 links' worth,
// 2.2-3.3x the one-node rate.
func TestFanOutOneRankVirtualCluster(t *testing.T) {
	testutil.RequireMPI(t)
	bin := testutil.LatmapBin(t)
	links := map[[2]int]string{}
	for a := range 4 {
		for b := a + 1; b < 4; b++ {
			links[[2]int{a, b}] = "100mbit"
		}
	}
	c := vcluster.StartWith(t, vcluster.Options{Nodes: 4, SlotsPerNode: 1, LinkRates: links})
	out := filepath.Join(t.TempDir(), "survey")
	s := runSurvey(t, append(c.MpirunArgs(4), "--bind-to", "core"), bin, out, "--repeats", "10", "--sizes", "64,64K", "--schedule", "sequential", "--nodebw-size", "256K", "--size-sweep", "off")
	checkFanOutRows(t, s, 3, 1, 2.2, 3.3)
}

// checkFanOutRows: s has a fan-out row for each of the 2 sampled hosts,
// each from ranks ranks to peers other nodes at lo-hi times the rate to
// the first alone.
func checkFanOutRows(t *testing.T, s *survey.Survey, peers, ranks int, lo, hi float64) {
	t.Helper()
	fans := 0
	for _, r := range s.NodeBandwidth {
		to := strings.Split(r.Peer, survey.FanOutPeers)
		if len(to) < 2 {
			continue
		}
		fans++
		x := r.AggregateMBps / r.PairMBps
		t.Logf("fan-out from %s to %v: %.1f MB/s, to %s alone %.1f MB/s (%.2fx)", r.Host, to, r.AggregateMBps, to[0], r.PairMBps, x)
		if len(to) != peers || r.Ranks != ranks || x < lo || x > hi || slices.Contains(to, r.Host) {
			t.Errorf("fan-out row %+v: want %d ranks to %d other nodes at %g-%gx the one-node rate", r, ranks, peers, lo, hi)
		}
	}
	if fans != 2 {
		t.Fatalf("%d fan-out rows in nodebw.csv, want 2 (the sampled hosts)", fans)
	}
}

// TestSlowNodeNamed: on 4 virtual nodes x 2 ranks whose links are shaped
// to 400 Mbit/s except the third node's, at 100 Mbit/s, a survey at
// 64 B and 256 KiB names exactly that node as slow, and no link: its
// 256 KiB round trips take about four times the others'. (At 64 B, cpu
// sharing on this machine hides it: every cross-node pair takes 30-135 us
// alike.) The survey's own warning of slow hosts (bench/fit's
// HostFactors, which prices their pairs) names that node alone too, at
// 3-5x.
func TestSlowNodeNamed(t *testing.T) {
	c, o, s := surveyOutliers(t, vcluster.Options{Nodes: 4, SlotsPerNode: 2, Rate: "400mbit", NodeRates: map[int]string{2: "100mbit"}})
	if len(o.SlowNodes) != 1 || o.SlowNodes[0].Host != c.Nodes[2] || len(o.SlowLinks) != 0 || len(o.SlowInside) != 0 {
		t.Errorf("want exactly %s named slow, got:\n%s", c.Nodes[2], strings.Join(o.Lines(), "\n"))
	}
	var warned []string
	for _, w := range s.Meta.Warnings {
		if strings.HasPrefix(w, "slow hosts:") {
			warned = append(warned, w)
		}
	}
	t.Logf("%q", warned)
	named := func(w, host string) bool { return strings.Contains(w, host+",") || strings.Contains(w, host+" ") }
	if len(warned) != 1 || !named(warned[0], c.Nodes[2]) || named(warned[0], c.Nodes[0]) || named(warned[0], c.Nodes[1]) || named(warned[0], c.Nodes[3]) {
		t.Fatalf("want one warning of slow hosts naming %s alone, got %q", c.Nodes[2], warned)
	}
	// Its pairs take tc's 4x: measured against the pairs through the
	// other nodes, not against a median that its own pairs, half of
	// them, pull up (1.59x before).
	var x float64
	if _, err := fmt.Sscanf(warned[0][strings.Index(warned[0], " took ")+len(" took "):], "%fx", &x); err != nil || x < 3 || x > 5 {
		t.Errorf("slow host's factor %g (%v), want 3-5x (its link shaped to a quarter of the others')", x, err)
	}
}

// TestSlowLinkNamed: on 4 virtual nodes x 1 rank whose links are shaped to
// 400 Mbit/s, but for the link between the second and third nodes, at
// 100 Mbit/s both ways, a survey at 64 B and 256 KiB names exactly that
// link, and no node: each of the two nodes has one slow link of three.
// (Unshaped, the links' 256 KiB round trips are cpu-bound and spread 2x
// from pair to pair here, which made slow nodes of noise.)
func TestSlowLinkNamed(t *testing.T) {
	c, o, _ := surveyOutliers(t, vcluster.Options{Nodes: 4, SlotsPerNode: 1, Rate: "400mbit", LinkRates: map[[2]int]string{{1, 2}: "100mbit"}})
	if len(o.SlowLinks) != 1 || len(o.SlowNodes) != 0 {
		t.Fatalf("want exactly the link %s-%s named slow, got:\n%s", c.Nodes[1], c.Nodes[2], strings.Join(o.Lines(), "\n"))
	}
	if l := o.SlowLinks[0]; !(l.A == c.Nodes[1] && l.B == c.Nodes[2] || l.A == c.Nodes[2] && l.B == c.Nodes[1]) {
		t.Errorf("slow link %s-%s, want %s-%s", l.A, l.B, c.Nodes[1], c.Nodes[2])
	}
}

// surveyOutliers surveys a virtual cluster made with opt, every slot a
// rank, one pair at a time at 64 B and 256 KiB, and returns the cluster
// and the slow nodes and links latmap names in the survey.
func surveyOutliers(t *testing.T, opt vcluster.Options) (*vcluster.Cluster, *topo.Outliers, *survey.Survey) {
	t.Helper()
	testutil.RequireMPI(t)
	bin := testutil.LatmapBin(t)
	c := vcluster.StartWith(t, opt)
	dir := filepath.Join(t.TempDir(), "survey")
	runSurvey(t, c.MpirunArgs(opt.Nodes*opt.SlotsPerNode), bin, dir, "--schedule", "sequential", "--repeats", "10", "--sizes", "64,256K", "--node-bandwidth", "off")
	s, err := survey.ReadSurvey(dir, survey.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o, err := topo.FindOutliers(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", strings.Join(o.Lines(), "\n"))
	return c, o, s
}

// TestNoiseMakesNoLevelVirtual: 8 ranks on 4 virtual nodes x 2 share this
// machine's 2 cpus, so at 64 B every pair's round trips wander by tens of
// microseconds: latmap topo must not make "switch" levels of that noise
// (before, it reported two inside the nodes, at 52 and 93 us).
func TestNoiseMakesNoLevelVirtual(t *testing.T) {
	testutil.RequireMPI(t)
	bin := testutil.LatmapBin(t)
	c := vcluster.StartWith(t, vcluster.Options{Nodes: 4, SlotsPerNode: 2})
	dir := filepath.Join(t.TempDir(), "survey")
	runSurvey(t, c.MpirunArgs(8), bin, dir, "--repeats", "100", "--node-bandwidth", "off")
	s, err := survey.ReadSurvey(dir, survey.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tp, err := topo.Infer(s, topo.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	tp.WriteText(&b)
	t.Logf("%s", b.String())
	for _, l := range tp.Levels {
		if strings.HasPrefix(l.Name, "switch") {
			t.Errorf("noise made a %s level:\n%s", l.Name, b.String())
		}
	}
	if !tp.HostsAgree {
		t.Errorf("the nodes disagree with the host names:\n%s", b.String())
	}
}

// fmtPtr prints a figure that may be missing.
func fmtPtr(x *float64) string {
	if x == nil {
		return "none"
	}
	return fmt.Sprintf("%.3f", *x)
}

// TestSurveyTopologyVirtualCluster: latmap survey --topology under real
// Open MPI on 4 virtual nodes of 1 rank (400 Mbit/s links), with a Slurm
// topology.conf of two leaves of two: the switch phase measures the
// declared leaves (switches.csv, meta.json's planned), and latmap place
// --topology prices the leaves' uplinks, which the file declares no
// bandwidth for, at what a leaf sent out. That is 47 MB/s here, below
// the two shaped links' 2 x 50: four ranks moving data over TCP share
// this machine's 2 cpus (the node phase's shift gets 24-38 MB/s a node).
func TestSurveyTopologyVirtualCluster(t *testing.T) {
	testutil.RequireMPI(t)
	bin := testutil.LatmapBin(t)
	c := vcluster.StartWith(t, vcluster.Options{Nodes: 4, SlotsPerNode: 1, Rate: "400mbit"})
	dir := t.TempDir()
	conf := filepath.Join(dir, "topology.conf")
	text := fmt.Sprintf("SwitchName=leaf0 Nodes=%s,%s\nSwitchName=leaf1 Nodes=%s,%s\nSwitchName=top Switches=leaf0,leaf1\n", c.Nodes[0], c.Nodes[1], c.Nodes[2], c.Nodes[3])
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "survey")
	s := runSurvey(t, c.MpirunArgs(4), bin, out, "--topology", conf, "--repeats", "10", "--sizes", "64,64K")
	leaf := map[string]int{}
	for _, g := range s.Switches {
		leaf[g.Host] = g.Group
	}
	if len(s.Switches) != 4 || leaf[c.Nodes[0]] != leaf[c.Nodes[1]] || leaf[c.Nodes[2]] != leaf[c.Nodes[3]] || leaf[c.Nodes[0]] == leaf[c.Nodes[2]] {
		t.Fatalf("switches.csv %+v: want the two declared leaves", s.Switches)
	}
	if m := s.Meta.SwitchBandwidth; m == nil || m.Planned != conf {
		t.Fatalf("meta.json switch_bandwidth %+v: want it planned on %s", m, conf)
	}
	for _, r := range s.SwitchBandwidth {
		t.Logf("leaf %d to leaf %d: %.1f MB/s out", r.Group, r.PeerGroup, r.AggregateMBps)
		if r.AggregateMBps < 15 || r.AggregateMBps > 110 {
			t.Errorf("leaf %d sent %.1f MB/s out, want 15-110 (two 50 MB/s links, on 2 cpus)", r.Group, r.AggregateMBps)
		}
	}
	matrix := filepath.Join(dir, "app.csv")
	if err := os.WriteFile(matrix, []byte("src,dst,bytes,messages\n0,2,1e9,1000\n2,0,1e9,1000\n1,3,1e9,1000\n3,1,1e9,1000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	adv, err := testutil.Run(t, time.Minute, nil, bin, "place", "--survey", out, "--matrix", matrix, "--topology", conf, "--json")
	if err != nil {
		t.Fatalf("latmap place --topology: %v\n%s", err, adv)
	}
	var a placefile.Advice
	if err := json.Unmarshal([]byte(adv), &a); err != nil {
		t.Fatalf("%v\n%s", err, adv)
	}
	if a.Network == nil || !strings.Contains(a.Network.Capacity, "up-1 links (no bandwidth declared) at") {
		t.Errorf("place --topology: network %+v, want the leaves' uplinks priced as the switch phase measured them", a.Network)
	} else {
		t.Logf("place: network priced as %s", a.Network.Capacity)
	}
}
