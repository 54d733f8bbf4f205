package model

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/survey"
)

// nodeCost prices a sparse survey node pair by node pair: each pair of
// slots inside a node has its own measured cost, and every pair of slots
// on two different nodes the cost measured between those nodes, by the
// survey's one rule for them (survey.CrossNodeMedians: the leaders' pair
// in a nodes survey, the median of the measured pairs in sample:K, which
// here speaks for the measured pairs too). It holds what a dense table filled from the node leaders
// holds, in memory proportional to the pairs inside the nodes plus the
// node pairs: 16 MB instead of 270 MB at 4,096 ranks.
type nodeCost struct {
	// node and local are each slot's node and index among its node's
	// slots (copied from the slots: the solver's inner loop reads them).
	node, local []int32
	// intra is each node's packed triangle of its slots' pairs.
	intra []linkTable
	// inter is the packed triangle of the node pairs.
	inter linkTable
}

// linkTable is a packed triangle of costs over n members.
type linkTable struct {
	n         int
	lat, invB []float32
	measured  []bool
}

func newLinkTable(n int) linkTable {
	t := survey.TriLen(n)
	return linkTable{n: n, lat: make([]float32, t), invB: make([]float32, t), measured: make([]bool, t)}
}

func (t *linkTable) at(a, b int) LinkCost {
	i := survey.TriIndex(t.n, a, b)
	return LinkCost{float64(t.lat[i]), float64(t.invB[i])}
}

func (t *linkTable) set(i int, c LinkCost) {
	t.lat[i], t.invB[i], t.measured[i] = float32(c.Latency), float32(c.InvBandwidth), true
}

// link is the cost between slots a and b (a != b).
func (nc *nodeCost) link(a, b int) LinkCost {
	na, nb := nc.node[a], nc.node[b]
	if na != nb {
		return nc.inter.at(int(na), int(nb))
	}
	return nc.intra[na].at(int(nc.local[a]), int(nc.local[b]))
}

// nodeCosts prices a sparse survey's measured pairs as measuredCosts
// does, into a nodeCost: pairs inside a node one by one, pairs between
// two nodes as one node pair weighing as many slot pairs as the nodes
// have, so that the levels' medians are those of the filled table. The
// pairs nothing measured get their level's median (fillNodeCost).
func (m *Machine) nodeCosts(s *survey.Survey, fits map[int]LinkCost, bw Bandwidths) (*nodeCost, *pairCosts) {
	n := s.N()
	nc := &nodeCost{node: make([]int32, n), local: make([]int32, n), intra: make([]linkTable, len(m.Hosts)), inter: newLinkTable(len(m.Hosts))}
	per := make([]int, len(m.Hosts))
	for r := range m.Slots {
		h := m.Slots[r].Node
		nc.node[r], nc.local[r] = int32(h), int32(per[h])
		per[h]++
	}
	for h, k := range per {
		nc.intra[h] = newLinkTable(k)
	}
	m.countLevelPairs()
	pc := m.newPairCosts(n)
	pc.levW = make([][]float64, m.NumLevels())
	tab := s.Tables[0]
	pc.reserve(m.LevelPairs, tab.Len())
	parts := nodeCostParts(tab.Len())
	out := make([]nodePart, parts)
	var wg sync.WaitGroup
	for p := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.nodeCostPart(&out[p], nc, tab, p, parts, fits, bw, per)
		}()
	}
	wg.Wait()
	// The parts in order: the lists are those of one walk of the table.
	segs := make([][]nodeCross, parts)
	for p := range out {
		o := &out[p]
		for l := range o.lat {
			for x := range o.lat[l] {
				pc.add(Level(l), LinkCost{o.lat[l][x], o.invB[l][x]}, 1)
			}
			m.LevelMeasured[l] += len(o.lat[l])
		}
		m.FitLatencyFromRTT += o.fromRTT
		m.FitNoBandwidth += o.noBW
		segs[p] = o.between
	}
	m.nodePairCosts(nc, pc, per, segs)
	return nc, pc
}

// nodePairCosts prices the node pairs: the median of each node pair's
// measured pairs (segs, one after another, are a walk of the survey's
// table; a survey of the nodes' leaders in rank order has them in order,
// one each, and they are read in place, not copied into one list).
func (m *Machine) nodePairCosts(nc *nodeCost, pc *pairCosts, per []int, segs [][]nodeCross) {
	byNode := func(x, y nodeCross) int { return cmp.Compare(x.key(), y.key()) }
	inOrder := true
	for p, seg := range segs {
		inOrder = inOrder && slices.IsSortedFunc(seg, byNode) && (p == 0 || len(seg) == 0 || len(segs[p-1]) == 0 || segs[p-1][len(segs[p-1])-1].key() <= seg[0].key())
	}
	if !inOrder {
		all := slices.Concat(segs...)
		slices.SortStableFunc(all, byNode)
		segs = [][]nodeCross{all}
	}
	var lat, ib []float64
	var first nodeCross
	flush := func() {
		if len(lat) == 0 {
			return
		}
		c := LinkCost{stats.MedianInPlace(lat), stats.MedianInPlace(ib)}
		nc.inter.set(survey.TriIndex(len(per), int(first.h), int(first.g)), c)
		w := per[first.h] * per[first.g]
		l := Level(first.level)
		pc.add(l, c, float64(w))
		m.LevelMeasured[l] += w
		m.LeaderFilled += w - len(lat)
		lat, ib = lat[:0], ib[:0]
	}
	for _, seg := range segs {
		for _, x := range seg {
			if len(lat) > 0 && x.key() != first.key() {
				flush()
			}
			if len(lat) == 0 {
				first = x
			}
			lat, ib = append(lat, x.c.Latency), append(ib, x.c.InvBandwidth)
		}
	}
	flush()
}

