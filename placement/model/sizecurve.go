package model

import (
	"slices"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/placement/model/sizes"
)

// sizeKind is the kind of slots a and b for the size sweep's curve.
func (m *Machine) sizeKind(a, b int32) int {
	sa, sb := &m.Slots[a], &m.Slots[b]
	switch {
	case sa.Node != sb.Node:
		return sizes.Network
	case sa.Socket >= 0 && sa.Socket == sb.Socket:
		return sizes.Socket
	}
	return sizes.Node
}

// sizeFactor is the size sweep's factor on msgs messages of bytes bytes
// in all between slots a and b (1 without a sweep).
func (m *Machine) sizeFactor(a, b int32, msgs, bytes float64) float64 {
	if m.edge.sizes == nil || !(msgs > 0) {
		return 1
	}
	return m.edge.sizes.Factor(m.sizeKind(a, b), bytes/msgs)
}

// SizeSource says where messages between the survey's sizes are priced
// from: the size sweep, or "" (the line through the survey's sizes).
func (m *Machine) SizeSource() string { return m.edge.sizes.Source() }

// applySweep builds the size curve (placement/model/sizes) from s's
// sweep once the pairs are priced: at each size, the median over the
// sweep's pairs of a kind of their measured one-way time over their line.
func (m *Machine) applySweep(s *survey.Survey) {
	type key struct{ kind, size int }
	ratios := map[key][]float64{}
	for _, r := range s.Sweep {
		if max(r.A, r.B) >= len(m.Slots) || r.A == r.B {
			continue
		}
		a, b := int32(r.A), int32(r.B)
		if line := m.PairCost(a, b, 1, float64(r.Size)); line > 0 {
			k := key{m.sizeKind(a, b), r.Size}
			ratios[k] = append(ratios[k], r.MedianUs*0.5e-6/line)
		}
	}
	var rs sizes.Ratios
	for k := range ratios {
		rs.Sizes[k.kind] = append(rs.Sizes[k.kind], float64(k.size))
	}
	for kind := range rs.Sizes {
		slices.Sort(rs.Sizes[kind])
		for _, x := range rs.Sizes[kind] {
			rs.Ratio[kind] = append(rs.Ratio[kind], stats.Median(ratios[key{kind, int(x)}]))
		}
	}
	m.edge.sizes = sizes.New(rs, s.Sizes())
}
