package model_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
)

// TestContentionWorkedExample is docs/place.md's worked example, by hand:
// 2 nodes x 2 slots, two pairs exchanging 20 x 1 MiB each way.
func TestContentionWorkedExample(t *testing.T) {
	m := model.NewLevelMachine(2, 1, 2, shapes.WorkedLevels)
	tr := shapes.MustTraffic(shapes.Pairs(20, 1<<20), 4)
	rows := []survey.NodeBandwidth{
		{Host: "node0", Peer: "node1", Ranks: 2, AggregateMBps: 36},
		{Host: "node1", Peer: "node0", Ranks: 2, AggregateMBps: 36},
	}
	md, notes := model.NewModel(m, rows, model.ModelOptions{})
	if md.NodeSource != "nodebw.csv" || len(notes) != 0 {
		t.Fatalf("node source %q, notes %q", md.NodeSource, notes)
	}
	S := 20.0 * (1 << 20) // bytes each way per pair
	// Cyclic (--map-by node): ranks 0, 2 on node0; 1, 3 on node1: both
	// pairs cross. Each rank's pairwise time, its pair's two directions at
	// once: 20 messages x 20 us + S / 49.8 MB/s = 0.4215 s; node0 sends
	// 2S = 41.94 MB at 36 MB/s: 1.165 s, more than the pairwise time, so
	// every rank takes 1.165 s.
	cyc := model.Predict("cyclic", md, tr, []int32{0, 2, 1, 3}, nil)
	pair := 20*20e-6 + S/49.8e6
	link := 2 * S / 36e6
	if !shapes.Near(cyc.Run, link) || cyc.NodeBound != 4 || !shapes.Near(cyc.Contention, link-pair) {
		t.Errorf("cyclic: run %.6g (want %.6g), %d node-bound (want 4), contention %.6g (want %.6g)", cyc.Run, link, cyc.NodeBound, cyc.Contention, link-pair)
	}
	if !shapes.Near(cyc.Transfer, 2*pair) {
		t.Errorf("cyclic transfer %.6g, want %.6g", cyc.Transfer, 2*pair)
	}
	// Block: each pair on its node, priced on both directions (the cpus
	// copy): 40 x 4.4 us + 2S / 9.2 GB/s = 0.004735 s; node memory moves
	// 2S at 9.2 GB/s x (2 slots / 2) = 0.004559 s: less, so the pairwise
	// time stands.
	blk := model.Predict("block", md, tr, []int32{0, 1, 2, 3}, nil)
	if want := 40*4.4e-6 + 2*S/9.2e9; !shapes.Near(blk.Run, want) || blk.NodeBound != 0 {
		t.Errorf("block: run %.6g, want %.6g, %d node-bound", blk.Run, want, blk.NodeBound)
	}
	// Without nodebw.csv the node link carries one pair's 49.8 MB/s each
	// way: node0 moves 2S out (and 2S in), 2S / 49.8 MB/s.
	fb, notes := model.NewModel(m, nil, model.ModelOptions{})
	if len(notes) != 1 || fb.NodeSource == "nodebw.csv" {
		t.Errorf("fallback: source %q, notes %q", fb.NodeSource, notes)
	}
	if got, want := model.Predict("cyclic", fb, tr, []int32{0, 2, 1, 3}, nil).Run, 2*S/49.8e6; !shapes.Near(got, want) {
		t.Errorf("cyclic without nodebw.csv: %.6g, want %.6g", got, want)
	}
	// With only a fan-out's row (a survey that ran no node phase) the
	// same, and the note says the file has no node phase rows.
	fan := []survey.NodeBandwidth{{Host: m.Hosts[0], Peer: m.Hosts[1] + survey.FanOutPeers + m.Hosts[1], Ranks: 1, AggregateMBps: 50, PairMBps: 50}}
	fo, notes := model.NewModel(m, fan, model.ModelOptions{})
	if got := model.Predict("cyclic", fo, tr, []int32{0, 2, 1, 3}, nil).Run; !shapes.Near(got, 2*S/49.8e6) || len(notes) == 0 || !strings.Contains(notes[0], "no node phase rows in nodebw.csv, only the fan-out's") {
		t.Errorf("fan-out rows only: cyclic %.6g, want %.6g; notes %q", got, 2*S/49.8e6, notes)
	}
	// Without contention: the pairwise time.
	if got := model.Predict("cyclic", model.Pairwise(m), tr, []int32{0, 2, 1, 3}, nil).Run; !shapes.Near(got, pair) {
		t.Errorf("cyclic without contention: %.6g, want %.6g", got, pair)
	}
}

