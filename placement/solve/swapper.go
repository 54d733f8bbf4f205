package solve

import (
	"math"
	"sort"

	"github.com/latmap/latmap/placement/model"
)

// swapper holds what refineSwaps needs to price exchanging two ranks: who
// sits on each slot, and the slots grouped by node and by (node, socket).
type swapper struct {
	m         *model.Machine
	ev        *model.Evaluator
	t         *model.Traffic
	place     []int32 // rank -> slot, changed by swap
	slotRank  []int32 // slot -> rank, -1 when free
	nodeGroup []int32 // slot -> its node's group
	sockGroup []int32 // slot -> its (node, socket) group
	groups    [][]int32
	// uniform[g]: every slot of group g costs the same for a rank outside
	// it (a level machine, and the group is a socket or a node whose slots
	// share a socket), so moving a rank there is priced once per group.
	uniform []bool
	// scratch holds one worker's scratch per worker (at least one).
	scratch []scratch
	// low is each rank's least possible pairwise time: its traffic priced
	// at the machine's floors. A rank whose pairwise time is within s of
	// low cannot gain more than s by moving, which lets bestPartner skip
	// the exchanges that cannot beat the best one found.
	low []float64
	// floor[e] is edge e's least cost anywhere (the machine's Floors),
	// rise[e] what it costs at least more between two nodes; nodeUniform
	// is the machine's NodeUniform.
	floor, rise []float64
	nodeUniform bool
	kickState
}

// kickState is what the kicks keep in a swapper: kicked counts the
// exchanges made since a kick began (while kicking), descents the kicks
// that were followed by a descent.
type kickState struct {
	kicking  bool
	kicked   int
	descents int
}

// scratch is what one worker prices ranks with: candidateGroups' list,
// and mark[k] == i+1 when rank k is a neighbour of rank i (bestPartner's
// current rank).
type scratch struct {
	cand []groupWeight
	mark []int32
	on   []onEdge // prepareMove's edges
}

// groupWeight is a group of slots and the modelled cost a rank sends there.
type groupWeight struct {
	g int32
	w float64
}

// newSwapper prepares the exchanges of ranks among the slots of place,
// priced on up to workers goroutines.
func newSwapper(md *model.Model, t *model.Traffic, base []float64, place []int32, workers int) *swapper {
	m := md.Machine
	slots := append([]int32(nil), place...)
	sw := &swapper{m: m, ev: model.NewEvaluator(md, t, base, place), t: t, place: place, slotRank: make([]int32, len(m.Slots)),
		nodeGroup: make([]int32, len(m.Slots)), sockGroup: make([]int32, len(m.Slots))}
	for i := range sw.slotRank {
		sw.slotRank[i] = -1
	}
	for r, s := range place {
		sw.slotRank[s] = int32(r)
	}
	nodeID := map[[2]int]int32{}
	sockID := map[[2]int]int32{}
	group := func(ids map[[2]int]int32, k [2]int, s int32) int32 {
		g, ok := ids[k]
		if !ok {
			g = int32(len(sw.groups))
			ids[k] = g
			sw.groups = append(sw.groups, nil)
		}
		sw.groups[g] = append(sw.groups[g], s)
		return g
	}
	for _, s := range slots {
		sl := &m.Slots[s]
		sw.nodeGroup[s] = group(nodeID, [2]int{sl.Node, -1}, s)
		sw.sockGroup[s] = group(sockID, [2]int{sl.Node, sl.Socket}, s)
	}
	sw.nodeUniform = m.NodeUniform()
	sw.low, sw.scratch = make([]float64, t.N), make([]scratch, max(workers, 1))
	for k := range sw.scratch {
		sw.scratch[k].mark = make([]int32, t.N)
	}
	floors := m.Floors()
	sw.floor, sw.rise = make([]float64, len(t.Adj)), make([]float64, len(t.Adj))
	for r := int32(0); r < int32(t.N); r++ {
		for e := t.Start[r]; e < t.Start[r+1]; e++ {
			lo, apart := floors.Edge(t, e)
			sw.floor[e], sw.rise[e] = lo, apart-lo
			sw.low[r] += lo
		}
	}
	sw.uniform = make([]bool, len(sw.groups))
	if !m.PerPair() {
		for g, sl := range sw.groups {
			sw.uniform[g] = true
			for _, s := range sl {
				sw.uniform[g] = sw.uniform[g] && m.Slots[s].Socket == m.Slots[sl[0]].Socket
			}
		}
	}
	return sw
}

