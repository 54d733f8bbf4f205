package placement

import (
	"fmt"
	"math"

	"github.com/latmap/latmap/mapper/profile"
)

// RankTimes are the parts of each rank's run time that placement does not
// change, from a profile: computation, collective wait (sync) and
// send-late wait; plus the measured elapsed time and MPI time.
type RankTimes struct {
	Comput, Sync, Late []float64
	Elapsed, MPI       []float64
}

// TimesFromProfile sums a profile's per-rank times.
func TimesFromProfile(p *profile.Profile) *RankTimes {
	n := len(p.Ranks)
	rt := &RankTimes{Comput: make([]float64, n), Sync: make([]float64, n), Late: make([]float64, n),
		Elapsed: make([]float64, n), MPI: make([]float64, n)}
	for i, r := range p.Ranks {
		rt.Comput[i] = r.Comput
		rt.Elapsed[i] = r.Elapsed
	}
	for _, f := range p.Functions {
		if f.Rank < 0 || f.Rank >= n {
			continue
		}
		rt.Sync[f.Rank] += f.Sync
		rt.Late[f.Rank] += f.Late
		rt.MPI[f.Rank] += f.Time + f.Sync + f.Late
	}
	return rt
}

// Prediction is the modelled outcome of one placement.
type Prediction struct {
	Name string `json:"name"`
	// Transfer is the modelled transfer time summed over rank pairs (s):
	// the cost the solver minimises.
	Transfer float64 `json:"transfer_s"`
	// MaxRankTransfer is the largest per-rank transfer time (s).
	MaxRankTransfer float64 `json:"max_rank_transfer_s"`
	// Run is the predicted run time: the slowest rank's computation +
	// collective wait + send-late + modelled transfer (s). With no profile
	// it is the slowest rank's transfer time.
	Run float64 `json:"predicted_run_s"`
	// SlowestRank is the rank that sets Run.
	SlowestRank int `json:"slowest_rank"`
	perRank     []float64
}

// Predict models placement place.
func Predict(name string, m *Machine, t *Traffic, place []int32, rt *RankTimes) Prediction {
	pr := Prediction{Name: name, Transfer: m.Cost(t, place)}
	tr := m.RankTransfer(t, place)
	pr.perRank = make([]float64, t.N)
	for i, x := range tr {
		pr.MaxRankTransfer = math.Max(pr.MaxRankTransfer, x)
		v := x
		if rt != nil && i < len(rt.Comput) {
			v += rt.Comput[i] + rt.Sync[i] + rt.Late[i]
		}
		pr.perRank[i] = v
		if v > pr.Run {
			pr.Run, pr.SlowestRank = v, i
		}
	}
	return pr
}

// PerfectRun is the run time with a perfect interconnect (transfer time
// 0): the slowest rank's computation + collective wait + send-late.
func PerfectRun(rt *RankTimes) float64 {
	if rt == nil {
		return 0
	}
	best := 0.0
	for i := range rt.Comput {
		best = math.Max(best, rt.Comput[i]+rt.Sync[i]+rt.Late[i])
	}
	return best
}

// Shares summarise where a profiled run spent its time.
type Shares struct {
	Elapsed float64 `json:"elapsed_s"`
	MPI     float64 `json:"mpi_s"`
	Late    float64 `json:"late_s"`
	Sync    float64 `json:"sync_s"`
	// CommShare is MPI time / elapsed time, summed over ranks.
	CommShare float64 `json:"comm_share"`
	// WaitShare is (late + sync) / MPI time.
	WaitShare float64 `json:"wait_share"`
	// SlowestElapsed is the measured elapsed time of the slowest rank,
	// to compare with the current placement's predicted run.
	SlowestElapsed float64 `json:"slowest_elapsed_s"`
}

func shares(rt *RankTimes) Shares {
	var s Shares
	for i := range rt.Comput {
		s.Elapsed += rt.Elapsed[i]
		s.MPI += rt.MPI[i]
		s.Late += rt.Late[i]
		s.Sync += rt.Sync[i]
		s.SlowestElapsed = math.Max(s.SlowestElapsed, rt.Elapsed[i])
	}
	if s.Elapsed > 0 {
		s.CommShare = s.MPI / s.Elapsed
	}
	if s.MPI > 0 {
		s.WaitShare = (s.Late + s.Sync) / s.MPI
	}
	return s
}

