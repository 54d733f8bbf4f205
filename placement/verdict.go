package placement

import (
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/placement/solve"
)

// GainWorthIt is the smallest predicted gain (fraction of the reference
// run) latmap advises acting on: the solver's own margin (solve.WorthIt),
// below which its proposal is the current placement.
const GainWorthIt = solve.WorthIt

// decide says whether to use the proposal (a placefile.Verdict* kind), and
// whether the launcher file is worth writing: a predicted gain of at least
// GainWorthIt that the model's measured error does not exceed. Without a
// profile only communication is predicted, and the gain alone decides.
func decide(a *placefile.Advice) (kind string, worth bool) {
	gain := a.Gain()
	if a.Shares == nil {
		if gain < GainWorthIt {
			return placefile.VerdictNotWorth, false
		}
		return placefile.VerdictUse, true
	}
	if c := a.Calibration; c != nil && gain >= GainWorthIt && c.CheckError() > gain {
		return placefile.VerdictCantTell, false
	}
	switch {
	case gain < GainWorthIt && a.Shares.Limit() != placefile.LimitNone:
		return placefile.VerdictWillNotHelp, false
	case gain < GainWorthIt:
		return placefile.VerdictNotWorth, false
	}
	return placefile.VerdictUse, true
}