// groupOf is the group of slot b as seen from slot a: b's node when they
// are on different nodes, b's socket when on different sockets, else -1.
func (sw *swapper) groupOf(a, b int32) int32 {
	sa, sb := &sw.m.Slots[a], &sw.m.Slots[b]
	if sa.Node != sb.Node {
		return sw.nodeGroup[b]
	}
	if sa.Socket != sb.Socket {
		return sw.sockGroup[b]
	}
	return -1
}

// moveGain is the change of rank i's costs if it sat on slot to, leaving
// out its traffic with rank skip, and the sum of the absolute costs (the
// scale against which a change counts as real).
func (sw *swapper) moveGain(i int32, to int32, skip int32) (float64, float64) {
	t, from := sw.t, sw.place[i]
	d, abs := 0.0, 0.0
	for e := t.Start[i]; e < t.Start[i+1]; e++ {
		k := t.Adj[e]
		if k == skip {
			continue
		}
		c := sw.place[k]
		x, y := sw.m.EdgeCost(to, c, t, e), sw.m.EdgeCost(from, c, t, e)
		d += x - y
		abs += x + y
	}
	return d, abs
}

// candidateGroups returns the (up to three) node or socket groups rank i
// sends the most modelled cost to, largest first.
func (sw *swapper) candidateGroups(i int32, sc *scratch) []groupWeight {
	t, a := sw.t, sw.place[i]
	cand := sc.cand[:0]
	for e := t.Start[i]; e < t.Start[i+1]; e++ {
		b := sw.place[t.Adj[e]]
		g := sw.groupOf(a, b)
		if g < 0 {
			continue
		}
		w := sw.m.EdgeCost(a, b, t, e)
		found := false
		for x := range cand {
			if cand[x].g == g {
				cand[x].w += w
				found = true
				break
			}
		}
		if !found {
			cand = append(cand, groupWeight{g, w})
		}
	}
	sort.Slice(cand, func(x, y int) bool {
		if cand[x].w != cand[y].w {
			return cand[x].w > cand[y].w
		}
		return cand[x].g < cand[y].g
	})
	sc.cand = cand
	return cand[:min(len(cand), 3)]
}

// bestPartner returns the rank in i's candidate groups whose exchange with
// rank i lowers the modelled cost the most, or -1 when none does. It only
// reads the swapper (and writes sc), so workers call it at once. An
// exchange with a rank j that is not i's neighbour changes the cost by
// i's move plus j's, and j's move gains at most j's slack (its pairwise
// time above its least possible one) less what its traffic with ranks
// off i's node costs at least more (stayRise): j is skipped when i's
// move minus that cannot beat the best exchange so far. The skipped
// exchanges could not have been chosen, so the result is the one
// without skipping.
func (sw *swapper) bestPartner(i int32, sc *scratch) int32 {
	cand := sw.candidateGroups(i, sc)
	t, a := sw.t, sw.place[i]
	for e := t.Start[i]; e < t.Start[i+1]; e++ {
		sc.mark[t.Adj[e]] = i + 1
	}
	pwI, node := sw.ev.Pairwise(i), sw.m.Slots[a].Node
	bj, bd := int32(-1), 0.0
	for _, c := range cand {
		sl := sw.groups[c.g]
		mv := sw.prepareMove(i, sl[0], sc)
		gi, gabs := 0.0, 0.0
		if sw.uniform[c.g] {
			if rep := sw.freeSlot(i, sl, sc); rep >= 0 {
				gi, gabs = sw.moveGain(i, rep, -1)
			}
		}
		lowI := mv.low - pwI
		for _, s := range sl {
			j := sw.slotRank[s]
			if j == i || j < 0 {
				continue
			}
			var d, abs float64
			if sc.mark[j] != i+1 {
				slackJ, scale := sw.slack(j), pwI+sw.ev.Pairwise(j)
				if cannotBeat(lowI-slackJ, bd, scale) {
					continue
				}
				lowJ := sw.stayRise(j, node) - slackJ
				if cannotBeat(lowI+lowJ, bd, scale) {
					continue
				}
				di, ai := gi, gabs
				if !sw.uniform[c.g] {
					di, ai = sw.moveTo(mv, s, sc)
				}
				if cannotBeat(di+lowJ, bd, scale+math.Abs(di)) {
					continue
				}
				dj, aj := sw.moveGain(j, a, -1)
				d, abs = di+dj, ai+aj
			} else {
				di, ai := sw.moveGain(i, s, j)
				dj, aj := sw.moveGain(j, a, i)
				d, abs = di+dj, ai+aj
			}
			if d < bd && d < -1e-12*abs {
				bj, bd = j, d
			}
		}
	}
	return bj
}

