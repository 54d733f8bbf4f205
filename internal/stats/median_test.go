package stats

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5}, // mean of the middle two, 2 and 3
	} {
		in := append([]float64(nil), tc.in...)
		if got := Median(tc.in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", in, got, tc.want)
		}
		for i := range in {
			if in[i] != tc.in[i] {
				t.Errorf("Median reordered its input: %v", tc.in)
			}
		}
	}
	if got := Median(nil); !math.IsNaN(got) {
		t.Errorf("Median(nil) = %v, want NaN", got)
	}
}

func TestSelect(t *testing.T) {
	x := []float32{5, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5}
	// Sorted: 1 1 2 3 4 5 5 5 5 6 9.
	for k, want := range []float32{1, 1, 2, 3, 4, 5, 5, 5, 5, 6, 9} {
		y := append([]float32(nil), x...)
		if got := Select(y, k); got != want {
			t.Errorf("Select(%d) = %v, want %v", k, got, want)
		}
	}
}

func TestMedianInPlace(t *testing.T) {
	for _, x := range [][]float32{{3}, {5, 1, 3}, {4, 1, 3, 2}, {9, 9, 1, 1, 5, 7}, {2, 8, 6, 4, 10, 12, 0, 14}} {
		want := make([]float64, len(x))
		for i, v := range x {
			want[i] = float64(v)
		}
		if got, w := MedianInPlace(append([]float32(nil), x...)), Median(want); got != w {
			t.Errorf("MedianInPlace(%v) = %v, want %v (Median)", x, got, w)
		}
		if got, w := MedianInPlace(append([]float64(nil), want...)), Median(want); got != w {
			t.Errorf("MedianInPlace(float64 %v) = %v, want %v (Median)", want, got, w)
		}
	}
	if !math.IsNaN(MedianInPlace[float32](nil)) {
		t.Error("MedianInPlace(nil) is not NaN")
	}
}

// TestWeightedMedianInPlace: against the median of the repeated list
// taken by a sort, on random values with ties and random weights (whole
// and fractional), one value, and all weights 1 (the plain median).
func TestWeightedMedianInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	bySort := func(x, w []float64) float64 {
		idx := make([]int, len(x))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
		total := 0.0
		for _, v := range w {
			total += v
		}
		at := func(pos float64) float64 {
			seen := 0.0
			for _, i := range idx {
				if seen += w[i]; pos < seen {
					return x[i]
				}
			}
			return x[idx[len(idx)-1]]
		}
		return (at(math.Floor((total-1)/2)) + at(math.Floor(total/2))) / 2
	}
	for trial := range 500 {
		n := 1 + rng.IntN(60)
		x, w := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = float64(rng.IntN(1 + n/2)) // ties
			switch trial % 3 {
			case 0:
				w[i] = 1
			case 1:
				w[i] = float64(rng.IntN(5)) // zeros too
			default:
				w[i] = 0.1 + 3*rng.Float64()
			}
		}
		want := bySort(x, w)
		got := WeightedMedianInPlace(slices.Clone(x), slices.Clone(w))
		if got != want {
			t.Fatalf("trial %d: %v weighted %v: %v, by a sort %v", trial, x, w, got, want)
		}
		if trial%3 == 0 && got != Median(x) {
			t.Fatalf("trial %d: weights 1: %v, Median %v", trial, got, Median(x))
		}
	}
	// Every weight one whole number c: the plain median (model's
	// pairCosts.median takes it so).
	for trial := range 300 {
		n, c := 1+rng.IntN(40), float64(1+rng.IntN(6))
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(rng.IntN(1 + n/2))
		}
		if got, want := WeightedMedianInPlace(slices.Clone(x), slices.Repeat([]float64{c}, n)), Median(x); got != want {
			t.Fatalf("trial %d: %v each weighted %g: %v, Median %v", trial, x, c, got, want)
		}
	}
	if !math.IsNaN(WeightedMedianInPlace(nil, nil)) {
		t.Error("empty: want NaN")
	}
}
