package model_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
)

// TestPredictedRunOver: on a routed 4 x 4 torus of 2-core nodes, random
// sparse exchanges (2 partners a rank, 1-64 MiB) in random layouts, with and without
// fixed times: PredictedRunOver with no ceiling is Predict's run (the
// flows shared only until the slowest rank is known), and under a
// ceiling below the run it is a bound from below, not exact. The flows'
// sharing must lengthen some of the runs, or the first check says
// nothing.
func TestPredictedRunOver(t *testing.T) {
	md, slots, err := shapes.RoutedTorus(16, 2, []int{4, 4}, 1e9, 32)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	shared := 0
	for seed := range uint64(24) {
		flows, n := shapes.RandomSparse(32, 2, seed+1)
		for i := range flows {
			flows[i].Bytes = float64(1+rng.IntN(64)) * (1 << 20)
		}
		tr := shapes.MustTraffic(flows, n)
		place := make([]int32, n)
		for i, p := range rng.Perm(n) {
			place[i] = slots[p]
		}
		var rt *model.RankTimes
		if seed%2 == 1 {
			rt = &model.RankTimes{Comput: make([]float64, n), Sync: make([]float64, n), Late: make([]float64, n)}
			for i := range rt.Comput {
				rt.Comput[i] = 0.05 * rng.Float64()
			}
		}
		base := model.BaseTimes(rt, n)
		want := model.Predict("", md, tr, place, rt).Run
		got, exact := model.PredictedRunOver(md, tr, place, base, math.Inf(1))
		if !exact || math.Abs(got-want) > 1e-12*want {
			t.Fatalf("seed %d: PredictedRunOver %.12g s (exact %v), Predict's run %.12g", seed, got, exact, want)
		}
		bound, exact := model.PredictedRunOver(md, tr, place, base, 0)
		if exact || bound > want*(1+1e-12) {
			t.Fatalf("seed %d: under a ceiling of 0, %.12g s (exact %v); want a bound at most the run, %.12g", seed, bound, exact, want)
		}
		if want > bound*(1+1e-6) {
			shared++
		}
	}
	if shared == 0 {
		t.Fatal("the flows' sharing lengthened no run: the test checks nothing")
	}
	t.Logf("%d of 24 runs lengthened by the flows' sharing", shared)
}

// TestPredictEither: a model whose Either routes the same torus with
// every flow spread over its shortest paths (its links at 0.7 of the
// model's, so that either is the slower in some layouts) predicts each
// layout at the slower of the two, calibrated as the model is: the spread's run where
// it is slower (some layouts), the model's own where it is not (the
// rest), never anything else.
func TestPredictEither(t *testing.T) {
	md, slots, err := shapes.RoutedTorus(16, 2, []int{4, 4}, 1e9, 32)
	if err != nil {
		t.Fatal(err)
	}
	spread, err := shapes.RoutedModel(16, 2, shapes.BenchLevels, func(h []string) (*fabric.Fabric, error) {
		f, err := fabric.NewTorus(h, []int{4, 4}, 0.7e9, 1e-6, false)
		if err != nil {
			return nil, err
		}
		return f.Routed(fabric.RoutingAdaptive)
	})
	if err != nil {
		t.Fatal(err)
	}
	md.Scale, spread.Scale = [2]float64{1, 1.3}, [2]float64{1, 1}
	either := *md
	either.Either = spread
	rng := rand.New(rand.NewPCG(7, 9))
	slower, faster := 0, 0
	for seed := range uint64(16) {
		flows, n := shapes.RandomSparse(32, 3, seed+1)
		tr := shapes.MustTraffic(flows, n)
		place := make([]int32, n)
		for i, p := range rng.Perm(n) {
			place[i] = slots[p]
		}
		own := model.Predict("", md, tr, place, nil).Run
		sp := *spread
		sp.Scale = md.Scale
		other := model.Predict("", &sp, tr, place, nil).Run
		got := model.Predict("", &either, tr, place, nil).Run
		if got != math.Max(own, other) {
			t.Fatalf("seed %d: %.9g s, want the slower of %.9g (own routes) and %.9g (spread, calibrated as the model)", seed, got, own, other)
		}
		if other > own {
			slower++
		} else if other < own {
			faster++
		}
	}
	if slower == 0 || faster == 0 {
		t.Fatalf("the spread was slower in %d layouts and faster in %d: want some of each, or the test says nothing", slower, faster)
	}
}
