package model_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
)

// TestCostHandComputed checks the cost function against values worked out
// by hand on 2 nodes x 2 sockets x 2 cores (slot = node*4 + socket*2 +
// core) with rank r on slot r. A pair on one node is priced on both
// directions (shared-memory copies take turns on the cpus), a pair on two
// nodes on its busier direction (messages and bytes each: the network
// moves the two directions at once).
func TestCostHandComputed(t *testing.T) {
	m := model.NewLevelMachine(2, 2, 2, [3]model.LinkCost{
		model.SameSocket: {Latency: 1e-6, InvBandwidth: 1e-10}, model.SameNode: {Latency: 2e-6, InvBandwidth: 2e-10}, model.Network: {Latency: 10e-6, InvBandwidth: 1e-9}})
	tr := shapes.MustTraffic([]profile.Flow{
		{Src: 0, Dst: 1, Bytes: 100, Messages: 10}, {Src: 1, Dst: 0, Bytes: 300, Messages: 12}, // same socket: 22 msgs, 400 B; busier 12, 300
		{Src: 0, Dst: 2, Bytes: 1000, Messages: 1},  // same node, other socket
		{Src: 3, Dst: 5, Bytes: 1e6, Messages: 100}, // other node
	}, 8)
	place := []int32{0, 1, 2, 3, 4, 5, 6, 7}
	// (0,1): 22*1e-6 + 400*1e-10 = 2.204e-5
	// (0,2): 1*2e-6 + 1000*2e-10 = 2.2e-6
	// (3,5): 100*1e-5 + 1e6*1e-9 = 2e-3 (one way)
	want := 2.204e-5 + 2.2e-6 + 2e-3
	if got := m.Cost(tr, place); !shapes.Near(got, want) {
		t.Errorf("cost %.10g, want %.10g", got, want)
	}
	rt := m.RankTransfer(tr, place)
	for r, w := range map[int]float64{0: 2.204e-5 + 2.2e-6, 1: 2.204e-5, 2: 2.2e-6, 3: 2e-3, 4: 0, 5: 2e-3} {
		if !shapes.Near(rt[r], w) {
			t.Errorf("rank %d transfer %.10g, want %.10g", r, rt[r], w)
		}
	}
	// Swapping ranks 5 and 1 puts 5 on slot 1 and 1 on slot 5: (3,5)
	// becomes same node other socket 100*2e-6 + 1e6*2e-10 = 4e-4; (0,1)
	// becomes other node, priced on the busier direction: 12*1e-5 +
	// 300*1e-9 = 1.203e-4; (0,2) unchanged.
	place[1], place[5] = 5, 1
	want = 4e-4 + 1.203e-4 + 2.2e-6
	if got := m.Cost(tr, place); !shapes.Near(got, want) {
		t.Errorf("after swap: cost %.10g, want %.10g", got, want)
	}
}

