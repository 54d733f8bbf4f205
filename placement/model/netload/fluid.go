package netload

import "math"

// FluidFlow is one directed flow between ranks on different nodes: U on
// node A sends Bytes to V on node B.
type FluidFlow struct {
	U, V, A, B int32
	Bytes      float64
}

// maxFluidFlows bounds Fluid's flows: past it (an all-to-all of
// thousands of ranks) Fluid returns nil and the links' bound stands
// alone.
const maxFluidFlows = 100_000

// Fluid is each of n ranks' time until the last flow it sends or
// receives has arrived, when all flows start together and share every
// link by weighted max-min fairness (progressive filling): all rates
// rise in proportion to their flows' weights until a link is full, the
// flows crossing it keep their rates, the others rise on, and so on;
// when a flow ends the rest share the links again. A flow split over
// several paths (Share) takes that part of its rate on each link.
//
// A flow's weight is the inverse of its route's seconds per byte summed
// over its links: a flow crossing more (or slower) links gets less of a
// link it shares. That is TCP's round-trip unfairness, and the parking
// lot unfairness of credit-based fabrics, where each switch shares its
// output among its inputs, not among the flows behind them. SimGrid's
// network model shares links so (each flow's sharing penalty grows with
// its route's links), and it is what the links' bound (Loads) misses:
// the bound is reached only when the flows on the busiest link are
// served so that none is left behind. On a simulated dragonfly of 2
// groups joined by two global links, a 4 x 4 x 4 periodic stencil's
// nodes reordered to spread the local links' load was bound at 20% less
// than block, and ran 1% longer: the global link's short flows finished
// first, and the long ones then ran alone.
//
// Links with no limit (Inv 0) do not slow a flow; a flow crossing none
// that does takes no time. Nil when there are more than maxFluidFlows
// flows.
func (t *Table) Fluid(n int, flows []FluidFlow) []float64 {
	if len(flows) > maxFluidFlows {
		return nil
	}
	done := make([]float64, n)
	f := newFluidState(t, flows)
	now := 0.0
	for len(f.live) > 0 {
		f.rates()
		dt := math.Inf(1)
		for _, i := range f.live {
			if r := f.rate[i]; r > 0 {
				dt = min(dt, f.left[i]/r)
			}
		}
		if math.IsInf(dt, 1) {
			break
		}
		now += dt
		keep := f.live[:0]
		for _, i := range f.live {
			f.left[i] -= f.rate[i] * dt
			// Flows ending within a millionth of this step end with it.
			if f.left[i] <= f.rate[i]*dt*1e-6 {
				done[flows[i].U] = max(done[flows[i].U], now)
				done[flows[i].V] = max(done[flows[i].V], now)
				continue
			}
			keep = append(keep, i)
		}
		f.live = keep
	}
	return done
}

// fluidState is Fluid's working state: each flow's limited links and
// its share of its bytes on each (w), its weight (wt), bytes left and
// rate; the flows still running; per link its capacity left, the summed
// weights of the flows still rising on it, and its live flows.
type fluidState struct {
	t               *Table
	at, links       []int32 // flow i's links: links[at[i]:at[i+1]]
	w               []float64
	wt, left, rate  []float64
	live            []int
	frozen          []bool
	capLeft, weight []float64
	onLink          [][]int
}

func newFluidState(t *Table, flows []FluidFlow) *fluidState {
	nf := len(flows)
	f := &fluidState{t: t, at: make([]int32, 1, nf+1), wt: make([]float64, nf), left: make([]float64, nf), rate: make([]float64, nf),
		frozen: make([]bool, nf), capLeft: make([]float64, t.NL), weight: make([]float64, t.NL), onLink: make([][]int, t.NL)}
	for i, fl := range flows {
		at, route := int(t.Start[int(fl.A)*t.K+int(fl.B)]), 0.0
		for j, l := range t.Path(fl.A, fl.B) {
			if t.Inv[l] <= 0 {
				continue
			}
			x := 1.0
			if t.Share != nil {
				x = float64(t.Share[at+j])
			}
			f.links = append(f.links, l)
			f.w = append(f.w, x)
			route += x * t.Inv[l]
		}
		f.at = append(f.at, int32(len(f.links)))
		f.left[i] = fl.Bytes
		if fl.Bytes > 0 && route > 0 {
			f.wt[i] = 1 / route
			f.live = append(f.live, i)
		}
	}
	return f
}

// rates sets the live flows' weighted max-min fair rates (bytes/s): the
// level rises until a link is full, whose rising flows then keep level x
// their weight.
func (f *fluidState) rates() {
	for l := range f.onLink {
		f.onLink[l] = f.onLink[l][:0]
		f.weight[l] = 0
		if f.t.Inv[l] > 0 {
			f.capLeft[l] = 1 / f.t.Inv[l]
		}
	}
	for _, i := range f.live {
		f.frozen[i], f.rate[i] = false, 0
		for j := f.at[i]; j < f.at[i+1]; j++ {
			l := f.links[j]
			f.onLink[l] = append(f.onLink[l], i)
			f.weight[l] += f.w[j] * f.wt[i]
		}
	}
	level, rising := 0.0, len(f.live)
	for rising > 0 {
		step := math.Inf(1)
		for l, w := range f.weight {
			if w > 0 {
				step = min(step, f.capLeft[l]/w)
			}
		}
		if math.IsInf(step, 1) {
			return
		}
		level += step
		for l, w := range f.weight {
			if w > 0 {
				f.capLeft[l] -= step * w
			}
		}
		for l, w := range f.weight {
			if w <= 0 || f.capLeft[l] > 1e-9/f.t.Inv[l] {
				continue
			}
			for _, i := range f.onLink[l] {
				if f.frozen[i] {
					continue
				}
				f.frozen[i], f.rate[i] = true, level*f.wt[i]
				rising--
				for j := f.at[i]; j < f.at[i+1]; j++ {
					f.weight[f.links[j]] -= f.w[j] * f.wt[i]
				}
			}
			f.weight[l] = 0
		}
	}
}
