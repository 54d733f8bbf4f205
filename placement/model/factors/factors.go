package factors

import (
	"math"

	"github.com/latmap/latmap/internal/stats"
)

// Overlap is a rank's communication of its on-node and off-node parts:
// they move over different resources, the node's memory and its network
// links, at once (a rank posts its transfers to every partner, and the
// adapter moves the off-node bytes while the on-node copies run), so the
// longer of the two.
func Overlap(on, off float64) float64 { return math.Max(on, off) }

// MinShare: a level carrying less than this share of the modelled
// communication keeps factor 1 (its factor cannot be told from noise).
const MinShare = 0.05

// CriticalShare: the factors are fitted on the ranks whose modelled
// communication is at least this share of the largest, the ranks that
// set the run (a chosen policy). A rank that communicates less waits for
// them, in a barrier or a blocking receive, and that wait is in its
// measured MPI time: on the simulated fat tree, a random sparse exchange
// with computation and a barrier after each step
// (TestSimComputationOutOfSample) folded an off-node factor of 1.30 over
// all ranks (1.30 over those above half the largest) and predicted its
// own run 17% high; over the ranks within 10% of the largest, 1.115 and
// within 0.5%.
const CriticalShare = 0.9

// Critical keeps the ranks whose modelled communication (the longer of
// on and off) is at least CriticalShare of the largest.
func Critical(on, off, meas []float64) (kon, koff, kmeas []float64) {
	top := 0.0
	for i := range on {
		top = math.Max(top, Overlap(on[i], off[i]))
	}
	for i := range on {
		if Overlap(on[i], off[i]) >= CriticalShare*top {
			kon, koff, kmeas = append(kon, on[i]), append(koff, off[i]), append(kmeas, meas[i])
		}
	}
	return kon, koff, kmeas
}

// HeldOut fits the factors on the even ranks and on the odd ranks
// (each half has ranks on every node of a block or cyclic layout), and
// returns both pairs and the median over ranks of |predicted / measured -
// 1| with the factors of the half the rank is not in (NaN when no rank
// can be scored).
func HeldOut(on, off, meas []float64) ([2][2]float64, float64) {
	var halves [2][2]float64
	var split [2][3][]float64
	for i := range meas {
		h := i % 2
		split[h][0], split[h][1], split[h][2] = append(split[h][0], on[i]), append(split[h][1], off[i]), append(split[h][2], meas[i])
	}
	var errs []float64
	for h := range halves {
		a, b := Fit(split[h][0], split[h][1], split[h][2])
		halves[h] = [2]float64{a, b}
		o := split[1-h]
		for i := range o[2] {
			if p := Overlap(a*o[0][i], b*o[1][i]); o[2][i] > 0 && p > 0 {
				errs = append(errs, math.Abs(p/o[2][i]-1))
			}
		}
	}
	if len(errs) == 0 {
		return halves, math.NaN()
	}
	return halves, stats.Median(errs)
}

// Fit fits measured ~ max(a*on, b*off) over the ranks: each rank's
// measured time is its longer part's, so a is fitted by least squares on
// the ranks whose on-node part is the longer and b on the others, and
// the ranks are sorted again with the new factors until none moves (at
// most fitRounds). A level with under MinShare of the modelled time
// keeps factor 1; a factor fitted not positive gives both one common
// factor.
func Fit(on, off, meas []float64) (a, b float64) {
	a, b = 1, 1
	for range fitRounds {
		var son, soff, oo, om, ff, fm float64
		for i := range meas {
			if a*on[i] >= b*off[i] {
				son, oo, om = son+on[i], oo+on[i]*on[i], om+on[i]*meas[i]
			} else {
				soff, ff, fm = soff+off[i], ff+off[i]*off[i], fm+off[i]*meas[i]
			}
		}
		tot := son + soff
		if tot <= 0 {
			return 1, 1
		}
		na, nb := 1.0, 1.0
		if son >= MinShare*tot && oo > 0 {
			na = om / oo
		}
		if soff >= MinShare*tot && ff > 0 {
			nb = fm / ff
		}
		if !(na > 0 && nb > 0) {
			g := common(on, off, meas)
			return g, g
		}
		if na == a && nb == b {
			break
		}
		a, b = na, nb
	}
	return a, b
}

// fitRounds bounds Fit's rounds of sorting the ranks by their longer part.
const fitRounds = 20

// common is the one factor g fitting measured ~ g * max(on, off).
func common(on, off, meas []float64) float64 {
	var pp, pm float64
	for i := range meas {
		p := Overlap(on[i], off[i])
		pp, pm = pp+p*p, pm+p*meas[i]
	}
	if pp <= 0 {
		return 1
	}
	return pm / pp
}

// RankError is the median over ranks with modelled and measured
// communication of |max(a*on, b*off) / measured - 1| (NaN when none).
func RankError(on, off, meas []float64, a, b float64) float64 {
	var e []float64
	for i := range meas {
		p := Overlap(a*on[i], b*off[i])
		if meas[i] > 0 && p > 0 {
			e = append(e, math.Abs(p/meas[i]-1))
		}
	}
	if len(e) == 0 {
		return math.NaN()
	}
	return stats.Median(e)
}
