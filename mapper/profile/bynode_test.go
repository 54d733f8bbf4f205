package profile

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
)

// nodesProfile is a profile of hosts x per ranks dealt to the hosts in
// turn (cyclic: rank r on host r%hosts), each rank computing comput(r)
// seconds and waiting wait(r) in a collective wait before MPI_Allreduce.
func nodesProfile(hosts, per int, comput, wait func(r int) float64) *Profile {
	n := hosts * per
	p := &Profile{Meta: Meta{Ranks: n, Modes: []string{ModeBasic, ModeCollectiveWait}}}
	for r := 0; r < n; r++ {
		c, w := comput(r), wait(r)
		p.Ranks = append(p.Ranks, Rank{Rank: survey.Rank{Rank: r, Host: fmt.Sprintf("node%d", r%hosts), Socket: r / hosts % 2}, Comput: c, Elapsed: c + w + 0.01})
		p.Functions = append(p.Functions, Function{Rank: r, Function: "MPI_Allreduce", Calls: 10, Time: 0.01, Sync: w, BytesSent: 80, BytesRecv: 80})
	}
	return p
}

// TestNodesNamesTheSlowNode: on 4 hosts x 2 (cyclic), the ranks of one
// host compute 30% longer and the others wait for them in the collective:
// that host and no other is named, for its computation, with the wait it
// caused; the ranks are ordered by host, and the host sums add up to the
// ranks'.
func TestNodesNamesTheSlowNode(t *testing.T) {
	const slow = 2
	p := nodesProfile(4, 2, func(r int) float64 {
		if r%4 == slow {
			return 1.3
		}
		return 1.0
	}, func(r int) float64 {
		if r%4 == slow {
			return 0.001
		}
		return 0.301
	})
	nd := p.Nodes()
	if fmt.Sprint(nd.Order) != "[0 4 1 5 2 6 3 7]" || !nd.Grouped {
		t.Errorf("order %v (grouped %v), want [0 4 1 5 2 6 3 7]", nd.Order, nd.Grouped)
	}
	if len(nd.Stragglers) != 1 {
		t.Fatalf("stragglers %+v, want node2 only", nd.Stragglers)
	}
	s := nd.Stragglers[0]
	if s.Host != "node2" || s.Socket != -1 || s.Metric != "computation" || fmt.Sprint(s.Ranks) != "[2 6]" {
		t.Errorf("straggler %+v, want node2's computation, ranks [2 6]", s)
	}
	if math.Abs(s.Excess-0.3) > 1e-9 || math.Abs(s.Caused-0.3) > 1e-9 || math.Abs(s.Ratio-1.3) > 1e-9 || s.Basis != "collective wait" {
		t.Errorf("excess %v, caused %v (%s), ratio %v; want 0.3, 0.3 from the collective wait, 1.3", s.Excess, s.Caused, s.Basis, s.Ratio)
	}
	var comput, sync, elapsed float64
	var sent int64
	for _, g := range nd.Hosts {
		comput += g.Comput
		sync += g.Sync
		elapsed += g.Elapsed
		sent += g.BytesSent
	}
	if math.Abs(comput-8.6) > 1e-9 || math.Abs(sync-(6*0.301+2*0.001)) > 1e-9 || sent != 640 {
		t.Errorf("host sums: comput %v, sync %v, sent %v; want 8.6, 1.808, 640", comput, sync, sent)
	}
	// Two sockets a host: the socket table is there, and no socket of
	// another host is named (node2's sockets are its host's).
	if len(nd.Sockets) != 8 {
		t.Errorf("%d socket groups, want 8 (each host's 2 ranks on 2 sockets)", len(nd.Sockets))
	}
}

