package bench

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/latmap/latmap/internal/atomicdir"
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
	// Exchange sends count messages of size bytes to dst while receiving
	// as many from src, a few in flight each way (dst or src -1: none),
	// and returns its wall time in seconds.
	Exchange(dst, src, size, count int) (float64, error)
	// Gather collects every rank's bytes at rank 0 (nil elsewhere).
	Gather(b []byte) ([][]byte, error)
	// Bcast returns rank 0's bytes on every rank.
	Bcast(b []byte) ([]byte, error)
	// Abort ends the whole job (MPI_Abort).
	Abort(code int)
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
}

// pairReport is one pair's result as the lower rank of the pair sends it to
// rank 0.
type pairReport struct {
	B, Size  int
	St       Stats
	Isolated float64
	// MmpiMean and MmpiSEM are the two mmpi log columns (see MmpiStats).
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
	stderr := env.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	start := time.Now()
	facts := env.Facts()
	facts.Rank = rank
	names, err := allHosts(c, facts.Host)
	if err != nil {
		return err
	}
	layout := newNodeLayout(names)
	rs := newRankSurvey(ctx, c, opt, layout)
	bud := newBudget(opt)
	if bud != nil {
		// The probe needs the schedule only; the round trips' storage
		// is sized once the budget has chosen the repeats.
		if opt, err = bud.plan(rs, opt, layout); err != nil {
			return err
		}
		rs = newRankSurvey(ctx, c, opt, layout)
		rs.budget = bud
	}
	rs.allocate()
	rs.prog = rs.progress(stderr)

	if err := c.Wait(false); err != nil {
		return err
	}
	measureStart := time.Now()
	var isoTime time.Duration
	for si, size := range opt.Sizes {
		t, err := rs.measureSize(si, size)
		if err != nil {
			return err
		}
		isoTime += t
	}
	measureTime := time.Since(measureStart) - isoTime
	rs.prog.Done()
	nodeStart := time.Now()
	steps, nodeTimes, err := rs.nodeBandwidth(layout)
	if err != nil {
		return err
	}
	nodeTime := time.Since(nodeStart)
	facts.CPUEnd = env.CPU()
	facts.Migrated = facts.CPU >= 0 && facts.CPUEnd >= 0 && facts.CPU != facts.CPUEnd

	all, err := rs.gather(facts, nodeTimes)
	if err != nil || rank != 0 {
		return err
	}
	s, ml, allNodeTimes, err := assemble(all, opt, n, rs.scope != survey.ScopeAll)
	if err != nil {
		return err
	}
	s.Meta = survey.SurveyMeta{
		Tool: "latmap", Version: version.Version, Start: start, End: time.Now(),
		CommandLine: opt.CommandLine, MPIVersion: env.MPIVersion, Launcher: env.Launcher,
		Ranks: n, Sizes: opt.Sizes, Repeats: opt.Repeats, Warmup: opt.Warmup,
		Schedule: string(opt.Schedule), Scope: rs.scopeName, WtickSeconds: env.Wtick,
		MeasureSeconds: measureTime.Seconds(), IsolationSeconds: isoTime.Seconds(),
		IsolatedPairs: len(rs.iso),
	}
	if err := addNodeBandwidth(s, opt, layout, steps, allNodeTimes, nodeTime); err != nil {
		return err
	}
	if rs.splan != nil {
		checkSample(s, rs.splan.sample)
	}
	if bud != nil {
		s.Meta.TimeBudget = &bud.meta
		s.Meta.Repeats = bud.meta.Repeats[0]
		for _, a := range bud.meta.Actions {
			fmt.Fprintf(stderr, "latmap: time budget: %s\n", a)
		}
		if bud.meta.Scope != "" || bud.meta.Repeats[len(bud.meta.Repeats)-1] < bud.meta.PlannedRepeats {
			s.Meta.Warnings = append(s.Meta.Warnings, fmt.Sprintf("--time-budget %s: %s", roundDur(bud.limit).String(), strings.Join(bud.meta.Actions, "; ")))
		}
	}
	return finish(s, ml, opt, stderr)
}

