package ports

import (
	"math"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
)

// TestFromRows: the median fan-out ratio over the hosts, at most the
// peers sent to; under 1.25 one link; shift rows alone say nothing.
func TestFromRows(t *testing.T) {
	shift := survey.NodeBandwidth{Host: "a", Peer: "b", Ranks: 4, AggregateMBps: 100}
	fan := func(agg float64, peers string) survey.NodeBandwidth {
		return survey.NodeBandwidth{Host: "a", Peer: peers, Ranks: 4, AggregateMBps: agg, PairMBps: 100}
	}
	for _, c := range []struct {
		rows []survey.NodeBandwidth
		want float64
		note string
	}{
		{[]survey.NodeBandwidth{shift}, 1, ""},
		{[]survey.NodeBandwidth{shift, fan(390, "b+c+d+e"), fan(410, "b+c+d+e"), fan(200, "b+c+d+e")}, 3.9, "3.90x"},
		{[]survey.NodeBandwidth{fan(900, "b+c")}, 2, "2.00x"},
		{[]survey.NodeBandwidth{fan(110, "b+c+d+e")}, 1, "one link each"},
	} {
		got, note := FromRows(c.rows)
		if math.Abs(got-c.want) > 1e-9 || !strings.Contains(note, c.note) {
			t.Errorf("%+v: %g (%q), want %g (%q)", c.rows, got, note, c.want, c.note)
		}
	}
	if got := ShiftRows([]survey.NodeBandwidth{shift, fan(400, "b+c")}); len(got) != 1 || got[0] != shift {
		t.Errorf("ShiftRows kept %+v", got)
	}
}

// TestSpread: node 0 of four on a line (round trips 1, 2, 3 to nodes 1,
// 2, 3) has node 1 near; with 4 ports its bytes to node 1 go over one
// link (one near node), and bytes to nodes 2 and 3 count whole; on a ring
// where nodes 1 and 3 are both near, equal bytes to both go over two.
func TestSpread(t *testing.T) {
	line := func(a, b int) float64 { return math.Abs(float64(a - b)) }
	sp := New(4, Near(4, line))
	sp.Add(0, 1, 100)
	sp.Add(0, 2, 50)
	if got := sp.Out(0, 150); got != 150 {
		t.Errorf("line: %g bytes on one link, want 150", got)
	}
	ring := func(a, b int) float64 { d := math.Abs(float64(a - b)); return math.Min(d, 4-d) }
	sp = New(4, Near(4, ring))
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

// TestReverse: the both-ways row's one-way rate over its rate each way,
// less one; under MinReverse nothing, at most 1; no row, no note. The
// row is no shift step's.
func TestReverse(t *testing.T) {
	row := func(each, alone float64) survey.NodeBandwidth {
		return survey.NodeBandwidth{Host: "a", Peer: survey.BothWaysPeer + "b", Ranks: 1, Size: 1, Messages: 1, AggregateMBps: each, PairMBps: alone}
	}
	shift := survey.NodeBandwidth{Host: "a", Peer: "b", Ranks: 1, Size: 1, Messages: 1, AggregateMBps: 500, PairMBps: 500}
	for _, c := range []struct {
		rows []survey.NodeBandwidth
		want float64
		note string
	}{
		{[]survey.NodeBandwidth{shift, row(1000, 1050)}, 0.05, "priced as carrying 5% of its bytes"},
		{[]survey.NodeBandwidth{row(1000, 1010)}, 0, "within 2%"},
		{[]survey.NodeBandwidth{row(1000, 990)}, 0, "within 2%"},
		{[]survey.NodeBandwidth{row(300, 1000)}, 1, "priced as carrying 100% of its bytes"},
		{[]survey.NodeBandwidth{shift}, 0, ""},
	} {
		got, note := Reverse(c.rows)
		if math.Abs(got-c.want) > 1e-9 || c.note == "" && note != "" || !strings.Contains(note, c.note) {
			t.Errorf("%+v: %g, %q; want %g, %q", c.rows, got, note, c.want, c.note)
		}
	}
	if got := ShiftRows([]survey.NodeBandwidth{shift, row(1000, 1050)}); len(got) != 1 || got[0] != shift {
		t.Errorf("ShiftRows kept %+v, want the shift row alone", got)
	}
}
