package model_test

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/stats"

	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
	"github.com/latmap/latmap/mapper/topo"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
)

// switchedModel is shapes.SwitchedModel with each group sending at up
// MB/s (by group) to the next group (shapes.SwitchRows); the test fails
// unless the uplinks are priced at their median, with no note.
func switchedModel(t *testing.T, nodes, perSwitch int, up []float64) *model.Model {
	t.Helper()
	md, notes, err := shapes.SwitchedModel(nodes, perSwitch, shapes.SwitchRows(perSwitch, up))
	if err != nil {
		t.Fatal(err)
	}
	med := append([]float64(nil), up...)
	sort.Float64s(med)
	want := fmt.Sprintf("%s (measured: level 1, %d groups: %.4g MB/s out of each (median))", survey.SwitchBandwidthFile, len(up), stats.Median(med))
	if len(notes) != 0 || md.SwitchSource != want {
		t.Fatalf("switches: %q, %q; want %q", md.SwitchSource, notes, want)
	}
	return md
}

// TestUplinkWorkedExample is docs/place.md's uplink example, by hand: 4
// nodes x 2 cores, two switches of two nodes; switch 0 sends at 1000 MB/s
// and switch 1 at 500 MB/s (switchbw.csv, so 1 receives at 1000 and 0 at
// 500); without nodebw.csv a node's link carries the pairwise 3 GB/s
// (the default bandwidth between nodes) each way. Ranks 0 and 1 (node 0)
// send 1e9 B in 10 messages each to ranks 4 and 5 (node 2, the other
// switch); rank 3 (node 1) sends 1e8 B to rank 1, inside switch 0.
func TestUplinkWorkedExample(t *testing.T) {
	md := switchedModel(t, 4, 2, []float64{1000, 500})
	flows := []profile.Flow{{Src: 0, Dst: 4, Bytes: 1e9, Messages: 10}, {Src: 1, Dst: 5, Bytes: 1e9, Messages: 10}, {Src: 3, Dst: 1, Bytes: 1e8, Messages: 10}}
	tr := shapes.MustTraffic(flows, 8)
	place := []int32{0, 1, 2, 3, 4, 5, 6, 7}
	rt := &model.RankTimes{Comput: []float64{0.5, 0, 0, 0, 0, 0, 0, 0}, Sync: make([]float64, 8), Late: make([]float64, 8)}
	p := model.Predict("block", md, tr, place, rt)
	// Rank 0: pairwise 10 x 4.5 us (half the 9 us round trip) + 1e9 / 3
	// GB/s = 0.333378 s, plus rank 3's 1e8 B (the 4 us level) on rank 1
	// only; node 0 sends 2e9 B at 3 GB/s: 0.6667 s; switch 0 sends 2e9 B
	// at 1000 MB/s: 2 s, the slowest: 2 s, + 0.5 s computed.
	// Ranks 4, 5: switch 1 receives 2e9 B at 1000 MB/s (switch 0's rate
	// into it): 2 s. Rank 3: inside its switch, 10 x 2 us + 1e8 / 3 GB/s
	// = 0.03335 s, its node's link 1e8 / 3 GB/s less: no uplink.
	want := []float64{2.5, 2, 0, 10*2e-6 + 1e8/3e9, 2, 2, 0, 0}
	for i, w := range want {
		if !shapes.Near(p.PerRank[i], w) {
			t.Errorf("rank %d: %.6g s, want %.6g", i, p.PerRank[i], w)
		}
	}
	if p.Run != 2.5 || p.SlowestRank != 0 || p.NodeBound != 4 || !shapes.Near(p.Contention, 2-(10*4.5e-6+1e9/3e9)) {
		t.Errorf("run %g (rank %d, %d bound, contention %g), want 2.5 (rank 0, 4 bound, %g)", p.Run, p.SlowestRank, p.NodeBound, p.Contention, 2-(10*4.5e-6+1e9/3e9))
	}
	// The other way, switch 1 sends 2e9 B at 500 MB/s: 4 s.
	rev := shapes.MustTraffic([]profile.Flow{{Src: 4, Dst: 0, Bytes: 1e9, Messages: 10}, {Src: 5, Dst: 1, Bytes: 1e9, Messages: 10}}, 8)
	if got := model.Predict("block", md, rev, place, nil).PerRank[4]; !shapes.Near(got, 4) {
		t.Errorf("switch 1 sending 2e9 B at 500 MB/s: rank 4 %.6g s, want 4", got)
	}
	// The critical rank is the slowest by that run, fixed + on +
	// max(off, uplink), not by its node-local run plus the uplink: with
	// rank 3 sending 3e9 B to rank 1 and rank 0 computing 0.2 s, rank 1's
	// node-local run (1e9 + 3e9 B at 3 GB/s: 1.33 s) passes rank 0's
	// (0.2 + node 0's link, 3e9 B in: 1.2 s), but both wait 2 s for
	// switch 0's uplinks, and rank 0's computation makes it the slowest
	// (2.2 s against 2 s).
	heavy := shapes.MustTraffic([]profile.Flow{flows[0], flows[1], {Src: 3, Dst: 1, Bytes: 3e9, Messages: 10}}, 8)
	comput := []float64{0.2, 0, 0, 0, 0, 0, 0, 0}
	hp := model.Predict("block", md, heavy, place, &model.RankTimes{Comput: comput, Sync: make([]float64, 8), Late: make([]float64, 8)})
	if c := model.NewEvaluator(md, heavy, comput, append([]int32(nil), place...)).Critical(); c != 0 || hp.SlowestRank != 0 || !shapes.Near(hp.Run, 2.2) {
		t.Errorf("critical rank %d, slowest %d (%.6g s); want rank 0 at 2.2 s", c, hp.SlowestRank, hp.Run)
	}
	// Calibration scales the uplink as the off-node part it is.
	md.Scale = [2]float64{1, 2}
	if got := model.Predict("block", md, tr, place, nil).PerRank[1]; !shapes.Near(got, 4) {
		t.Errorf("off-node factor 2: rank 1 %.6g s, want 4", got)
	}
	// Placed inside switch 0 (ranks 4 and 5 on node 1), nothing leaves
	// it: node links bound, 2e9 B at 3 GB/s.
	md.Scale = [2]float64{1, 1}
	if got := model.Predict("inside", md, tr, []int32{0, 1, 4, 5, 2, 3, 6, 7}, nil).Run; !shapes.Near(got, 2e9/3e9) {
		t.Errorf("inside one switch: run %.6g, want %.6g", got, 2e9/3e9)
	}
}

