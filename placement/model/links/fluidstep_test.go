package links

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// doneTol is how far (a fraction of the time) Fluid's arrival times may
// be from those of the same steps with every rate filled from nothing,
// by Fluid or by the textbook: the rates update keeps are weighted
// max-min fair to fluidTol. On these networks they differ by 3e-11 at
// most from the former Fluid's, and by 6e-15 from the textbook's.
const doneTol = 1e-9

// TestFluidUpdate: on random networks (random capacities, routes of 1-4
// links, with and without split routes and cross traffic) and random
// flows of random sizes (so that they end at many times), Fluid's arrival
// times, refilling after each step only the rates that change (update),
// are those of textbookFluid (the textbook's rates of the flows still
// running, every step) and of Fluid refilling all rates every step (the
// former Fluid), to doneTol; with rates filled by scan and by heap.
func TestFluidUpdate(t *testing.T) { bothFills(t, testFluidUpdate) }

func testFluidUpdate(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 19))
	for trial := range 36 {
		k, nl, nf := 12, 20, 60
		if trial%3 == 2 { // larger, against the former Fluid alone
			k, nl, nf = 40, 90, 600
		}
		tb := randomTable(rng, k, nl, trial%2 == 1)
		if trial%4 >= 2 {
			tb.Reverse = 0.05
		}
		flows := make([]FluidFlow, nf)
		for i := range flows {
			a, b := int32(rng.IntN(k)), int32(rng.IntN(k))
			bytes := 0.1 + rng.Float64()
			if rng.IntN(4) == 0 { // some of one size, run as classes
				bytes = float64(1 + rng.IntN(2))
			}
			flows[i] = FluidFlow{U: int32(2 * i), V: int32(2*i + 1), A: a, B: b, Bytes: bytes}
		}
		got := tb.Fluid(2*nf, flows)
		refs := map[string][]float64{"the former Fluid": formerFluid(tb, 2*nf, flows)}
		if nf <= 60 {
			refs["the textbook's"] = textbookFluid(tb, 2*nf, flows)
		}
		for name, want := range refs {
			for r := range want {
				if math.Abs(got[r]-want[r]) > doneTol*want[r] {
					t.Fatalf("trial %d: rank %d done at %.12g s, %s at %.12g", trial, r, got[r], name, want[r])
				}
			}
		}
	}
}

// randomTable is a table of k nodes and nl links of random capacities,
// whose every route crosses 1-4 of them, with random shares if split.
func randomTable(rng *rand.Rand, k, nl int, split bool) *Table {
	tb := &Table{K: k, NL: nl, Inv: make([]float64, nl), Start: make([]int32, k*k+1)}
	for l := range tb.Inv {
		tb.Inv[l] = 0.5 + 1.5*rng.Float64()
	}
	for i := range k * k {
		for _, l := range rng.Perm(nl)[:1+rng.IntN(4)] {
			tb.Links = append(tb.Links, int32(l))
			if split {
				tb.Share = append(tb.Share, float32(0.25+0.75*rng.Float64()))
			}
		}
		tb.Start[i+1] = int32(len(tb.Links))
	}
	return tb
}

// formerFluid is Fluid filling every live class's rate from nothing at
// every step, as it did before update.
func formerFluid(tb *Table, n int, flows []FluidFlow) []float64 {
	defer func(b bool) { fillFromNothing = b }(fillFromNothing)
	fillFromNothing = true
	return tb.Fluid(n, flows)
}

// textbookFluid is Fluid's steps with textbookRates' rates of the flows
// still running, flow by flow: the flows ending within fluidBatch of the
// first to end end with it, at their own times.
func textbookFluid(tb *Table, n int, flows []FluidFlow) []float64 {
	done := make([]float64, n)
	var live []FluidFlow
	for _, fl := range flows {
		if fl.Bytes > 0 {
			live = append(live, fl)
		}
	}
	now := 0.0
	for len(live) > 0 {
		rate, _, _ := textbookRates(tb, live)
		dt := math.Inf(1)
		for i, fl := range live {
			if rate[i] > 0 {
				dt = min(dt, fl.Bytes/rate[i])
			}
		}
		if math.IsInf(dt, 1) {
			break
		}
		end := now + dt
		var keep []FluidFlow
		for i, fl := range live {
			if rate[i] == 0 { // no limited link: no time
				continue
			}
			if at := now + fl.Bytes/rate[i]; at <= end*(1+fluidBatch) {
				done[fl.U], done[fl.V] = max(done[fl.U], at), max(done[fl.V], at)
				continue
			}
			fl.Bytes -= rate[i] * dt
			keep = append(keep, fl)
		}
		now, live = end, keep
	}
	return done
}

// TestFluidUpdateRefills: update refills few classes where an ended
// class shared its links with few: on a network of separate pairs of
// links (a flow on the first, one on both), the first flow ending
// refills the other flow of its pair alone; the rates then are the
// textbook's.
func TestFluidUpdateRefills(t *testing.T) {
	const pairs = 20
	tb := &Table{K: 4 * pairs, NL: 2 * pairs, Inv: make([]float64, 2*pairs), Start: make([]int32, 16*pairs*pairs+1)}
	for l := range tb.Inv {
		tb.Inv[l] = 1
	}
	route := func(a, b int) []int32 {
		switch p := int32(a / 4); {
		case b != a+1 || a%2 != 0:
			return nil
		case a%4 == 0:
			return []int32{2 * p}
		default:
			return []int32{2 * p, 2*p + 1}
		}
	}
	var flows []FluidFlow
	for i := range tb.K * tb.K {
		tb.Links = append(tb.Links, route(i/tb.K, i%tb.K)...)
		tb.Start[i+1] = int32(len(tb.Links))
		if len(route(i/tb.K, i%tb.K)) > 0 {
			flows = append(flows, FluidFlow{U: int32(i / tb.K), V: int32(i % tb.K), A: int32(i / tb.K), B: int32(i % tb.K), Bytes: 1 + float64(len(flows))})
		}
	}
	f := newFluidState(tb, flows)
	f.fillAll()
	ended := []int32{f.live[0]}
	f.live = f.live[1:]
	f.update(ended)
	if len(f.d) != 1 {
		t.Errorf("refilled %d classes after one ended, want 1 (its pair's other)", len(f.d))
	}
	checkRates(t, fmt.Sprintf("%d pairs, one flow ended", pairs), f, flows)
}
