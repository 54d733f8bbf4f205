package solve

import (
	"math"
	"runtime"
	"sync"

	"github.com/latmap/latmap/placement/model"
	"github.com/latmap/latmap/placement/qap"
)

// levelGap is the weight of cutting traffic between level inner and
// outer: what it costs more to send it over the outer level.
func levelGap(outer, inner model.LinkCost) func(t *model.Traffic, e int32) float64 {
	return func(t *model.Traffic, e int32) float64 {
		return math.Max(0, outer.Cost(t.Msgs[e], t.Bytes[e])-inner.Cost(t.Msgs[e], t.Bytes[e]))
	}
}

// nodeGap is what rank pairs' traffic costs more between two nodes (its
// busier direction on outer) than on one node (both directions on inner):
// model.Machine.EdgeCost's two prices.
func nodeGap(outer, inner model.LinkCost) func(t *model.Traffic, e int32) float64 {
	return func(t *model.Traffic, e int32) float64 {
		return math.Max(0, outer.Cost(t.BusyMsgs[e], t.BusyBytes[e])-inner.Cost(t.Msgs[e], t.Bytes[e]))
	}
}

// construct builds a placement level by level: ranks to nodes, then to
// sockets, then to cores in order.
func construct(m *model.Machine, t *model.Traffic, slots []int32, how matching) []int32 {
	nodes := m.NodeGroups(slots)
	caps := make([]int, len(nodes))
	for i, g := range nodes {
		caps[i] = len(g)
	}
	intra := m.Levels[model.SameNode]
	if intra == (model.LinkCost{}) {
		intra = m.Levels[model.SameSocket]
	}
	g := fullGraph(t, nodeGap(m.Levels[model.Network], intra))
	part := partition(g, caps, how)
	members := make([][]int32, len(nodes))
	for r, p := range part {
		members[p] = append(members[p], int32(r))
	}
	if perm := mapPartsToNodes(m, t, part, nodes); perm != nil {
		moved := make([][]int32, len(nodes))
		for p, x := range perm {
			moved[x] = members[p]
		}
		members = moved
	}
	place := make([]int32, t.N)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for p := range nodes {
		wg.Add(1)
		sem <- struct{}{}
		go func(p int) {
			defer wg.Done()
			defer func() { <-sem }()
			placeInNode(m, t, members[p], nodes[p], place)
		}(p)
	}
	wg.Wait()
	return place
}

// MaxNodeQAP is the largest number of nodes whose inter-node distances the
// solver takes into account when it maps parts to nodes.
const MaxNodeQAP = 128

// lightQAPNodes is the node count above which the parts-to-nodes QAP
// makes one restart of 2 iterations instead of 2 of 8: on four-level
// machines of 1,024 and 4,096 ranks (64 nodes) the search took 85% of
// place (0.54 s of 0.62 at 4,096 ranks) and the lighter one led to the
// same proposals in a third of the time (make bench-place). On such
// machines of switch levels it is now not made at all above it (see
// mapPartsToNodes); the lighter search is for machines whose node pairs
// differ otherwise (a routed network).
const lightQAPNodes = 32