// rankSurvey is one rank's part of a survey: the schedule and the round
// trips it times as the lower rank of a pair.
type rankSurvey struct {
	ctx     context.Context
	c       comm
	opt     Options
	rank, n int
	plan    Plan   // the main schedule
	phase   string // its name in the progress line
	// scope is survey.ScopeAll, ScopeNodes or ScopeSample, scopeName as
	// meta.json records it; splan is the nodes or sample scope's plan.
	scope, scopeName string
	splan            *scopePlan
	// peers are the ranks above this one that it measures with, in
	// increasing order; nil for every rank above (scope all).
	peers   []int
	iso     []Pair // the pairs re-measured in isolation
	isoPlan Plan
	prog    *Progress
	// samples[s][peerIndex(b)][rep] and isoSamples[s][b]: round trips
	// this rank timed with b > rank at size s.
	samples    [][][]float64
	isoSamples []map[int][]float64
	scratch    []float64
	// prev is the pair of the last round of the sequential schedule (A < 0
	// before the first): its lower rank, which finishes the round last,
	// hands the turn to the next pair.
	prev Pair
	// quiet: the ranks that sit out a round nap (Idle) instead of waiting
	// (the sequential schedule's isolation sample).
	quiet bool
	// budget is --time-budget (nil without).
	budget *budget
	// isoRepeats are the isolation sample's repeats at the current size:
	// the survey's, unless the budget ran out during the sample.
	isoRepeats int
}

// seqIsolationMax bounds the sequential schedule's isolation sample: every
// pair of it costs up to an idleNap a pass, while the other ranks sleep.
const seqIsolationMax = 16

// spread keeps at most k of the pairs, evenly spaced.
func spread(pairs []Pair, k int) []Pair {
	if len(pairs) <= k {
		return pairs
	}
	out := make([]Pair, k)
	for i := range out {
		out[i] = pairs[i*len(pairs)/k]
	}
	return out
}

func newRankSurvey(ctx context.Context, c comm, opt Options, l nodeLayout) *rankSurvey {
	rank, n := c.Rank(), c.Size()
	rs := &rankSurvey{ctx: ctx, c: c, opt: opt, rank: rank, n: n,
		plan: CirclePlan{N: n}, phase: "rounds", scratch: make([]float64, opt.Burst), prev: Pair{A: -1, B: -1}}
	var k int
	rs.scope, k, rs.scopeName = resolveScope(opt.Scope, n, l, opt.Mmpi != "")
	if rs.scope == survey.ScopeAll {
		rs.iso = IsolationSample(n, opt.IsolatedFraction)
		if opt.Schedule == Sequential {
			rs.plan, rs.phase = SequentialPlan{N: n}, "sequential"
		}
	} else {
		rs.splan = newScopePlan(l, k, rank)
		rs.plan, rs.peers = rs.splan, rs.splan.peers()
		rs.iso = scopeIsolation(rs.splan, n, opt.IsolatedFraction)
		if opt.Schedule == Sequential {
			rs.plan, rs.phase = scopeSeqPlan{rs.splan}, "sequential"
		}
	}
	if opt.Schedule == Sequential {
		rs.iso = spread(rs.iso, seqIsolationMax)
	}
	rs.isoPlan = ListPlan(rs.iso)
	return rs
}

// allocate makes the storage of the round trips this rank times: Repeats
// a pair and size, with every peer above it it measures with and with its
// pairs of the isolation sample.
func (rs *rankSurvey) allocate() {
	opt := rs.opt
	npeers := rs.n - 1 - rs.rank
	if rs.peers != nil {
		npeers = len(rs.peers)
	}
	rs.samples = make([][][]float64, len(opt.Sizes))
	rs.isoSamples = make([]map[int][]float64, len(opt.Sizes))
	for s := range opt.Sizes {
		rs.samples[s] = make([][]float64, npeers)
		for i := range rs.samples[s] {
			rs.samples[s][i] = make([]float64, opt.Repeats)
		}
		rs.isoSamples[s] = map[int][]float64{}
		for _, p := range rs.iso {
			if p.A == rs.rank {
				rs.isoSamples[s][p.B] = make([]float64, opt.Repeats)
			}
		}
	}
}

// passes is how many passes of burst round trips a pair make repeats.
func passes(repeats, burst int) int { return (repeats + burst - 1) / burst }

