package bench

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/latmap/latmap/mapper/survey"
)

// MinBudgetRepeats is the floor --time-budget never lowers the timed round
// trips per pair below (or the requested repeats, when fewer): under ten a
// median and a p99 say little.
const MinBudgetRepeats = 10

// budget is a survey's --time-budget: a probe round before measuring
// estimates the whole survey, which lowers the repeats (never below the
// floor) or, when the floor would not fit and the ranks span several
// hosts, narrows scope all to nodes; after the first pass of every size
// the estimate is redone from that pass and the repeats lowered again if
// needed. Every decision is rank 0's, broadcast to all ranks.
type budget struct {
	limit time.Duration
	start time.Time
	floor int
	meta  survey.TimeBudgetMeta
}

func newBudget(opt Options) *budget {
	if opt.TimeBudget <= 0 {
		return nil
	}
	return &budget{limit: opt.TimeBudget, floor: min(MinBudgetRepeats, opt.Repeats),
		meta: survey.TimeBudgetMeta{BudgetS: opt.TimeBudget.Seconds(), MinRepeats: min(MinBudgetRepeats, opt.Repeats),
			Repeats: make([]int, len(opt.Sizes))}}
}

// shape is what a survey's duration depends on, in rounds.
type shape struct {
	rounds, iso int // rounds of the schedule and of the isolation sample
	sizes       int
	burst, warm int
}

// estimate is the survey's duration when a pass's round takes perRound:
// per size, each round's warm-up and passes, and the isolation sample's
// passes.
func (s shape) estimate(repeats int, perRound time.Duration) time.Duration {
	passes := (repeats + s.burst - 1) / s.burst
	warm := 0.0
	if s.warm > 0 {
		warm = float64(s.warm) / float64(s.burst+1)
	}
	per := float64(s.rounds)*(float64(passes)+warm) + float64(s.iso*passes)
	return time.Duration(float64(s.sizes) * per * float64(perRound))
}

// fit is the most repeats (a multiple of burst, at most want, at least
// floor) whose estimate fits in left; ok is false when the floor does not.
func (s shape) fit(want, floor int, perRound, left time.Duration) (int, bool) {
	if s.estimate(want, perRound) <= left {
		return want, true
	}
	for p := (want+s.burst-1)/s.burst - 1; p >= 1; p-- {
		r := max(p*s.burst, floor)
		if s.estimate(r, perRound) <= left {
			return min(r, want), true
		}
		if r == floor {
			break
		}
	}
	return floor, false
}

func (rs *rankSurvey) shape() shape {
	return shape{rounds: rs.plan.Rounds(), iso: rs.isoPlan.Rounds(), sizes: len(rs.opt.Sizes), burst: rs.opt.Burst, warm: rs.opt.Warmup}
}

// probe times one round of rs's schedule at the smallest size with a
// pass's round trips (untimed ones: nothing is kept) and returns its wall
// time on rank 0, every rank waiting for the others before and after.
func (rs *rankSurvey) probe() (time.Duration, error) {
	if err := rs.c.Wait(false); err != nil {
		return 0, err
	}
	t0 := time.Now()
	if err := rs.runRound(rs.plan, 0, rs.opt.Sizes[0], rs.opt.Burst+1, 0, nil, 0); err != nil {
		return 0, err
	}
	if err := rs.c.Wait(false); err != nil {
		return 0, err
	}
	rs.prev = Pair{A: -1, B: -1}
	return time.Since(t0), nil
}