// Thresholds of the verdict.
const (
	// WaitDominates: when late-sender + collective wait are at least this
	// share of MPI time, placement cannot help much.
	WaitDominates = 0.5
	// CommSmall: when MPI is less than this share of the run.
	CommSmall = 0.10
	// GainWorthIt: smaller predicted gains are reported as not worth it.
	GainWorthIt = 0.02
)

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// verdict says in plain words whether to use the proposal.
// Calibration compares the model with the run the profile measured: the
// predicted run of the placement the profile was taken under against the
// profile's slowest rank.
type Calibration struct {
	PredictedS float64 `json:"predicted_current_run_s"`
	MeasuredS  float64 `json:"measured_slowest_rank_s"`
	// Error is PredictedS / MeasuredS - 1.
	Error float64 `json:"error"`
}

func verdict(r *Result) string {
	prop := r.Predictions[len(r.Predictions)-1]
	ref := r.reference()
	gain := 0.0
	if ref.Run > 0 {
		gain = (ref.Run - prop.Run) / ref.Run
	}
	if r.Shares == nil {
		tgain := 0.0
		if ref.Transfer > 0 {
			tgain = (ref.Transfer - prop.Transfer) / ref.Transfer
		}
		s := fmt.Sprintf("The proposal's modelled transfer time is %.4g s against %.4g s for %s (%s less). Only transfer time is compared: without a profile (--profile) the share of communication in the run is unknown, so the effect on run time cannot be predicted.",
			prop.Transfer, ref.Transfer, ref.Name, pct(tgain))
		if r.Solver.FellBack {
			s += " No better placement than " + r.Solver.Winner + " was found."
		}
		return s
	}
	sh := r.Shares
	// What no placement changes: waiting, or computation.
	limit := ""
	switch {
	case sh.WaitShare >= WaitDominates:
		limit = fmt.Sprintf("%s of the time in MPI is waiting for late senders (%.3g s) and at collectives (%.3g s), which no placement removes",
			pct(sh.WaitShare), sh.Late, sh.Sync)
	case sh.CommShare < CommSmall:
		limit = fmt.Sprintf("communication is only %s of the run (%.3g s of MPI in %.3g s, summed over ranks)", pct(sh.CommShare), sh.MPI, sh.Elapsed)
	}
	if c := r.Calibration; c != nil && gain >= GainWorthIt && math.Abs(c.Error) > gain {
		return fmt.Sprintf("Can't tell: the proposal predicts %.4g s against %.4g s %s (%s faster), but the model is off by more than that on the run it can be checked against: it predicts %.4g s for the placement the profile ran under, which measured %.4g s (%+.0f%%). Measure it with latmap verify before you rely on it.",
			prop.Run, ref.Run, ref.Name, pct(gain), c.PredictedS, c.MeasuredS, 100*c.Error)
	}
	switch {
	case gain < GainWorthIt && limit != "":
		s := fmt.Sprintf("Placement will not help much: %s. Predicted run %.4g s with the proposal against %.4g s %s (%s); even a perfect interconnect gives %.4g s.",
			limit, prop.Run, ref.Run, ref.Name, pct(gain), r.PerfectRun)
		if sh.WaitShare >= WaitDominates {
			s += " Look at load balance first."
		}
		return s
	case gain < GainWorthIt:
		return fmt.Sprintf("Not worth changing: the proposal predicts %.4g s against %.4g s %s (%s). The perfect-interconnect bound is %.4g s.",
			prop.Run, ref.Run, ref.Name, pct(gain), r.PerfectRun)
	}
	s := fmt.Sprintf("Use the proposal: predicted run %.4g s against %.4g s %s, %s faster (modelled transfer %.4g s instead of %.4g s). A perfect interconnect would give %.4g s.",
		prop.Run, ref.Run, ref.Name, pct(gain), prop.Transfer, ref.Transfer, r.PerfectRun)
	if limit != "" {
		// The gain is worth having, and the rest is out of placement's
		// reach: say both, never "will not help" beside a predicted gain.
		s += " Beyond that, " + limit + "."
	}
	return s
}
