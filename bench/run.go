package bench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/gob"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"time"

	"github.com/latmap/latmap/bench/fit"
	"github.com/latmap/latmap/bench/journal"
	"github.com/latmap/latmap/bench/roundtrip"
	"github.com/latmap/latmap/bench/schedule"
	"github.com/latmap/latmap/bench/sizesweep"
	"github.com/latmap/latmap/internal/atomicdir"
	"github.com/latmap/latmap/internal/progress"
	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/internal/version"
	"github.com/latmap/latmap/mapper/survey"
)

// comm is the part of MPI a survey uses: mpi.go implements it with cgo over
// MPI_COMM_WORLD; the tests implement it with goroutines.
type comm interface {
	Rank() int
	Size() int
	// PingPong does warm untimed round trips of size bytes with peer (this
	// rank sends first when lo), then len(out) round trips timed one by one
	// on the lo side, which stores them in out in microseconds (the hi side
	// only uses len(out)).
	PingPong(peer int, lo bool, size, warm int, out []float64) error
	// Wait is a barrier during which the rank sleeps instead of spinning;
	// a rank that was active in the round may first spin briefly, as its
	// peers are likely to arrive soon.
	Wait(active bool) error
	// Idle is a barrier during which the rank sleeps in long naps
	// (idleNap) without looking in between: the ranks that sit out a pair
	// of the sequential schedule's isolation sample, so that it measures
	// the pair as if they were not there.
	Idle() error
	// Signal tells peer it may start (an eager, empty message); Await
	// sleeps until peer's Signal arrives. The sequential schedule hands
	// the turn from pair to pair with them instead of a barrier a round,
	// so the ranks that do not measure sleep.
	Signal(peer int) error
	Await(peer int) error
	// Exchange sends count messages of size bytes to each rank of dst
	// while receiving as many from each of src, a few in flight each way
	// with each partner (none: nil), and returns its wall time in
	// seconds.
	Exchange(dst, src []int, size, count int) (float64, error)
	// Gather collects every rank's bytes at rank 0 (nil elsewhere).
	Gather(b []byte) ([][]byte, error)
	// Bcast returns rank 0's bytes on every rank.
	Bcast(b []byte) ([]byte, error)
	// Abort ends the whole job (MPI_Abort).
	Abort(code int)
}

// Partner is rank r as Exchange's partners (-1: none): a switch or node
// phase step's one partner.
func Partner(r int) []int {
	if r < 0 {
		return nil
	}
	return []int{r}
}

// rankEnv is what a rank knows about itself and its MPI library.
type rankEnv struct {
	MPIVersion string
	Launcher   string
	Wtick      float64
	// Facts returns where the rank runs now (host, cpu, cpuset, socket...).
	Facts func() survey.Rank
	// CPU returns the CPU the rank runs on now.
	CPU    func() int
	Stderr io.Writer
	// Stop says, on rank 0, why the survey should stop early (the signal
	// that came: stop.go), "" while it should not; nil never stops.
	Stop func() string
}

// pairReport is one pair's result as the lower rank of the pair sends it to
// rank 0.
type pairReport struct {
	B, Size  int
	St       roundtrip.Stats
	Isolated float64
	// MmpiMean and MmpiSEM are the two mmpi log columns (see roundtrip.MmpiStats).
	MmpiMean, MmpiSEM float64
}

// rankReport is what every rank sends to rank 0 at the end: its facts and
// the pairs it led (those with a higher rank), so rank 0 receives data
// proportional to the number of pairs, never more.
type rankReport struct {
	Rank  survey.Rank
	Pairs []pairReport
	// NodeBW are the rank's send times of the node bandwidth phase.
	NodeBW []float64
}

// checkOutputs fails when an output exists without force.
func checkOutputs(opt *Options) error {
	if err := atomicdir.CheckDest(opt.Out, opt.Force); err != nil {
		return err
	}
	if opt.Mmpi != "" {
		if err := atomicdir.CheckDest(opt.Mmpi, opt.Force); err != nil {
			return fmt.Errorf("--mmpi: %w", err)
		}
	}
	return nil
}

