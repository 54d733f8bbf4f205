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