// peerIndex is where the round trips with peer (> rank) are kept.
func (rs *rankSurvey) peerIndex(peer int) int {
	if rs.peers == nil {
		return peer - rs.rank - 1
	}
	return sort.SearchInts(rs.peers, peer)
}

// peerAt is the peer of samples index i.
func (rs *rankSurvey) peerAt(i int) int {
	if rs.peers == nil {
		return rs.rank + 1 + i
	}
	return rs.peers[i]
}

// progress is rank 0's progress line (nil elsewhere, and on rank 0 without
// --progress or a terminal).
func (rs *rankSurvey) progress(stderr io.Writer) *Progress {
	opt := rs.opt
	if rs.rank != 0 || !(opt.Progress || IsTerminal(stderr)) {
		return nil
	}
	per := passes(opt.Repeats, opt.Burst) * (rs.plan.Rounds() + rs.isoPlan.Rounds())
	if opt.Warmup > 0 {
		per += rs.plan.Rounds()
	}
	return NewProgress(stderr, IsTerminal(stderr), per*len(opt.Sizes), nil)
}

// measureSize measures every pair at one size: warm-up, the schedule's
// passes, then the isolation sample; it returns the isolation's time.
func (rs *rankSurvey) measureSize(si, size int) (time.Duration, error) {
	defer func() {
		if rs.budget != nil {
			rs.budget.meta.Repeats[si] = rs.opt.Repeats
		}
	}()
	pos := Position{Size: size, SizeIdx: si + 1, Sizes: len(rs.opt.Sizes), NumRound: rs.plan.Rounds()}
	if rs.opt.Warmup > 0 {
		pos.Phase = "warm-up"
		for r := 0; r < rs.plan.Rounds(); r++ {
			if err := rs.runRound(rs.plan, r, size, rs.opt.Warmup, 0, nil, 0); err != nil {
				return 0, err
			}
			pos.Round = r + 1
			rs.prog.Step(pos)
		}
	}
	pos.Phase = rs.phase
	if err := rs.measurePasses(rs.plan, size, pos, func(peer int) []float64 { return rs.samples[si][rs.peerIndex(peer)] }, false); err != nil {
		return 0, err
	}
	t0 := time.Now()
	if len(rs.iso) > 0 {
		pos.Phase = "isolation"
		rs.quiet = rs.opt.Schedule == Sequential
		if rs.quiet {
			// The sequential schedule has no barrier a round: wait for
			// its last pair to finish before measuring alone.
			if err := rs.c.Wait(false); err != nil {
				return 0, err
			}
		}
		rs.isoRepeats = rs.opt.Repeats
		err := rs.measurePasses(rs.isoPlan, size, pos, func(peer int) []float64 { return rs.isoSamples[si][peer] }, true)
		rs.quiet = false
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
func (rs *rankSurvey) measurePasses(pl Plan, size int, pos Position, dst func(peer int) []float64, iso bool) error {
	reps := func() int {
		if iso {
			return rs.isoRepeats
		}
		return rs.opt.Repeats
	}
	npass := func() int { return passes(reps(), rs.opt.Burst) }
	pos.Reps, pos.NumRound = npass(), pl.Rounds()
	t0 := time.Now()
	for ps := 0; ps < npass(); ps++ {
		at := ps * rs.opt.Burst
		k := min(rs.opt.Burst, reps()-at)
		pos.Rep = ps + 1
		for r := 0; r < pl.Rounds(); r++ {
			if err := rs.runRound(pl, r, size, 1, k, dst, at); err != nil {
				return err
			}
			pos.Round = r + 1
			rs.prog.Step(pos)
		}
		if rs.budget != nil && ps+1 < npass() {
			// Every rank done with the pass (the sequential schedule has
			// no barrier a round), then rank 0 re-estimates.
			if err := rs.c.Wait(false); err != nil {
				return err
			}
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
	return nil
}

// runRound measures one round and waits for every rank to finish it:
// warm untimed round trips, then k timed ones stored from dst(peer)[at].
func (rs *rankSurvey) runRound(pl Plan, r, size, warm, k int, dst func(peer int) []float64, at int) error {
	if err := rs.ctx.Err(); err != nil {
		rs.c.Abort(130)
		return err
	}
	seq, sequential := pl.(seqPlan)
	if sequential {
		if err := rs.handOff(seq.PairOfRound(r)); err != nil {
			return err
		}
	}
	p := pl.Partner(r, rs.rank)
	if p >= 0 {
		out := rs.scratch[:k]
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
	case rs.quiet && p < 0:
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
func (rs *rankSurvey) handOff(cur Pair) error {
	prev := rs.prev
	rs.prev = cur
	if prev.A < 0 {
		return nil // the first round: the barrier before measuring started it
	}
	in := func(p Pair, r int) bool { return r == p.A || r == p.B }
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
	rep := summarize(rs.peerAt, rs.opt.Sizes, rs.samples, rs.isoSamples)
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
			pr.MmpiMean, pr.MmpiSEM = MmpiStats(ts)
			pr.St = Summarize(ts)
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
func finish(s *survey.Survey, ml *MmpiLog, opt Options, stderr io.Writer) error {
	if x, ok := Interference(s.Tables); ok {
		s.Meta.Interference = &x
		if x > InterferenceWarn {
			s.Meta.Warnings = append(s.Meta.Warnings, interferenceWarning(opt.Schedule, x))
		}
	}
	if moved := migrated(s.Ranks); moved != "" {
		s.Meta.Warnings = append(s.Meta.Warnings, fmt.Sprintf(
			"ranks %s moved to another CPU during the survey; bind ranks to cores (mpirun --bind-to core, mpiexec -bind-to core with MPICH, srun --cpu-bind=cores) for stable results", moved))
	}
	s.Meta.Warnings = append(s.Meta.Warnings, survey.BindingWarnings(s.Ranks)...)
	s.Fits = FitSurvey(s)
	for _, w := range s.Meta.Warnings {
		fmt.Fprintf(stderr, "latmap: warning: %s\n", w)
	}
	if err := survey.WriteSurvey(opt.Out, s, opt.Force); err != nil {
		return err
	}
	if opt.Mmpi != "" {
		ml.Host = s.Ranks[0].Host
		var b bytes.Buffer
		if err := WriteMmpi(&b, ml); err != nil {
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
// the mmpi log is made only when opt.Mmpi asks for it.
func assemble(all [][]byte, opt Options, n int, sparse bool) (*survey.Survey, *MmpiLog, [][]float64, error) {
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
	var ml *MmpiLog
	if opt.Mmpi != "" {
		ml = &MmpiLog{Names: make([]string, n), Repeats: opt.Repeats, MsgLen: opt.Sizes[0] / 4,
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
			t.Set(&survey.PairStats{A: a, B: p.B, Size: p.Size, Samples: p.St.Samples,
				Mean: p.St.Mean, Std: p.St.Std, Min: p.St.Min, Median: p.St.Median, P99: p.St.P99,
				Isolated: p.Isolated})
			if ml != nil && p.Size == opt.Sizes[0] {
				i := survey.TriIndex(n, a, p.B)
				ml.Mean[i], ml.SEM[i] = p.MmpiMean, p.MmpiSEM
			}
		}
	}
	return s, ml, nodeTimes, nil
}

// Interference is the median, over every pair and size re-measured in
// isolation, of the ratio of its median round trip measured concurrently
// to the one measured alone. ok is false when no pair was re-measured.
func Interference(tables []*survey.PairTable) (x float64, ok bool) {
	var ratios []float64
	for _, t := range tables {
		iso, med := t.Values[survey.Isolated], t.Values[survey.Median]
		if iso == nil || med == nil {
			continue
		}
		t.Each(func(a, b, i int) {
			if iso[i] > 0 && !math.IsNaN(float64(med[i])) {
				ratios = append(ratios, float64(med[i])/float64(iso[i]))
			}
		})
	}
	if len(ratios) == 0 {
		return 0, false
	}
	return stats.Median(ratios), true
}

func migrated(ranks []survey.Rank) string {
	var moved []string
	for _, r := range ranks {
		if r.Migrated {
			moved = append(moved, strconv.Itoa(r.Rank))
		}
	}
	return strings.Join(moved, ", ")
}
