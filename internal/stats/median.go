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

// WeightedMedianInPlace is the median of x with each value repeated as
// many times as its weight in w (the mean of the values at positions
// floor((W-1)/2) and floor(W/2) of the repeated list, W the summed
// weight; NaN when empty), without a sort: x and w are reordered
// together. Sorting the 8 million leader pairs of a 4,096-node survey to
// take it was 1.5 s of place's 13.5 s.
func WeightedMedianInPlace(x, w []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	total := 0.0
	for _, v := range w {
		total += v
	}
	pos := math.Floor((total - 1) / 2)
	lo := weightedSelect(x, w, pos)
	next := math.Floor(total / 2)
	if next == pos {
		return lo
	}
	// The value at next: lo again where the values up to lo weigh more
	// than next, else the least value above lo (one pass, not a second
	// select).
	upTo, above := 0.0, math.Inf(1)
	for i, v := range x {
		if v <= lo {
			upTo += w[i]
		} else if v < above && w[i] > 0 {
			above = v
		}
	}
	if next < upTo || math.IsInf(above, 1) {
		return lo
	}
	return (lo + above) / 2
}

// weightedSelect is the value at position pos (0-based) of x with each
// value repeated as many times as its weight (the largest when pos is
// past the end), reordering x and w together: a three-way quickselect.
func weightedSelect(x, w []float64, pos float64) float64 {
	lo, hi := 0, len(x)
	seed := uint32(len(x))*2654435761 + 1
	for hi-lo > 1 {
		seed = seed*1664525 + 1013904223
		pivot := x[lo+int(seed%uint32(hi-lo))]
		// [lo,lt) below the pivot, [lt,i) equal, [gt,hi) above.
		lt, i, gt := lo, lo, hi
		below, equal := 0.0, 0.0
		for i < gt {
			switch v := x[i]; {
			case v < pivot:
				below += w[i]
				x[lt], x[i] = x[i], x[lt]
				w[lt], w[i] = w[i], w[lt]
				lt++
				i++
			case v > pivot:
				gt--
				x[gt], x[i] = x[i], x[gt]
				w[gt], w[i] = w[i], w[gt]
			default:
				equal += w[i]
				i++
			}
		}
		switch {
		case pos < below:
			hi = lt
		case pos < below+equal || gt == hi:
			return pivot
		default:
			pos -= below + equal
			lo = gt
		}
	}
	return x[lo]
}