// agree runs check on rank 0 and tells every rank its outcome, so that all
// ranks stop together. Rank 0 returns check's error; the others return
// errReported.
func agree(c comm, check func() error) error {
	var msg []byte
	var err error
	if c.Rank() == 0 {
		if err = check(); err != nil {
			msg = []byte(err.Error())
		}
	}
	got, berr := c.Bcast(msg)
	if berr != nil {
		return berr
	}
	if len(got) == 0 {
		return nil
	}
	if c.Rank() == 0 {
		return err
	}
	return errReported
}

// share gives every rank rank 0's *v, gob-encoded over one broadcast;
// what names v in errors.
func share[T any](c comm, v *T, what string) error {
	var buf bytes.Buffer
	if c.Rank() == 0 {
		if err := gob.NewEncoder(&buf).Encode(v); err != nil {
			return fmt.Errorf("encoding %s: %w", what, err)
		}
	}
	got, err := c.Bcast(buf.Bytes())
	if err != nil {
		return fmt.Errorf("sharing %s: %w", what, err)
	}
	if c.Rank() != 0 {
		var zero T
		*v = zero
		if err := gob.NewDecoder(bytes.NewReader(got)).Decode(v); err != nil {
			return fmt.Errorf("decoding %s: %w", what, err)
		}
	}
	return nil
}

// errReported is returned on ranks other than 0 when rank 0 reported the
// error for the whole job; Run turns it into nil so only rank 0 prints it.
var errReported = fmt.Errorf("error reported by rank 0")

// measure measures every pair on c and, on rank 0, writes the outputs.
func measure(ctx context.Context, c comm, opt Options, env rankEnv) error {
	rank, n := c.Rank(), c.Size()
	if err := agree(c, func() error {
		if n < 2 {
			return fmt.Errorf("survey needs at least 2 ranks, got %d; run it under mpirun -np N (N >= 2) or srun -n N", n)
		}
		return checkOutputs(&opt)
	}); err != nil {
		return err
	}
	stderr := cmp.Or(env.Stderr, io.Writer(os.Stderr))
	took := phaseTimes{start: time.Now()}
	facts := env.Facts()
	facts.Rank = rank
	names, err := allHosts(c, facts.Host)
	if err != nil {
		return err
	}
	layout := newNodeLayout(names)
	res, err := shareResume(c, &opt, names)
	if err != nil {
		return err
	}
	rs, spec, err := startSurvey(ctx, c, opt, layout)
	if err != nil {
		return err
	}
	rs.prog, rs.stop, rs.resumed = rs.progress(stderr), env.Stop, res
	rs.openJournal(facts, env, took.start, stderr)
	defer rs.data.journal.Close()
	if took.measure, took.isolation, err = rs.measureSizes(ctx); err != nil {
		return err
	}
	var steps []int
	var nodeTimes []float64
	if stop, err := rs.stopBefore("node and switch phases"); err != nil {
		return err
	} else if !stop {
		nodeStart := time.Now()
		if steps, nodeTimes, err = rs.nodeBandwidth(layout); err != nil {
			return err
		}
		took.node = time.Since(nodeStart)
	}
	facts.CPUEnd = env.CPU()
	facts.Migrated = facts.CPU >= 0 && facts.CPUEnd >= 0 && facts.CPU != facts.CPUEnd
	all, err := rs.gather(facts, nodeTimes)
	if err != nil {
		return err
	}
	// Rank 0 assembles the pairs now: the switch phase needs the
	// switch levels their latencies show.
	var as assembled
	var asErr error
	if rank == 0 {
		as.s, as.ml, as.nodeTimes, asErr = assemble(all, rs.opt, spec.repeats, n, rs.scope.kind != survey.ScopeAll)
		if rs.resumed != nil && asErr == nil {
			rs.resumed.merge(as.s)
		}
	}
	var sw *switchPhase
	stop, err := rs.stopBefore("switch phase and size sweep")
	switch {
	case err != nil:
	case !stop:
		sw, err = rs.switchBandwidth(as.s, asErr, names)
		if err == nil && rs.opt.SizeSweep != SizeSweepOff {
			err = sizesweep.Run(rs.c, as.s)
		}
	case rank == 0:
		err = asErr
	}
	if err != nil || rank != 0 {
		return err
	}
	if err := rs.write(as, spec, env, took, nodePhase{layout, steps}, sw, stderr); err != nil || rs.stopped == "" {
		return err
	}
	return fmt.Errorf("%s: wrote the pairs measured so far to %s (meta.json's stopped says so)", rs.stopped, rs.opt.Out)
}

