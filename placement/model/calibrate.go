package model

import (
	"fmt"
	"math"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/internal/text"
	"github.com/latmap/latmap/mapper/placefile"
)

// Calibration limits, chosen policy: factors are folded into the model
// only when they lie within [1/MaxFactor, MaxFactor] (beyond 3x the model
// is wrong in kind, not in scale: a missing level or a missed contention,
// and scaling it would hide that) and, with them, the median rank is
// predicted within FoldRankError (one factor per level must explain most
// ranks; the 2x2 and 4x2 virtual clusters fold within 4-17%).
const (
	MaxFactor     = 3.0
	FoldRankError = 0.25
	// minShare: a level carrying less than this share of the modelled
	// communication keeps factor 1 (its factor cannot be told from noise).
	minShare = 0.05
)

// Calibrate predicts the placement the profile ran under, compares it with
// what the profile measured, and, when the per-rank errors are consistent
// factors, sets md.Scale to them.
func Calibrate(md *Model, t *Traffic, current []int32, rt *RankTimes, measured float64) *placefile.Calibration {
	md.Scale = [2]float64{1, 1}
	raw := Predict("current", md, t, current, rt)
	c := &placefile.Calibration{RawPredictedS: raw.Run, MeasuredS: measured, RawError: raw.Run/measured - 1, OnNode: 1, OffNode: 1}
	ev := NewEvaluator(md, t, nil, append([]int32(nil), current...))
	on, off, meas := make([]float64, t.N), make([]float64, t.N), make([]float64, t.N)
	for i := int32(0); i < int32(t.N); i++ {
		on[i], off[i], _ = ev.fullParts(i)
		if int(i) < len(rt.Comm) {
			meas[i] = rt.Comm[i]
		}
		c.PredictedCommS += on[i] + off[i]
		c.MeasuredCommS += meas[i]
	}
	on, off, meas = critical(on, off, meas)
	c.RankError = rankError(on, off, meas, 1, 1)
	c.OnNode, c.OffNode = fitFactors(on, off, meas)
	c.FoldedRankError = rankError(on, off, meas, c.OnNode, c.OffNode)
	switch {
	case c.MeasuredCommS <= 0 || c.PredictedCommS <= 0:
		c.Note = "no communication time to compare"
	case math.IsNaN(c.FoldedRankError):
		c.Note = "no rank both communicates in the model and measured MPI time"
	case c.OnNode > MaxFactor || c.OnNode < 1/MaxFactor || c.OffNode > MaxFactor || c.OffNode < 1/MaxFactor:
		c.Note = fmt.Sprintf("the measured communication is %.3gx (on-node) and %.3gx (off-node) the model's: too far off to correct", c.OnNode, c.OffNode)
	case c.FoldedRankError > FoldRankError:
		c.Note = fmt.Sprintf("not one consistent factor: with the best factors the median rank is still off by %s", text.Percent(c.FoldedRankError))
	default:
		c.Folded = true
		c.Note = fmt.Sprintf("measured communication is %.3gx the model's on-node and %.3gx off-node; the predictions use these factors", c.OnNode, c.OffNode)
		md.Scale = [2]float64{c.OnNode, c.OffNode}
	}
	c.PredictedS, c.Error = c.RawPredictedS, c.RawError
	if c.Folded {
		cur := Predict("current", md, t, current, rt)
		c.PredictedS, c.Error = cur.Run, cur.Run/measured-1
		// Out of sample: the factors of each half of the ranks predict
		// the run (and the other half's ranks).
		halves, rankErr := heldOutFactors(on, off, meas)
		if !math.IsNaN(rankErr) {
			c.HeldOutRankError = rankErr
		}
		for _, f := range halves {
			if !(f[0] > 0 && f[1] > 0) || math.IsInf(f[0]+f[1], 0) {
				continue // a half without enough of a level to fit it
			}
			md.Scale = f
			if e := math.Abs(Predict("current", md, t, current, rt).Run/measured - 1); !math.IsNaN(e) && !math.IsInf(e, 0) {
				c.HeldOutError = math.Max(c.HeldOutError, e)
			}
		}
		md.Scale = [2]float64{c.OnNode, c.OffNode}
	}
	if !c.Folded {
		c.OnNode, c.OffNode = 1, 1
	}
	return c
}

