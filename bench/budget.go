package bench

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/latmap/latmap/bench/schedule"
	"github.com/latmap/latmap/internal/progress"
	"github.com/latmap/latmap/mapper/survey"
)

// MinBudgetRepeats is the floor --time-budget never lowers the timed round
// trips per pair below (or the requested repeats, when fewer): under ten a
// median and a p99 say little.
const MinBudgetRepeats = 10

// budget is a survey's --time-budget: a probe round at each size before measuring
// estimates the whole survey, which lowers the repeats (never below the
// floor, meta.MinRepeats) or, when the floor would not fit and the ranks
// span several hosts, narrows scope all to nodes; after every pass the
// estimate is redone and the repeats lowered again if needed. Every
// decision is rank 0's, broadcast to all ranks.
type budget struct {
	limit time.Duration
	start time.Time
	meta  survey.TimeBudgetMeta
	// logged is the repeats the last action named: a smaller cut is made
	// without a word unless it is 10% or more.
	logged int
}

func newBudget(opt Options) *budget {
	if opt.TimeBudget <= 0 {
		return nil
	}
	return &budget{limit: opt.TimeBudget,
		meta: survey.TimeBudgetMeta{BudgetS: opt.TimeBudget.Seconds(), MinRepeats: min(MinBudgetRepeats, opt.Repeats),
			Repeats: make([]int, len(opt.Sizes))}}
}

// shape is what a survey's duration depends on, in rounds.
type shape struct {
	rounds, iso int // rounds of the schedule and of the isolation sample
	burst, warm int
}

// estimate is the survey's duration when a pass's round takes perRound,
// summed over the sizes: each round's warm-up and passes, and the
// isolation sample's passes.
func (s shape) estimate(repeats int, perRound time.Duration) time.Duration {
	np := passes(repeats, s.burst)
	warm := 0.0
	if s.warm > 0 {
		warm = float64(s.warm) / float64(s.burst+1)
	}
	per := float64(s.rounds)*(float64(np)+warm) + float64(s.iso*np)
	return time.Duration(per * float64(perRound))
}

