package links

import (
	"math"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
)

// TestShiftRows: the shift steps' rows only, not the fan-out's or the
// both-ways row.
func TestShiftRows(t *testing.T) {
	shift := survey.NodeBandwidth{Host: "a", Peer: "b", Ranks: 4, AggregateMBps: 100}
	fan := survey.NodeBandwidth{Host: "a", Peer: "b+c", Ranks: 4, AggregateMBps: 400, PairMBps: 100}
	both := survey.NodeBandwidth{Host: "a", Peer: survey.BothWaysPeer + "b", Ranks: 1, AggregateMBps: 1000, PairMBps: 1050}
	if got := ShiftRows([]survey.NodeBandwidth{shift, fan, both}); len(got) != 1 || got[0] != shift {
		t.Errorf("ShiftRows kept %+v", got)
	}
}

// TestSpread: node 0 of four on a line (round trips 1, 2, 3 to nodes 1,
// 2, 3) has node 1 near; with 4 ports its bytes to node 1 go over one
// link (one near node), and bytes to nodes 2 and 3 count whole; on a ring
// where nodes 1 and 3 are both near, equal bytes to both go over two.
func TestSpread(t *testing.T) {
	line := func(a, b int) float64 { return math.Abs(float64(a - b)) }
	sp := NewSpread(4, Near(4, line))
	sp.Add(0, 1, 100)
	sp.Add(0, 2, 50)
	if got := sp.Out(0, 150); got != 150 {
		t.Errorf("line: %g bytes on one link, want 150", got)
	}
	ring := func(a, b int) float64 { d := math.Abs(float64(a - b)); return math.Min(d, 4-d) }
	sp = NewSpread(4, Near(4, ring))
	sp.Add(0, 1, 100)
	sp.Add(0, 3, 100)
	sp.Add(0, 2, 30)
	if got := sp.Out(0, 230); got != 130 {
		t.Errorf("ring: %g bytes on one link, want 100 (over two links) + 30", got)
	}
	if got := sp.In(1, 100); got != 100 {
		t.Errorf("ring: node 1 receives %g on one link, want 100 (from one node)", got)
	}
	sp.Add(0, 3, -100) // removed: one near node left
	if got := sp.Out(0, 130); got != 130 {
		t.Errorf("ring after removal: %g, want 130", got)
	}
}