// freeSlot is a slot of sl that holds no neighbour of rank i (marked in
// sc), or -1. Rank i's move to any slot of a uniform group that holds a
// rank other than its neighbours costs what its move there costs; but
// priced on a neighbour's own slot, its traffic with that neighbour
// would cost nothing (one slot), which is no slot's cost.
func (sw *swapper) freeSlot(i int32, sl []int32, sc *scratch) int32 {
	for _, s := range sl {
		if k := sw.slotRank[s]; k < 0 || sc.mark[k] != i+1 {
			return s
		}
	}
	return -1
}

// move is rank i's traffic split for moving it to the slots of one node
// (prepareMove): on a node-uniform machine, its traffic with ranks on
// other nodes costs the same from any of those slots and is summed once
// (at its cost from there, x, and from where i sits, y); the traffic with
// ranks on that node (all of it on other machines) is kept edge by edge
// in the scratch's on.
type move struct {
	x, y float64
	// low is a lower bound of i's pairwise time on any of the slots: x,
	// and the edges in on at the machine's floors.
	low float64
}

// onEdge is one of rank i's edges whose cost depends on the slot i moves
// to: the neighbour's slot, the traffic, and its cost from where i sits.
type onEdge struct {
	k, e int32
	y    float64
}

// prepareMove splits rank i's traffic for moves to the node of slot to
// (into sc.on).
func (sw *swapper) prepareMove(i, to int32, sc *scratch) move {
	t, a := sw.t, sw.place[i]
	node := sw.m.Slots[to].Node
	var mv move
	sc.on = sc.on[:0]
	for e := t.Start[i]; e < t.Start[i+1]; e++ {
		k := sw.place[t.Adj[e]]
		y := sw.m.EdgeCost(a, k, t, e)
		if sw.nodeUniform && sw.m.Slots[k].Node != node {
			mv.x += sw.m.EdgeCost(to, k, t, e)
			mv.y += y
			continue
		}
		sc.on = append(sc.on, onEdge{k, e, y})
		mv.low += sw.floor[e]
	}
	mv.low += mv.x
	return mv
}

// moveTo is moveGain(i, s, -1) from i's split traffic (prepareMove for
// s's node): the change of i's costs and the sum of the absolute costs.
func (sw *swapper) moveTo(mv move, s int32, sc *scratch) (float64, float64) {
	d, abs := mv.x-mv.y, mv.x+mv.y
	for _, o := range sc.on {
		x := sw.m.EdgeCost(s, o.k, sw.t, o.e)
		d += x - o.y
		abs += x + o.y
	}
	return d, abs
}

// stayRise is how much rank j's pairwise time rises at least, beyond its
// slack, when j moves to a slot of the given node (rank i's, whose place
// it takes; j is not i's neighbour, so its neighbours stay where they
// are): its traffic with every rank off that node then costs at least
// the floor between nodes, not the least floor its slack counts. On the
// 64,000-rank stencil of make bench-place, bounded by its traffic with
// its own node alone (what it left), 790,000 of 6.5 million exchanges
// were priced in full; none was kept.
func (sw *swapper) stayRise(j int32, node int) float64 {
	t := sw.t
	rise := 0.0
	for e := t.Start[j]; e < t.Start[j+1]; e++ {
		if sw.m.Slots[sw.place[t.Adj[e]]].Node != node {
			rise += sw.rise[e]
		}
	}
	return rise
}

// slack is how much rank r's pairwise time could fall at most.
func (sw *swapper) slack(r int32) float64 {
	return max(0, sw.ev.Pairwise(r)-sw.low[r])
}

// cannotBeat reports whether a change bounded below by lb cannot beat the
// best change bd (<= 0), with a margin for the rounding of sums of the
// given scale.
func cannotBeat(lb, bd, scale float64) bool {
	return lb > bd+1e-12*scale
}

// swap exchanges the slots of ranks i and j.
func (sw *swapper) swap(i, j int32) {
	if sw.kicking {
		sw.kicked++
	}
	sw.ev.Swap(i, j) // swaps sw.place too
	sw.slotRank[sw.place[i]] = i
	sw.slotRank[sw.place[j]] = j
}

// swapAll exchanges the slots of each pair of ranks in turn, priced
// once after the last (Evaluator.SwapAll).
func (sw *swapper) swapAll(pairs [][2]int32) {
	if sw.kicking {
		sw.kicked += len(pairs)
	}
	sw.ev.SwapAll(pairs)
	for _, p := range pairs {
		sw.slotRank[sw.place[p[0]]] = p[0]
		sw.slotRank[sw.place[p[1]]] = p[1]
	}
}
