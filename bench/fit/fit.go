package fit

import (
	"math"
	"slices"

	"github.com/latmap/latmap/internal/stats"

	"gonum.org/v1/gonum/stat"

	"github.com/latmap/latmap/mapper/survey"
)

// Pair fits the one-way transfer time T(s) = L + s/B of one pair by least
// squares over the message sizes, from the median round trips (one way is
// half the round trip). sizes are in bytes and rtts in microseconds; L is in
// microseconds and B in MB/s (10^6 bytes per second, which is bytes per
// microsecond). B is NaN when the fitted slope is not positive (time did not
// grow with size, so the bandwidth is not measurable from these sizes). It
// needs at least two distinct sizes; otherwise ok is false.
func Pair(sizes []int, rtts []float64) (latency, bandwidth float64, ok bool) {
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

// Survey fits every measured pair of s over its sizes, from each pair's
// minimum round trips when the survey has them (what the path allows: on a
// loaded machine a same-node pair's median at 256 KiB can swell 20-fold
// with the cpus' other work, and its fitted bandwidth with it), else the
// medians, each divided by its level's factor at its size
// (ConcurrencyFactors: what measuring pairs at the same time added). At a
// level whose largest size the concurrent rounds slowed by more than
// ContendedFactor, a pair's own large round trips say more about what
// else ran in its rounds than about its path (on a simulated fat tree,
// 1.4x to 7.6x its round trip alone), so the level's pairs take the
// bandwidth fitted on the level's pairs measured alone and their own
// latency: half their smallest round trip, less that size's transfer;
// a pair through a host whose every pair was slower (slow: HostFactors'
// factors, nil for none) takes that share of it. It returns nil with
// fewer than two sizes.
func Survey(s *survey.Survey, slow []float64) []survey.Fit {
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
	level, names := s.PairLevels()
	lv := levelFits(s, names)
	hostIdx, _ := survey.HostIndex(s.Ranks)
	var fits []survey.Fit
	s.Tables[0].Each(func(a, b, _ int) {
		l := &lv[level(a, b)]
		if l.contended {
			bw := l.bandwidth
			if slow != nil {
				bw /= max(slow[hostIdx[a]], slow[hostIdx[b]])
			}
			rtt := s.Tables[0].At(metric, a, b) / l.div[0]
			if lat := rtt/2 - float64(sizes[0])/bw; !math.IsNaN(lat) {
				fits = append(fits, survey.Fit{A: a, B: b, Latency: lat, Bandwidth: bw})
			}
			return
		}
		for i, t := range s.Tables {
			rtts[i] = t.At(metric, a, b) / l.div[i]
		}
		if l, bw, ok := Pair(sizes, rtts); ok {
			fits = append(fits, survey.Fit{A: a, B: b, Latency: l, Bandwidth: bw})
		}
	})
	return fits
}

// ContendedFactor is the concurrency factor at the largest size above
// which a level's pairs take the bandwidth of its pairs measured alone (a
// chosen policy: the interference warning's 1.25 less half, so a tenth of
// the time is the most a shared link may add to a pair's own fit).
const ContendedFactor = 1.1

// levelFit is how Survey fits one level's pairs: divided by div (per
// size), or, contended, with the level's bandwidth alone (MB/s).
type levelFit struct {
	div       []float64
	contended bool
	bandwidth float64
}

// levelFits are the levels' fits (by PairLevels' number): each level's
// factors, and the bandwidth fitted on its pairs measured alone (the
// median isolated round trip at each size) where the largest size's
// factor is above ContendedFactor.
func levelFits(s *survey.Survey, names []string) []levelFit {
	sizes := s.Sizes()
	lv := make([]levelFit, len(names))
	for l := range lv {
		lv[l].div = make([]float64, len(sizes))
		for i := range sizes {
			lv[l].div[i] = 1
		}
	}
	for _, f := range ConcurrencyFactors(s) {
		l, i := slices.Index(names, f.Level), slices.Index(sizes, f.SizeBytes)
		if l < 0 || i < 0 || f.Factor <= 1 {
			continue
		}
		lv[l].div[i] = f.Factor
		if i == len(sizes)-1 && f.Factor > ContendedFactor {
			lv[l].contended = true
		}
	}
	level, _ := s.PairLevels()
	for l := range lv {
		if !lv[l].contended {
			continue
		}
		med := make([]float64, len(sizes))
		for i, t := range s.Tables {
			// The pairs measured alone, else (a size without an
			// isolation sample) all the level's, divided by its factor.
			var iso, all []float64
			t.Each(func(a, b, k int) {
				if level(a, b) != l {
					return
				}
				if v := t.At(survey.Isolated, a, b); v > 0 {
					iso = append(iso, v)
				}
				if v := t.At(survey.Median, a, b) / lv[l].div[i]; v > 0 {
					all = append(all, v)
				}
			})
			med[i] = math.NaN()
			switch {
			case len(iso) > 0:
				med[i] = stats.Median(iso)
			case len(all) > 0 && i < len(sizes)-1:
				med[i] = stats.Median(all)
			}
		}
		_, bw, ok := Pair(sizes, med)
		if !ok || math.IsNaN(bw) {
			lv[l].contended = false
			continue
		}
		lv[l].bandwidth = bw
	}
	return lv
}

// MinFactorPairs is how many pairs of a level the isolation sample must
// hold at a size for its concurrency factor to be used (a median of fewer
// is one pair's noise).
const MinFactorPairs = 3

// ConcurrencyFactors are, per size and level of the hierarchy (s's
// PairLevels), the median over the isolation sample's pairs of the level
// of the median round trip measured in the concurrent rounds over the one
// measured alone, where at least MinFactorPairs pairs were re-measured.
func ConcurrencyFactors(s *survey.Survey) []survey.FitFactor {
	level, names := s.PairLevels()
	var out []survey.FitFactor
	for _, t := range s.Tables {
		iso, med := t.Values[survey.Isolated], t.Values[survey.Median]
		if iso == nil || med == nil {
			continue
		}
		ratios := make([][]float64, len(names))
		t.Each(func(a, b, i int) {
			if iso[i] > 0 && med[i] > 0 {
				l := level(a, b)
				ratios[l] = append(ratios[l], float64(med[i])/float64(iso[i]))
			}
		})
		for l, r := range ratios {
			if len(r) >= MinFactorPairs {
				out = append(out, survey.FitFactor{SizeBytes: t.Size, Level: names[l], Pairs: len(r), Factor: stats.Median(r)})
			}
		}
	}
	return out
}

// Interference is the median, over every pair and size re-measured in
// isolation, of the ratio of its median round trip measured concurrently
// to the one measured alone. ok is false when no pair was re-measured.
func Interference(tables []*survey.PairTable) (x float64, ok bool) {
	var ratios []float64
	for _, t := range tables {
		iso, med := t.Values[survey.Isolated], t.Values[survey.Median]
		if iso == nil || med == nil {
			continue
		}
		t.Each(func(a, b, i int) {
			if iso[i] > 0 && !math.IsNaN(float64(med[i])) {
				ratios = append(ratios, float64(med[i])/float64(iso[i]))
			}
		})
	}
	if len(ratios) == 0 {
		return 0, false
	}
	return stats.Median(ratios), true
}