// TestNodesNoiseNamesNone: a machine of 8 hosts x 4 ranks (cyclic: rank
// r on node r%8, socket r/8%2) whose ranks differ a little, and one host
// 10% slower (under the 1.2x ratio), names nothing, and its by-node
// figures are these, worked out by hand:
//
// Rank r = h + 8k (host h, k = 0..3) computes base(h) + d(k) seconds,
// d = -0.03, +0.01, -0.01, +0.03 (summing to 0), base(h) = 1 + 0.01h but
// base(3) = 1.144 (1.1 x 1.04); it waits 0.2 + e(k), e = +0.01, -0.01,
// +0.02, -0.02 (summing to 0), and its elapsed time is computation + wait
// + 0.01 (nodesProfile), its MPI_Allreduce 0.01 s, 80 bytes each way.
//
//   - Order: host by host, each host's ranks h, h+8, h+16, h+24:
//     [0 8 16 24 1 9 17 25 ... 7 15 23 31], grouped.
//   - Hosts node0..node7 (socket -1), ranks [h h+8 h+16 h+24]: computation
//     4 base(h) = 4.00, 4.04, 4.08, 4.576, 4.16, 4.20, 4.24, 4.28; sync
//     4 x 0.2 = 0.8; elapsed 4 base(h) + 0.8 + 4 x 0.01 = 4 base(h) + 0.84;
//     MPI 0.04; 320 bytes sent and received.
//   - Sockets: 16, host by host, socket 0 (ranks h, h+16: d -0.03, -0.01)
//     then 1 (h+8, h+24: +0.01, +0.03): computation 2 base(h) - 0.04 and
//     2 base(h) + 0.04.
//   - node3 per rank 1.144; the others' means 1.00 1.01 1.02 1.04 1.05 1.06
//     1.07, median 1.04, their deviations from it 0 .01 .02 .02 .03 .03 .04,
//     median 0.02; the bar is max(1.2 x 1.04, 1.04 + 5 x 1.4826 x 0.02) =
//     max(1.248, 1.18826) = 1.248, above 1.144: not named. No other host
//     is above 1.07 (the bar for each is at least 1.2 x 1.04). MPI time is
//     0.01 per rank everywhere (ratio 1). The slowest socket, node3's
//     socket 1 (1.164 per rank), is under 1.2 x 1.04 (the median of the 15
//     other sockets' means) too.
//   - Judged (8 hosts, 3 needed); MPI_Allreduce left alike by every rank:
//     fastest = slowest 0.01 s (rank 0 on node0, the first), spread 0.
//
// The same machine with node3 at base 1.352 (1.3 x 1.04, over the bar)
// names node3 and nothing else, for its computation: 1.352 per rank
// against 1.04, excess 0.312, ratio 1.3; every rank waits 0.2 on average
// on every host, so it caused 0 of collective wait.
//
// Then, over 200 seeds, the same machine with up to 5% noise in every
// rank's computation and wait (and on odd seeds node3 1.1x, under the
// ratio) names nothing, and its host sums are the ranks'; with node3 1.5x
// it names node3 alone.
func TestNodesNoiseNamesNone(t *testing.T) {
	d := []float64{-0.03, 0.01, -0.01, 0.03}
	e := []float64{0.01, -0.01, 0.02, -0.02}
	machine := func(slow float64) *Nodes {
		base := func(h int) float64 {
			if h == 3 {
				return slow
			}
			return 1 + 0.01*float64(h)
		}
		return nodesProfile(8, 4, func(r int) float64 { return base(r%8) + d[r/8] }, func(r int) float64 { return 0.2 + e[r/8] }).Nodes()
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9 }
	nd := machine(1.144)
	if got := fmt.Sprint(nd.Order); got != "[0 8 16 24 1 9 17 25 2 10 18 26 3 11 19 27 4 12 20 28 5 13 21 29 6 14 22 30 7 15 23 31]" || !nd.Grouped {
		t.Errorf("order %s (grouped %v), want host by host, grouped", got, nd.Grouped)
	}
	comput := []float64{4.00, 4.04, 4.08, 4.576, 4.16, 4.20, 4.24, 4.28}
	if len(nd.Hosts) != 8 {
		t.Fatalf("%d hosts %+v, want 8", len(nd.Hosts), nd.Hosts)
	}
	for h, g := range nd.Hosts {
		ranks := fmt.Sprint([]int{h, h + 8, h + 16, h + 24})
		if g.Host != fmt.Sprintf("node%d", h) || g.Socket != -1 || fmt.Sprint(g.Ranks) != ranks || !near(g.Comput, comput[h]) || !near(g.Sync, 0.8) ||
			!near(g.Elapsed, comput[h]+0.84) || !near(g.MPI, 0.04) || g.Late != 0 || g.BytesSent != 320 || g.BytesRecv != 320 {
			t.Errorf("host %d: %+v, want node%d, ranks %s, computation %g, sync 0.8, elapsed %g, MPI 0.04, 320 bytes each way", h, g, h, ranks, comput[h], comput[h]+0.84)
		}
	}
	if len(nd.Sockets) != 16 {
		t.Fatalf("%d socket groups %+v, want 16", len(nd.Sockets), nd.Sockets)
	}
	for i, g := range nd.Sockets {
		h, sock := i/2, i%2
		want := comput[h]/2 - 0.04 + 0.08*float64(sock)
		if g.Host != fmt.Sprintf("node%d", h) || g.Socket != sock || fmt.Sprint(g.Ranks) != fmt.Sprint([]int{h + 8*sock, h + 8*sock + 16}) || !near(g.Comput, want) {
			t.Errorf("socket group %d: %+v, want node%d socket %d, ranks %d and %d, computation %g", i, g, h, sock, h+8*sock, h+8*sock+16, want)
		}
	}
	if len(nd.Stragglers) != 0 || nd.Judged != "" {
		t.Errorf("named %+v (not judged %q), want none, judged", nd.Stragglers, nd.Judged)
	}
	if len(nd.Leaving) != 1 {
		t.Fatalf("leaving %+v, want MPI_Allreduce", nd.Leaving)
	} else if l := nd.Leaving[0]; l.Function != "MPI_Allreduce" || l.Calls != 10 || !near(l.Fastest, 0.01) || !near(l.Slowest, 0.01) || !near(l.Median, 0.01) ||
		l.SlowestRank != 0 || l.SlowestHost != "node0" || !near(l.Spread, 0) {
		t.Errorf("leaving %+v, want MPI_Allreduce left alike: 0.01 s, rank 0 on node0, spread 0", l)
	}

	nd = machine(1.352)
	if len(nd.Stragglers) != 1 {
		t.Fatalf("node3 at 1.3x: named %+v, want node3 alone", nd.Stragglers)
	}
	if s := nd.Stragglers[0]; s.Host != "node3" || s.Socket != -1 || s.Metric != "computation" || fmt.Sprint(s.Ranks) != "[3 11 19 27]" ||
		!near(s.PerRank, 1.352) || !near(s.Others, 1.04) || !near(s.Excess, 0.312) || !near(s.Ratio, 1.3) || !near(s.Caused, 0) || s.Basis != "collective wait" {
		t.Errorf("node3 at 1.3x: %+v, want node3's computation, ranks [3 11 19 27], 1.352 against 1.04, excess 0.312, ratio 1.3, caused 0 (collective wait)", s)
	}

	for seed := int64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewSource(seed))
		noise := make([]float64, 64)
		for i := range noise {
			noise[i] = 1 + 0.05*(2*rng.Float64()-1)
		}
		noisy := func(slow float64) *Nodes {
			return nodesProfile(8, 4, func(r int) float64 {
				if r%8 == 3 {
					return slow * noise[r]
				}
				return noise[r]
			}, func(r int) float64 { return 0.2 * noise[32+r] }).Nodes()
		}
		slow := 1.0
		if seed%2 == 1 {
			slow = 1.1
		}
		nd := noisy(slow)
		if len(nd.Stragglers) != 0 {
			t.Fatalf("seed %d: named %+v", seed, nd.Stragglers)
		}
		if len(nd.Hosts) != 8 {
			t.Fatalf("seed %d: %d hosts, want 8", seed, len(nd.Hosts))
		}
		for h, g := range nd.Hosts {
			want := 0.0
			for k := 0; k < 4; k++ {
				want += noise[h+8*k]
			}
			if h == 3 {
				want *= slow
			}
			if g.Host != fmt.Sprintf("node%d", h) || !near(g.Comput, want) {
				t.Fatalf("seed %d: host %d %+v, want node%d computing %g", seed, h, g, h, want)
			}
		}
		if nd := noisy(1.5); len(nd.Stragglers) != 1 || nd.Stragglers[0].Label() != "node3" || nd.Stragglers[0].Metric != "computation" {
			t.Fatalf("seed %d, node3 at 1.5x: named %+v, want node3's computation alone", seed, nd.Stragglers)
		}
	}
}

