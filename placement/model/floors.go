package model

import (
	"math"

	"github.com/latmap/latmap/placement/model/sweepcurve"
)

// Floors bound a machine's edge costs from below, so that the solver can
// skip exchanges that cannot win: the least latency and the least
// inverse bandwidth of any pair of slots on one node (on) and of any pair
// on two different nodes (apart), not necessarily of the same pair.
type Floors struct {
	m         *Machine
	on, apart LinkCost
}

// Floors are m's least links on a node and between nodes (+Inf where m
// has no such pair).
func (m *Machine) Floors() Floors {
	inf := LinkCost{math.Inf(1), math.Inf(1)}
	f := Floors{m: m, on: inf, apart: inf}
	take := func(c *LinkCost, lat, invB float64) {
		c.Latency, c.InvBandwidth = min(c.Latency, lat), min(c.InvBandwidth, invB)
	}
	takeAll := func(c *LinkCost, t linkTable) {
		for i := range t.lat {
			take(c, float64(t.lat[i]), float64(t.invB[i]))
		}
	}
	switch {
	case m.dense != nil:
		d := m.dense
		node := make([]int, d.n) // the slots' nodes, packed: 33 million pairs at 8,192 slots
		for a := range node {
			node[a] = m.Slots[a].Node
		}
		i := 0 // the packed triangle's index of (a, b), a < b, row by row
		for a := 0; a < d.n; a++ {
			for b := a + 1; b < d.n; b++ {
				c := &f.apart
				if node[a] == node[b] {
					c = &f.on
				}
				take(c, float64(d.lat[i]), float64(d.invB[i]))
				i++
			}
		}
	case m.nodes != nil:
		takeAll(&f.apart, m.nodes.inter)
		for _, t := range m.nodes.intra {
			takeAll(&f.on, t)
		}
	default:
		for l, c := range m.Levels {
			if Level(l) <= SameNode {
				take(&f.on, c.Latency, c.InvBandwidth)
			} else {
				take(&f.apart, c.Latency, c.InvBandwidth)
			}
		}
	}
	return f
}

// Edge bounds EdgeCost(a, b, t, e) from below: any on any two distinct
// slots, apart on any two slots of different nodes (+Inf where the
// machine has no two nodes). It prices the edge as EdgeCost does (both
// directions on a node, the busier one between nodes, the latency
// between nodes scaled) at the floors' links and the size sweep's least
// factor for the edge's mean message size: a sweep may price a size
// below the line through the survey's sizes.
func (f Floors) Edge(t *Traffic, e int32) (any, apart float64) {
	m := f.m
	on := math.Inf(1)
	if !math.IsInf(f.on.Latency, 1) {
		on = f.on.Cost(t.Msgs[e], t.Bytes[e]) * min(m.kindFactor(sweepcurve.Socket, t.Msgs[e], t.Bytes[e]), m.kindFactor(sweepcurve.Node, t.Msgs[e], t.Bytes[e]))
	}
	apart = math.Inf(1)
	if !math.IsInf(f.apart.Latency, 1) {
		apart = f.apart.Cost(t.BusyMsgs[e]*m.netLatencyScale(), t.BusyBytes[e]) * m.kindFactor(sweepcurve.Network, t.BusyMsgs[e], t.BusyBytes[e])
	}
	return min(on, apart), apart
}
