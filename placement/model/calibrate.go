package model

import (
	"fmt"
	"math"

	"github.com/latmap/latmap/internal/text"
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/placement/model/factors"
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
)

// Calibrate predicts the placement the profile ran under, compares it with
// what the profile measured, and, when the per-rank errors are consistent
// factors, sets md.Scale to them.
func Calibrate(md *Model, t *Traffic, current []int32, rt *RankTimes, measured float64) *placefile.Calibration {
	md.Scale = [2]float64{1, 1}
	raw := Predict("current", md, t, current, rt)
	c := &placefile.Calibration{RawPredictedS: raw.Run, MeasuredS: measured, RawError: raw.Run/measured - 1, OnNode: 1, OffNode: 1}
	ev := newEvaluator(md, t, nil, append([]int32(nil), current...), true)
	on, off, meas := make([]float64, t.N), make([]float64, t.N), make([]float64, t.N)
	for i := int32(0); i < int32(t.N); i++ {
		on[i], off[i], _ = ev.fullParts(i)
		if int(i) < len(rt.Comm) {
			meas[i] = rt.Comm[i]
		}
		c.PredictedCommS += factors.Overlap(on[i], off[i])
		c.MeasuredCommS += meas[i]
	}
	on, off, meas = factors.Critical(on, off, meas)
	c.RankError = factors.RankError(on, off, meas, 1, 1)
	c.OnNode, c.OffNode = factors.Fit(on, off, meas)
	c.FoldedRankError = factors.RankError(on, off, meas, c.OnNode, c.OffNode)
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
		halves, rankErr := factors.HeldOut(on, off, meas)
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
