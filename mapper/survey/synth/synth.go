package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/latmap/latmap/mapper/survey"
)

// Spec describes a made-up machine whose hierarchy is known, for
// tests and benchmarks: Nodes nodes of Sockets sockets of Cores cores,
// NodesPerSwitch nodes behind each switch, one rank per core.
type Spec struct {
	Nodes, Sockets, Cores int
	// NodesPerSwitch groups nodes under switches; 0 puts all under one.
	// NodesPerPod, a multiple of it, groups the switches into pods (a
	// second switch level; 0: none), PodRTT the round trip in
	// microseconds between pods (RTT[3] is then between switches of a
	// pod).
	NodesPerSwitch, NodesPerPod int
	PodRTT                      float64
	// Layout places ranks on nodes: "block" (default) fills a node before
	// the next, "cyclic" deals ranks round robin.
	Layout string
	// RTT is the round trip in microseconds of two ranks on the same
	// socket, the same node, the same switch, and across switches.
	RTT [4]float64
	// Noise is the relative standard deviation of the lognormal noise of
	// each pair's mean.
	Noise float64
	// Seed makes the noise reproducible.
	Seed uint64
	// Size and Repeats go into the survey (defaults 64 and 100).
	Size, Repeats int
	// Scope is "all" (the default: every pair) or "nodes": only the pairs
	// inside each node and those of node leaders (each node's lowest
	// rank), in a sparse table, as latmap survey --scope nodes writes.
	Scope string
}

// Synthetic makes a survey of the machine spec describes, with every metric
// filled (median = mean, min and p99 around it).
func New(spec Spec) *survey.Survey {
	if spec.Size == 0 {
		spec.Size = 64
	}
	if spec.Repeats == 0 {
		spec.Repeats = 100
	}
	if spec.Scope == "" {
		spec.Scope = survey.ScopeAll
	}
	g := &gen{spec: spec, rng: rand.New(rand.NewPCG(spec.Seed, 0x5eed))}
	n := spec.Nodes * spec.Sockets * spec.Cores
	s := &survey.Survey{Meta: survey.SurveyMeta{Tool: "latmap synthetic", Ranks: n, Sizes: []int{spec.Size}, Repeats: spec.Repeats,
		Schedule: "rounds", Scope: spec.Scope, Machine: "synthetic", Source: "synthetic"}}
	s.Ranks = g.layout(n)
	metrics := []survey.Metric{survey.Mean, survey.Std, survey.Min, survey.Median, survey.P99}
	var t *survey.PairTable
	if spec.Scope == survey.ScopeNodes {
		t = survey.NewSparsePairTable(n, spec.Size, metrics...)
		g.nodePairs(n, func(a, b int) { g.set(t, a, b) })
	} else {
		t = survey.NewPairTable(n, spec.Size, metrics...)
		for a := 0; a < n; a++ {
			for b := a + 1; b < n; b++ {
				g.set(t, a, b)
			}
		}
	}
	s.Tables = []*survey.PairTable{t}
	return s
}

// gen makes one synthetic survey: where each rank sits and its pairs'
// noisy round trips.
type gen struct {
	spec Spec
	rng  *rand.Rand
	pl   []place
	p    survey.PairStats
}

// place is where a synthetic rank sits.
type place struct{ node, socket, core int }

// layout places n ranks as spec.Layout says and returns their ranks.csv
// rows.
func (g *gen) layout(n int) []survey.Rank {
	spec := g.spec
	perNode := spec.Sockets * spec.Cores
	g.pl = make([]place, n)
	ranks := make([]survey.Rank, 0, n)
	for r := 0; r < n; r++ {
		node, slot := r/perNode, r%perNode
		if spec.Layout == "cyclic" {
			node, slot = r%spec.Nodes, r/spec.Nodes
		}
		g.pl[r] = place{node, slot / spec.Cores, slot % spec.Cores}
		ranks = append(ranks, survey.Rank{Rank: r, Host: fmt.Sprintf("node%03d", node), CPU: slot, CPUEnd: slot,
			CPUSet: fmt.Sprint(slot), Socket: g.pl[r].socket, NUMA: g.pl[r].socket, L3: g.pl[r].socket})
	}
	return ranks
}

// sw is node's switch.
func (g *gen) sw(node int) int {
	if g.spec.NodesPerSwitch <= 0 {
		return 0
	}
	return node / g.spec.NodesPerSwitch
}

// set stores pair (a, b)'s noisy round trip in t.
func (g *gen) set(t *survey.PairTable, a, b int) {
	pa, pb := g.pl[a], g.pl[b]
	rtt := g.spec.RTT[3]
	switch {
	case pa.node == pb.node && pa.socket == pb.socket:
		rtt = g.spec.RTT[0]
	case pa.node == pb.node:
		rtt = g.spec.RTT[1]
	case g.sw(pa.node) == g.sw(pb.node):
		rtt = g.spec.RTT[2]
	case g.spec.NodesPerPod > 0 && pa.node/g.spec.NodesPerPod != pb.node/g.spec.NodesPerPod:
		rtt = g.spec.PodRTT
	}
	v := rtt * math.Exp(g.spec.Noise*g.rng.NormFloat64())
	g.p = survey.PairStats{A: a, B: b, Size: g.spec.Size, Samples: g.spec.Repeats, Mean: v, Median: v,
		Std: v * 0.05, Min: v * 0.9, P99: v * 1.3, Isolated: math.NaN()}
	t.Set(&g.p)
}

// nodePairs calls fn for the pairs a nodes-scope survey measures (inside
// each node, and between node leaders, each node's lowest rank), in
// increasing (a, b), as latmap survey writes them.
func (g *gen) nodePairs(n int, fn func(a, b int)) {
	members := make([][]int, g.spec.Nodes)
	for r := 0; r < n; r++ {
		members[g.pl[r].node] = append(members[g.pl[r].node], r)
	}
	leader := make([]int, g.spec.Nodes)
	for h, m := range members {
		leader[h] = m[0]
	}
	var peers []int
	for a := 0; a < n; a++ {
		peers = peers[:0]
		for _, b := range members[g.pl[a].node] {
			if b > a {
				peers = append(peers, b)
			}
		}
		if leader[g.pl[a].node] == a {
			for _, b := range leader {
				if b > a {
					peers = append(peers, b)
				}
			}
		}
		slices.Sort(peers)
		for _, b := range peers {
			fn(a, b)
		}
	}
}
