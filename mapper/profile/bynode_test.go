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

// TestNodesNoiseNamesNone: the same machine with no slow host and up to
// 5% noise in every rank's computation and wait names nothing, over many
// seeds; and a host whose ranks spend 10% longer (under the 1.2x ratio)
// is not named either.
func TestNodesNoiseNamesNone(t *testing.T) {
	for seed := int64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewSource(seed))
		noise := make([]float64, 64)
		for i := range noise {
			noise[i] = 1 + 0.05*(2*rng.Float64()-1)
		}
		p := nodesProfile(8, 4, func(r int) float64 {
			if seed%2 == 1 && r%8 == 3 {
				return 1.1 * noise[r]
			}
			return noise[r]
		}, func(r int) float64 { return 0.2 * noise[32+r] })
		if nd := p.Nodes(); len(nd.Stragglers) != 0 {
			t.Fatalf("seed %d: named %+v", seed, nd.Stragglers)
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
