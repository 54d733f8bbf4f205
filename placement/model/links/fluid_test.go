package links

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
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
// gives the live classes are the weighted max-min fair ones: those of
// textbookRates, progressive filling flow by flow from the table and the
// flows alone (each flow's weight and its bytes on each link worked out
// from the routes, shares, capacities and Reverse, not Fluid's), to
// rateTol of each rate, for all classes and for a random half of them (a
// later step). The rates are also checked against the definition: no
// link carries more than its capacity, and every flow has a bottleneck,
// a full link on which no flow rises higher for its weight.
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
		tb := randomTable(rng, k, nl, trial%2 == 1)
		if trial%4 >= 2 {
			tb.Reverse = 0.05
		}
		var flows []FluidFlow
		for range 60 {
			a, b := int32(rng.IntN(k)), int32(rng.IntN(k))
			flows = append(flows, FluidFlow{U: a, V: b, A: a, B: b, Bytes: float64(1 + rng.IntN(3))})
		}
		f := newFluidState(tb, flows)
		f.fillAll()
		checkRates(t, fmt.Sprintf("trial %d (all)", trial), f, flows)
		rng.Shuffle(len(f.live), func(i, j int) { f.live[i], f.live[j] = f.live[j], f.live[i] })
		ended := slices.Clone(f.live[len(f.live)/2:])
		f.live = f.live[:len(f.live)/2]
		f.update(ended)
		checkRates(t, fmt.Sprintf("trial %d (half)", trial), f, flows)
	}
}

// rateTol is how far (a fraction of the rate) Fluid's rates may be from
// textbookRates': a billionth, the margin within which each takes a link
// as full at a step's level (Fluid a billionth of the link's capacity,
// the textbook a billionth of the level), so two links that fill within
// it may freeze their flows at one step in one and at two in the other.
// On these networks the two differ by rounding alone (5e-14 at most); a
// wrong weight or share moves rates by percents.
const rateTol = 1e-9

// checkRates compares the rates Fluid gave its live classes with
// textbookRates' for the flows of those classes (the flows of a class
// are those of its first flow's nodes and size), and checks them against
// the definition of weighted max-min fairness.
func checkRates(t *testing.T, what string, f *fluidState, flows []FluidFlow) {
	t.Helper()
	type key struct {
		a, b  int32
		bytes float64
	}
	keyOf := func(fl FluidFlow) key { return key{fl.A, fl.B, fl.Bytes} }
	rateOf := map[key]float64{}
	for _, c := range f.live {
		rateOf[keyOf(flows[f.first[c]])] = f.rate[c]
	}
	var live []FluidFlow
	for _, fl := range flows {
		if _, ok := rateOf[keyOf(fl)]; ok {
			live = append(live, fl)
		}
	}
	want, use, wt := textbookRates(f.t, live)
	got := make([]float64, len(live))
	for i, fl := range live {
		got[i] = rateOf[keyOf(fl)]
		if math.Abs(got[i]-want[i]) > rateTol*want[i] {
			t.Fatalf("%s: flow %d (node %d to %d, %g bytes) at %.12g bytes/s, the textbook's max-min fair %.12g (%d flows)", what, i, fl.A, fl.B, fl.Bytes, got[i], want[i], len(live))
		}
	}
	// The definition, on Fluid's rates: each link within its capacity,
	// and each flow with a bottleneck.
	load := make([]float64, f.t.NL)
	for i := range live {
		for l, x := range use[i] {
			load[l] += x * got[i]
		}
	}
	full := func(l int32) bool { return load[l] >= (1/f.t.Inv[l])*(1-rateTol) }
	for l, x := range load {
		if f.t.Inv[l] > 0 && x > (1/f.t.Inv[l])*(1+rateTol) {
			t.Fatalf("%s: link %d carries %.12g bytes/s, over its capacity %.12g", what, l, x, 1/f.t.Inv[l])
		}
	}
	for i := range live {
		bottleneck := false
		for l := range use[i] {
			if !full(l) {
				continue
			}
			highest := true
			for j := range live {
				if _, on := use[j][l]; on && got[j]/wt[j] > got[i]/wt[i]*(1+rateTol) {
					highest = false
					break
				}
			}
			if highest {
				bottleneck = true
				break
			}
		}
		if !bottleneck {
			t.Fatalf("%s: flow %d (node %d to %d) at %.12g bytes/s has no bottleneck: none of its links is full with it the highest for its weight", what, i, live[i].A, live[i].B, got[i])
		}
	}
}