// plan is run by every rank before measuring: rank 0 probes, estimates
// and decides the repeats and scope, and every rank returns the options
// to measure with (unchanged without a budget).
func (b *budget) plan(rs *rankSurvey, opt Options, l nodeLayout) (Options, error) {
	if b == nil {
		return opt, nil
	}
	b.start = time.Now()
	took, err := rs.probe()
	if err != nil {
		return opt, err
	}
	var msg []byte
	if rs.rank == 0 {
		b.meta.ProbeS = took.Seconds()
		sh := rs.shape()
		est := sh.estimate(opt.Repeats, took)
		b.meta.EstimateS = est.Seconds()
		left := b.aim() - time.Since(b.start)
		scope := opt.Scope
		r, ok := sh.fit(opt.Repeats, b.floor, took, left)
		if !ok && rs.scope == survey.ScopeAll && len(l.members) > 1 && opt.Mmpi == "" && (opt.Scope == ScopeAuto || opt.Scope == survey.ScopeAll) {
			// The floor does not fit every pair: measure the nodes' pairs
			// and their leaders' instead. A round of either takes about
			// as long (one pair's round trips, all pairs at once).
			p := newScopePlan(l, 0, 0)
			nsh := shape{rounds: p.Rounds(), iso: min(sh.iso, p.NumPairs()), sizes: sh.sizes, burst: sh.burst, warm: sh.warm}
			scope = survey.ScopeNodes
			r, ok = nsh.fit(opt.Repeats, b.floor, took, left)
			b.meta.Scope = scope
			b.action(fmt.Sprintf("every pair with %d round trips each was estimated at %s from a %s probe round: scope narrowed to nodes (%d rounds instead of %d)",
				b.floor, roundDur(sh.estimate(b.floor, took)).String(), roundDur(took).String(), nsh.rounds, sh.rounds))
		}
		if r < opt.Repeats {
			b.action(fmt.Sprintf("estimated %s with %d round trips a pair, over the %s budget: %d round trips a pair", roundDur(est).String(), opt.Repeats, roundDur(b.limit).String(), r))
		}
		if !ok {
			b.action(fmt.Sprintf("the budget cannot be met: even %d round trips a pair (the floor) are estimated over what is left of it (%s); survey fewer ranks or with --scope nodes", r, roundDur(max(left, 0))))
		}
		msg = []byte(scope + " " + strconv.Itoa(r))
	}
	got, err := rs.c.Bcast(msg)
	if err != nil {
		return opt, err
	}
	f := strings.Fields(string(got))
	if len(f) != 2 {
		return opt, fmt.Errorf("time budget: bad decision %q from rank 0", got)
	}
	opt.Scope = f[0]
	if opt.Repeats, err = strconv.Atoi(f[1]); err != nil {
		return opt, fmt.Errorf("time budget: bad decision %q from rank 0", got)
	}
	opt.Burst = min(opt.Burst, opt.Repeats)
	return opt, nil
}

// check is run by every rank after the first pass of size si: rank 0
// re-estimates what is left from that pass's wall time and lowers the
// repeats of this size and the later ones when they would not fit; every
// rank applies the decision.
//
// sizeStart is when the size's warm-up started: what was spent on it since
// is counted in the estimate of the size, so it is given back to left.
func (b *budget) check(rs *rankSurvey, si int, sizeStart time.Time, pass time.Duration) error {
	var msg []byte
	if rs.rank == 0 {
		sh := rs.shape()
		sh.sizes = len(rs.opt.Sizes) - si
		left := b.aim() - time.Since(b.start) + time.Since(sizeStart)
		perRound := pass / time.Duration(max(sh.rounds, 1))
		r, ok := sh.fit(rs.opt.Repeats, b.floor, perRound, left)
		if r < rs.opt.Repeats {
			b.action(fmt.Sprintf("after the first pass at %d bytes (%s), %s of the budget left: %d round trips a pair from this size on",
				rs.opt.Sizes[si], roundDur(pass).String(), roundDur(max(b.limit-time.Since(b.start), 0)), r))
		}
		if !ok && r == b.floor && rs.opt.Repeats > b.floor {
			b.action(fmt.Sprintf("at %d bytes even the floor of %d round trips a pair is estimated over the budget", rs.opt.Sizes[si], b.floor))
		}
		msg = []byte(strconv.Itoa(r))
	}
	got, err := rs.c.Bcast(msg)
	if err != nil {
		return err
	}
	r, err := strconv.Atoi(string(got))
	if err != nil || r < 1 {
		return fmt.Errorf("time budget: bad decision %q from rank 0", got)
	}
	if r < rs.opt.Repeats {
		rs.opt.Repeats = r
		for s := si; s < len(rs.samples); s++ {
			for i := range rs.samples[s] {
				rs.samples[s][i] = rs.samples[s][i][:r]
			}
			for p, v := range rs.isoSamples[s] {
				rs.isoSamples[s][p] = v[:r]
			}
		}
	}
	return nil
}

// aim is the part of the budget the estimates plan for: 90%, as a round's
// time varies and the gather, writing and node bandwidth phase come after
// (a 3 s budget with 4 MiB messages on this machine took 3.3 s aiming at
// all of it).
func (b *budget) aim() time.Duration { return b.limit * 9 / 10 }

func (b *budget) action(s string) { b.meta.Actions = append(b.meta.Actions, s) }
