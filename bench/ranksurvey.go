package bench

import (
	"io"
	"sort"

	"github.com/latmap/latmap/bench/journal"
	"github.com/latmap/latmap/bench/schedule"
	"github.com/latmap/latmap/internal/progress"
	"github.com/latmap/latmap/mapper/survey"
)

// rankSurvey is one rank's part of a survey: the schedule and the round
// trips it times as the lower rank of a pair.
type rankSurvey struct {
	c       comm
	opt     Options // as validated (trips are the counts measured now; Sizes are cut to those measured when the survey stops early)
	rank, n int
	sched   rankSchedule
	scope   rankScope
	trips   tripCounts
	data    roundTrips
	turn    turnState
	prog    *progress.Progress
	// budget is --time-budget (nil without).
	budget *budget
	// stop is rankEnv.Stop; stopped, once the ranks agreed to stop early,
	// says why and where (stopAfterPass).
	stop    func() string
	stopped string
	// checkEvery is how many rounds run between looks inside a pass (0:
	// none), as rank 0 last said (stopSignal).
	checkEvery int
	// resumed is rank 0's --resume (nil without).
	resumed *resumed
}

// rankSchedule is the order in which a rank meets its partners: the main
// schedule and the isolation sample.
type rankSchedule struct {
	plan    schedule.Plan   // the main schedule
	phase   string          // its name in the progress line
	iso     []schedule.Pair // the pairs re-measured in isolation
	isoPlan schedule.Plan
}

// rankScope is which pairs a survey measures: kind is survey.ScopeAll,
// ScopeNodes or ScopeSample, name the scope as meta.json records it;
// splan is the nodes or sample scope's plan.
type rankScope struct {
	kind, name string
	splan      *scopePlan
	// peers are the ranks above this one that it measures with, in
	// increasing order; nil for every rank above (scope all).
	peers []int
}

// tripCounts are how many round trips the survey times now: the run
// spec's, until the time budget lowers them.
type tripCounts struct {
	repeats int // timed round trips a pair, at the current size and the later ones
	burst   int // timed round trips a pair makes in a row each pass
	// iso are the isolation sample's repeats at the current size: the
	// survey's, unless the budget ran out during the sample.
	iso int
}

// roundTrips are the round trips this rank times: samples[s][peerIndex(b)][rep]
// and isoSamples[s][b], with b > rank at size s; scratch receives those
// not kept (on the higher rank of a pair).
type roundTrips struct {
	samples    [][][]float64
	isoSamples []map[int][]float64
	scratch    []float64
	// journal keeps samples' passes as they are measured (journal.go; nil
	// when this rank could not open it).
	journal *journal.Writer
}

// turnState is how a rank waits for its turn between rounds.
type turnState struct {
	// prev is the pair of the last round of the sequential schedule (A < 0
	// before the first): its lower rank, which finishes the round last,
	// hands the turn to the next pair.
	prev schedule.Pair
	// quiet: the ranks that sit out a round nap (Idle) instead of waiting
	// (the sequential schedule's isolation sample).
	quiet bool
}

// seqIsolationMax bounds the sequential schedule's isolation sample: every
// pair of it costs up to an idleNap a pass, while the other ranks sleep.
const seqIsolationMax = 16

// newRankSurvey makes this rank's schedule of the survey of the scope in
// spec, measuring spec's repeats in bursts of spec's burst.
func newRankSurvey(c comm, opt Options, l nodeLayout, spec runSpec) *rankSurvey {
	rank, n := c.Rank(), c.Size()
	rs := &rankSurvey{c: c, opt: opt, rank: rank, n: n,
		sched: rankSchedule{plan: schedule.CirclePlan{N: n}, phase: "rounds"},
		trips: tripCounts{repeats: spec.repeats, burst: spec.burst},
		data:  roundTrips{scratch: make([]float64, spec.burst)},
		turn:  turnState{prev: schedule.Pair{A: -1, B: -1}}}
	var k int
	rs.scope.kind, k, rs.scope.name = resolveScope(spec.scope, n, l, opt.Mmpi != "")
	if rs.scope.kind == survey.ScopeAll {
		rs.sched.iso = schedule.IsolationSample(n, opt.IsolatedFraction)
		if opt.Schedule == Sequential {
			rs.sched.plan, rs.sched.phase = schedule.SequentialPlan{N: n}, "sequential"
		}
	} else {
		rs.scope.splan = newScopePlan(l, k, rank)
		rs.sched.plan, rs.scope.peers = rs.scope.splan, rs.scope.splan.peers()
		rs.sched.iso = scopeIsolation(rs.scope.splan, n, opt.IsolatedFraction)
		if opt.Schedule == Sequential {
			rs.sched.plan, rs.sched.phase = scopeSeqPlan{rs.scope.splan}, "sequential"
		}
	}
	if opt.Schedule == Sequential {
		rs.sched.iso = schedule.Spread(rs.sched.iso, seqIsolationMax)
	}
	rs.sched.isoPlan = schedule.ListPlan(rs.sched.iso)
	return rs
}

// allocate makes the storage of the round trips this rank times: the
// repeats a pair and size, with every peer above it it measures with and
// with its pairs of the isolation sample.
func (rs *rankSurvey) allocate() {
	opt, repeats := rs.opt, rs.trips.repeats
	npeers := rs.n - 1 - rs.rank
	if rs.scope.peers != nil {
		npeers = len(rs.scope.peers)
	}
	rs.data.samples = make([][][]float64, len(opt.Sizes))
	rs.data.isoSamples = make([]map[int][]float64, len(opt.Sizes))
	for s := range opt.Sizes {
		rs.data.samples[s] = make([][]float64, npeers)
		for i := range rs.data.samples[s] {
			rs.data.samples[s][i] = make([]float64, repeats)
		}
		rs.data.isoSamples[s] = map[int][]float64{}
		for _, p := range rs.sched.iso {
			if p.A == rs.rank {
				rs.data.isoSamples[s][p.B] = make([]float64, repeats)
			}
		}
	}
}

// passes is how many passes of burst round trips a pair make repeats.
func passes(repeats, burst int) int { return (repeats + burst - 1) / burst }

// peerIndex is where the round trips with peer (> rank) are kept.
func (rs *rankSurvey) peerIndex(peer int) int {
	if rs.scope.peers == nil {
		return peer - rs.rank - 1
	}
	return sort.SearchInts(rs.scope.peers, peer)
}

// peerAt is the peer of samples index i.
func (rs *rankSurvey) peerAt(i int) int {
	if rs.scope.peers == nil {
		return rs.rank + 1 + i
	}
	return rs.scope.peers[i]
}

// progress is rank 0's progress line (nil elsewhere, and on rank 0 without
// --progress or a terminal).
func (rs *rankSurvey) progress(stderr io.Writer) *progress.Progress {
	opt := rs.opt
	if rs.rank != 0 || !(opt.Progress || progress.IsTerminal(stderr)) {
		return nil
	}
	per := passes(rs.trips.repeats, rs.trips.burst) * (rs.sched.plan.Rounds() + rs.sched.isoPlan.Rounds())
	if opt.Warmup > 0 {
		per += rs.sched.plan.Rounds()
	}
	return progress.NewProgress(stderr, progress.IsTerminal(stderr), per*len(opt.Sizes), nil)
}