// TestContentionHandComputed: the link term counts only for ranks with
// traffic off their node, the memory term only for ranks with traffic on
// it; injection and ejection are separate; calibration factors scale each
// part; fixed times add.
func TestContentionHandComputed(t *testing.T) {
	m := model.NewLevelMachine(2, 1, 4, [3]model.LinkCost{model.SameSocket: {Latency: 1e-6, InvBandwidth: 1e-9}, model.SameNode: {Latency: 1e-6, InvBandwidth: 1e-9}, model.Network: {Latency: 10e-6, InvBandwidth: 1e-8}})
	md, _ := model.NewModel(m, []survey.NodeBandwidth{
		{Host: "node0", Peer: "node1", AggregateMBps: 50}, // node0 sends at 50 MB/s, node1 receives at 50
		{Host: "node1", Peer: "node0", AggregateMBps: 20}, // node1 sends at 20 MB/s, node0 receives at 20
	}, model.ModelOptions{})
	// Ranks 0-3 on node0, 4-7 on node1 (block). 0 -> 4: 1e6 B in 10
	// messages (off node, one way); 1 -> 5: 3e6 B in 10; 2 <-> 3: 1e5 B
	// each way in 1 message each (on node); 6 silent; 7 <- 0: nothing.
	tr := shapes.MustTraffic([]profile.Flow{{Src: 0, Dst: 4, Bytes: 1e6, Messages: 10}, {Src: 1, Dst: 5, Bytes: 3e6, Messages: 10}, {Src: 2, Dst: 3, Bytes: 1e5, Messages: 1}, {Src: 3, Dst: 2, Bytes: 1e5, Messages: 1}}, 8)
	place := []int32{0, 1, 2, 3, 4, 5, 6, 7}
	base := []float64{0.1, 0, 0, 0, 0, 0, 0.5, 0}
	rt := &model.RankTimes{Comput: base, Sync: make([]float64, 8), Late: make([]float64, 8)}
	p := model.Predict("block", md, tr, place, rt)
	// node0 sends 4e6 B at 50 MB/s: 0.08 s; receives nothing. node1
	// receives 4e6 B at 50 MB/s: 0.08 s; sends nothing.
	// Rank 0: pairwise 10 x 10 us + 1e6 x 1e-8 = 0.0101 s < 0.08: 0.08.
	// Rank 1: 1e-4 + 0.03 = 0.0301 < 0.08: 0.08. Ranks 4, 5 likewise.
	// Ranks 2, 3: on node only, both directions: 2 x 1 us + 2e5 x 1e-9 =
	// 2.02e-4 s; node0's memory moves 2e5 B at 1 GB/s x 4/2 = 1e-4 s:
	// less. No link term.
	// Rank 6: silent, 0.5 s of computation. Rank 7: nothing.
	want := []float64{0.08 + 0.1, 0.08, 2.02e-4, 2.02e-4, 0.08, 0.08, 0.5, 0}
	for i, w := range want {
		if !shapes.Near(p.PerRank[i], w) {
			t.Errorf("rank %d: %.6g s, want %.6g", i, p.PerRank[i], w)
		}
	}
	if p.Run != 0.5 || p.SlowestRank != 6 || p.NodeBound != 4 {
		t.Errorf("run %g (rank %d, %d node-bound), want 0.5 (rank 6, 4)", p.Run, p.SlowestRank, p.NodeBound)
	}
	// The other way round the slower direction shows: 4 -> 0 and 5 -> 1
	// leave node1 at 20 MB/s: 0.2 s for ranks 0, 1, 4, 5.
	rev := shapes.MustTraffic([]profile.Flow{{Src: 4, Dst: 0, Bytes: 1e6, Messages: 10}, {Src: 5, Dst: 1, Bytes: 3e6, Messages: 10}}, 8)
	if got := model.Predict("block", md, rev, place, nil).PerRank[4]; !shapes.Near(got, 0.2) {
		t.Errorf("node1 sending 4e6 B at 20 MB/s: rank 4 %.6g s, want 0.2", got)
	}
	// Calibration factors scale the two parts: rank 0 with off-node x2
	// and rank 2 with on-node x3.
	md.Scale = [2]float64{3, 2}
	p = model.Predict("block", md, tr, place, rt)
	if !shapes.Near(p.PerRank[0], 0.1+2*0.08) || !shapes.Near(p.PerRank[2], 3*2.02e-4) {
		t.Errorf("scaled: rank 0 %.6g (want %.6g), rank 2 %.6g (want %.6g)", p.PerRank[0], 0.1+2*0.08, p.PerRank[2], 3*2.02e-4)
	}
	// A memory-bound rank: rank 2 <-> 3 light, 0 <-> 1 heavy, all on node0.
	md.Scale = [2]float64{1, 1}
	mem := shapes.MustTraffic([]profile.Flow{{Src: 0, Dst: 1, Bytes: 1e8, Messages: 1}, {Src: 2, Dst: 3, Bytes: 1e3, Messages: 1}}, 8)
	// node0 moves 1.00001e8 B at 2 GB/s: 0.0500005 s; rank 2's own
	// pairwise time is 1 us + 1e3 x 1e-9 = 2e-6 s.
	if got, want := model.Predict("block", md, mem, place, nil).PerRank[2], 1.00001e8/2e9; !shapes.Near(got, want) {
		t.Errorf("memory-bound rank 2: %.6g s, want %.6g", got, want)
	}
}

