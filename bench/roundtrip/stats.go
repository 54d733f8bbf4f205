package roundtrip

import (
	"math"
	"sort"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/survey"
	"gonum.org/v1/gonum/stat"
)

// Stats summarises the round-trip times of one pair at one size, in
// microseconds.
type Stats struct {
	Samples int
	// Mean and Std are the sample mean and the sample standard deviation
	// (divided by n-1).
	Mean, Std float64
	Min       float64
	// Median is the middle value (the mean of the two middle values for an
	// even count).
	Median float64
	// P99 is the 99th percentile by the nearest-rank method: the
	// ceil(0.99 n)-th smallest value.
	P99 float64
}

// Summarize computes the statistics of samples. It sorts samples in place.
// An empty slice gives NaN values.
func Summarize(samples []float64) Stats {
	n := len(samples)
	if n == 0 {
		nan := math.NaN()
		return Stats{Mean: nan, Std: nan, Min: nan, Median: nan, P99: nan}
	}
	sort.Float64s(samples)
	st := Stats{Samples: n, Min: samples[0], Median: stats.MedianSorted(samples), P99: stat.Quantile(0.99, stat.Empirical, samples, nil)}
	if n == 1 {
		st.Mean = samples[0]
		return st
	}
	st.Mean, st.Std = stat.MeanStdDev(samples, nil)
	return st
}

// Pair is st as pair (a, b)'s row of a survey's table at size, with its
// median measured alone (NaN when it was not).
func (st Stats) Pair(a, b, size int, isolated float64) *survey.PairStats {
	return &survey.PairStats{A: a, B: b, Size: size, Samples: st.Samples,
		Mean: st.Mean, Std: st.Std, Min: st.Min, Median: st.Median, P99: st.P99,
		Isolated: isolated}
}

// MmpiStats returns the two numbers an mmpi log shows for a pair, computed
// the way mmpi.c computed them, so that old and new logs compare: each
// round trip was stored as a float (float32) of microseconds and its square
// as a float product; both were summed in double; the mean is the sum over n
// and the "StdDev" column is sqrt((sum(t²)/n - mean²) / (n-1)), the standard
// error of the mean rather than the standard deviation. Where rounding makes
// the variance slightly negative mmpi printed nan; MmpiStats gives 0. With
// fewer than two samples the second value is 0.
func MmpiStats(samples []float64) (mean, sem float64) {
	n := len(samples)
	if n == 0 {
		return 0, 0
	}
	var sum, sum2 float64
	for _, s := range samples {
		f := float32(s)
		sum += float64(f)
		sum2 += float64(f * f)
	}
	mean = sum / float64(n)
	if n < 2 {
		return mean, 0
	}
	v := (sum2/float64(n) - mean*mean) / float64(n-1)
	if v < 0 {
		return mean, 0
	}
	return mean, math.Sqrt(v)
}