// TestEvaluatorSwitchesMatchScratch: with priced switch uplinks, after a
// sequence of tried and kept exchanges the incremental evaluator holds
// what a fresh one computes, rank by rank, and its critical rank is the
// slowest.
func TestEvaluatorSwitchesMatchScratch(t *testing.T) {
	md := switchedModel(t, 8, 2, []float64{300, 200, 400, 250})
	flows, n := shapes.RandomSparse(16, 3, 5)
	for i := range flows {
		flows[i].Bytes *= 1000
	}
	base := make([]float64, n)
	for i := range base {
		base[i] = float64(i%3) * 1e-3
	}
	if swapsMatchScratch(t, md, shapes.MustTraffic(flows, n), base, swapWalk{rounds: 300, step: 11, off: 3, keep: 4}) == 0 {
		t.Errorf("no rank is bound by a node link or uplink: the test does not exercise them")
	}
}

// TestUplinkPartialRowsNotPriced: a group whose switch-phase rows are of
// some of its hosts only (2 of 4 sent: its siblings had 2) does not have
// its uplinks priced, and a note says so; a group measured with all its
// hosts sending is priced at its rate.
func TestUplinkPartialRowsNotPriced(t *testing.T) {
	m := shapes.MustSwitchMachine(t, synth.Spec{Nodes: 8, Sockets: 1, Cores: 2, NodesPerSwitch: 4, RTT: [4]float64{0.5, 0.8, 4, 9}, Seed: 1})
	row := func(g, hosts int) survey.SwitchBandwidth {
		return survey.SwitchBandwidth{Level: 1, Group: g, PeerGroup: 1 - g, Hosts: hosts, Ranks: 2 * hosts, Size: 1 << 20, Messages: 16, Seconds: 1, AggregateMBps: 100}
	}
	md, _ := model.NewModel(m, nil, model.ModelOptions{})
	notes := md.AddSwitches([]survey.SwitchBandwidth{row(0, 4), row(1, 2)})
	if len(notes) != 1 || !strings.Contains(notes[0], "1 of the 2 level-1 groups sent from only some of their hosts") {
		t.Errorf("notes %q", notes)
	}
	if u := md.Uplinks[0]; u.InvUp[0] != 1/100e6 || u.InvUp[1] != 0 || u.InvDown[1] != 1/100e6 {
		t.Errorf("uplinks %+v: want group 0 out at 100 MB/s, group 1 not priced out (in: group 0's row)", u)
	}
}