// TestOnAndOffNodeOverlap: a rank with traffic on and off its node
// communicates for the longer of the two parts, not their sum: the
// node's memory and its link move bytes at once (on the simulated 4 x 4
// x 4 torus a ring's block layout, whose boundary ranks send 4 MiB on
// and off their node, was predicted 1.44x its simulated run summed). The
// calibration factors scale each part before the longer is taken.
func TestOnAndOffNodeOverlap(t *testing.T) {
	m := model.NewLevelMachine(2, 1, 4, [3]model.LinkCost{model.SameSocket: {Latency: 1e-6, InvBandwidth: 1e-9}, model.SameNode: {Latency: 1e-6, InvBandwidth: 1e-9}, model.Network: {Latency: 10e-6, InvBandwidth: 1e-8}})
	md, _ := model.NewModel(m, []survey.NodeBandwidth{
		{Host: "node0", Peer: "node1", AggregateMBps: 50},
		{Host: "node1", Peer: "node0", AggregateMBps: 50},
	}, model.ModelOptions{})
	// Rank 0 sends 1e6 B in 10 messages to rank 4 (node1): 10 x 10 us +
	// 1e6 x 1e-8 = 0.0101 s pairwise, node0's link 1e6 B at 50 MB/s =
	// 0.02 s. And 1e7 B in one message to rank 1 (its node): 1 us + 1e7 x
	// 1e-9 = 0.010001 s (node0's memory: 1e7 B at 2 GB/s, less).
	tr := shapes.MustTraffic([]profile.Flow{{Src: 0, Dst: 4, Bytes: 1e6, Messages: 10}, {Src: 0, Dst: 1, Bytes: 1e7, Messages: 1}}, 8)
	place := []int32{0, 1, 2, 3, 4, 5, 6, 7}
	on, off := 1e-6+1e7*1e-9, 1e6/50e6
	if got := model.Predict("block", md, tr, place, nil).PerRank[0]; !shapes.Near(got, off) {
		t.Errorf("rank 0: %.6g s, want the off-node part %.6g (summed: %.6g)", got, off, on+off)
	}
	md.Scale = [2]float64{3, 1}
	if got := model.Predict("block", md, tr, place, nil).PerRank[0]; !shapes.Near(got, 3*on) {
		t.Errorf("rank 0 with the on-node part x3: %.6g s, want %.6g", got, 3*on)
	}
}

// TestEvaluatorSwapMatchesScratch: after a sequence of swaps the
// incremental evaluator holds what a fresh one computes.
func TestEvaluatorSwapMatchesScratch(t *testing.T) {
	m := model.NewLevelMachine(4, 2, 4, shapes.WorkedLevels)
	md, _ := model.NewModel(m, nil, model.ModelOptions{})
	flows, n := shapes.RandomSparse(32, 4, 7)
	base := make([]float64, n)
	for i := range base {
		base[i] = float64(i%5) * 1e-3
	}
	swapsMatchScratch(t, md, shapes.MustTraffic(flows, n), base, swapWalk{rounds: 200, step: 13, off: 5, keep: 3})
}

