package derate

import (
	"slices"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
)

// TestStreams: a node phase row's pair rate over the narrowest declared
// link of its route; a fan-out row's to the first host it names; rows
// of unknown hosts, to the node itself, without a pair rate, or over a
// route declaring no bandwidth give none.
func TestStreams(t *testing.T) {
	hosts := []string{"a", "b", "c"}
	bw := map[[2]int32]float64{{0, 1}: 1e9, {1, 2}: 2e9}
	rows := []survey.NodeBandwidth{
		{Host: "a", Peer: "b", PairMBps: 900},
		{Host: "b", Peer: "c" + survey.FanOutPeers + "a", PairMBps: 1000},
		{Host: "a", Peer: "c", PairMBps: 500}, // no bandwidth declared a -> c
		{Host: "a", Peer: "a", PairMBps: 500},
		{Host: "x", Peer: "a", PairMBps: 500},
		{Host: "b", Peer: "a", PairMBps: 0},
	}
	got := Streams(rows, hosts, func(a, b int32) float64 { return bw[[2]int32{a, b}] })
	if want := []float64{0.9, 0.5}; !slices.Equal(got, want) {
		t.Fatalf("streams %v, want %v", got, want)
	}
	if n := Narrowest([]int32{0, 1, 2}, func(l int32) float64 { return []float64{3, 0, 2}[l] }); n != 2 {
		t.Errorf("narrowest %g, want 2 (link 1 declares none)", n)
	}
	if n := Narrowest([]int32{1}, func(int32) float64 { return 0 }); n != 0 {
		t.Errorf("narrowest of undeclared links %g, want 0", n)
	}
}