// assembled is rank 0's survey made from every rank's report, before
// meta.json: the survey, the mmpi log, every rank's node phase times.
type assembled struct {
	s         *survey.Survey
	ml        *survey.MmpiLog
	nodeTimes [][]float64
}

// startSurvey makes this rank's part of the survey, its round trips'
// storage allocated: with a time budget, after the probe and rank 0's
// decision (budget.decide) of the scope and repeats it returns; without,
// with the options' own.
func startSurvey(ctx context.Context, c comm, opt Options, layout nodeLayout) (*rankSurvey, runSpec, error) {
	spec := runSpec{scope: opt.Scope, repeats: opt.Repeats, burst: opt.Burst}
	rs := newRankSurvey(c, opt, layout, spec)
	if bud := newBudget(opt); bud != nil {
		// The probe needs the schedule only; the round trips' storage
		// is sized once the budget has chosen the repeats.
		var err error
		if spec, err = bud.decide(ctx, rs, layout); err != nil {
			return nil, spec, err
		}
		rs = newRankSurvey(c, opt, layout, spec)
		rs.budget = bud
	}
	rs.allocate()
	return rs, spec, nil
}

// runSpec is what a survey measures with: the scope (spelt as
// Options.Scope), the timed round trips a pair and the burst. It is the
// options' own or, with a time budget, rank 0's decision after the probe
// (budget.decide); the Options themselves are never rewritten.
type runSpec struct {
	scope          string
	repeats, burst int
}

// phaseTimes are when a survey started and how long its phases took, as
// meta.json records them: the schedules' passes (measure), the isolation
// samples and the node bandwidth phase.
type phaseTimes struct {
	start                    time.Time
	measure, isolation, node time.Duration
}

// nodePhase is the node bandwidth phase's layout of the ranks on the
// nodes and its steps (none when it did not run).
type nodePhase struct {
	layout nodeLayout
	steps  []int
}

// measureSizes measures every size, starting together after a barrier,
// ends the progress line and returns the time of the schedules' passes
// and the time of the isolation samples. A survey stopped early
// (rs.stopped) ends at its last pass without an error.
func (rs *rankSurvey) measureSizes(ctx context.Context) (measureTime, isoTime time.Duration, err error) {
	if err := rs.c.Wait(false); err != nil {
		return 0, 0, err
	}
	measureStart := time.Now()
	for si := 0; si < len(rs.opt.Sizes); si++ {
		t, err := rs.measureSize(ctx, si, rs.opt.Sizes[si])
		isoTime += t
		if err == errStopped {
			break
		}
		if err != nil {
			return 0, 0, err
		}
	}
	measureTime = time.Since(measureStart) - isoTime
	rs.prog.Done()
	return measureTime, isoTime, nil
}

