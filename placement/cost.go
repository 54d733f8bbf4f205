package placement

import (
	"runtime"
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
						s += m.pairCost(a, place[j], t.Msgs[e], t.Bytes[e])
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
			out[i] += m.pairCost(a, place[t.Adj[e]], t.Msgs[e], t.Bytes[e])
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
	nodes := m.nodeGroups(slots)
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