// TestPortsSwapMatchScratch: the same on nodes that drive three links
// (nodebw.csv's fan-out), where each node's link time depends on how its
// bytes spread over the other nodes: the spread kept through swaps and
// tries is a fresh evaluator's, and some ranks are bound by it.
func TestPortsSwapMatchScratch(t *testing.T) {
	m := model.NewLevelMachine(4, 2, 4, shapes.WorkedLevels)
	var rows []survey.NodeBandwidth
	for h := 0; h < 4; h++ {
		rows = append(rows, survey.NodeBandwidth{Host: fmt.Sprintf("node%d", h), Peer: fmt.Sprintf("node%d", (h+1)%4), Ranks: 8, AggregateMBps: 30},
			survey.NodeBandwidth{Host: fmt.Sprintf("node%d", h), Peer: "a+b+c", Ranks: 3, AggregateMBps: 90, PairMBps: 30})
	}
	md, _ := model.NewModel(m, rows, model.ModelOptions{})
	if md.Ports != 3 {
		t.Fatalf("ports %g, want 3", md.Ports)
	}
	flows, n := shapes.RandomSparse(32, 4, 7)
	if bound := swapsMatchScratch(t, md, shapes.MustTraffic(flows, n), nil, swapWalk{rounds: 300, step: 11, off: 3, keep: 2}); bound == 0 {
		t.Error("no rank bound by its node's links: the walk did not exercise the spread")
	}
}

// swapWalk is a sequence of exchanges: in round k ranks k*7 and
// k*step+off (mod n), kept (Swap) every keep-th round, tried otherwise
// (in odd rounds with two more exchanges, walkPairs).
type swapWalk struct{ rounds, step, off, keep int }

// swapsMatchScratch walks w on md's evaluator of tr (fixed times base,
// from block) and checks that a try leaves the state as it was, that
// after each kept exchange the priced objective, the evaluator's run,
// its critical rank and every rank's communication are a fresh
// prediction's. It returns how many ranks their node or a switch group's
// uplinks bound at the end.
func swapsMatchScratch(t *testing.T, md *model.Model, tr *model.Traffic, base []float64, w swapWalk) int {
	t.Helper()
	n := tr.N
	slots, _ := md.SelectSlots(n, model.SelectOptions{})
	place := model.Block(slots, n)
	ev := model.NewEvaluator(md, tr, base, place)
	rt := &model.RankTimes{Comput: base, Sync: make([]float64, n), Late: make([]float64, n)}
	for k := 0; k < w.rounds; k++ {
		i, j := int32(k*7%n), int32((k*w.step+w.off)%n)
		if i == j {
			continue
		}
		before := ev.Objective()
		var o model.Objective
		if k%w.keep == 0 || k%2 == 0 {
			o = ev.Try(i, j)
		} else {
			// Several exchanges tried at once, a rank in more than
			// one (undone in reverse order, or the ranks end apart).
			o = ev.TryAll(walkPairs(i, j, n))
		}
		if k%w.keep == 0 {
			ev.Swap(i, j)
			// A fresh evaluator's bound (Predict's run adds the fluid
			// sharing of routed links, which the evaluator leaves out).
			fresh := model.NewEvaluator(md, tr, base, append([]int32(nil), place...))
			if !shapes.Near(o.Run, fresh.MaxRun()) || !shapes.Near(ev.MaxRun(), fresh.MaxRun()) || math.Abs(o.Transfer-fresh.Transfer()) > 1e-9*fresh.Transfer() {
				t.Fatalf("swap %d: priced %+v, now %.9g, fresh %.9g (transfer %.9g)", k, o, ev.MaxRun(), fresh.MaxRun(), fresh.Transfer())
			}
			if c := ev.Critical(); !shapes.Near(fresh.MaxRun(), scratchRun(fresh, base, c)) {
				t.Fatalf("swap %d: critical rank %d runs %.9g, the slowest %.9g", k, c, scratchRun(fresh, base, c), fresh.MaxRun())
			}
			if p := model.Predict("fresh", md, tr, place, rt); p.Run < fresh.MaxRun()*(1-1e-9) {
				t.Fatalf("swap %d: predicted %.9g, under the evaluator's bound %.9g", k, p.Run, fresh.MaxRun())
			}
			commMatches(t, k, n, ev, fresh)
			// Nothing tried leaves the exchange just kept as it is.
			if ev.TryAll(nil); !shapes.Near(ev.MaxRun(), fresh.MaxRun()) {
				t.Fatalf("swap %d: an empty try changed the run to %.9g, fresh %.9g", k, ev.MaxRun(), fresh.MaxRun())
			}
		} else if got := ev.Objective(); !shapes.Near(got.Run, before.Run) || !shapes.Near(got.Transfer, before.Transfer) {
			t.Fatalf("try %d changed the state: %+v -> %+v", k, before, got)
		}
	}
	bound := 0
	for u := int32(0); u < int32(n); u++ {
		if _, ab := ev.Comm(u); ab {
			bound++
		}
	}
	return bound
}

