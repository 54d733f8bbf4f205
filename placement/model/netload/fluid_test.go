package netload

import (
	"math"
	"testing"
)

// TestFluidLeavesTheBusiestLinkIdle: link X carries flows A and D (1
// byte each, 1 byte/s), each also crossing a link (Y1, Y2) it shares
// with a flow of one link (C1, C2: 0.9 bytes). The busiest link, X,
// bounds the run at 2 s; but A and D cross two links each, so Y1 and Y2
// give them a third of a byte a second against C's two thirds (weighted
// max-min), and X runs at 2/3 until C ends at 1.35 s. A and D then
// share X: 0.55 bytes each at 0.5, ending at 2.45 s.
func TestFluidLeavesTheBusiestLinkIdle(t *testing.T) {
	const x, y1, y2 = 0, 1, 2
	routes := map[[2]int32][]int32{{0, 1}: {x, y1}, {2, 3}: {x, y2}, {4, 5}: {y1}, {6, 7}: {y2}}
	tb := &Table{K: 8, NL: 3, Inv: []float64{1, 1, 1}, Start: make([]int32, 8*8+1)}
	for i := range 8 * 8 {
		tb.Links = append(tb.Links, routes[[2]int32{int32(i / 8), int32(i % 8)}]...)
		tb.Start[i+1] = int32(len(tb.Links))
	}
	flows := []FluidFlow{{U: 0, V: 1, A: 0, B: 1, Bytes: 1}, {U: 2, V: 3, A: 2, B: 3, Bytes: 1}, {U: 4, V: 5, A: 4, B: 5, Bytes: 0.9}, {U: 6, V: 7, A: 6, B: 7, Bytes: 0.9}}
	got := tb.Fluid(8, flows)
	want := []float64{2.45, 2.45, 2.45, 2.45, 1.35, 1.35, 1.35, 1.35}
	for r, w := range want {
		if math.Abs(got[r]-w) > 1e-9 {
			t.Fatalf("rank %d done at %.6g s, want %.6g (all: %v)", r, got[r], w, got)
		}
	}
	// Half the bytes on each of two paths (Share): each half crosses
	// one link, so the flow's weight is that of a one-link route, and it
	// ends when the busier half does.
	tb = &Table{K: 2, NL: 2, Inv: []float64{1, 0.5}, Start: []int32{0, 0, 2, 2, 2}, Links: []int32{0, 1}, Share: []float32{0.5, 0.5}}
	if got := tb.Fluid(2, []FluidFlow{{U: 0, V: 1, A: 0, B: 1, Bytes: 2}}); math.Abs(got[0]-1) > 1e-9 || math.Abs(got[1]-1) > 1e-9 {
		t.Fatalf("split flow done at %v, want 1 s (a byte over the 1 byte/s link)", got)
	}
	if got := tb.Fluid(2, make([]FluidFlow, maxFluidFlows+1)); got != nil {
		t.Fatalf("%d flows: want nil (the bound alone), got %d times", maxFluidFlows+1, len(got))
	}
}

// oneLink is a table of k nodes whose every route crosses link 0 (1
// byte/s).
func oneLink(k int) *Table {
	tb := &Table{K: k, NL: 1, Inv: []float64{1}, Start: make([]int32, k*k+1)}
	for i := range k * k {
		if i/k != i%k {
			tb.Links = append(tb.Links, 0)
		}
		tb.Start[i+1] = int32(len(tb.Links))
	}
	return tb
}

// TestFluidClasses: flows of one route and size run as one class of as
// many flows. Three 1-byte flows from node 0 to node 1 and a 2-byte
// flow from 2 to 3 share a 1 byte/s link: a quarter byte a second each,
// so the three end at 4 s and the fourth, alone with its last byte, at
// 5 s. Counted as one flow, the class would take half the link and end
// at 2 s.
func TestFluidClasses(t *testing.T) {
	flows := []FluidFlow{{U: 0, V: 1, A: 0, B: 1, Bytes: 1}, {U: 2, V: 3, A: 2, B: 3, Bytes: 2}, {U: 4, V: 5, A: 0, B: 1, Bytes: 1}, {U: 6, V: 7, A: 0, B: 1, Bytes: 1}}
	// Two flows crossing no limited link take no time.
	tb := oneLink(4)
	tb.Inv = append(tb.Inv, 0)
	tb.Links[tb.Start[3*4+2]] = 1
	flows = append(flows, FluidFlow{U: 8, V: 9, A: 3, B: 2, Bytes: 1}, FluidFlow{U: 10, V: 11, A: 3, B: 2, Bytes: 1})
	tb.NL = 2
	got := tb.Fluid(12, flows)
	want := []float64{4, 4, 5, 5, 4, 4, 4, 4, 0, 0, 0, 0}
	for r, w := range want {
		if math.Abs(got[r]-w) > 1e-9 {
			t.Fatalf("rank %d done at %.6g s, want %.6g (all: %v)", r, got[r], w, got)
		}
	}
}

// TestFluidBatch: flows ending within fluidBatch of the first to end
// end in its step, each at its own time then. Two flows of 1 and 1 +
// 2.5e-4 bytes share the 1 byte/s link: the first ends at 2 s, the
// second, alone for its last 2.5e-4 bytes, at 2.00025 s. Ended with the
// first at its rate then (half the link), it is put at 2.0005 s: within
// fluidBatch of its time, not at 2 s.
func TestFluidBatch(t *testing.T) {
	got := oneLink(4).Fluid(4, []FluidFlow{{U: 0, V: 1, A: 0, B: 1, Bytes: 1}, {U: 2, V: 3, A: 2, B: 3, Bytes: 1 + 2.5e-4}})
	if math.Abs(got[0]-2) > 1e-9 || got[2] <= 2 || math.Abs(got[2]-2.00025) > fluidBatch*2.00025 {
		t.Fatalf("done at %v, want 2 s and 2.00025 s within %g of it", got, fluidBatch)
	}
}

// TestFluidCrossTraffic: node 0 sends one byte to node 1 while node 1
// sends three bytes back (three flows of one byte), each way over its own
// link of 1 byte/s. Alone on its link, the one flow ends at 1 s and the
// three at 3 s. With cross traffic (Reverse 0.05, SimGrid's), the way
// back from 1 to 0 carries the three flows and 5% of the one: it fills
// at 1/3.05 bytes/s a flow, and the one flow, a flow of that link too,
// is held there with the three (SimGrid's max-min fixes every flow of a
// full link): all four end at 3.05 s.
func TestFluidCrossTraffic(t *testing.T) {
	tb := &Table{K: 2, NL: 2, Inv: []float64{1, 1}, Start: []int32{0, 0, 1, 2, 2}, Links: []int32{0, 1}}
	flows := []FluidFlow{{U: 0, V: 1, A: 0, B: 1, Bytes: 1}}
	for r := int32(2); r < 8; r += 2 {
		flows = append(flows, FluidFlow{U: r, V: r + 1, A: 1, B: 0, Bytes: 1})
	}
	for _, c := range []struct {
		reverse float64
		want    []float64
	}{{0, []float64{1, 1, 3, 3, 3, 3, 3, 3}}, {0.05, []float64{3.05, 3.05, 3.05, 3.05, 3.05, 3.05, 3.05, 3.05}}} {
		tb.Reverse = c.reverse
		got := tb.Fluid(8, flows)
		for r, w := range c.want {
			if math.Abs(got[r]-w) > 1e-9 {
				t.Fatalf("reverse %g: rank %d done at %.6g s, want %.6g (all: %v)", c.reverse, r, got[r], w, got)
			}
		}
	}
}