// write is rank 0's end of the survey: it assembles every rank's report
// (all) into the survey, with its meta.json (spec's repeats, env's MPI,
// the times took), the node bandwidth phase, the sample's check and the
// time budget's record, writes the outputs and removes the journals.
func (rs *rankSurvey) write(as assembled, spec runSpec, env rankEnv, took phaseTimes, nb nodePhase, sw *switchPhase, stderr io.Writer) error {
	opt, n, s := rs.opt, rs.n, as.s
	s.Meta = survey.SurveyMeta{
		Tool: "latmap", Version: version.Version, Start: took.start, End: time.Now(),
		CommandLine: opt.CommandLine, MPIVersion: env.MPIVersion, Launcher: env.Launcher,
		Ranks: n, Sizes: s.Sizes(), Repeats: spec.repeats, Warmup: opt.Warmup,
		Schedule: string(opt.Schedule), Scope: rs.scope.name, WtickSeconds: env.Wtick,
		MeasureSeconds: took.measure.Seconds(), IsolationSeconds: took.isolation.Seconds(),
		IsolatedPairs: len(rs.sched.iso),
	}
	if rs.resumed != nil {
		s.Meta.Warnings = append(s.Meta.Warnings, rs.resumed.note(opt.Sizes))
	}
	if s.Meta.Stopped = rs.stopped; rs.stopped != "" {
		s.Meta.Warnings = append(s.Meta.Warnings, "the survey was "+rs.stopped+": pairs.csv's samples are the round trips each pair had, and what came after was not measured")
	}
	if err := addNodeBandwidth(s, opt, nb.layout, nb.steps, as.nodeTimes, took.node); err != nil {
		return err
	}
	addSwitchBandwidth(s, opt, sw)
	if rs.scope.splan != nil {
		checkSample(s, rs.scope.splan.sample)
	}
	if rs.budget != nil {
		rs.budget.report(s, stderr)
	}
	if err := finish(s, as.ml, opt, stderr); err != nil {
		return err
	}
	return os.RemoveAll(journal.Dir(opt.Out))
}

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

// measureSize measures every pair at one size: warm-up, the schedule's
// passes, then the isolation sample; it returns the isolation's time.
func (rs *rankSurvey) measureSize(ctx context.Context, si, size int) (time.Duration, error) {
	defer func() {
		if rs.budget != nil {
			rs.budget.meta.Repeats[si] = rs.trips.repeats
		}
	}()
	pos := progress.Position{Size: size, SizeIdx: si + 1, Sizes: len(rs.opt.Sizes), NumRound: rs.sched.plan.Rounds()}
	if rs.opt.Warmup > 0 {
		pos.Phase = "warm-up"
		for r := 0; r < rs.sched.plan.Rounds(); r++ {
			if err := rs.runRound(ctx, rs.sched.plan, r, size, rs.opt.Warmup, 0, nil, 0); err != nil {
				return 0, err
			}
			pos.Round = r + 1
			rs.prog.Step(pos)
		}
	}
	pos.Phase = rs.sched.phase
	if err := rs.measurePasses(ctx, rs.sched.plan, size, pos, func(peer int) []float64 { return rs.data.samples[si][rs.peerIndex(peer)] }, false); err != nil {
		return 0, err
	}
	t0 := time.Now()
	if len(rs.sched.iso) > 0 {
		pos.Phase = "isolation"
		rs.turn.quiet = rs.opt.Schedule == Sequential
		if rs.turn.quiet {
			// The sequential schedule has no barrier a round: wait for
			// its last pair to finish before measuring alone.
			if err := rs.c.Wait(false); err != nil {
				return 0, err
			}
		}
		rs.trips.iso = rs.trips.repeats
		err := rs.measurePasses(ctx, rs.sched.isoPlan, size, pos, func(peer int) []float64 { return rs.data.isoSamples[si][peer] }, true)
		rs.turn.quiet = false
		if err != nil {
			return 0, err
		}
	}
	return time.Since(t0), nil
}