// walkPairs are three exchanges from i and j among n ranks that share
// ranks (none a rank with itself).
func walkPairs(i, j int32, n int) [][2]int32 {
	var pairs [][2]int32
	for _, p := range [][2]int32{{i, j}, {i, (j + 3) % int32(n)}, {j, (i + 5) % int32(n)}} {
		if p[0] != p[1] {
			pairs = append(pairs, p)
		}
	}
	return pairs
}

// commMatches: after kept exchange k every rank's communication on the
// incremental evaluator ev is the fresh one's (a rank that did not move
// but whose peers did included).
func commMatches(t *testing.T, k, n int, ev, fresh *model.Evaluator) {
	t.Helper()
	for u := range int32(n) {
		a, _ := ev.Comm(u)
		if b, _ := fresh.Comm(u); math.Abs(a-b) > 1e-9*math.Max(a, 1e-12) {
			t.Fatalf("swap %d: rank %d communicates %.9g, fresh %.9g", k, u, a, b)
		}
	}
}

// scratchRun is rank u's run on evaluator ev: its communication and its
// fixed time.
func scratchRun(ev *model.Evaluator, base []float64, u int32) float64 {
	c, _ := ev.Comm(u)
	if base != nil {
		c += base[u]
	}
	return c
}

// TestPortsSpreadTraffic: nodebw.csv's fan-out rows say a node moves 4x
// to several nodes what it moves to one (a torus node's four links).
// Node 0's four ranks each send 1e8 bytes: to one rank on each of four
// other nodes, its link time is 4e8 bytes over four links at 100 MB/s
// (1 s); to four ranks of one node, over one link (4 s), as without the
// fan-out rows. Fan-out rows of one link's worth (1.1x) change nothing.
func TestPortsSpreadTraffic(t *testing.T) {
	m := model.NewLevelMachine(5, 1, 4, [3]model.LinkCost{model.SameSocket: {Latency: 1e-6, InvBandwidth: 1e-10}, model.SameNode: {Latency: 1e-6, InvBandwidth: 1e-10}, model.Network: {Latency: 1e-6, InvBandwidth: 1e-10}})
	var rows []survey.NodeBandwidth
	for h := 0; h < 5; h++ {
		rows = append(rows, survey.NodeBandwidth{Host: fmt.Sprintf("node%d", h), Peer: fmt.Sprintf("node%d", (h+1)%5), Ranks: 4, AggregateMBps: 100})
	}
	fan := func(ratio float64) []survey.NodeBandwidth {
		return append(slices.Clone(rows), survey.NodeBandwidth{Host: "node0", Peer: "node1+node2+node3+node4", Ranks: 4, AggregateMBps: 100 * ratio, PairMBps: 100})
	}
	spread := shapes.MustTraffic([]profile.Flow{{Src: 0, Dst: 4, Bytes: 1e8, Messages: 1}, {Src: 1, Dst: 8, Bytes: 1e8, Messages: 1}, {Src: 2, Dst: 12, Bytes: 1e8, Messages: 1}, {Src: 3, Dst: 16, Bytes: 1e8, Messages: 1}}, 20)
	one := shapes.MustTraffic([]profile.Flow{{Src: 0, Dst: 4, Bytes: 1e8, Messages: 1}, {Src: 1, Dst: 5, Bytes: 1e8, Messages: 1}, {Src: 2, Dst: 6, Bytes: 1e8, Messages: 1}, {Src: 3, Dst: 7, Bytes: 1e8, Messages: 1}}, 20)
	block := make([]int32, 20)
	for i := range block {
		block[i] = int32(i)
	}
	for _, c := range []struct {
		name  string
		rows  []survey.NodeBandwidth
		tr    *model.Traffic
		ports float64
		want  float64
	}{
		{"4 links, spread", fan(4), spread, 4, 1},
		{"4 links, one peer node", fan(4), one, 4, 4},
		{"one link, spread", rows, spread, 1, 4},
		{"1.1x: one link", fan(1.1), spread, 1, 4},
	} {
		md, _ := model.NewModel(m, c.rows, model.ModelOptions{})
		if md.Ports != c.ports {
			t.Errorf("%s: ports %g, want %g", c.name, md.Ports, c.ports)
		}
		if got := model.Predict("block", md, c.tr, block, nil).Run; math.Abs(got/c.want-1) > 1e-3 {
			t.Errorf("%s: run %.6g s, want %.6g", c.name, got, c.want)
		}
	}
}