// TestUplinkBestStep: where one host's link is half the others', a
// group's uplinks are priced at its best step out and in (steps of
// 3,668, 6,812 and 10,732 MB/s: 10,732; not their median, 6,812), as
// PSMN's leaves' steps ran where a slower host they sent to held some of
// them; of three groups of a switch level, the third, with no row, takes
// the median of the other two's best steps. Where the hosts' links are
// alike, the medians (6,812 and 3,000).
func TestUplinkBestStep(t *testing.T) {
	m := shapes.MustSwitchMachine(t, synth.Spec{Nodes: 6, Sockets: 1, Cores: 2, NodesPerSwitch: 2, RTT: [4]float64{0.5, 0.8, 4, 9}, Seed: 1})
	row := func(g int, mbps float64) survey.SwitchBandwidth {
		return survey.SwitchBandwidth{Level: 1, Group: g, PeerGroup: g, Hosts: 2, Ranks: 4, Size: 1 << 20, Messages: 16, Seconds: 1, AggregateMBps: mbps}
	}
	rows := []survey.SwitchBandwidth{row(0, 3668), row(0, 6812), row(0, 10732), row(1, 2000), row(1, 4000)}
	for _, c := range []struct {
		slow bool
		want []float64
	}{{true, []float64{10732, 4000, (10732 + 4000) / 2}}, {false, []float64{6812, 3000, (6812 + 3000) / 2}}} {
		md, _ := model.NewModel(m, nil, model.ModelOptions{})
		if c.slow {
			md.InvInject[5] *= 2
		}
		notes := md.AddSwitches(rows)
		if len(notes) != 1 || !strings.Contains(notes[0], "1 of the 3 level-1 groups have no row") {
			t.Errorf("notes %q", notes)
		}
		u := md.Uplinks[0]
		for g, want := range c.want {
			if math.Abs(u.InvUp[g]*want*1e6-1) > 1e-12 || math.Abs(u.InvDown[g]*want*1e6-1) > 1e-12 {
				t.Errorf("a slow host %v: group %d out at %.0f MB/s, in at %.0f MB/s; want %.0f both ways", c.slow, g, 1/u.InvUp[g]/1e6, 1/u.InvDown[g]/1e6, want)
			}
		}
	}
}

// TestUplinkPartialRowsSaturated: a row of 3 of a group's 4 hosts
// (three quarters: minPartialHosts) that moved far less than their own
// links carry (100 MB/s against 3 x 3 GB/s) measured the group's
// uplinks and prices them; one that moved nearly what their links carry
// (8,100 MB/s) did not, and leaves them unpriced.
func TestUplinkPartialRowsSaturated(t *testing.T) {
	m := shapes.MustSwitchMachine(t, synth.Spec{Nodes: 8, Sockets: 1, Cores: 2, NodesPerSwitch: 4, RTT: [4]float64{0.5, 0.8, 4, 9}, Seed: 1})
	for _, c := range []struct {
		mbps           float64
		priced, other0 bool
	}{{100, true, false}, {8100, false, false}, {100, true, true}} {
		md, _ := model.NewModel(m, nil, model.ModelOptions{})
		if c.other0 { // group 0's node links unpriced: group 1's row still counts
			clear(md.InvInject[:4])
		}
		row := survey.SwitchBandwidth{Level: 1, Group: 1, PeerGroup: 0, Hosts: 3, Ranks: 6, Size: 1 << 20, Messages: 16, Seconds: 1, AggregateMBps: c.mbps}
		md.AddSwitches([]survey.SwitchBandwidth{row})
		u := md.Uplinks[0]
		if got := len(u.InvUp) > 1 && u.InvUp[1] == 1/(c.mbps*1e6); got != c.priced {
			t.Errorf("3 of 4 hosts at %.0f MB/s (group 0's node links unpriced: %v): uplinks %+v, priced %v, want %v", c.mbps, c.other0, u, got, c.priced)
		}
	}
}

