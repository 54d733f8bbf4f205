package bench

import (
	"math"

	"github.com/latmap/latmap/mapper/survey"
	"gonum.org/v1/gonum/stat"
)

// FitPair fits the one-way transfer time T(s) = L + s/B of one pair by least
// squares over the message sizes, from the median round trips (one way is
// half the round trip). sizes are in bytes and rtts in microseconds; L is in
// microseconds and B in MB/s (10^6 bytes per second, which is bytes per
// microsecond). B is NaN when the fitted slope is not positive (time did not
// grow with size, so the bandwidth is not measurable from these sizes). It
// needs at least two distinct sizes; otherwise ok is false.
func FitPair(sizes []int, rtts []float64) (latency, bandwidth float64, ok bool) {
	if len(sizes) != len(rtts) || len(sizes) < 2 {
		return 0, 0, false
	}
	x := make([]float64, 0, len(sizes))
	y := make([]float64, 0, len(sizes))
	for i, s := range sizes {
		if math.IsNaN(rtts[i]) {
			continue
		}
		x = append(x, float64(s))
		y = append(y, rtts[i]/2)
	}
	if len(x) < 2 || x[0] == x[len(x)-1] {
		return 0, 0, false
	}
	alpha, beta := stat.LinearRegression(x, y, nil, false)
	bandwidth = math.NaN()
	if beta > 0 {
		bandwidth = 1 / beta
	}
	return alpha, bandwidth, true
}

// FitSurvey fits every measured pair of s over its sizes, from each pair's
// minimum round trips when the survey has them (what the path allows: on a
// loaded machine a same-node pair's median at 256 KiB can swell 20-fold
// with the cpus' other work, and its fitted bandwidth with it), else the
// medians; it returns nil with fewer than two sizes.
func FitSurvey(s *survey.Survey) []survey.Fit {
	if len(s.Tables) < 2 {
		return nil
	}
	sizes := s.Sizes()
	rtts := make([]float64, len(sizes))
	metric := survey.Min
	for _, t := range s.Tables {
		if !t.HasValues(survey.Min) {
			metric = survey.Median
		}
	}
	var fits []survey.Fit
	s.Tables[0].Each(func(a, b, _ int) {
		for i, t := range s.Tables {
			rtts[i] = t.At(metric, a, b)
		}
		if l, bw, ok := FitPair(sizes, rtts); ok {
			fits = append(fits, survey.Fit{A: a, B: b, Latency: l, Bandwidth: bw})
		}
	})
	return fits
}