// measurePasses runs the plan's rounds in passes: repetitions are the
// outer loop, in passes of Burst round trips per pair, so every pair's
// samples are spread over the whole run. Each pass starts with one
// untimed round trip: both ranks are then awake and in the ping-pong,
// whatever the skew of the barrier before it.
//
// With a time budget, every pass but the last ends with rank 0's check
// (budget.check for the schedule, budget.checkIsolation for the isolation
// sample, iso), which may lower the repeats.
func (rs *rankSurvey) measurePasses(ctx context.Context, pl schedule.Plan, size int, pos progress.Position, dst func(peer int) []float64, iso bool) error {
	reps := func() int {
		if iso {
			return rs.trips.iso
		}
		return rs.trips.repeats
	}
	npass := func() int { return passes(reps(), rs.trips.burst) }
	pos.Reps, pos.NumRound = npass(), pl.Rounds()
	t0 := time.Now()
	rs.checkEvery = 0
	if pl.Rounds() >= 2*firstLooks {
		rs.checkEvery = pl.Rounds() / firstLooks
	}
	// The sequential schedule has no barrier a round: before rank 0 is
	// asked anything, every rank finishes the rounds so far asleep, so
	// that rank 0 times the whole pass and no rank spins in a broadcast
	// beside the pair that measures.
	_, sequential := pl.(schedule.Sequential)
	settle := func() error {
		if sequential {
			return rs.c.Wait(false)
		}
		return nil
	}
	for ps := 0; ps < npass(); ps++ {
		at := ps * rs.trips.burst
		k := min(rs.trips.burst, reps()-at)
		pos.Rep = ps + 1
		passStart := time.Now()
		for r := 0; r < pl.Rounds(); r++ {
			if err := rs.runRound(ctx, pl, r, size, 1, k, dst, at); err != nil {
				return err
			}
			pos.Round = r + 1
			rs.prog.Step(pos)
			// A look inside a long pass (stop.go's lookEvery).
			if e := rs.checkEvery; e > 0 && (r+1)%e == 0 && r+1 < pl.Rounds() {
				if err := settle(); err != nil {
					return err
				}
				if stop, err := rs.stopAfterPass(pos.SizeIdx-1, ps, npass(), iso, 0, 0); stop || err != nil {
					return cmp.Or(err, errStopped)
				}
			}
		}
		if err := settle(); err != nil {
			return err
		}
		if !iso {
			rs.journalAdd(pos.SizeIdx-1, at+k, false)
		}
		if stop, err := rs.stopAfterPass(pos.SizeIdx-1, ps+1, npass(), iso, time.Since(passStart), pl.Rounds()); stop || err != nil {
			return cmp.Or(err, errStopped)
		}
		if rs.budget != nil && ps+1 < npass() {
			// Every rank is done with the pass (settle), and rank 0
			// re-estimates.
			check := rs.budget.check
			if iso {
				check = rs.budget.checkIsolation
			}
			if err := check(rs, pos.SizeIdx-1, ps+1, time.Since(t0)); err != nil {
				return err
			}
			pos.Reps = npass()
		}
	}
	if !iso {
		rs.journalAdd(pos.SizeIdx-1, reps(), true)
	}
	return nil
}

// runRound measures one round and waits for every rank to finish it:
// warm untimed round trips, then k timed ones stored from dst(peer)[at].
// A cancelled ctx aborts the job.
func (rs *rankSurvey) runRound(ctx context.Context, pl schedule.Plan, r, size, warm, k int, dst func(peer int) []float64, at int) error {
	if err := ctx.Err(); err != nil {
		rs.c.Abort(130)
		return err
	}
	seq, sequential := pl.(schedule.Sequential)
	if sequential {
		if err := rs.handOff(seq.PairOfRound(r)); err != nil {
			return err
		}
	}
	p := pl.Partner(r, rs.rank)
	if p >= 0 {
		out := rs.data.scratch[:k]
		if rs.rank < p && k > 0 {
			out = dst(p)[at : at+k]
		}
		if err := rs.c.PingPong(p, rs.rank < p, size, warm, out); err != nil {
			rs.c.Abort(1)
			return fmt.Errorf("ping-pong of ranks %d and %d: %w", rs.rank, p, err)
		}
	}
	switch {
	case sequential:
		return nil
	case rs.turn.quiet && p < 0:
		return rs.c.Idle()
	}
	return rs.c.Wait(p >= 0)
}

