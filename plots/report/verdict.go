package report

import (
	"fmt"
	"io"
	"math"

	"github.com/latmap/latmap/internal/text"
	"github.com/latmap/latmap/mapper/placefile"
)

// Place writes latmap place's advice to w: the report (WritePlace), or
// with asJSON the advice as JSON (placefile.WriteAdvice), its verdict in
// words (Verdict) filled in first.
func Place(w io.Writer, a *placefile.Advice, asJSON bool) error {
	if a.Verdict == "" {
		a.Verdict = Verdict(a)
	}
	if asJSON {
		return placefile.WriteAdvice(w, a)
	}
	WritePlace(w, a)
	return nil
}

// Verdict says latmap place's verdict (a.VerdictKind) in plain words,
// with the predictions that make it.
func Verdict(a *placefile.Advice) string {
	v := verdictSentence(a)
	if a.MachineSummary.Bandwidth == placefile.BandwidthDefaults && a.Bytes > 0 {
		v += " Caution: the bandwidths are latmap's built-in guesses, not measured (the survey has no fit.csv): " +
			"the time of every large message is a guess. Survey with two or more --sizes (the default 64,64K does) " +
			"to measure them."
	}
	return v
}

func verdictSentence(a *placefile.Advice) string {
	prop, ref := a.ProposalPrediction(), a.Reference()
	gain := a.Gain()
	pct := text.Percent
	if a.Shares == nil {
		s := fmt.Sprintf("the proposal's slowest rank is predicted to communicate for %.4g s against %.4g s with "+
			"%s (%s less; summed transfer %.4g s against %.4g s). Without a profile (--profile) the share of "+
			"communication in the run is unknown, so this is not a prediction of the run time.",
			prop.Run, ref.Run, ref.Name, pct(gain), prop.Transfer, ref.Transfer)
		if a.VerdictKind == placefile.VerdictUse {
			return "Use the proposal: " + s
		}
		return "Not worth changing: " + s
	}
	sh := a.Shares
	limit := limitText(sh)
	switch a.VerdictKind {
	case placefile.VerdictCantTell:
		c := a.Calibration
		if r := c.Reruns; r != nil && r.Error >= c.HeldOutError && r.Error > math.Abs(c.Error) {
			return fmt.Sprintf("Can't tell: the proposal predicts %.4g s against %.4g s %s (%s faster), "+
				"but the model is not that sure: latmap verify measured the placement the profile ran under at "+
				"%.4g s (median of %d runs), and the model predicts %.4g s for it (off by %.0f%%, out of sample). "+
				"Measure the proposal with latmap verify before you rely on it.",
				prop.Run, ref.Run, ref.Name, pct(gain), r.MeasuredS, r.Runs, c.PredictedS, 100*r.Error)
		}
		if c.HeldOutError > math.Abs(c.Error) {
			return fmt.Sprintf("Can't tell: the proposal predicts %.4g s against %.4g s %s (%s faster), "+
				"but the model is not that sure: calibrated on half of the profile's ranks, "+
				"it predicts the run of the placement the profile ran under (%.4g s measured) "+
				"only within %.0f%% (%+.0f%% with all ranks, in sample). Measure it with latmap verify before you "+
				"rely on it.",
				prop.Run, ref.Run, ref.Name, pct(gain), c.MeasuredS, 100*c.HeldOutError, 100*c.Error)
		}
		return fmt.Sprintf("Can't tell: the proposal predicts %.4g s against %.4g s %s (%s faster), "+
			"but the model is off by more than that on the run it can be checked against: it predicts %.4g s for the "+
			"placement the profile ran under, which measured %.4g s (%+.0f%%). Measure it with latmap verify before "+
			"you rely on it.",
			prop.Run, ref.Run, ref.Name, pct(gain), c.PredictedS, c.MeasuredS, 100*c.Error)
	case placefile.VerdictWillNotHelp:
		s := fmt.Sprintf("Placement will not help much: %s. Predicted run %.4g s with the proposal against %.4g s %s (%s); even a perfect interconnect gives %.4g s.",
			limit, prop.Run, ref.Run, ref.Name, pct(gain), a.PerfectRun)
		if sh.Limit() == placefile.LimitWaiting {
			s += " Look at load balance first."
		}
		return s
	case placefile.VerdictNotWorth:
		return fmt.Sprintf("Not worth changing: the proposal predicts %.4g s against %.4g s %s (%s). The perfect-interconnect bound is %.4g s.",
			prop.Run, ref.Run, ref.Name, pct(gain), a.PerfectRun)
	}
	s := fmt.Sprintf("Use the proposal: predicted run %.4g s against %.4g s %s, %s faster (slowest rank's "+
		"communication %.4g s instead of %.4g s). A perfect interconnect would give %.4g s.",
		prop.Run, ref.Run, ref.Name, pct(gain), prop.MaxRankTransfer, ref.MaxRankTransfer, a.PerfectRun)
	if limit != "" {
		// The gain is worth having, and the rest is out of placement's
		// reach: say both, never "will not help" beside a predicted gain.
		s += " Beyond that, " + limit + "."
	}
	return s
}

// limitText says what no placement changes, when it dominates the run
// ("" otherwise).
func limitText(sh *placefile.Shares) string {
	switch sh.Limit() {
	case placefile.LimitWaiting:
		return fmt.Sprintf("%s of the time in MPI is waiting for late senders (%.3g s) and at collectives (%.3g s), which no placement removes",
			text.Percent(sh.WaitShare), sh.Late, sh.Sync)
	case placefile.LimitComputation:
		return fmt.Sprintf("communication is only %s of the run (%.3g s of MPI in %.3g s, summed over ranks)", text.Percent(sh.CommShare), sh.MPI, sh.Elapsed)
	}
	return ""
}