// nodeCross is a measured pair of slots on two nodes: the nodes, the
// pair's level and its cost.
type nodeCross struct {
	h, g  int32 // h < g
	level int32
	c     LinkCost
}

// key orders node pairs as their index in the packed triangle does
// (survey.TriIndex is increasing in h, then g): a field of 8 bytes less
// a pair, 67 MB of the 8.4 million leader pairs of 4,096 nodes.
func (x nodeCross) key() int64 { return int64(x.h)<<32 | int64(x.g) }

// nodePart is what nodeCostPart found in its part of a survey's table:
// the pairs between nodes, and the costs of the pairs inside nodes by
// level, with the fits' counts (Machine.priceOne's).
type nodePart struct {
	between       []nodeCross
	lat, invB     [][]float64
	fromRTT, noBW int
}

// nodeCostPairs is how many measured pairs a part of nodeCosts reads, at
// least: below, one goroutine reads them all.
var nodeCostPairs = 1 << 20

// nodeCostParts is how many parts nodeCosts reads a table of rows in.
func nodeCostParts(rows int) int {
	return max(1, min(maxProcs(), rows/nodeCostPairs))
}

// maxProcs is how many goroutines run at once.
func maxProcs() int { return runtime.GOMAXPROCS(0) }

// nodeCostPart prices part p of parts of tab's pairs into o: each pair
// inside a node into nc.intra (every pair its own entry, so parts write
// apart) and o's level lists, each pair between nodes into o.between.
func (m *Machine) nodeCostPart(o *nodePart, nc *nodeCost, tab *survey.PairTable, p, parts int, fits map[int]LinkCost, bw Bandwidths, per []int) {
	n := tab.N
	vals := tab.Values[rttMetric(tab)]
	o.lat, o.invB = make([][]float64, m.NumLevels()), make([][]float64, m.NumLevels())
	// Room for every pair at once: grown by appends, the 8 million leader
	// pairs of a 4,096-node survey allocated 2.2 GB, and the 2 million
	// pairs inside 1,000 nodes of 64 cores 170 MB for 32.
	rows := tab.Len()/parts + 1
	o.between = make([]nodeCross, 0, rows)
	for _, l := range []Level{SameSocket, SameNode} {
		k := min(m.LevelPairs[l], rows)
		o.lat[l], o.invB[l] = make([]float64, 0, k), make([]float64, 0, k)
	}
	tab.EachPart(p, parts, func(a, b, i int) {
		l := m.Level(a, b)
		c, ok := priceFit(l, fits, survey.TriIndex(n, a, b), float64(vals[i]), bw, &o.fromRTT, &o.noBW)
		if !ok {
			return
		}
		na, nb := m.Slots[a].Node, m.Slots[b].Node
		if na == nb {
			nc.intra[na].set(survey.TriIndex(per[na], int(nc.local[a]), int(nc.local[b])), c)
			o.lat[l], o.invB[l] = append(o.lat[l], c.Latency), append(o.invB[l], c.InvBandwidth)
			return
		}
		o.between = append(o.between, nodeCross{int32(min(na, nb)), int32(max(na, nb)), int32(l), c})
	})
}

// fillNodeCost gives every pair nothing measured its level's cost and
// counts its slot pairs in m.Filled.
func (m *Machine) fillNodeCost(nc *nodeCost) {
	per := make([]int, len(nc.intra))
	for h := range nc.intra {
		per[h] = nc.intra[h].n
	}
	slotOf := make([][]int, len(per)) // each node's slots by local index
	for r := range m.Slots {
		slotOf[m.Slots[r].Node] = append(slotOf[m.Slots[r].Node], r)
	}
	for h := range nc.intra {
		t := &nc.intra[h]
		for a := 0; a < t.n; a++ {
			for b := a + 1; b < t.n; b++ {
				if i := survey.TriIndex(t.n, a, b); !t.measured[i] {
					m.Filled++
					t.set(i, m.Levels[m.Level(slotOf[h][a], slotOf[h][b])])
				}
			}
		}
	}
	t := &nc.inter
	for a := 0; a < t.n; a++ {
		for b := a + 1; b < t.n; b++ {
			if i := survey.TriIndex(t.n, a, b); !t.measured[i] {
				m.Filled += per[a] * per[b]
				t.set(i, m.Levels[m.nodeLevel(a, b)])
			}
		}
	}
}

// median is the median of level l's list (reordered), weighed by levW when
// there are weights: the median of the list with each entry repeated as
// many times as its weight. The weights are reordered with the list in a
// copy: the lists of latencies and of bandwidths share them. Where every
// weight is one whole number (a survey's node pairs, each of as many rank
// pairs: its nodes' ranks), that is the list's own median.
func (pc *pairCosts) median(list [][]float64, l Level) float64 {
	if pc.levW == nil || len(pc.levW[l]) == 0 {
		return stats.MedianInPlace(list[l])
	}
	w := pc.levW[l]
	if c := w[0]; c >= 1 && c == math.Trunc(c) && !slices.ContainsFunc(w, func(x float64) bool { return x != c }) {
		return stats.MedianInPlace(list[l])
	}
	return stats.WeightedMedianInPlace(list[l], slices.Clone(w))
}