// TestMachineFromSurvey: latency is half the round trip, unmeasured pairs
// get their level's median, fits give one-way latency and bandwidth.
func TestMachineFromSurvey(t *testing.T) {
	s := &survey.Survey{}
	for i := 0; i < 6; i++ {
		h := "h0"
		if i >= 3 {
			h = "h1"
		}
		s.Ranks = append(s.Ranks, survey.Rank{Rank: i, Host: h, CPU: i % 3, Socket: 0})
	}
	tab := survey.NewPairTable(6, 64, survey.Mean, survey.Median)
	rtt := map[[2]int]float64{{0, 1}: 1, {0, 2}: 2, {1, 2}: 3, {3, 4}: 4, {4, 5}: 10}
	for a := 0; a < 6; a++ {
		for b := a + 1; b < 6; b++ {
			v, ok := rtt[[2]int{a, b}]
			if a < 3 && b >= 3 {
				v, ok = 20, !(a == 0 && b == 3)
			}
			if ok {
				tab.Set(&survey.PairStats{A: a, B: b, Size: 64, Samples: 5, Mean: v + 100, Median: v})
			}
		}
	}
	s.Tables = []*survey.PairTable{tab}
	m, err := model.MachineFromSurvey(s, model.SurveyCostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Filled != 2 {
		t.Errorf("filled %d pairs, want 2 ((3,5) and (0,3))", m.Filled)
	}
	// Same-node medians: measured {1,2,3,4,10} -> 3 us round trip, 1.5 one-way
	// (the median, not the mean column, which is 100 us higher).
	for _, c := range []struct {
		a, b int
		lat  float64
	}{{0, 1, 0.5e-6}, {3, 5, 1.5e-6}, {0, 3, 10e-6}, {1, 4, 10e-6}} {
		if got := m.Link(c.a, c.b); !shapes.Near32(got.Latency, c.lat) {
			t.Errorf("link (%d,%d) latency %g, want %g", c.a, c.b, got.Latency, c.lat)
		}
	}
	// No socket split: every same-host pair is "same socket" (socket 0).
	if got := m.Link(0, 1).InvBandwidth; !shapes.Near32(got, 1/(model.DefaultBandwidths().Socket*1e9)) {
		t.Errorf("default bandwidth: inverse %g", got)
	}
	if got := m.Link(0, 4).InvBandwidth; !shapes.Near32(got, 1/(model.DefaultBandwidths().Network*1e9)) {
		t.Errorf("default network bandwidth: inverse %g", got)
	}

	// fit.csv holds the one-way fit (fit.Pair): 2 us + s/(1000 MB/s)
	// is used as it is. A fit without bandwidth (NaN) keeps the fitted
	// latency and takes the level's default bandwidth.
	s.Fits = []survey.Fit{{A: 0, B: 1, Latency: 2, Bandwidth: 1000}, {A: 0, B: 4, Latency: 7, Bandwidth: math.NaN()}}
	m, err = model.MachineFromSurvey(s, model.SurveyCostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Link(0, 1); !shapes.Near32(got.Latency, 2e-6) || !shapes.Near32(got.InvBandwidth, 1/1000e6) || m.Bandwidth != "fit.csv" {
		t.Errorf("fitted link %+v (bandwidth from %s), want 2e-6 s and 1e-9 s/B from fit.csv", got, m.Bandwidth)
	}
	if got := m.Link(0, 4); !shapes.Near32(got.Latency, 7e-6) || !shapes.Near32(got.InvBandwidth, 1/(model.DefaultBandwidths().Network*1e9)) {
		t.Errorf("fit without bandwidth: link %+v, want 7e-6 s and the network default", got)
	}
	if m.FitNoBandwidth != 1 || !slices.ContainsFunc(m.Notes, func(n string) bool { return strings.HasPrefix(n, "1 pairs' fit in fit.csv found no bandwidth") }) {
		t.Errorf("fit without bandwidth: %d counted, notes %q; want 1 and a note", m.FitNoBandwidth, m.Notes)
	}
	// --ignore-fit goes back to the table and the defaults.
	m, _ = model.MachineFromSurvey(s, model.SurveyCostOptions{IgnoreFit: true, Bandwidth: model.Bandwidths{Socket: 4}})
	if got := m.Link(0, 1); !shapes.Near32(got.Latency, 0.5e-6) || !shapes.Near32(got.InvBandwidth, 1/4e9) {
		t.Errorf("ignore-fit link %+v, want 0.5 us and 4 GB/s", got)
	}
}

func TestMachineFromSurveyErrors(t *testing.T) {
	one := &survey.Survey{Ranks: []survey.Rank{{Rank: 0, Host: "a"}}}
	if _, err := model.MachineFromSurvey(one, model.SurveyCostOptions{}); err == nil || !strings.Contains(err.Error(), "at least 2") {
		t.Errorf("one-rank survey: %v", err)
	}
	empty := &survey.Survey{Ranks: []survey.Rank{{Rank: 0, Host: "a"}, {Rank: 1, Host: "b", CPU: 1}}}
	if _, err := model.MachineFromSurvey(empty, model.SurveyCostOptions{}); err == nil || !strings.Contains(err.Error(), "no measured pairs") {
		t.Errorf("survey without pairs: %v", err)
	}
	// Two hosts, nothing measured between them.
	s := &survey.Survey{Ranks: []survey.Rank{{Rank: 0, Host: "a"}, {Rank: 1, Host: "a", CPU: 1}, {Rank: 2, Host: "b"}}}
	tab := survey.NewPairTable(3, 64)
	tab.Set(&survey.PairStats{A: 0, B: 1, Size: 64, Samples: 1, Mean: 1, Median: 1})
	s.Tables = []*survey.PairTable{tab}
	if _, err := model.MachineFromSurvey(s, model.SurveyCostOptions{}); err == nil || !strings.Contains(err.Error(), "no network pair") {
		t.Errorf("unmeasured level: %v", err)
	}
	dup := &survey.Survey{Ranks: []survey.Rank{{Rank: 0, Host: "a", CPU: 3}, {Rank: 1, Host: "a", CPU: 3}}, Tables: []*survey.PairTable{survey.NewPairTable(2, 64)}}
	if _, err := model.MachineFromSurvey(dup, model.SurveyCostOptions{}); err == nil || !strings.Contains(err.Error(), "both ran on a cpu 3") {
		t.Errorf("two ranks on one cpu: %v", err)
	}
}

// TestMachineUnknownCPU: ranks without a cpu number (mmpi logs) become
// slots 0, 1, ... of their host.
func TestMachineUnknownCPU(t *testing.T) {
	s := &survey.Survey{Ranks: []survey.Rank{{Rank: 0, Host: "a", CPU: -1}, {Rank: 1, Host: "a", CPU: -1}, {Rank: 2, Host: "b", CPU: -1}}}
	tab := survey.NewPairTable(3, 64)
	tab.Set(&survey.PairStats{A: 0, B: 1, Size: 64, Samples: 1, Mean: 1, Median: 1})
	tab.Set(&survey.PairStats{A: 0, B: 2, Size: 64, Samples: 1, Mean: 9, Median: 9})
	s.Tables = []*survey.PairTable{tab}
	m, err := model.MachineFromSurvey(s, model.SurveyCostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Slots[0].CPU != 0 || m.Slots[1].CPU != 1 || m.Slots[2].CPU != 0 || len(m.Notes) != 1 {
		t.Errorf("slots %+v notes %v", m.Slots, m.Notes)
	}
}

func TestSelectSlots(t *testing.T) {
	m := model.NewLevelMachine(3, 2, 2, shapes.BenchLevels) // node0..2, 4 slots each
	for _, c := range []struct {
		n     int
		opt   model.SelectOptions
		nodes []int // slots per node used
		err   string
	}{
		{8, model.SelectOptions{}, []int{4, 4, 0}, ""},
		{6, model.SelectOptions{}, []int{4, 2, 0}, ""},
		{6, model.SelectOptions{RanksPerNode: 2}, []int{2, 2, 2}, ""},
		{8, model.SelectOptions{Exclude: []string{"node0"}}, []int{0, 4, 4}, ""},
		{9, model.SelectOptions{Exclude: []string{"node0"}}, nil, "the survey offers 8 (after --exclude and --ranks-per-node): 1 missing"},
		{7, model.SelectOptions{RanksPerNode: 2}, nil, "1 missing"},
		{2, model.SelectOptions{Exclude: []string{"nodeX"}}, nil, "--exclude nodeX: no such host"},
	} {
		slots, err := m.SelectSlots(c.n, c.opt)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("SelectSlots(%d, %+v) = %v, want error with %q", c.n, c.opt, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got := make([]int, 3)
		for _, s := range slots {
			got[m.Slots[s].Node]++
		}
		for i := range got {
			if got[i] != c.nodes[i] {
				t.Errorf("SelectSlots(%d, %+v): per node %v, want %v", c.n, c.opt, got, c.nodes)
				break
			}
		}
	}
	// With a cap of 2 per node of 2 sockets x 2 cores, socket 0 is filled first.
	slots, _ := m.SelectSlots(2, model.SelectOptions{RanksPerNode: 2})
	for _, s := range slots {
		if m.Slots[s].Socket != 0 {
			t.Errorf("slot %+v: want socket 0 first", m.Slots[s])
		}
	}
}

func TestBlockCyclic(t *testing.T) {
	m := model.NewLevelMachine(3, 1, 2, shapes.BenchLevels)
	slots, _ := m.SelectSlots(6, model.SelectOptions{})
	wantBlock := []string{"node0", "node0", "node1", "node1", "node2", "node2"}
	wantCyclic := []string{"node0", "node1", "node2", "node0", "node1", "node2"}
	b, c := model.Block(slots, 6), m.Cyclic(slots, 6)
	for r := 0; r < 6; r++ {
		if m.Slots[b[r]].Host != wantBlock[r] || m.Slots[c[r]].Host != wantCyclic[r] {
			t.Errorf("rank %d: block %s cyclic %s, want %s %s", r, m.Slots[b[r]].Host, m.Slots[c[r]].Host, wantBlock[r], wantCyclic[r])
		}
	}
}

// TestFitNegativeLatencyKeepsBandwidth: on links shaped to 400 Mbit/s the
// least-squares fit of T(s) = L + s/B measured the bandwidth right (49.8
// MB/s) but put the latency below zero (-283 us, as issue 8 saw); the
// machine keeps the measured bandwidth (not the 3 GB/s default) and takes
// the latency from the smallest size's round trip.
func TestFitNegativeLatencyKeepsBandwidth(t *testing.T) {
	s := shapes.HostsSurvey([]string{"a", "b"}, 1)
	s.Fits = []survey.Fit{{A: 0, B: 1, Latency: -283, Bandwidth: 49.8}}
	m, err := model.MachineFromSurvey(s, model.SurveyCostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := m.Levels[model.Network]
	if bw := 1 / c.InvBandwidth / 1e6; math.Abs(bw-49.8) > 1e-6 {
		t.Errorf("cross-node bandwidth %.3g MB/s, want the fit's 49.8", bw)
	}
	// shapes.HostsSurvey measured 13 us round trips across hosts.
	if math.Abs(c.Latency-6.5e-6) > 1e-12 {
		t.Errorf("cross-node latency %g s, want half the 13 us round trip", c.Latency)
	}
	if m.FitLatencyFromRTT != 1 || len(m.Notes) == 0 || !strings.Contains(m.Notes[len(m.Notes)-1], "no positive latency") {
		t.Errorf("not reported: %d pairs, notes %q", m.FitLatencyFromRTT, m.Notes)
	}
}