// handOff sequences the rounds of the sequential schedule without a
// barrier: the lower rank of the last pair, the last to finish it, signals
// the ranks of the next pair that were not in it, and they wait for that
// signal asleep. Every other rank goes straight on to its own next round
// and sleeps there, so only the measuring pair is awake: a barrier a round
// woke every idle rank several times per round, and on a 2-core machine
// those wake-ups made same-node round trips of a 4-rank survey 4-9x
// slower than a 2-rank one.
func (rs *rankSurvey) handOff(cur schedule.Pair) error {
	prev := rs.turn.prev
	rs.turn.prev = cur
	if prev.A < 0 {
		return nil // the first round: the barrier before measuring started it
	}
	in := func(p schedule.Pair, r int) bool { return r == p.A || r == p.B }
	if rs.rank == prev.A {
		for _, x := range [2]int{cur.A, cur.B} {
			if !in(prev, x) {
				if err := rs.c.Signal(x); err != nil {
					return err
				}
			}
		}
	}
	if in(cur, rs.rank) && !in(prev, rs.rank) {
		return rs.c.Await(prev.A)
	}
	return nil
}

// gather sends this rank's report to rank 0, which gets every rank's.
func (rs *rankSurvey) gather(facts survey.Rank, nodeTimes []float64) ([][]byte, error) {
	rep := summarize(rs.peerAt, rs.opt.Sizes, rs.data.samples, rs.data.isoSamples)
	rep.Rank, rep.NodeBW = facts, nodeTimes
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&rep); err != nil {
		return nil, fmt.Errorf("encoding rank %d's results: %w", rs.rank, err)
	}
	all, err := rs.c.Gather(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("gathering results: %w", err)
	}
	return all, nil
}

// summarize turns the round trips this rank timed (samples[size][i] with
// peer(i), isoSamples[size][b]) into the report of the pairs it led.
func summarize(peer func(i int) int, sizes []int, samples [][][]float64, isoSamples []map[int][]float64) rankReport {
	var rep rankReport
	for si, size := range sizes {
		for i, ts := range samples[si] {
			b := peer(i)
			pr := pairReport{B: b, Size: size, Isolated: math.NaN()}
			pr.MmpiMean, pr.MmpiSEM = roundtrip.MmpiStats(ts)
			pr.St = roundtrip.Summarize(ts)
			if is, ok := isoSamples[si][b]; ok {
				pr.Isolated = stats.Median(is)
			}
			rep.Pairs = append(rep.Pairs, pr)
		}
	}
	return rep
}

// finish adds the interference, the warnings and the fits to s and writes
// the outputs (rank 0).
func finish(s *survey.Survey, ml *survey.MmpiLog, opt Options, stderr io.Writer) error {
	if x, ok := fit.Interference(s.Tables); ok {
		s.Meta.Interference = &x
		if x > InterferenceWarn {
			s.Meta.Warnings = append(s.Meta.Warnings, interferenceWarning(opt.Schedule, x))
		}
	}
	if moved := survey.Migrated(s.Ranks); moved != "" {
		s.Meta.Warnings = append(s.Meta.Warnings, fmt.Sprintf(
			"ranks %s moved to another CPU during the survey; bind ranks to cores (mpirun --bind-to core, mpiexec -bind-to core with MPICH, srun --cpu-bind=cores) for stable results", moved))
	}
	s.Meta.Warnings = append(s.Meta.Warnings, survey.BindingWarnings(s.Ranks)...)
	s.Fits = fit.Survey(s)
	if len(s.Fits) > 0 {
		s.Meta.FitFactors = fit.ConcurrencyFactors(s)
	}
	for _, w := range s.Meta.Warnings {
		fmt.Fprintf(stderr, "latmap: warning: %s\n", w)
	}
	if err := survey.WriteSurvey(opt.Out, s, opt.Force); err != nil {
		return err
	}
	if opt.Mmpi != "" {
		ml.Host = s.Ranks[0].Host
		var b bytes.Buffer
		if err := survey.WriteMmpi(&b, ml); err != nil {
			return err
		}
		if err := atomicdir.WriteFile(opt.Mmpi, opt.Force, b.Bytes()); err != nil {
			return fmt.Errorf("--mmpi: %w", err)
		}
	}
	return nil
}

