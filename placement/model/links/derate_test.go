package links

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
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
	got := StreamShares(rows, hosts, func(a, b int32) float64 { return bw[[2]int32{a, b}] })
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

// TestClassesFoundNetwork: in a network found in the round trips (every
// link at the pairs' rate), the switch phase's share of a class reprices
// it where it shows links in parallel (1.87: two global links between
// two groups) and not where it is within FoundBand of the pairs' rate
// (1.04: one link, measured by streams); a declared network's class is
// repriced at a share within 0.2-1.25 and refused above.
func TestClassesFoundNetwork(t *testing.T) {
	router := []int32{0, 0, 1, 1}
	f, why, err := fabric.NewRouterNetwork([]string{"a", "b", "c", "d"}, router, 2, [][2]int32{{0, 1}}, 0, 1e9, 1e-6, []int32{0, 1})
	if err != nil || why != "" {
		t.Fatal(err, why)
	}
	f.Source = fabric.FoundInSurvey
	price := func(share float64) (float64, []string) {
		inv := make([]float64, len(f.Links))
		for l := range inv {
			inv[l] = 1 / 1e9
		}
		notes, _ := ClassShares(f, []topo.ClassShare{{Class: fabric.ClassGlobal, Name: "group", Level: 2, Groups: 2, MeasuredMBps: 1000 * share, RoutedMBps: 1000, Share: share}}, inv)
		for l, link := range f.Links {
			if link.Class == fabric.ClassGlobal {
				return 1 / inv[l], notes
			}
		}
		t.Fatal("no global link")
		return 0, nil
	}
	if bw, notes := price(1.87); math.Abs(bw-1.87e9) > 1 {
		t.Errorf("share 1.87: global link at %g B/s, want 1.87e9 (%v)", bw, notes)
	}
	if bw, notes := price(1.04); math.Abs(bw-1e9) > 1 || len(notes) != 1 || !strings.Contains(notes[0], "stays") {
		t.Errorf("share 1.04: global link at %g B/s, want the pairs' 1e9 kept, and a note (%v)", bw, notes)
	}
	declared, err := fabric.NewDragonfly([]string{"a", "b", "c", "d"}, fabric.DragonflyShape{Groups: 2, Chassis: 1, Routers: 2, Nodes: 1, Blue: 1, Black: 1, Green: 1}, 1e9, 1e-6, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ share, want float64 }{{0.9, 0.9e9}, {1.87, 1e9}} {
		inv := slices.Repeat([]float64{1 / 1e9}, len(declared.Links))
		ClassShares(declared, []topo.ClassShare{{Class: "blue", Name: "group", Level: 1, Groups: 2, MeasuredMBps: 1000 * c.share, RoutedMBps: 1000, Share: c.share}}, inv)
		for l, link := range declared.Links {
			if link.Class == "blue" && math.Abs(1/inv[l]-c.want) > 1 {
				t.Errorf("declared, share %g: blue link at %g B/s, want %g", c.share, 1/inv[l], c.want)
			}
		}
	}
}
