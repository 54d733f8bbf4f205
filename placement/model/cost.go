package model

import (
	"runtime"
	"sort"
	"sync"
)

// Cost is the modelled transfer time of a placement (place[rank] = slot):
// the sum over communicating rank pairs of messages*L + bytes/B of the two
// slots, both directions included.
func (m *Machine) Cost(t *Traffic, place []int32) float64 {
	workers := runtime.GOMAXPROCS(0)
	if t.N < 4096 {
		workers = 1
	}
	part := make([]float64, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s := 0.0
			for i := w; i < t.N; i += workers {
				a := place[i]
				for e := t.Start[i]; e < t.Start[i+1]; e++ {
					j := t.Adj[e]
					if int(j) > i {
						s += m.EdgeCost(a, place[j], t, e)
					}
				}
			}
			part[w] = s
		}(w)
	}
	wg.Wait()
	sum := 0.0
	for _, s := range part {
		sum += s
	}
	return sum
}

// RankTransfer is each rank's modelled transfer time: the cost of all the
// traffic it sends and receives.
func (m *Machine) RankTransfer(t *Traffic, place []int32) []float64 {
	out := make([]float64, t.N)
	for i := 0; i < t.N; i++ {
		a := place[i]
		for e := t.Start[i]; e < t.Start[i+1]; e++ {
			out[i] += m.EdgeCost(a, place[t.Adj[e]], t, e)
		}
	}
	return out
}

// Block places rank r on the r-th chosen slot: nodes filled one after the
// other (slots as SelectSlots orders them).
func Block(slots []int32, n int) []int32 {
	return append([]int32(nil), slots[:n]...)
}

// Cyclic deals ranks round-robin over the nodes of the chosen slots:
// rank 0 on the first node, rank 1 on the second, ...; a full node is
// skipped.
func (m *Machine) Cyclic(slots []int32, n int) []int32 {
	nodes := m.NodeGroups(slots)
	out := make([]int32, 0, n)
	next := make([]int, len(nodes))
	for len(out) < n {
		for k := range nodes {
			if len(out) == n {
				break
			}
			if next[k] < len(nodes[k]) {
				out = append(out, nodes[k][next[k]])
				next[k]++
			}
		}
	}
	return out
}

// groupSlots groups slots by key, groups in order of first appearance,
// slots in their order; keys[i] is group i's key.
func groupSlots(slots []int32, key func(int32) int) (groups [][]int32, keys []int) {
	idx := map[int]int{}
	for _, s := range slots {
		k := key(s)
		g, ok := idx[k]
		if !ok {
			g = len(groups)
			idx[k] = g
			groups = append(groups, nil)
			keys = append(keys, k)
		}
		groups[g] = append(groups[g], s)
	}
	return groups, keys
}

// NodeGroups groups slots by node, keeping their order.
func (m *Machine) NodeGroups(slots []int32) [][]int32 {
	g, _ := groupSlots(slots, func(s int32) int { return m.Slots[s].Node })
	return g
}

// SocketGroups splits one node's slots by socket (ascending socket).
func (m *Machine) SocketGroups(slots []int32) [][]int32 {
	groups, keys := groupSlots(slots, func(s int32) int { return m.Slots[s].Socket })
	sort.Sort(groupsByKey{keys, groups})
	return groups
}

type groupsByKey struct {
	keys   []int
	groups [][]int32
}

func (g groupsByKey) Len() int           { return len(g.keys) }
func (g groupsByKey) Less(i, j int) bool { return g.keys[i] < g.keys[j] }
func (g groupsByKey) Swap(i, j int) {
	g.keys[i], g.keys[j] = g.keys[j], g.keys[i]
	g.groups[i], g.groups[j] = g.groups[j], g.groups[i]
}
