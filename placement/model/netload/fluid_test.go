package netload

import (
	"math"
	"math/rand/v2"
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

// TestFluidRatesMaxMin: filling by scan and by heap, on random networks (12 nodes, 20 links of
// random capacity, each route 1-4 links, with and without split routes
// and cross traffic) and random flows of three sizes, the rates Fluid
// gives the live classes are the weighted max-min fair ones of the
// textbook progressive filling (every rising flow's level recomputed
// from every link at each step), for all classes and for a random half
// of them (a later step).
func TestFluidRatesMaxMin(t *testing.T) {
	bothFills(t, testFluidRatesMaxMin)
}

// bothFills runs test with rates filling by scan and by heap, and by
// heap looking at every link within half the level above it (each
// then full or not by its own slack: those not go back in the heap).
func bothFills(t *testing.T, test func(t *testing.T)) {
	defer func(n int, w float64) { heapLinks, fillWindow = n, w }(heapLinks, fillWindow)
	for _, c := range []struct {
		name   string
		links  int
		window float64
	}{{"scan", 1 << 30, fillWindow}, {"heap", 0, fillWindow}, {"heap, wide", 0, 0.5}} {
		heapLinks, fillWindow = c.links, c.window
		t.Run(c.name, test)
	}
}

func testFluidRatesMaxMin(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	for trial := range 40 {
		const k, nl = 12, 20
		tb := &Table{K: k, NL: nl, Inv: make([]float64, nl), Start: make([]int32, k*k+1)}
		for l := range tb.Inv {
			tb.Inv[l] = 0.5 + 1.5*rng.Float64()
		}
		split := trial%2 == 1
		for i := range k * k {
			for _, l := range rng.Perm(nl)[:1+rng.IntN(4)] {
				tb.Links = append(tb.Links, int32(l))
				if split {
					tb.Share = append(tb.Share, float32(0.25+0.75*rng.Float64()))
				}
			}
			tb.Start[i+1] = int32(len(tb.Links))
		}
		if trial%4 >= 2 {
			tb.Reverse = 0.05
		}
		var flows []FluidFlow
		for range 60 {
			a, b := int32(rng.IntN(k)), int32(rng.IntN(k))
			flows = append(flows, FluidFlow{U: a, V: b, A: a, B: b, Bytes: float64(1 + rng.IntN(3))})
		}
		f := newFluidState(tb, flows)
		for half := range 2 {
			if half == 1 {
				rng.Shuffle(len(f.live), func(i, j int) { f.live[i], f.live[j] = f.live[j], f.live[i] })
				f.live = f.live[:len(f.live)/2]
			}
			f.rates()
			want := maxMinRates(f)
			for _, c := range f.live {
				if math.Abs(f.rate[c]-want[c]) > 1e-9*want[c] {
					t.Fatalf("trial %d (half %d): class %d at %.12g bytes/s, max-min fair %.12g", trial, half, c, f.rate[c], want[c])
				}
			}
		}
	}
}

// maxMinRates is the live classes' weighted max-min fair rates by plain
// progressive filling: at each step every link's level is computed from
// scratch, and every class crossing a link full at the lowest level
// keeps it.
func maxMinRates(f *fluidState) map[int32]float64 {
	tb := f.t
	used := make([]float64, tb.NL)
	rate := map[int32]float64{}
	for {
		weight := make([]float64, tb.NL)
		for _, c := range f.live {
			if _, done := rate[c]; !done {
				for j := f.at[c]; j < f.at[c+1]; j++ {
					weight[f.links[j]] += f.m[c] * f.w[j] * f.wt[c]
				}
			}
		}
		fills := func(l int32) float64 { return (1/tb.Inv[l] - used[l]) / weight[l] }
		level := math.Inf(1)
		for l := range weight {
			if weight[l] > 0 {
				level = min(level, fills(int32(l)))
			}
		}
		if math.IsInf(level, 1) {
			return rate
		}
		var now []int32
		for _, c := range f.live {
			if _, done := rate[c]; done {
				continue
			}
			for j := f.at[c]; j < f.at[c+1]; j++ {
				if fills(f.links[j]) <= level*(1+1e-9) {
					now = append(now, c)
					break
				}
			}
		}
		for _, c := range now {
			rate[c] = level * f.wt[c]
			for j := f.at[c]; j < f.at[c+1]; j++ {
				used[f.links[j]] += level * f.m[c] * f.w[j] * f.wt[c]
			}
		}
	}
}

// TestFluidNearLevels: links that fill a millionth above the lowest
// level (beyond their own slack, within that of a link of 10,000 times
// the capacity) are full at their own level, not lost: flow A alone on
// link 0 (level 1); B on link 1 and a link of 10^6 bytes/s (level 1 +
// 1e-6); C on a link of 10^4 bytes/s and link 4 (its level 1.0001, the
// fast link's 10^4).
func TestFluidNearLevels(t *testing.T) { bothFills(t, testFluidNearLevels) }

func testFluidNearLevels(t *testing.T) {
	routes := map[[2]int32][]int32{{0, 1}: {0}, {2, 3}: {1, 2}, {4, 5}: {3, 4}}
	tb := &Table{K: 6, NL: 5, Inv: []float64{1, 1, 1e-6, 1e-4, 1}, Start: make([]int32, 6*6+1)}
	for i := range 6 * 6 {
		tb.Links = append(tb.Links, routes[[2]int32{int32(i / 6), int32(i % 6)}]...)
		tb.Start[i+1] = int32(len(tb.Links))
	}
	f := newFluidState(tb, []FluidFlow{{U: 0, V: 1, A: 0, B: 1, Bytes: 1}, {U: 2, V: 3, A: 2, B: 3, Bytes: 1}, {U: 4, V: 5, A: 4, B: 5, Bytes: 1}})
	f.rates()
	want := maxMinRates(f)
	for _, c := range f.live {
		if math.Abs(f.rate[c]-want[c]) > 1e-9*want[c] || math.Abs(f.rate[c]-1) > 1e-3 {
			t.Errorf("class %d at %.12g bytes/s, max-min fair %.12g (each about 1)", c, f.rate[c], want[c])
		}
	}
}
