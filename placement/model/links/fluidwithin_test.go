package links

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFluidWithin: on random networks, FluidWithin that reports every
// rank within its limit is right (Fluid to the end puts none past it);
// one that does not gives Fluid's times; with no limit it stops before
// any flow ends; and with limits a little over Fluid's times it stops
// early in some trials (else it would be Fluid under another name).
func TestFluidWithin(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 29))
	const ranks = 24
	early := 0
	for trial := range 60 {
		tb := randomTable(rng, 12, 20, trial%2 == 1)
		if trial%4 >= 2 {
			tb.Reverse = 0.05
		}
		flows := make([]FluidFlow, 80)
		for i := range flows {
			flows[i] = FluidFlow{U: int32(rng.IntN(ranks)), V: int32(rng.IntN(ranks)), A: int32(rng.IntN(12)), B: int32(rng.IntN(12)), Bytes: 0.1 + rng.Float64()}
		}
		want := tb.Fluid(ranks, flows)
		inf := make([]float64, ranks)
		for i := range inf {
			inf[i] = math.Inf(1)
		}
		if done, ok := tb.FluidWithin(ranks, flows, inf); !ok || slices.Max(done) != 0 {
			t.Fatalf("trial %d: no limit: within %v, done %v; want true before any flow ended", trial, ok, done)
		}
		for _, over := range []float64{0.95, 1.001, 1.2, 2} {
			limit := make([]float64, ranks)
			for i := range limit {
				limit[i] = want[i] * over * (1 + 0.1*rng.Float64())
			}
			done, ok := tb.FluidWithin(ranks, flows, limit)
			if !ok {
				if !slices.Equal(done, want) {
					t.Fatalf("trial %d, limits %g over: not within, done %v, Fluid's %v", trial, over, done, want)
				}
				continue
			}
			for i := range want {
				if want[i] > limit[i]*(1+1e-9) {
					t.Fatalf("trial %d, limits %g over: within, but rank %d's flows end at %.9g s, its limit %.9g", trial, over, i, want[i], limit[i])
				}
			}
			if slices.Max(done) < slices.Max(want) && over < 2 {
				early++
			}
		}
	}
	t.Logf("early %d", early)
	if early == 0 {
		t.Fatal("FluidWithin never stopped before the last flow ended with limits up to 1.2x Fluid's times")
	}
}