// criticalShare: the factors are fitted on the ranks whose modelled
// communication is at least this share of the largest, the ranks that
// set the run (a chosen policy). A rank that communicates less waits for
// them, in a barrier or a blocking receive, and that wait is in its
// measured MPI time: on the simulated fat tree, a random sparse exchange
// with computation and a barrier after each step
// (TestSimComputationOutOfSample) folded an off-node factor of 1.30 over
// all ranks (1.30 over those above half the largest) and predicted its
// own run 17% high; over the ranks within 10% of the largest, 1.115 and
// within 0.5%.
const criticalShare = 0.9

// critical keeps the ranks whose modelled communication on + off is at
// least criticalShare of the largest.
func critical(on, off, meas []float64) (kon, koff, kmeas []float64) {
	top := 0.0
	for i := range on {
		top = math.Max(top, on[i]+off[i])
	}
	for i := range on {
		if on[i]+off[i] >= criticalShare*top {
			kon, koff, kmeas = append(kon, on[i]), append(koff, off[i]), append(kmeas, meas[i])
		}
	}
	return kon, koff, kmeas
}

// heldOutFactors fits the factors on the even ranks and on the odd ranks
// (each half has ranks on every node of a block or cyclic layout), and
// returns both pairs and the median over ranks of |predicted / measured -
// 1| with the factors of the half the rank is not in (NaN when no rank
// can be scored).
func heldOutFactors(on, off, meas []float64) ([2][2]float64, float64) {
	var halves [2][2]float64
	var split [2][3][]float64
	for i := range meas {
		h := i % 2
		split[h][0], split[h][1], split[h][2] = append(split[h][0], on[i]), append(split[h][1], off[i]), append(split[h][2], meas[i])
	}
	var errs []float64
	for h := range halves {
		a, b := fitFactors(split[h][0], split[h][1], split[h][2])
		halves[h] = [2]float64{a, b}
		o := split[1-h]
		for i := range o[2] {
			if p := a*o[0][i] + b*o[1][i]; o[2][i] > 0 && p > 0 {
				errs = append(errs, math.Abs(p/o[2][i]-1))
			}
		}
	}
	if len(errs) == 0 {
		return halves, math.NaN()
	}
	return halves, stats.Median(errs)
}

// fitFactors fits measured ~ a*on + b*off over the ranks by least squares;
// a level with under minShare of the modelled time keeps factor 1, and
// when the two-factor fit is not positive both get one common factor.
func fitFactors(on, off, meas []float64) (a, b float64) {
	var son, soff, oo, ff, of, om, fm float64
	for i := range meas {
		son += on[i]
		soff += off[i]
		oo += on[i] * on[i]
		ff += off[i] * off[i]
		of += on[i] * off[i]
		om += on[i] * meas[i]
		fm += off[i] * meas[i]
	}
	tot := son + soff
	if tot <= 0 {
		return 1, 1
	}
	switch {
	case son < minShare*tot:
		return 1, (fm - of) / ff
	case soff < minShare*tot:
		return (om - of) / oo, 1
	}
	det := oo*ff - of*of
	if det > 1e-12*oo*ff {
		a, b = (om*ff-fm*of)/det, (fm*oo-om*of)/det
		if a > 0 && b > 0 {
			return a, b
		}
	}
	g := (om + fm) / (oo + 2*of + ff)
	return g, g
}

// rankError is the median over ranks with modelled and measured
// communication of |(a*on + b*off) / measured - 1| (NaN when none).
func rankError(on, off, meas []float64, a, b float64) float64 {
	var e []float64
	for i := range meas {
		p := a*on[i] + b*off[i]
		if meas[i] > 0 && p > 0 {
			e = append(e, math.Abs(p/meas[i]-1))
		}
	}
	if len(e) == 0 {
		return math.NaN()
	}
	return stats.Median(e)
}
