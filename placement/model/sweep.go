package model

import (
	"cmp"
	"slices"

	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/sweep"
	"github.com/latmap/latmap/placement/model/sweepcurve"
)

// sizeKind is the kind of slots a and b for the size sweep's curve.
func (m *Machine) sizeKind(a, b int32) int {
	sa, sb := &m.Slots[a], &m.Slots[b]
	switch {
	case sa.Node != sb.Node:
		return sweepcurve.Network
	case sa.Socket >= 0 && sa.Socket == sb.Socket:
		return sweepcurve.Socket
	}
	return sweepcurve.Node
}

// sizeFactor is the size sweep's factor on msgs messages of bytes bytes
// in all between slots a and b (1 without a sweep).
func (m *Machine) sizeFactor(a, b int32, msgs, bytes float64) float64 {
	if m.edge.sizes == nil { // no kind to find
		return 1
	}
	return m.kindFactor(m.sizeKind(a, b), msgs, bytes)
}

// kindFactor is the size sweep's factor on msgs messages of bytes bytes
// in all between two slots of the given kind (sweepcurve.Socket, Node or
// Network; 1 without a sweep).
func (m *Machine) kindFactor(kind int, msgs, bytes float64) float64 {
	if m.edge.sizes == nil || !(msgs > 0) {
		return 1
	}
	return m.edge.sizes.Factor(kind, bytes/msgs)
}

// SizeSource says where messages between the survey's sizes are priced
// from: the size sweep, or "" (the line through the survey's sizes).
func (m *Machine) SizeSource() string { return m.edge.sizes.Source() }

// applySweep builds the size curve (placement/model/sweepcurve) from s's
// sweep once the pairs are priced: each swept pair's measured one-way
// times and its line's, by size.
func (m *Machine) applySweep(s *survey.Survey) {
	rows := slices.Clone(s.Sweep)
	slices.SortFunc(rows, func(x, y sweep.Row) int { return cmp.Or(x.A-y.A, x.B-y.B, x.Size-y.Size) })
	var pairs []sweepcurve.Pair
	for i, r := range rows {
		if max(r.A, r.B) >= len(m.Slots) || r.A == r.B {
			continue
		}
		a, b := int32(r.A), int32(r.B)
		if i == 0 || rows[i-1].A != r.A || rows[i-1].B != r.B {
			pairs = append(pairs, sweepcurve.Pair{Kind: m.sizeKind(a, b)})
		}
		p := &pairs[len(pairs)-1]
		p.Sizes = append(p.Sizes, float64(r.Size))
		p.Measured = append(p.Measured, r.MedianUs*0.5e-6)
		p.Line = append(p.Line, m.PairCost(a, b, 1, float64(r.Size)))
	}
	m.edge.sizes = sweepcurve.New(pairs, s.Sizes())
}

// wireFactors is, for each edge of t, the factor on the bytes it puts on
// the links between nodes (node links, switch uplinks, routed links):
// the size sweep's wire factor between nodes at the edge's mean message
// size (sweepcurve.Curve.Wire). nil without a sweep.
func (m *Machine) wireFactors(t *Traffic) []float64 {
	if m.edge.sizes == nil {
		return nil
	}
	out := make([]float64, len(t.Adj))
	for e := range out {
		out[e] = 1
		if msgs := t.Msgs[e]; msgs > 0 {
			out[e] = m.edge.sizes.Wire(sweepcurve.Network, t.Bytes[e]/msgs)
		}
	}
	return out
}