// TestNodesTooFewHosts: two hosts are not judged (no telling which is
// apart), and say so.
func TestNodesTooFewHosts(t *testing.T) {
	p := nodesProfile(2, 2, func(r int) float64 { return 1 + float64(r%2) }, func(int) float64 { return 0 })
	nd := p.Nodes()
	if len(nd.Stragglers) != 0 || nd.Judged == "" {
		t.Errorf("2 hosts: stragglers %+v, not judged %q; want none, and why", nd.Stragglers, nd.Judged)
	}
}

// TestNodesSocketApart: one socket of one host computing 30% longer is
// named as that socket, not as its host (whose mean is 1.15x).
func TestNodesSocketApart(t *testing.T) {
	p := nodesProfile(3, 4, func(r int) float64 {
		if r == 1 || r == 7 { // node1 socket 0: ranks 1 and 7 (r/3%2 == 0)
			return 1.3
		}
		return 1
	}, func(int) float64 { return 0 })
	nd := p.Nodes()
	if len(nd.Stragglers) != 1 || nd.Stragglers[0].Label() != "node1:socket 0" {
		t.Errorf("stragglers %+v, want node1:socket 0 only", nd.Stragglers)
	}
}

// TestNodesMPITimeApart: a host whose ranks spend twice as long moving
// data (a slow link) is named for its MPI time, not its computation.
func TestNodesMPITimeApart(t *testing.T) {
	p := nodesProfile(4, 2, func(int) float64 { return 1 }, func(int) float64 { return 0 })
	for i := range p.Functions {
		p.Functions[i].Time = 0.2
		if p.Functions[i].Rank%4 == 1 {
			p.Functions[i].Time = 0.5
		}
	}
	nd := p.Nodes()
	if len(nd.Stragglers) != 1 || nd.Stragglers[0].Host != "node1" || nd.Stragglers[0].Metric != "MPI time" {
		t.Errorf("stragglers %+v, want node1 for its MPI time", nd.Stragglers)
	}
}

// TestNodesLeaving: with --collective-wait, how unevenly the ranks leave
// MPI_Allreduce is each rank's time in it beyond the fastest rank's.
func TestNodesLeaving(t *testing.T) {
	p := nodesProfile(4, 1, func(int) float64 { return 1 }, func(int) float64 { return 0 })
	for i := range p.Functions {
		p.Functions[i].Time = 0.01 * float64(i+1) // 0.01 .. 0.04
	}
	nd := p.Nodes()
	if len(nd.Leaving) != 1 {
		t.Fatalf("leaving %+v", nd.Leaving)
	}
	l := nd.Leaving[0]
	if l.Function != "MPI_Allreduce" || l.SlowestRank != 3 || l.SlowestHost != "node3" || math.Abs(l.Spread-0.015) > 1e-12 || math.Abs(l.Fastest-0.01) > 1e-12 {
		t.Errorf("leaving %+v, want slowest rank 3 on node3, fastest 0.01, spread 0.015", l)
	}
	p.Meta.Modes = []string{ModeBasic}
	if nd := p.Nodes(); nd.Leaving != nil {
		t.Errorf("without --collective-wait: leaving %+v, want none (no barrier lines the ranks up)", nd.Leaving)
	}
}