// interferenceWarning says what an interference above InterferenceWarn
// means for the schedule and what to do about it.
func interferenceWarning(sched Schedule, x float64) string {
	if sched == Sequential {
		return fmt.Sprintf("interference %.2f: pairs measured in turn were %.0f%% slower than with the other ranks asleep (median); "+
			"the ranks waiting for their turn took the cpus or the links from the pair that measured: run fewer ranks than cpus per node, bound to cores",
			x, 100*(x-1))
	}
	return fmt.Sprintf("interference %.2f: pairs measured at the same time were %.0f%% slower than alone (median); the concurrent rounds distorted the latencies, rerun with --schedule sequential",
		x, 100*(x-1))
}

// assemble builds the survey (without meta) and the mmpi log of the
// smallest size from every rank's report, and returns every rank's node
// bandwidth times.
//
// sparse tables keep only the measured pairs (the nodes and sample scopes);
// the mmpi log, made only when opt.Mmpi asks for it, records repeats as
// the timed round trips a pair.
func assemble(all [][]byte, opt Options, repeats, n int, sparse bool) (*survey.Survey, *survey.MmpiLog, [][]float64, error) {
	if len(all) != n {
		return nil, nil, nil, fmt.Errorf("rank 0 received %d reports, want %d", len(all), n)
	}
	nodeTimes := make([][]float64, n)
	s := &survey.Survey{Ranks: make([]survey.Rank, n)}
	bySize := map[int]*survey.PairTable{}
	for _, size := range opt.Sizes {
		var t *survey.PairTable
		if sparse {
			t = survey.NewSparsePairTable(n, size)
		} else {
			t = survey.NewPairTable(n, size)
		}
		bySize[size] = t
		s.Tables = append(s.Tables, t)
	}
	var ml *survey.MmpiLog
	if opt.Mmpi != "" {
		ml = &survey.MmpiLog{Names: make([]string, n), Repeats: repeats, MsgLen: opt.Sizes[0] / 4,
			Mean: make([]float64, survey.TriLen(n)), SEM: make([]float64, survey.TriLen(n))}
	}
	for a, b := range all {
		var rep rankReport
		if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&rep); err != nil {
			return nil, nil, nil, fmt.Errorf("decoding rank %d's results: %w", a, err)
		}
		if rep.Rank.Rank != a {
			return nil, nil, nil, fmt.Errorf("report %d is from rank %d", a, rep.Rank.Rank)
		}
		s.Ranks[a], nodeTimes[a] = rep.Rank, rep.NodeBW
		if ml != nil {
			ml.Names[a] = rep.Rank.Host
		}
		for _, p := range rep.Pairs {
			t := bySize[p.Size]
			if t == nil || p.B <= a || p.B >= n {
				return nil, nil, nil, fmt.Errorf("rank %d reported pair (%d, %d) of %d bytes, which was not measured", a, a, p.B, p.Size)
			}
			t.Set(p.St.Pair(a, p.B, p.Size, p.Isolated))
			if ml != nil && p.Size == opt.Sizes[0] {
				i := survey.TriIndex(n, a, p.B)
				ml.Mean[i], ml.SEM[i] = p.MmpiMean, p.MmpiSEM
			}
		}
	}
	return s, ml, nodeTimes, nil
}
