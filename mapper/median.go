package mapper

import (
	"math"
	"sort"
)

// MedianOf returns the median of x (the mean of the two middle values for
// an even count), or NaN when x is empty. x is not modified.
func MedianOf(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	k := len(s) / 2
	if len(s)%2 == 1 {
		return s[k]
	}
	return (s[k-1] + s[k]) / 2
}
