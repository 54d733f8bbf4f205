package stats

import (
	"math"
	"sort"
)

// Median returns the median of x (the mean of the two middle values for an
// even count), or NaN when x is empty. x is not modified.
func Median(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return MedianSorted(s)
}

// MedianSorted is Median of values already sorted in ascending order,
// without a copy: the middle value, or the mean of the two middle values
// for an even count; NaN when empty.
func MedianSorted(sorted []float64) float64 {
	n := len(sorted)
	switch {
	case n == 0:
		return math.NaN()
	case n%2 == 1:
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// Round3 rounds v to three decimals (nanosecond resolution of a value in
// microseconds, as pairs.csv has); NaN stays NaN.
func Round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// Select returns the k-th smallest of x (reordering x), in linear
// expected time: sorting the 8 million pairs of a 4096-rank survey to take
// medians would cost seconds.
func Select[F ~float32 | ~float64](x []F, k int) F {
	lo, hi := 0, len(x)-1
	seed := uint32(len(x))*2654435761 + 1
	for lo < hi {
		seed = seed*1664525 + 1013904223
		pivot := x[lo+int(seed%uint32(hi-lo+1))]
		i, j := lo, hi
		for i <= j {
			for x[i] < pivot {
				i++
			}
			for x[j] > pivot {
				j--
			}
			if i <= j {
				x[i], x[j] = x[j], x[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return x[k]
		}
	}
	return x[k]
}

// MedianInPlace is Median without a copy or a sort (x is reordered): the middle value, or the mean of the two middle values for
// an even count; NaN when empty.
func MedianInPlace[F ~float32 | ~float64](x []F) float64 {
	n := len(x)
	if n == 0 {
		return math.NaN()
	}
	hi := float64(Select(x, n/2))
	if n%2 == 1 {
		return hi
	}
	// Select left the n/2 smallest values in front.
	lo := x[0]
	for _, v := range x[1 : n/2] {
		lo = max(lo, v)
	}
	return (float64(lo) + hi) / 2
}
