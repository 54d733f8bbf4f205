package placement

import (
	"fmt"
	"math"

	"github.com/latmap/latmap/mapper/profile"
)

// RankTimes are the parts of each rank's run time that placement does not
// change, from a profile: computation, collective wait (sync) and
// send-late wait; plus the measured elapsed time, MPI time, and
// communication time (MPI time minus the waits).
type RankTimes struct {
	Comput, Sync, Late []float64
	Elapsed, MPI, Comm []float64
}

// TimesFromProfile sums a profile's per-rank times.
func TimesFromProfile(p *profile.Profile) *RankTimes {
	n := len(p.Ranks)
	rt := &RankTimes{Comput: make([]float64, n), Sync: make([]float64, n), Late: make([]float64, n),
		Elapsed: make([]float64, n), MPI: make([]float64, n), Comm: make([]float64, n)}
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
		rt.Comm[f.Rank] += f.Time
	}
	return rt
}

// Prediction is the modelled outcome of one placement.
type Prediction struct {
	Name string `json:"name"`
	// Transfer is the modelled pairwise transfer time summed over rank
	// pairs (s): the solver's tie-break.
	Transfer float64 `json:"transfer_s"`
	// MaxRankTransfer is the largest per-rank modelled communication time
	// (s): pairwise transfers, raised where the rank's node link or memory
	// is the bottleneck (see Model).
	MaxRankTransfer float64 `json:"max_rank_transfer_s"`
	// Run is the predicted run time: the slowest rank's computation +
	// collective wait + send-late + modelled communication (s). With no
	// profile it is the slowest rank's communication time. The solver
	// minimises it.
	Run float64 `json:"predicted_run_s"`
	// SlowestRank is the rank that sets Run.
	SlowestRank int `json:"slowest_rank"`
	// NodeBound counts the ranks whose time their node's link or memory
	// sets (contention), Contention is what that adds to the slowest
	// rank's communication (s).
	NodeBound  int     `json:"node_bound_ranks"`
	Contention float64 `json:"contention_s"`
	perRank    []float64
	comm       []float64
}

// baseTimes is each rank's time that placement does not change:
// computation + collective wait + send-late (nil without a profile).
func baseTimes(rt *RankTimes, n int) []float64 {
	if rt == nil {
		return nil
	}
	b := make([]float64, n)
	for i := 0; i < n && i < len(rt.Comput); i++ {
		b[i] = rt.Comput[i] + rt.Sync[i] + rt.Late[i]
	}
	return b
}

// Predict models placement place.
func Predict(name string, md *Model, t *Traffic, place []int32, rt *RankTimes) Prediction {
	base := baseTimes(rt, t.N)
	ev := newEvaluator(md, t, base, append([]int32(nil), place...))
	pr := Prediction{Name: name, Transfer: ev.transfer, perRank: make([]float64, t.N), comm: make([]float64, t.N), SlowestRank: -1}
	for i := int32(0); i < int32(t.N); i++ {
		c, bound := ev.comm(i)
		if bound {
			pr.NodeBound++
		}
		pr.comm[i] = c
		pr.MaxRankTransfer = math.Max(pr.MaxRankTransfer, c)
		v := c
		if base != nil {
			v += base[i]
		}
		pr.perRank[i] = v
		if v > pr.Run || pr.SlowestRank < 0 {
			pr.Run, pr.SlowestRank = v, int(i)
			pair := md.Scale[0]*math.Max(ev.pOn[i], 0) + md.Scale[1]*math.Max(ev.pOff[i], 0)
			pr.Contention = c - pair
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

// matrixVerdict is the verdict without a profile: only communication is
// predicted.
func matrixVerdict(prop, ref Prediction, gain float64) (string, bool) {
	s := fmt.Sprintf("the proposal's slowest rank is predicted to communicate for %.4g s against %.4g s with %s (%s less; summed transfer %.4g s against %.4g s). Without a profile (--profile) the share of communication in the run is unknown, so this is not a prediction of the run time.",
		prop.Run, ref.Run, ref.Name, pct(gain), prop.Transfer, ref.Transfer)
	if gain < GainWorthIt {
		return "Not worth changing: " + s, false
	}
	return "Use the proposal: " + s, true
}

// limit is what no placement changes, when it dominates: waiting, or
// computation ("" otherwise).
func (sh *Shares) limit() string {
	switch {
	case sh.WaitShare >= WaitDominates:
		return fmt.Sprintf("%s of the time in MPI is waiting for late senders (%.3g s) and at collectives (%.3g s), which no placement removes",
			pct(sh.WaitShare), sh.Late, sh.Sync)
	case sh.CommShare < CommSmall:
		return fmt.Sprintf("communication is only %s of the run (%.3g s of MPI in %.3g s, summed over ranks)", pct(sh.CommShare), sh.MPI, sh.Elapsed)
	}
	return ""
}

// verdict says in plain words whether to use the proposal, and whether
// it is worth writing: a predicted gain of at least GainWorthIt that the
// model's measured error does not exceed.
func verdict(r *Result) (string, bool) {
	prop := r.Predictions[len(r.Predictions)-1]
	ref := r.reference()
	gain := 0.0
	if ref.Run > 0 {
		gain = (ref.Run - prop.Run) / ref.Run
	}
	if r.Shares == nil {
		return matrixVerdict(prop, ref, gain)
	}
	sh := r.Shares
	limit := sh.limit()
	if c := r.Calibration; c != nil && gain >= GainWorthIt && math.Abs(c.Error) > gain {
		return fmt.Sprintf("Can't tell: the proposal predicts %.4g s against %.4g s %s (%s faster), but the model is off by more than that on the run it can be checked against: it predicts %.4g s for the placement the profile ran under, which measured %.4g s (%+.0f%%). Measure it with latmap verify before you rely on it.",
			prop.Run, ref.Run, ref.Name, pct(gain), c.PredictedS, c.MeasuredS, 100*c.Error), false
	}
	switch {
	case gain < GainWorthIt && limit != "":
		s := fmt.Sprintf("Placement will not help much: %s. Predicted run %.4g s with the proposal against %.4g s %s (%s); even a perfect interconnect gives %.4g s.",
			limit, prop.Run, ref.Run, ref.Name, pct(gain), r.PerfectRun)
		if sh.WaitShare >= WaitDominates {
			s += " Look at load balance first."
		}
		return s, false
	case gain < GainWorthIt:
		return fmt.Sprintf("Not worth changing: the proposal predicts %.4g s against %.4g s %s (%s). The perfect-interconnect bound is %.4g s.",
			prop.Run, ref.Run, ref.Name, pct(gain), r.PerfectRun), false
	}
	s := fmt.Sprintf("Use the proposal: predicted run %.4g s against %.4g s %s, %s faster (slowest rank's communication %.4g s instead of %.4g s). A perfect interconnect would give %.4g s.",
		prop.Run, ref.Run, ref.Name, pct(gain), prop.MaxRankTransfer, ref.MaxRankTransfer, r.PerfectRun)
	if limit != "" {
		// The gain is worth having, and the rest is out of placement's
		// reach: say both, never "will not help" beside a predicted gain.
		s += " Beyond that, " + limit + "."
	}
	return s, true
}