// mapPartsToNodes decides which node each part of the node-level
// partition goes to when the survey measured different costs between
// different node pairs (for example nodes behind different switches): a
// QAP over the parts' traffic and the mean node-to-node costs, solved by
// local search from the identity. It returns nil when there is nothing to
// gain (level costs, fewer than 3 nodes, unequal node sizes, or more than
// MaxNodeQAP nodes), and on a machine of switch levels above
// lightQAPNodes nodes: there the tree constructions map parts down the
// levels, and the QAP took a third of place at 4,096 ranks (64 nodes)
// for the same proposals or worse (make bench-place: the 1,024-rank
// 8 KiB stencil 0.00914 s without it, 0.00987 s with it).
func mapPartsToNodes(m *model.Machine, t *model.Traffic, part []int32, nodes [][]int32) []int {
	k := len(nodes)
	if !m.PerPair() || k < 3 || k > MaxNodeQAP || len(m.NetGroups) > 0 && k > lightQAPNodes {
		return nil
	}
	for _, n := range nodes {
		if len(n) != len(nodes[0]) {
			return nil
		}
	}
	qm, qb := make([]float64, k*k), make([]float64, k*k)
	for i := 0; i < t.N; i++ {
		for e := t.Start[i]; e < t.Start[i+1]; e++ {
			if p, q := part[i], part[t.Adj[e]]; p != q {
				qm[int(p)*k+int(q)] += t.BusyMsgs[e]
				qb[int(p)*k+int(q)] += t.BusyBytes[e]
			}
		}
	}
	lat, ib := make([]float64, k*k), make([]float64, k*k)
	for x := 0; x < k; x++ {
		for y := x + 1; y < k; y++ {
			// The mean over (at most nodeSample x nodeSample) slot pairs;
			// one pair says it when the machine prices node pairs.
			sl, sb := 0.0, 0.0
			sample := nodeSample
			if m.NodeUniform() {
				sample = 1
			}
			xs, ys := nodes[x][:min(sample, len(nodes[x]))], nodes[y][:min(sample, len(nodes[y]))]
			for _, a := range xs {
				for _, b := range ys {
					c := m.Link(int(a), int(b))
					sl += c.Latency
					sb += c.InvBandwidth
				}
			}
			pairs := float64(len(xs) * len(ys))
			lat[x*k+y], lat[y*k+x] = sl/pairs, sl/pairs
			ib[x*k+y], ib[y*k+x] = sb/pairs, sb/pairs
		}
	}
	if uniformOffDiagonal(lat, k) && uniformOffDiagonal(ib, k) {
		return nil // every node pair costs the same: nothing to map
	}
	q := &qap.Problem{N: k, Terms: []qap.Term{{A: qm, B: lat}, {A: qb, B: ib}}}
	ident := make([]int, k)
	for i := range ident {
		ident[i] = i
	}
	opt := qap.Options{Restarts: 2, Iterations: 8, Seed: 1, Workers: 1, Start: ident}
	if k > lightQAPNodes {
		opt.Restarts, opt.Iterations = 1, 2
	}
	perm, cost := qap.Solve(q, opt)
	if cost >= q.Cost(ident) {
		return nil
	}
	return perm
}

// nodeSample is how many slots of each node price a node pair.
const nodeSample = 16

// NodeCostSpread: node-to-node costs within this fraction of each other are
// taken as equal (measurement noise, not switches).
const NodeCostSpread = 0.05

// uniformOffDiagonal reports whether the off-diagonal entries of the k x k
// matrix c lie within NodeCostSpread of each other.
func uniformOffDiagonal(c []float64, k int) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for x := 0; x < k; x++ {
		for y := 0; y < k; y++ {
			if x != y {
				lo, hi = math.Min(lo, c[x*k+y]), math.Max(hi, c[x*k+y])
			}
		}
	}
	return hi-lo <= NodeCostSpread*hi
}

// placeInNode assigns ranks to one node's slots: partitioned into sockets
// when the node has several, then in rank order onto cpus in order.
func placeInNode(m *model.Machine, t *model.Traffic, ranks []int32, slots []int32, place []int32) {
	socks := m.SocketGroups(slots)
	if len(socks) <= 1 || len(ranks) <= 1 {
		for i, r := range ranks {
			place[r] = slots[i]
		}
		return
	}
	caps := make([]int, len(socks))
	for i, s := range socks {
		caps[i] = len(s)
	}
	sub := subgraph(t, ranks, levelGap(m.Levels[model.SameNode], m.Levels[model.SameSocket]))
	sp := partition(sub, caps, matching{})
	next := make([]int, len(socks))
	for i, r := range ranks {
		s := sp[i]
		place[r] = socks[s][next[s]]
		next[s]++
	}
}