// fit is the most repeats (a multiple of burst, at most want, at least
// floor) whose estimate fits in left; ok is false when the floor does not.
func (s shape) fit(want, floor int, perRound, left time.Duration) (int, bool) {
	if s.estimate(want, perRound) <= left {
		return want, true
	}
	for p := passes(want, s.burst) - 1; p >= 1; p-- {
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
	return shape{rounds: rs.sched.plan.Rounds(), iso: rs.sched.isoPlan.Rounds(), burst: rs.trips.burst, warm: rs.opt.Warmup}
}

// probe times one round of rs's schedule at each size with a pass's
// round trips (untimed ones: nothing is kept) and returns their wall time,
// summed over the sizes, on rank 0, every rank waiting for the others
// before and after each. (Probed at the smallest size only, 4 MiB
// messages were estimated at 64 B's cost: 2.2 s for a survey of minutes.)
func (rs *rankSurvey) probe(ctx context.Context) (time.Duration, error) {
	var took time.Duration
	for _, size := range rs.opt.Sizes {
		if err := rs.c.Wait(false); err != nil {
			return 0, err
		}
		t0 := time.Now()
		if err := rs.runRound(ctx, rs.sched.plan, 0, size, rs.trips.burst+1, 0, nil, 0); err != nil {
			return 0, err
		}
		if err := rs.c.Wait(false); err != nil {
			return 0, err
		}
		rs.turn.prev = schedule.Pair{A: -1, B: -1}
		took += time.Since(t0)
	}
	return took, nil
}

// decide is run by every rank before measuring, on rs made with the
// options' own scope and repeats: rank 0 probes, estimates and decides the
// repeats and scope, and every rank returns the spec to measure with.
func (b *budget) decide(ctx context.Context, rs *rankSurvey, l nodeLayout) (runSpec, error) {
	opt := rs.opt
	b.start = time.Now()
	took, err := rs.probe(ctx)
	if err != nil {
		return runSpec{}, err
	}
	var msg []byte
	if rs.rank == 0 {
		b.meta.ProbeS = took.Seconds()
		sh := rs.shape()
		est := sh.estimate(opt.Repeats, took)
		b.meta.EstimateS = est.Seconds()
		left := b.aim() - time.Since(b.start)
		scope := opt.Scope
		r, ok := sh.fit(opt.Repeats, b.meta.MinRepeats, took, left)
		if !ok && rs.scope.kind == survey.ScopeAll && len(l.members) > 1 && opt.Mmpi == "" && (opt.Scope == ScopeAuto || opt.Scope == survey.ScopeAll) {
			// The floor does not fit every pair: measure the nodes' pairs
			// and their leaders' instead. A round of either takes about
			// as long (one pair's round trips, all pairs at once).
			p := newScopePlan(l, 0, 0)
			nsh := shape{rounds: p.Rounds(), iso: min(sh.iso, p.NumPairs()), burst: sh.burst, warm: sh.warm}
			scope = survey.ScopeNodes
			r, ok = nsh.fit(opt.Repeats, b.meta.MinRepeats, took, left)
			b.meta.Scope = scope
			b.action(fmt.Sprintf("every pair with %d round trips each was estimated at %s from %s of probe rounds: scope narrowed to nodes (%d rounds instead of %d)",
				b.meta.MinRepeats, progress.Round(sh.estimate(b.meta.MinRepeats, took)).String(), progress.Round(took).String(), nsh.rounds, sh.rounds))
		}
		if r < opt.Repeats {
			b.action(fmt.Sprintf("estimated %s with %d round trips a pair, over the %s budget: %d round trips a pair",
				progress.Round(est).String(), opt.Repeats, progress.Round(b.limit).String(), r))
		}
		if !ok {
			b.action(fmt.Sprintf("the budget cannot be met: even %d round trips a pair (the floor) are estimated over what is left of it (%s); "+
				"survey fewer ranks or with --scope nodes", r, progress.Round(max(left, 0))))
		}
		msg = []byte(scope + " " + strconv.Itoa(r))
	}
	return b.share(rs.c, msg, opt.Burst)
}

// share broadcasts rank 0's decision before measuring (msg on rank 0:
// the scope and the repeats) and returns it on every rank as a spec, its
// burst lowered to the repeats when above.
func (b *budget) share(c comm, msg []byte, burst int) (runSpec, error) {
	got, err := c.Bcast(msg)
	if err != nil {
		return runSpec{}, err
	}
	f := strings.Fields(string(got))
	if len(f) != 2 {
		return runSpec{}, fmt.Errorf("time budget: bad decision %q from rank 0", got)
	}
	spec := runSpec{scope: f[0]}
	if spec.repeats, err = strconv.Atoi(f[1]); err != nil {
		return runSpec{}, fmt.Errorf("time budget: bad decision %q from rank 0", got)
	}
	spec.burst = min(burst, spec.repeats)
	b.meta.PlannedRepeats = spec.repeats
	return spec, nil
}

// check is run by every rank after each pass of size si (done passes
// so far, taking spent since the size's first pass began): rank 0
// re-estimates what is left of the survey from this size's passes so far
// and lowers the repeats of this size and the later ones when it would not
// fit; every rank applies the decision. (Checking after the first pass
// only, a 3 s budget took 6.6 s when round trips slowed halfway through
// under the load of other tests.)
func (b *budget) check(rs *rankSurvey, si, done int, spent time.Duration) error {
	var msg []byte
	if rs.rank == 0 {
		r := b.remaining(rs, si, done, spent)
		if r < rs.trips.repeats && (b.logged == 0 || r <= b.logged*9/10) {
			b.logged = r
			b.action(fmt.Sprintf("after %d passes at %d bytes (%s), %s of the budget left: %d round trips a pair from this size on",
				done, rs.opt.Sizes[si], progress.Round(spent), progress.Round(max(b.limit-time.Since(b.start), 0)), r))
		}
		msg = []byte(strconv.Itoa(r))
	}
	r, err := shareRepeats(rs.c, msg)
	if err != nil {
		return err
	}
	if r < rs.trips.repeats {
		sh := rs.shape()
		rs.prog.Skip((passes(rs.trips.repeats, sh.burst) - passes(r, sh.burst)) * (sh.rounds + sh.iso) * (len(rs.opt.Sizes) - si))
		rs.trips.repeats = r
		for s := si; s < len(rs.data.samples); s++ {
			for i := range rs.data.samples[s] {
				rs.data.samples[s][i] = rs.data.samples[s][i][:r]
			}
			for p, v := range rs.data.isoSamples[s] {
				rs.data.isoSamples[s][p] = v[:r]
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

// remaining is the most repeats (at least the floor and what is already
// measured, at most the current repeats) with which the rest of the survey
// is estimated to fit in the budget's aim, from this size's mean pass:
// the passes left at this size, its isolation sample, and each later size
// taken to cost as much as this one.
func (b *budget) remaining(rs *rankSurvey, si, done int, spent time.Duration) int {
	sh := rs.shape()
	pass := float64(spent) / float64(done)
	isoFrac := float64(sh.iso) / float64(max(sh.rounds, 1))
	later := float64(len(rs.opt.Sizes) - si - 1)
	warm := 0.0
	if sh.warm > 0 {
		warm = pass * float64(sh.warm) / float64(sh.burst+1)
	}
	left := float64(b.aim() - time.Since(b.start))
	cost := func(np int) float64 {
		p := float64(np)
		return (p-float64(done))*pass + isoFrac*p*pass + later*(p*pass*(1+isoFrac)+warm)
	}
	cur := passes(rs.trips.repeats, sh.burst)
	lo := max(done, passes(b.meta.MinRepeats, sh.burst))
	p := cur
	for p > lo && cost(p) > left {
		p--
	}
	if p == cur {
		return rs.trips.repeats
	}
	return min(rs.trips.repeats, max(p*sh.burst, b.meta.MinRepeats))
}

// checkIsolation is run by every rank after each pass of the isolation
// sample at size si: when the budget's aim is spent, rank 0 ends the
// sample there (its medians are then of fewer round trips), and every
// rank keeps the done passes only. (Estimated like the schedule's
// passes, a 4 MiB sample once took twice as long.)
func (b *budget) checkIsolation(rs *rankSurvey, si, done int, _ time.Duration) error {
	var msg []byte
	if rs.rank == 0 {
		r := rs.trips.iso
		if time.Since(b.start) >= b.aim() {
			r = done * rs.trips.burst
			b.action(fmt.Sprintf("isolation sample at %d bytes ended after %d round trips a pair: the budget was spent", rs.opt.Sizes[si], r))
		}
		msg = []byte(strconv.Itoa(r))
	}
	r, err := shareRepeats(rs.c, msg)
	if err != nil {
		return err
	}
	if r < rs.trips.iso {
		rs.prog.Skip((passes(rs.trips.iso, rs.trips.burst) - passes(r, rs.trips.burst)) * rs.sched.isoPlan.Rounds())
		rs.trips.iso = r
		for p, v := range rs.data.isoSamples[si] {
			rs.data.isoSamples[si][p] = v[:r]
		}
	}
	return nil
}

// shareRepeats broadcasts rank 0's decision, a number of repeats (msg on
// rank 0), and returns it on every rank.
func shareRepeats(c comm, msg []byte) (int, error) {
	got, err := c.Bcast(msg)
	if err != nil {
		return 0, err
	}
	r, err := strconv.Atoi(string(got))
	if err != nil || r < 1 {
		return 0, fmt.Errorf("time budget: bad decision %q from rank 0", got)
	}
	return r, nil
}

func (b *budget) action(s string) { b.meta.Actions = append(b.meta.Actions, s) }

// report records the budget in s's meta.json (the first size's repeats
// as the survey's), prints its actions on stderr and, when it narrowed
// the scope or lowered the repeats below its plan, warns with them.
func (b *budget) report(s *survey.Survey, stderr io.Writer) {
	s.Meta.TimeBudget = &b.meta
	s.Meta.Repeats = b.meta.Repeats[0]
	for _, a := range b.meta.Actions {
		fmt.Fprintf(stderr, "latmap: time budget: %s\n", a)
	}
	if b.meta.Scope != "" || b.meta.Repeats[len(b.meta.Repeats)-1] < b.meta.PlannedRepeats {
		s.Meta.Warnings = append(s.Meta.Warnings, fmt.Sprintf("--time-budget %s: %s", progress.Round(b.limit).String(), strings.Join(b.meta.Actions, "; ")))
	}
}
