package bench

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
)

// TestNodeBandwidthFake: 5 fake ranks on hosts node0 (0, 1), node1 (2, 3)
// and node2 (4). In step 1 rank 3 has no partner (node2 has one rank), so
// node1 sends with one rank; the fake exchange takes messages*size/1e8 s
// on even ranks and 3 times that on odd ones, so every figure is known.
// After the pairs, the fan-out (bench/fanout.go) samples node0 and node1, the
// hosts with two ranks: each sends from both ranks to the nearest host,
// then one rank to each of the two others; the fake's time does not
// depend on the destination, so both rates are the same (one link's
// worth, as a node of a fat tree would measure). Last, the both-ways
// row (bench/bothways.go): node0's rank 0 and node1's rank 2, both on even
// ranks, as fast both ways as one way.
func TestNodeBandwidthFake(t *testing.T) {
	dir := t.TempDir()
	opt := DefaultOptions(filepath.Join(dir, "survey"))
	opt.Repeats, opt.Warmup = 2, 0
	opt.NodeBWSizeSpec = "1K"
	errs, _, _ := runFake(t, 5, opt, linearRTT)
	noRankErrors(t, errs)
	s, err := survey.ReadSurvey(opt.Out, survey.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m := s.Meta.NodeBandwidth; m == nil || m.SizeBytes != 1024 || m.Steps != 2 {
		t.Fatalf("meta node_bandwidth %+v, want 1024 B, 2 steps", m)
	}
	even := float64(nodeBWMessages) * 1024 / 1e8
	odd := 3 * even
	mbps := func(ranks int, secs float64) float64 { return float64(ranks) * nodeBWMessages * 1024 / secs / 1e6 }
	row := func(h, p string, ranks int, secs float64) survey.NodeBandwidth {
		return survey.NodeBandwidth{Host: h, Peer: p, Ranks: ranks, Size: 1024, Messages: nodeBWMessages,
			Seconds: secs, AggregateMBps: mbps(ranks, secs), PairMBps: mbps(1, even)}
	}
	want := []survey.NodeBandwidth{
		// step 1: 0->2, 1->3; 2->4 (3 has no partner); 4->0
		row("node0", "node1", 2, odd), row("node1", "node2", 1, even), row("node2", "node0", 1, even),
		// step 2: 0->4 (1 has no partner); 2->0, 3->1; 4->2
		row("node0", "node2", 1, even), row("node1", "node0", 2, odd), row("node2", "node1", 1, even),
	}
	if len(s.NodeBandwidth) != len(want)+3 {
		t.Fatalf("nodebw rows %+v, want %+v, two fan-out rows and the both-ways row", s.NodeBandwidth, want)
	}
	both := row("node0", survey.BothWaysPeer+"node1", 1, even)
	both.AggregateMBps = both.PairMBps
	if got := s.NodeBandwidth[len(want)+2]; got.Host != both.Host || got.Peer != both.Peer || got.Ranks != 1 || !within(got.Seconds, even, 1e-6) ||
		!within(got.AggregateMBps, both.AggregateMBps, 1e-3) || !within(got.PairMBps, both.PairMBps, 1e-3) {
		t.Errorf("both-ways row %+v, want %+v", got, both)
	}
	for i, h := range []string{"node0", "node1"} {
		got, others := s.NodeBandwidth[len(want)+i], []string{}
		for _, o := range []string{"node0", "node1", "node2"} {
			if o != h {
				others = append(others, o)
			}
		}
		peers := strings.Split(got.Peer, survey.FanOutPeers)
		slices.Sort(peers)
		if got.Host != h || !slices.Equal(peers, others) || got.Ranks != 2 || !within(got.AggregateMBps, mbps(2, odd), 1e-3) || !within(got.PairMBps, mbps(2, odd), 1e-3) {
			t.Errorf("fan-out row %+v, want %s to %v from 2 ranks, %.3f MB/s both ways", got, h, others, mbps(2, odd))
		}
	}
	for i, got := range s.NodeBandwidth[:len(want)] {
		w := want[i]
		// nodebw.csv keeps 6 decimals of seconds and 3 of MB/s.
		if got.Host != w.Host || got.Peer != w.Peer || got.Ranks != w.Ranks || got.Size != w.Size || got.Messages != w.Messages ||
			!within(got.Seconds, w.Seconds, 1e-6) || !within(got.AggregateMBps, w.AggregateMBps, 1e-3) || !within(got.PairMBps, w.PairMBps, 1e-3) {
			t.Errorf("row %d = %+v, want %+v", i, got, w)
		}
	}

	// Off: no file, no record.
	opt.Out, opt.NodeBandwidth = filepath.Join(dir, "off"), NodeBWOff
	runFake(t, 5, opt, linearRTT)
	if s, err := survey.ReadSurvey(opt.Out, survey.LoadOptions{}); err != nil || s.NodeBandwidth != nil || s.Meta.NodeBandwidth != nil {
		t.Errorf("--node-bandwidth off: %v, rows %v, meta %v", err, s.NodeBandwidth, s.Meta.NodeBandwidth)
	}
	// On, with both ranks on one host: a warning instead.
	opt.Out, opt.NodeBandwidth = filepath.Join(dir, "one"), NodeBWOn
	runFake(t, 2, opt, linearRTT)
	s, err = survey.ReadSurvey(opt.Out, survey.LoadOptions{})
	if err != nil || s.NodeBandwidth != nil || !strings.Contains(strings.Join(s.Meta.Warnings, "\n"), "one host") {
		t.Errorf("--node-bandwidth on, one host: %v, rows %v, warnings %q", err, s.NodeBandwidth, s.Meta.Warnings)
	}
}

// TestFanOutOneRankFake: 6 fake ranks, one a host (a job of one rank a
// node). The node phase has no host of two ranks to measure, but the
// fan-out still runs: the first and last hosts' one rank sends alone to
// its nearest host, then to FanOutOneRankPeers hosts at once. The fake
// exchange's time grows with its destinations (one link), so each row
// is one rank to 4 hosts at the rate it moves to one.
func TestFanOutOneRankFake(t *testing.T) {
	opt := DefaultOptions(filepath.Join(t.TempDir(), "survey"))
	opt.Repeats, opt.Warmup = 2, 0
	opt.NodeBWSizeSpec = "1K"
	w := newFakeWorld(6, linearRTT)
	w.host = func(r int) string { return fmt.Sprintf("node%d", r) }
	errs, _ := runFakeWorld(t, w, opt)
	noRankErrors(t, errs)
	s, err := survey.ReadSurvey(opt.Out, survey.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var hosts []string
	for _, r := range s.NodeBandwidth {
		peers := strings.Split(r.Peer, survey.FanOutPeers)
		if len(peers) < 2 {
			continue
		}
		hosts = append(hosts, r.Host)
		if len(peers) != FanOutOneRankPeers || r.Ranks != 1 || !within(r.AggregateMBps, r.PairMBps, 1e-3) || slices.Contains(peers, r.Host) {
			t.Errorf("fan-out row %+v: want one rank to %d other hosts at the rate it moves to one", r, FanOutOneRankPeers)
		}
	}
	if !slices.Equal(hosts, []string{"node0", "node5"}) {
		t.Errorf("fan-out rows from %v, want node0 and node5 (the sampled hosts)", hosts)
	}
}

func within(a, b, tol float64) bool { return a-b <= tol && b-a <= tol }
