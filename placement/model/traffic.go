package model

import (
	"fmt"
	"math"
	"slices"

	"github.com/latmap/latmap/mapper/profile"
)

// Traffic is the symmetrised communication graph of an application in
// compressed sparse row form: rank i's neighbours are
// Adj[Start[i]:Start[i+1]] (ascending), and Msgs and Bytes hold the traffic
// of both directions added together. Self traffic is dropped.
type Traffic struct {
	N     int
	Start []int32
	Adj   []int32
	Msgs  []float64
	Bytes []float64
	// Out is the part of Bytes that rank i sends to Adj[e] (the rest it
	// receives), for the node link model.
	Out []float64
	// BusyMsgs and BusyBytes are what a pair's link is priced on: the
	// messages and the bytes of the busier direction. MPI moves the two
	// directions of a pair at once over full-duplex links (a Sendrecv, or
	// an Isend and Irecv pair), so an exchange of equal halves costs one
	// half, and a one-way flow all of it.
	BusyMsgs, BusyBytes []float64
	// SelfFlows counts the diagonal entries that were ignored.
	SelfFlows int
}

// NewTraffic builds the symmetrised graph of n ranks from directed flows.
// Flows naming a rank outside 0..n-1 or with a negative value are errors;
// duplicates are added; self traffic is ignored and counted.
//
// The flows are bucketed by their lower rank and each bucket ordered by
// the higher one (stably, so a pair's duplicates add up in the order
// given): the pairs then come out in ascending order, which fills every
// row ascending. A map of pairs took 0.13 s of place's 1.0 s on a
// 64,000-rank stencil (make bench-place).
func NewTraffic(n int, flows []profile.Flow) (*Traffic, error) {
	if n < 1 {
		return nil, fmt.Errorf("communication matrix has no ranks")
	}
	first, order, self, err := byLowerRank(n, flows)
	if err != nil {
		return nil, err
	}
	high := func(i int32) int { return max(flows[i].Src, flows[i].Dst) }
	type pair struct {
		a, b                         int32
		msgs, bytes, abMsgs, abBytes float64 // abMsgs, abBytes: from a to b
	}
	pairs := make([]pair, 0, len(order)/2+1) // a pair is most often two flows
	deg := make([]int32, n+1)
	for a := 0; a < n; a++ {
		bucket := order[first[a]:first[a+1]]
		slices.SortStableFunc(bucket, func(x, y int32) int { return high(x) - high(y) })
		for _, i := range bucket {
			f := flows[i]
			b := int32(high(i))
			if len(pairs) == 0 || pairs[len(pairs)-1].a != int32(a) || pairs[len(pairs)-1].b != b {
				pairs = append(pairs, pair{a: int32(a), b: b})
				deg[a+1]++
				deg[b+1]++
			}
			p := &pairs[len(pairs)-1]
			p.msgs += f.Messages
			p.bytes += f.Bytes
			if f.Src == a {
				p.abMsgs += f.Messages
				p.abBytes += f.Bytes
			}
		}
	}
	for i := 1; i <= n; i++ {
		deg[i] += deg[i-1]
	}
	t := &Traffic{N: n, Start: deg, SelfFlows: self}
	m := int(deg[n])
	t.Adj = make([]int32, m)
	t.Msgs = make([]float64, m)
	t.Bytes = make([]float64, m)
	t.Out = make([]float64, m)
	t.BusyMsgs = make([]float64, m)
	t.BusyBytes = make([]float64, m)
	fill := append([]int32(nil), deg[:n]...)
	for _, v := range pairs {
		for d, e := range [2][2]int32{{v.a, v.b}, {v.b, v.a}} {
			p := fill[e[0]]
			t.Adj[p], t.Msgs[p], t.Bytes[p] = e[1], v.msgs, v.bytes
			t.Out[p] = v.abBytes
			if d == 1 {
				t.Out[p] = v.bytes - v.abBytes
			}
			t.BusyMsgs[p], t.BusyBytes[p] = math.Max(v.abMsgs, v.msgs-v.abMsgs), math.Max(v.abBytes, v.bytes-v.abBytes)
			fill[e[0]]++
		}
	}
	return t, nil
}

// byLowerRank checks the flows and buckets the indices of those that
// carry traffic between two ranks by their lower rank, in the order
// given: bucket a is order[first[a]:first[a+1]]. self counts the flows
// of a rank to itself.
func byLowerRank(n int, flows []profile.Flow) (first, order []int32, self int, err error) {
	first = make([]int32, n+1)
	for i, f := range flows {
		if f.Src < 0 || f.Src >= n || f.Dst < 0 || f.Dst >= n {
			return nil, nil, 0, fmt.Errorf("flow %d (%d -> %d) names a rank outside 0..%d", i+1, f.Src, f.Dst, n-1)
		}
		if f.Bytes < 0 || f.Messages < 0 {
			return nil, nil, 0, fmt.Errorf("flow %d (%d -> %d) has negative bytes or messages", i+1, f.Src, f.Dst)
		}
		if f.Src == f.Dst {
			self++
			continue
		}
		if f.Bytes == 0 && f.Messages == 0 {
			continue
		}
		first[min(f.Src, f.Dst)+1]++
	}
	for a := 1; a <= n; a++ {
		first[a] += first[a-1]
	}
	order = make([]int32, first[n])
	fill := append([]int32(nil), first[:n]...)
	for i, f := range flows {
		if f.Src != f.Dst && (f.Bytes != 0 || f.Messages != 0) {
			a := min(f.Src, f.Dst)
			order[fill[a]] = int32(i)
			fill[a]++
		}
	}
	return first, order, self, nil
}

// Pairs is the number of communicating unordered rank pairs.
func (t *Traffic) Pairs() int { return len(t.Adj) / 2 }

// Totals returns the messages and bytes of all pairs (both directions).
func (t *Traffic) Totals() (msgs, bytes float64) {
	for i := range t.Adj {
		msgs += t.Msgs[i]
		bytes += t.Bytes[i]
	}
	return msgs / 2, bytes / 2
}

// TrafficFromProfile builds the graph from a profile's matrix.csv.
func TrafficFromProfile(p *profile.Profile) (*Traffic, error) {
	flows := make([]profile.Flow, len(p.Matrix))
	for i, m := range p.Matrix {
		flows[i] = profile.Flow{Src: m.Src, Dst: m.Dst, Bytes: float64(m.Bytes), Messages: float64(m.Messages)}
	}
	return NewTraffic(len(p.Ranks), flows)
}
