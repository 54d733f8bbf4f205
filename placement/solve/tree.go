package solve

import (
	"math/rand/v2"

	"github.com/latmap/latmap/placement/model"
)

// constructTree builds a placement down every level of the machine's
// tree, outermost first, as Scotch maps onto a tleaf: the ranks are
// split into the outermost switch level's groups (each the size of its
// slots), each part into its group's next level, and so on down to
// nodes, then sockets and cores (placeInNode). construct instead splits
// into nodes at once and then maps parts to nodes; on a deep tree that
// can keep neighbours a node apart but a switch apart too.
func constructTree(m *model.Machine, t *model.Traffic, slots []int32, rng *rand.Rand) []int32 {
	nodes := m.NodeGroups(slots)
	intra := m.Levels[model.SameNode]
	if intra == (model.LinkCost{}) {
		intra = m.Levels[model.SameSocket]
	}
	weight := nodeGap(m.Levels[model.Network], intra)
	place := make([]int32, t.N)
	all := make([]int32, t.N)
	for i := range all {
		all[i] = int32(i)
	}
	idx := make([]int, len(nodes))
	for i := range idx {
		idx[i] = i
	}
	var split func(ranks []int32, nodeIdx []int, k int)
	split = func(ranks []int32, nodeIdx []int, k int) {
		groups := groupNodes(m, nodes, nodeIdx, k)
		if len(groups) == 1 && k >= 0 {
			split(ranks, nodeIdx, k-1)
			return
		}
		caps := make([]int, len(groups))
		for gi, g := range groups {
			for _, x := range g {
				caps[gi] += len(nodes[x])
			}
		}
		part := make([]int32, len(ranks))
		if len(groups) > 1 {
			part = partition(subgraph(t, ranks, weight), caps, rng)
		}
		members := make([][]int32, len(groups))
		for i, p := range part {
			members[p] = append(members[p], ranks[i])
		}
		for gi, g := range groups {
			if k < 0 {
				placeInNode(m, t, members[gi], nodes[g[0]], place)
			} else {
				split(members[gi], g, k-1)
			}
		}
	}
	split(all, idx, len(m.NetGroups)-1)
	return place
}

// groupNodes groups the nodes nodeIdx (indexes into nodes) by their
// group at switch level k, in order of first appearance; k < 0: each
// node alone.
func groupNodes(m *model.Machine, nodes [][]int32, nodeIdx []int, k int) [][]int {
	if k < 0 {
		out := make([][]int, len(nodeIdx))
		for i, x := range nodeIdx {
			out[i] = []int{x}
		}
		return out
	}
	at := map[int32]int{}
	var out [][]int
	for _, x := range nodeIdx {
		g := m.NetGroups[k][m.Slots[nodes[x][0]].Node]
		i, ok := at[g]
		if !ok {
			i = len(out)
			at[g] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], x)
	}
	return out
}

// maxRounds bounds refine's rounds of descent and node exchanges (each
// must improve the objective to be followed by another).
const maxRounds = 20

// exchangeNodes lowers the slowest rank by exchanging all the ranks of
// its node with those of another node of as many slots at once: a move
// no exchange of two ranks makes when a node's ranks belong together (a
// block of a stencil placed a switch too far from its neighbours). It
// prices every such node, keeps the best exchange when it improves the
// objective, and repeats while one does, pricing at most budget
// exchanges. It returns the number kept.
func (sw *swapper) exchangeNodes(budget int) int {
	ev := sw.ev
	nodes := sw.nodeGroups()
	kept := 0
	for budget > 0 {
		c := ev.Critical()
		if c < 0 {
			break
		}
		ga := sw.nodeGroup[sw.place[c]]
		bestG, best := int32(-1), ev.Objective()
		for _, gb := range nodes {
			if gb == ga || len(sw.groups[gb]) != len(sw.groups[ga]) || !sw.swapNodes(ga, gb) {
				continue
			}
			budget--
			if o := ev.Objective(); o.Better(best) {
				bestG, best = gb, o
			}
			sw.swapNodes(ga, gb)
		}
		if bestG < 0 {
			break
		}
		sw.swapNodes(ga, bestG)
		kept++
	}
	return kept
}

// swapNodes exchanges the ranks of node groups ga and gb slot by slot
// (false, and nothing done, when either has a free slot).
func (sw *swapper) swapNodes(ga, gb int32) bool {
	a, b := sw.groups[ga], sw.groups[gb]
	for x := range a {
		if sw.slotRank[a[x]] < 0 || sw.slotRank[b[x]] < 0 {
			return false
		}
	}
	pairs := make([][2]int32, len(a))
	for x := range a {
		pairs[x] = [2]int32{sw.slotRank[a[x]], sw.slotRank[b[x]]}
	}
	sw.swapAll(pairs)
	return true
}