// TestSwapAllMatchesScratch: whole nodes exchanged rank by rank with
// SwapAll, priced once after the last pair, leave the evaluator where a
// fresh one is (objective, critical rank, every rank), on a level
// machine with node links, with priced switch uplinks and on a routed
// torus; and where exchanging the pairs one Swap at a time leaves it.
func TestSwapAllMatchesScratch(t *testing.T) {
	flows, n := shapes.RandomSparse(32, 4, 7)
	for i := range flows {
		flows[i].Bytes *= 1000
	}
	tr := shapes.MustTraffic(flows, n)
	base := make([]float64, n)
	for i := range base {
		base[i] = float64(i%5) * 1e-4
	}
	level, _ := model.NewModel(model.NewLevelMachine(4, 2, 4, shapes.WorkedLevels), nil, model.ModelOptions{})
	for _, c := range []struct {
		name string
		md   *model.Model
	}{
		{"level machine", level},
		{"switch uplinks", switchedModel(t, 16, 8, []float64{300, 200})},
		{"routed torus", routedModel(t, 16, 2, ringLevels, func(h []string) (*fabric.Fabric, error) { return fabric.NewTorus(h, []int{4, 4}, 1e9, 1e-6, false) })},
	} {
		t.Run(c.name, func(t *testing.T) {
			slots, _ := c.md.SelectSlots(n, model.SelectOptions{})
			place := model.Block(slots, n)
			ev := model.NewEvaluator(c.md, tr, base, place)
			one := append([]int32(nil), place...)
			seq := model.NewEvaluator(c.md, tr, base, one)
			per := n / len(c.md.Hosts)
			for k := 0; k < 6; k++ {
				a, b := k%len(c.md.Hosts), (3*k+1)%len(c.md.Hosts)
				if a == b {
					continue
				}
				// Ranks move: exchange whoever sits on the two nodes now.
				var pairs [][2]int32
				for x := 0; x < per; x++ {
					pairs = append(pairs, [2]int32{rankAt(place, slots[a*per+x]), rankAt(place, slots[b*per+(x+k)%per])})
				}
				ev.SwapAll(pairs)
				for _, p := range pairs {
					seq.Swap(p[0], p[1])
				}
				fresh := model.NewEvaluator(c.md, tr, base, append([]int32(nil), place...))
				if got, want := ev.Objective(), fresh.Objective(); !shapes.Near(got.Run, want.Run) || math.Abs(got.Transfer-want.Transfer) > 1e-9*want.Transfer {
					t.Fatalf("exchange %d (nodes %d and %d): SwapAll %+v, fresh %+v", k, a, b, got, want)
				}
				if got, want := ev.Objective(), seq.Objective(); !shapes.Near(got.Run, want.Run) {
					t.Fatalf("exchange %d: SwapAll %+v, one Swap at a time %+v", k, got, want)
				}
				if c := ev.Critical(); !shapes.Near(fresh.Objective().Run, ev.MaxRun()) || c < 0 {
					t.Fatalf("exchange %d: critical rank %d, run %.9g against fresh %.9g", k, c, ev.MaxRun(), fresh.Objective().Run)
				}
				for u := int32(0); u < int32(n); u++ {
					x, _ := ev.Comm(u)
					y, _ := fresh.Comm(u)
					if math.Abs(x-y) > 1e-9*math.Max(x, 1e-12) {
						t.Fatalf("exchange %d, rank %d: SwapAll %.9g, fresh %.9g", k, u, x, y)
					}
				}
			}
			if !slices.Equal(place, one) {
				t.Errorf("SwapAll placed %v, one Swap at a time %v", place, one)
			}
		})
	}
}

// rankAt is the rank place puts on slot s.
func rankAt(place []int32, s int32) int32 {
	return int32(slices.Index(place, s))
}
