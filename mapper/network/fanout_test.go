package network

import (
	"math"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
)

// TestFanOut: the median fan-out ratio over the hosts, at most the
// peers sent to; under 1.25 one link; shift rows alone say nothing.
func TestFanOut(t *testing.T) {
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
		got, note := FanOut(c.rows)
		if math.Abs(got-c.want) > 1e-9 || !strings.Contains(note, c.note) {
			t.Errorf("%+v: %g (%q), want %g (%q)", c.rows, got, note, c.want, c.note)
		}
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
}
