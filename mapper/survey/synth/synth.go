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
	NodesPerSwitch int
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
	perNode := spec.Sockets * spec.Cores
	n := spec.Nodes * perNode
	rng := rand.New(rand.NewPCG(spec.Seed, 0x5eed))
	if spec.Scope == "" {
		spec.Scope = survey.ScopeAll
	}
	s := &survey.Survey{Meta: survey.SurveyMeta{Tool: "latmap synthetic", Ranks: n, Sizes: []int{spec.Size}, Repeats: spec.Repeats,
		Schedule: "rounds", Scope: spec.Scope, Machine: "synthetic", Source: "synthetic"}}
	type place struct{ node, socket, core int }
	pl := make([]place, n)
	for r := 0; r < n; r++ {
		var node, slot int
		if spec.Layout == "cyclic" {
			node, slot = r%spec.Nodes, r/spec.Nodes
		} else {
			node, slot = r/perNode, r%perNode
		}
		pl[r] = place{node, slot / spec.Cores, slot % spec.Cores}
		cpu := slot
		s.Ranks = append(s.Ranks, survey.Rank{Rank: r, Host: fmt.Sprintf("node%03d", node), CPU: cpu, CPUEnd: cpu,
			CPUSet: fmt.Sprint(cpu), Socket: pl[r].socket, NUMA: pl[r].socket, L3: pl[r].socket})
	}
	sw := func(node int) int {
		if spec.NodesPerSwitch <= 0 {
			return 0
		}
		return node / spec.NodesPerSwitch
	}
	metrics := []survey.Metric{survey.Mean, survey.Std, survey.Min, survey.Median, survey.P99}
	var p survey.PairStats
	set := func(t *survey.PairTable, a, b int) {
		pa, pb := pl[a], pl[b]
		var base float64
		switch {
		case pa.node == pb.node && pa.socket == pb.socket:
			base = spec.RTT[0]
		case pa.node == pb.node:
			base = spec.RTT[1]
		case sw(pa.node) == sw(pb.node):
			base = spec.RTT[2]
		default:
			base = spec.RTT[3]
		}
		v := base * math.Exp(spec.Noise*rng.NormFloat64())
		p = survey.PairStats{A: a, B: b, Size: spec.Size, Samples: spec.Repeats, Mean: v, Median: v,
			Std: v * 0.05, Min: v * 0.9, P99: v * 1.3, Isolated: math.NaN()}
		t.Set(&p)
	}
	var t *survey.PairTable
	if spec.Scope == survey.ScopeNodes {
		t = survey.NewSparsePairTable(n, spec.Size, metrics...)
		members := make([][]int, spec.Nodes)
		for r := 0; r < n; r++ {
			members[pl[r].node] = append(members[pl[r].node], r)
		}
		leader := make([]int, spec.Nodes)
		for h, m := range members {
			leader[h] = m[0]
		}
		// In increasing (a, b): a sparse table appends.
		var peers []int
		for a := 0; a < n; a++ {
			peers = peers[:0]
			for _, b := range members[pl[a].node] {
				if b > a {
					peers = append(peers, b)
				}
			}
			if leader[pl[a].node] == a {
				for _, b := range leader {
					if b > a {
						peers = append(peers, b)
					}
				}
			}
			slices.Sort(peers)
			for _, b := range peers {
				set(t, a, b)
			}
		}
	} else {
		t = survey.NewPairTable(n, spec.Size, metrics...)
		for a := 0; a < n; a++ {
			for b := a + 1; b < n; b++ {
				set(t, a, b)
			}
		}
	}
	s.Tables = []*survey.PairTable{t}
	return s
}