// siblingModel is switchedModel with four groups of two nodes whose rows
// are the switch phase's at a level of more than two siblings: to the
// rest at rest MB/s, then the pair step, each group to its next sibling
// alone at pair MB/s.
func siblingModel(t *testing.T, rest, pair float64) *model.Model {
	t.Helper()
	var rows []survey.SwitchBandwidth
	for g := 0; g < 4; g++ {
		rows = append(rows, groupRow(g, g, rest), groupRow(g, (g+1)%4, pair))
	}
	return fourGroups(t, rows)
}

// groupRow is switch level 1's row of group g's two hosts to peer at
// mbps MB/s.
func groupRow(g, peer int, mbps float64) survey.SwitchBandwidth {
	return survey.SwitchBandwidth{Level: 1, Group: g, PeerGroup: peer, Hosts: 2, Ranks: 4, Size: 1 << 20, Messages: 16, Seconds: 1, AggregateMBps: mbps}
}

// fourGroups is the model of 8 nodes x 2 cores in four switch groups of
// two nodes with switchbw.csv's rows (the test fails on a note).
func fourGroups(t *testing.T, rows []survey.SwitchBandwidth) *model.Model {
	t.Helper()
	md, notes, err := shapes.SwitchedModel(8, 2, rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 0 {
		t.Fatalf("switches: %q", notes)
	}
	return md
}

// TestSiblingPairPriced: where a level's groups have three siblings and
// the switch phase measured both a group's rate to the rest (3000 MB/s,
// its uplinks) and to one sibling (1000 MB/s, a dragonfly's one global
// link between two groups), a group's 2e9 B to one sibling take 2 s (the
// pair link), not the 0.667 s its uplinks allow; the same bytes spread
// over its three siblings take 1 s (1e9 B on the busiest pair). Ranks of
// the first group (nodes 0 and 1, ranks 0-3) send 5e8 B each; the node
// links carry the pairwise 3 GB/s. With the pair rows alone (no rows to
// the rest: two siblings) they price the uplinks, as before.
func TestSiblingPairPriced(t *testing.T) {
	md := siblingModel(t, 3000, 1000)
	if want := "1000 MB/s from one to one sibling"; !strings.Contains(md.SwitchSource, want) || md.Uplinks[0].InvUp[0] != 1/3000e6 {
		t.Fatalf("switch source %q, uplinks %+v: want the rest at 3000 MB/s and %q", md.SwitchSource, md.Uplinks[0], want)
	}
	place := model.Block(func() []int32 { s, _ := md.SelectSlots(16, model.SelectOptions{}); return s }(), 16)
	one := shapes.MustTraffic([]profile.Flow{{Src: 0, Dst: 4, Bytes: 5e8, Messages: 1}, {Src: 1, Dst: 5, Bytes: 5e8, Messages: 1},
		{Src: 2, Dst: 6, Bytes: 5e8, Messages: 1}, {Src: 3, Dst: 7, Bytes: 5e8, Messages: 1}}, 16)
	spread := shapes.MustTraffic([]profile.Flow{{Src: 0, Dst: 4, Bytes: 5e8, Messages: 1}, {Src: 1, Dst: 8, Bytes: 5e8, Messages: 1},
		{Src: 2, Dst: 12, Bytes: 5e8, Messages: 1}, {Src: 3, Dst: 5, Bytes: 5e8, Messages: 1}}, 16)
	for _, c := range []struct {
		name string
		tr   *model.Traffic
		want float64
	}{{"to one sibling", one, 2}, {"to three siblings", spread, 1}} {
		if got := model.Predict("block", md, c.tr, place, nil).Run; !shapes.Near(got, c.want) {
			t.Errorf("%s: run %.6g s, want %.6g", c.name, got, c.want)
		}
	}
	flows, n := shapes.RandomSparse(16, 3, 5)
	for i := range flows {
		flows[i].Bytes *= 1000
	}
	if swapsMatchScratch(t, md, shapes.MustTraffic(flows, n), nil, swapWalk{rounds: 300, step: 11, off: 3, keep: 4}) == 0 {
		t.Errorf("no rank is bound by a node link or uplink: the test does not exercise them")
	}
	old := switchedModel(t, 8, 2, []float64{1000, 1000, 1000, 1000})
	if old.Uplinks[0].InvPair != 0 || old.Uplinks[0].InvUp[0] != 1/1000e6 {
		t.Errorf("rows to one sibling alone: uplinks %+v, want 1000 MB/s out and no pair priced", old.Uplinks[0])
	}
}

// TestSiblingPairMixedLevel: at a level where groups 0 and 1 have one
// sibling each (their rows, at 500 MB/s, go to it) and groups 2 and 3
// more (rows to the rest at 3000 MB/s and the pair step's at 1000), the
// first two's rows still price their uplinks: only a group that sent to
// the rest has pair-step rows.
func TestSiblingPairMixedLevel(t *testing.T) {
	md := fourGroups(t, []survey.SwitchBandwidth{groupRow(0, 1, 500), groupRow(1, 0, 500), groupRow(2, 2, 3000), groupRow(2, 3, 1000), groupRow(3, 3, 3000), groupRow(3, 2, 1000)})
	if u := md.Uplinks[0]; u.InvUp[0] != 1/500e6 || u.InvDown[1] != 1/500e6 || u.InvUp[2] != 1/3000e6 || u.InvPair != 1/1000e6 {
		t.Errorf("uplinks %+v: want groups 0 and 1 at 500 MB/s, 2 and 3 at 3000, pairs at 1000", u)
	}
}

// TestUplinkOnlyChildNotMedian: 6 nodes, switches of 2 in pods of 4, so
// switch group 2 (nodes 4 and 5) is its pod's only one and the switch
// phase has no sibling to pair it with: its way out is its pod's, which
// level 2's rows price, not level 1's median of the other switches'
// (a group of routers of a dragonfly fragment priced at the one global
// link its peers' rows crossed). Groups 0 and 1 keep their rows' rate.
func TestUplinkOnlyChildNotMedian(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 6, Sockets: 1, Cores: 2, NodesPerSwitch: 2, NodesPerPod: 4, PodRTT: 16, RTT: [4]float64{0.5, 0.8, 4, 9}, Seed: 1})
	var note string
	if s.Switches, _, note = topo.SwitchGroups(s); len(s.Switches) < 2 {
		t.Fatalf("want two switch levels: %d (%s)", len(s.Switches), note)
	}
	m, err := model.MachineFromSurvey(s, model.SurveyCostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(m.NetGroups) != "[[0 0 1 1 2 2] [0 0 0 0 1 1]]" {
		t.Fatalf("groups %v, want switches of 2 nodes in pods of 4", m.NetGroups)
	}
	row := func(level, g, peer int, mbps float64) survey.SwitchBandwidth {
		hosts := map[int]int{1: 2, 2: 4 - 2*g}[level]
		return survey.SwitchBandwidth{Level: level, Group: g, PeerGroup: peer, Hosts: hosts, Ranks: 2 * hosts, Size: 1 << 20, Messages: 16, Seconds: 1, AggregateMBps: mbps}
	}
	md, _ := model.NewModel(m, nil, model.ModelOptions{})
	notes := md.AddSwitches([]survey.SwitchBandwidth{row(1, 0, 1, 100), row(1, 1, 0, 100), row(2, 0, 1, 300), row(2, 1, 0, 300)})
	if len(notes) != 1 || !strings.Contains(notes[0], "1 of the 3 level-1 groups have no row in switchbw.csv and no sibling in their level-2 group") {
		t.Errorf("notes %q", notes)
	}
	if u := md.Uplinks[0]; u.InvUp[0] != 1/100e6 || u.InvUp[1] != 1/100e6 || u.InvUp[2] != 0 || u.InvDown[2] != 0 {
		t.Errorf("level 1 %+v: want groups 0 and 1 at 100 MB/s, group 2 not priced", u)
	}
	if u := md.Uplinks[1]; u.InvUp[1] != 1/300e6 {
		t.Errorf("level 2 %+v: want pod 1 out at 300 MB/s", u)
	}
}
