package model

import (
	"fmt"
	"math"
	"sort"

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
func NewTraffic(n int, flows []profile.Flow) (*Traffic, error) {
	if n < 1 {
		return nil, fmt.Errorf("communication matrix has no ranks")
	}
	type key struct{ a, b int32 }
	type val struct{ m, b, mab, ab float64 } // mab, ab: messages and bytes from a to b
	sum := make(map[key]val, len(flows))
	self := 0
	for i, f := range flows {
		if f.Src < 0 || f.Src >= n || f.Dst < 0 || f.Dst >= n {
			return nil, fmt.Errorf("flow %d (%d -> %d) names a rank outside 0..%d", i+1, f.Src, f.Dst, n-1)
		}
		if f.Bytes < 0 || f.Messages < 0 {
			return nil, fmt.Errorf("flow %d (%d -> %d) has negative bytes or messages", i+1, f.Src, f.Dst)
		}
		if f.Src == f.Dst {
			self++
			continue
		}
		if f.Bytes == 0 && f.Messages == 0 {
			continue
		}
		a, b := int32(f.Src), int32(f.Dst)
		if a > b {
			a, b = b, a
		}
		v := sum[key{a, b}]
		v.m += f.Messages
		v.b += f.Bytes
		if int(a) == f.Src {
			v.mab += f.Messages
			v.ab += f.Bytes
		}
		sum[key{a, b}] = v
	}
	deg := make([]int32, n+1)
	for k := range sum {
		deg[k.a+1]++
		deg[k.b+1]++
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
	fill := make([]int32, n)
	copy(fill, deg[:n])
	for k, v := range sum {
		for d, e := range [2][2]int32{{k.a, k.b}, {k.b, k.a}} {
			p := fill[e[0]]
			t.Adj[p], t.Msgs[p], t.Bytes[p] = e[1], v.m, v.b
			t.Out[p] = v.ab
			if d == 1 {
				t.Out[p] = v.b - v.ab
			}
			t.BusyMsgs[p], t.BusyBytes[p] = math.Max(v.mab, v.m-v.mab), math.Max(v.ab, v.b-v.ab)
			fill[e[0]]++
		}
	}
	for i := 0; i < n; i++ {
		t.sortRow(i)
	}
	return t, nil
}

type rowSorter struct {
	t    *Traffic
	s, e int
}

func (r rowSorter) Len() int           { return r.e - r.s }
func (r rowSorter) Less(i, j int) bool { return r.t.Adj[r.s+i] < r.t.Adj[r.s+j] }
func (r rowSorter) Swap(i, j int) {
	a, b := r.s+i, r.s+j
	t := r.t
	t.Adj[a], t.Adj[b] = t.Adj[b], t.Adj[a]
	t.Msgs[a], t.Msgs[b] = t.Msgs[b], t.Msgs[a]
	t.Bytes[a], t.Bytes[b] = t.Bytes[b], t.Bytes[a]
	t.Out[a], t.Out[b] = t.Out[b], t.Out[a]
	t.BusyMsgs[a], t.BusyMsgs[b] = t.BusyMsgs[b], t.BusyMsgs[a]
	t.BusyBytes[a], t.BusyBytes[b] = t.BusyBytes[b], t.BusyBytes[a]
}

func (t *Traffic) sortRow(i int) {
	sort.Sort(rowSorter{t, int(t.Start[i]), int(t.Start[i+1])})
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
