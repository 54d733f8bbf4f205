package model_test

import (
	"math"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/sweep"
	"github.com/latmap/latmap/placement/model"
)

// sweptSurvey is 4 ranks, two a host on one socket, measured at 64 B
// and 1 MiB on lines (one-way 1 us + s / 5 GB/s on a node, 5 us + s /
// 1 GB/s between nodes), with fit.csv's lines. Its size sweep times rank
// 0 with 1 and with 2 at 64 B-1 MiB doubling, each at the line times
// bump(where, size).
func sweptSurvey(bump func(where string, size int) float64) *survey.Survey {
	s := &survey.Survey{}
	for i := range 4 {
		s.Ranks = append(s.Ranks, survey.Rank{Rank: i, Host: []string{"h0", "h1"}[i/2], CPU: i % 2})
	}
	oneWay := func(a, b, size int) float64 { // us
		if a/2 == b/2 {
			return 1 + float64(size)/5e3
		}
		return 5 + float64(size)/1e3
	}
	for _, size := range []int{64, 1 << 20} {
		tab := survey.NewPairTable(4, size, survey.Median)
		for a := range 4 {
			for b := a + 1; b < 4; b++ {
				tab.Set(&survey.PairStats{A: a, B: b, Size: size, Samples: 10, Median: 2 * oneWay(a, b, size)})
			}
		}
		s.Tables = append(s.Tables, tab)
	}
	for a := range 4 {
		for b := a + 1; b < 4; b++ {
			f := survey.Fit{A: a, B: b, Latency: 1, Bandwidth: 5000}
			if a/2 != b/2 {
				f = survey.Fit{A: a, B: b, Latency: 5, Bandwidth: 1000}
			}
			s.Fits = append(s.Fits, f)
		}
	}
	for _, p := range []sweep.Pair{{A: 0, B: 1, Where: sweep.Socket}, {A: 0, B: 2, Where: sweep.Network}} {
		for _, size := range sweep.Sizes(s.Sizes()) {
			rtt := 2 * oneWay(p.A, p.B, size) * bump(p.Where, size)
			s.Sweep = append(s.Sweep, sweep.Row{A: p.A, B: p.B, Where: p.Where, Size: size, Count: 20, MinUs: rtt, MedianUs: rtt})
		}
	}
	return s
}

// TestSizeSweep: messages of 16-32 KiB between nodes take 1.5 times the
// line through the survey's sizes in the sweep, 4-8 KiB on a node twice;
// a rank pair's traffic is priced at its mean message size's factor,
// and 1 at the survey's own sizes, even when the whole sweep ran 10%
// slower than the survey (the survey's pairs stand at their sizes).
func TestSizeSweep(t *testing.T) {
	bump := func(where string, size int) float64 {
		f := 1.1
		switch {
		case where == sweep.Network && size >= 16<<10 && size <= 32<<10:
			f *= 1.5
		case where == sweep.Socket && size >= 4<<10 && size <= 8<<10:
			f *= 2
		}
		return f
	}
	s := sweptSurvey(bump)
	plain := *s
	plain.Sweep = nil
	for _, c := range []struct {
		src, dst int
		size     float64
		factor   float64
	}{
		{0, 2, 24 << 10, 1.5}, {3, 1, 20 << 10, 1.5}, {0, 2, 1 << 20, 1}, {0, 2, 64, 1}, {0, 2, 4 << 10, 1},
		{0, 1, 6 << 10, 2}, {2, 3, 5 << 10, 2}, {0, 1, 24 << 10, 1}, {0, 1, 1 << 20, 1},
		// 12 KiB is half way (in log size) from 8 KiB (1) to 16 KiB (1.5)
		// between nodes: 1.29.
		{0, 2, 12 << 10, 1 + 0.5*math.Log(1.5)/math.Log(2)},
	} {
		tr, err := model.NewTraffic(4, []profile.Flow{{Src: c.src, Dst: c.dst, Messages: 10, Bytes: 10 * c.size}})
		if err != nil {
			t.Fatal(err)
		}
		place := []int32{0, 1, 2, 3}
		var costs [2]float64
		for i, sv := range []*survey.Survey{s, &plain} {
			m, err := model.MachineFromSurvey(sv, model.SurveyCostOptions{})
			if err != nil {
				t.Fatal(err)
			}
			costs[i] = m.Cost(tr, place)
		}
		if got := costs[0] / costs[1]; math.Abs(got-c.factor) > 0.02 {
			t.Errorf("%d -> %d, 10 x %.0f B: priced %.3fx the line, want %.3fx", c.src, c.dst, c.size, got, c.factor)
		}
	}
	m, _ := model.MachineFromSurvey(s, model.SurveyCostOptions{})
	if src := m.SizeSource(); !strings.Contains(src, "between nodes up to 1.50x the line at 16384 B") || !strings.Contains(src, "on a socket up to 2.00x") {
		t.Errorf("size source %q: want the sweep's largest departures, 1.50x between nodes and 2.00x on a socket", src)
	}
	m, _ = model.MachineFromSurvey(&plain, model.SurveyCostOptions{})
	if src := m.SizeSource(); src != "" {
		t.Errorf("no sweep: size source %q", src)
	}
}

// TestSizeSweepWire: where the sweep's bytes between nodes cost 1.5
// times the line's (16-32 KiB), a node link shared by two rank pairs of
// 24 KiB messages carries them 1.5 times as long; 1 MiB messages, where
// the sweep is the line, are priced as without a sweep.
func TestSizeSweepWire(t *testing.T) {
	bump := func(where string, size int) float64 {
		if where == sweep.Network && size >= 16<<10 && size <= 32<<10 {
			return 1.5
		}
		return 1
	}
	s := sweptSurvey(bump)
	plain := *s
	plain.Sweep = nil
	rows := []survey.NodeBandwidth{{Host: "h0", Peer: "h1", Ranks: 2, AggregateMBps: 50}, {Host: "h1", Peer: "h0", Ranks: 2, AggregateMBps: 50}}
	for _, c := range []struct{ size, want float64 }{{24 << 10, 1.5}, {1 << 20, 1}} {
		tr, err := model.NewTraffic(4, []profile.Flow{{Src: 0, Dst: 2, Messages: 100, Bytes: 100 * c.size}, {Src: 1, Dst: 3, Messages: 100, Bytes: 100 * c.size}})
		if err != nil {
			t.Fatal(err)
		}
		var run [2]float64
		for i, sv := range []*survey.Survey{s, &plain} {
			m, err := model.MachineFromSurvey(sv, model.SurveyCostOptions{})
			if err != nil {
				t.Fatal(err)
			}
			md, _ := model.NewModel(m, rows, model.ModelOptions{})
			p := model.Predict("block", md, tr, []int32{0, 1, 2, 3}, nil)
			if p.NodeBound == 0 {
				t.Fatalf("%.0f B: no rank bound by the node link (run %.4g s)", c.size, p.Run)
			}
			run[i] = p.Run
		}
		if got := run[0] / run[1]; math.Abs(got-c.want) > 0.02 {
			t.Errorf("100 x %.0f B a pair through one node link: %.3fx the run without a sweep, want %.2fx", c.size, got, c.want)
		}
	}
}
