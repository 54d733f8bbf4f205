package solve

import (
	"github.com/latmap/latmap/placement/model"
)

// constructTree builds a placement down every level of the machine's
// tree, outermost first, as Scotch maps onto a tleaf: the ranks are
// split into the outermost switch level's groups (each the size of its
// slots), each part into its group's next level, and so on down to
// nodes, then sockets and cores (placeInNode). construct instead splits
// into nodes at once and then maps parts to nodes; on a deep tree that
// can keep neighbours a node apart but a switch apart too.
func constructTree(m *model.Machine, t *model.Traffic, slots []int32, how matching) []int32 {
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
			part = partition(subgraph(t, ranks, weight), caps, how)
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

// minWholeGain is, from maxKickRanks ranks on, the least fraction of the
// predicted run an exchange of whole nodes or switch groups must save to
// be kept. Such an exchange prices every node its ranks talk to; kept on
// a lower summed transfer at the same run, on a random sparse graph of
// 16,384 ranks they made five exchanges a round for 11 rounds, 10 of the
// solver's 15 s, for a run 0.0003% shorter. Below that size the summed
// transfer still decides at the same run: on the simulated 16 x 4 fat
// tree a halo's proposal so chosen simulated 7% faster than one of the
// same predicted run.
const minWholeGain = 1e-4

// wholeLow is the predicted run an exchange of whole nodes or groups
// must not exceed to be kept, from the run now.
func (sw *swapper) wholeLow(run float64) float64 {
	if len(sw.place) >= maxKickRanks {
		return run * (1 - minWholeGain)
	}
	return run
}

// exchangeNodes lowers the slowest rank by exchanging all the ranks of
// its node with those of another node of as many slots at once: a move
// no exchange of two ranks makes when a node's ranks belong together (a
// block of a stencil placed a switch too far from its neighbours). It
// prices every such node, keeps the best exchange when it improves the
// objective, and repeats while one does, pricing at most budget
// exchanges. It returns the number kept and whether it settled (see
// exchangeWhole).
func (sw *swapper) exchangeNodes(budget int) (int, bool) {
	nodes := sw.nodeGroups()
	lv := wholeLevel{members: make([][]int32, len(nodes)), of: sw.unplaced()}
	for i, ng := range nodes {
		lv.members[i], lv.of[ng] = []int32{ng}, i
	}
	return sw.exchangeWhole([]wholeLevel{lv}, budget)
}

// swapNodes exchanges the ranks of node groups ga and gb slot by slot
// (false, and nothing done, when either has a free slot).
func (sw *swapper) swapNodes(ga, gb int32) bool {
	return sw.swapGroups([]int32{ga}, []int32{gb})
}

// exchangeGroups lowers the slowest rank by exchanging all the ranks of
// its switch group, at each switch level, with those of another group
// of as many nodes (node by node, in node order, each pair of nodes of
// as many slots), every rank moved priced once (swapGroups). That is a
// move no exchange of ranks or of nodes makes when a group's nodes
// belong together: a stencil's block a pod away from its neighbours,
// where moving one of its nodes first makes the run slower. The best
// exchange is kept when it improves the objective, and it repeats while
// one does, pricing at most budget exchanges. It returns the number kept
// and whether it settled (see exchangeWhole).
func (sw *swapper) exchangeGroups(budget int) (int, bool) {
	m := sw.m
	levels := make([]wholeLevel, len(m.NetGroups))
	for k := range levels {
		levels[k].of = sw.unplaced()
	}
	for _, ng := range sw.nodeGroups() {
		node := m.Slots[sw.groups[ng][0]].Node
		for k, of := range m.NetGroups {
			lv := &levels[k]
			g := int(of[node])
			for len(lv.members) <= g {
				lv.members = append(lv.members, nil)
			}
			lv.members[g], lv.of[ng] = append(lv.members[g], ng), g
		}
	}
	return sw.exchangeWhole(levels, budget)
}

// wholeLevel is a level of whole exchanges: its groups' node groups
// (sw.groups indexes, in node order) and each node group's group (-1:
// none of the placement's).
type wholeLevel struct {
	members [][]int32
	of      []int
}

// unplaced is a node group -> group table with no group yet.
func (sw *swapper) unplaced() []int {
	of := make([]int, len(sw.groups))
	for i := range of {
		of[i] = -1
	}
	return of
}

// exchangeWhole is exchangeNodes and exchangeGroups: while budget lasts,
// the slowest rank's group at each level is exchanged, group by group,
// with every other group of the level; the exchange that lowers the
// objective most (by wholeLow's margin on large jobs) is kept, and the
// others undone. It returns the number kept and whether it settled:
// stopped where no exchange is kept (a placement it would leave as it
// is), not where the budget ran out. Every scan of the levels is made
// whole, so with no exchange kept it has settled.
func (sw *swapper) exchangeWhole(levels []wholeLevel, budget int) (int, bool) {
	kept := 0
	var reach model.Reach // which exchanges can lower the run to low
	var from, to []int32
	for budget > 0 {
		c := sw.ev.Critical()
		if c < 0 {
			return kept, true
		}
		ng := sw.nodeGroup[sw.place[c]]
		best, bestK, bestG := sw.ev.Objective(), -1, -1
		low := sw.wholeLow(best.Run)
		for k, lv := range levels {
			ga := lv.of[ng]
			if low < best.Run {
				sw.ev.Reach(&reach, low, sw.evalNodes(lv.members[ga], &from))
			}
			for gb := range lv.members {
				if gb == ga {
					continue
				}
				pairs := sw.groupPairs(lv.members[ga], lv.members[gb])
				if pairs == nil {
					continue
				}
				// Counted when screened out too, so the budget ends
				// where it did when every exchange was priced.
				budget--
				if low < best.Run && !reach.Can(sw.evalNodes(lv.members[gb], &to)) {
					continue
				}
				if o := sw.ev.TryAll(pairs); o.Run <= low && o.Better(best) {
					best, bestK, bestG = o, k, gb
				}
			}
		}
		if bestK < 0 {
			return kept, true
		}
		lv := levels[bestK]
		sw.swapGroups(lv.members[lv.of[ng]], lv.members[bestG])
		kept++
	}
	return kept, false
}

// evalNodes are the evaluator's nodes of node groups (into buf).
func (sw *swapper) evalNodes(groups []int32, buf *[]int32) []int32 {
	out := (*buf)[:0]
	for _, ng := range groups {
		out = append(out, int32(sw.m.Slots[sw.groups[ng][0]].Node))
	}
	*buf = out
	return out
}

// swapGroups exchanges the ranks of node groups a[x] and b[x] for every
// x, slot by slot, priced once (false, and nothing done, when the two
// differ in nodes or a node's slots, or either has a free slot).
func (sw *swapper) swapGroups(a, b []int32) bool {
	pairs := sw.groupPairs(a, b)
	if pairs == nil {
		return false
	}
	sw.swapAll(pairs)
	return true
}

// groupPairs are the exchanges of ranks, slot by slot, that exchange node
// groups a[x] and b[x] for every x (nil when the two differ in nodes or a
// node's slots, or either has a free slot).
func (sw *swapper) groupPairs(a, b []int32) [][2]int32 {
	if len(a) != len(b) || len(a) == 0 {
		return nil
	}
	var pairs [][2]int32
	for x := range a {
		sa, sb := sw.groups[a[x]], sw.groups[b[x]]
		if len(sa) != len(sb) {
			return nil
		}
		for y := range sa {
			ra, rb := sw.slotRank[sa[y]], sw.slotRank[sb[y]]
			if ra < 0 || rb < 0 {
				return nil
			}
			pairs = append(pairs, [2]int32{ra, rb})
		}
	}
	return pairs
}