// textbookRates is weighted max-min fair sharing by progressive filling
// (Bertsekas and Gallager, Data Networks, 6.5.2), flow by flow, from the
// table and the flows alone. A flow from node a to node b crosses the
// limited links (Inv > 0) of a's route to b, carrying Share of its bytes
// on each (all of them without shares), and, with cross traffic, those of
// b's route to a, carrying Reverse times their share: use[i][l] is the
// bytes on link l per byte of flow i. Its weight wt[i] is the inverse of
// its route's seconds per byte, the sum over its own route's limited
// links of share x Inv. All flows rise at level x their weight; at each
// step the level rises until a link is full (its capacity 1/Inv used), and
// every rising flow on a full link keeps its rate; the others rise on.
// Flows that cross no limited link are left out (rate 0 here: they take
// no time, and Fluid has no class for them).
func textbookRates(tb *Table, flows []FluidFlow) (rate []float64, use []map[int32]float64, wt []float64) {
	n := len(flows)
	rate, use, wt = make([]float64, n), make([]map[int32]float64, n), make([]float64, n)
	path := func(a, b int32, scale float64, u map[int32]float64) (secs float64) {
		i := int(a)*tb.K + int(b)
		for j := tb.Start[i]; j < tb.Start[i+1]; j++ {
			l, x := tb.Links[j], 1.0
			if tb.Share != nil {
				x = float64(tb.Share[j])
			}
			if tb.Inv[l] > 0 && x > 0 {
				u[l] += scale * x
				secs += x * tb.Inv[l]
			}
		}
		return secs
	}
	rising := map[int]bool{}
	for i, fl := range flows {
		use[i] = map[int32]float64{}
		secs := path(fl.A, fl.B, 1, use[i])
		if secs == 0 {
			continue
		}
		if tb.Reverse > 0 {
			path(fl.B, fl.A, tb.Reverse, use[i])
		}
		wt[i] = 1 / secs
		rising[i] = true
	}
	used := make([]float64, tb.NL)
	for len(rising) > 0 {
		// Each link's level: what is left of its capacity over the
		// weights rising on it.
		weight := make([]float64, tb.NL)
		for i := range rising {
			for l, x := range use[i] {
				weight[l] += x * wt[i]
			}
		}
		fillsAt := func(l int32) float64 { return (1/tb.Inv[l] - used[l]) / weight[l] }
		level := math.Inf(1)
		for l := range weight {
			if weight[l] > 0 {
				level = min(level, fillsAt(int32(l)))
			}
		}
		var frozen []int
		for i := range rising {
			for l := range use[i] {
				if fillsAt(l) <= level*(1+1e-9) {
					frozen = append(frozen, i)
					break
				}
			}
		}
		for _, i := range frozen {
			rate[i] = level * wt[i]
			delete(rising, i)
			for l, x := range use[i] {
				used[l] += x * rate[i]
			}
		}
	}
	return rate, use, wt
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
	flows := []FluidFlow{{U: 0, V: 1, A: 0, B: 1, Bytes: 1}, {U: 2, V: 3, A: 2, B: 3, Bytes: 1}, {U: 4, V: 5, A: 4, B: 5, Bytes: 1}}
	f := newFluidState(tb, flows)
	f.fillAll()
	checkRates(t, "near levels", f, flows)
	for _, c := range f.live {
		if math.Abs(f.rate[c]-1) > 1e-3 {
			t.Errorf("class %d at %.12g bytes/s, want about 1", c, f.rate[c])
		}
	}
}
