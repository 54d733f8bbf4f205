package bench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/gob"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/latmap/latmap/internal/atomicdir"
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

// checkOutputs fails when an output cannot be written: it exists
// without force, its parent is missing or not writable, a file is where
// a directory goes or the other way round.
func checkOutputs(opt *Options) error {
	if err := atomicdir.CheckDest(opt.Out, opt.Force); err != nil {
		return err
	}
	if opt.Mmpi != "" {
		if err := atomicdir.CheckFile(opt.Mmpi, opt.Force); err != nil {
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
	sw, err := rs.afterPairs(as.s, asErr, names)
	if err != nil || rank != 0 {
		return err
	}
	if err := rs.write(as, spec, env, took, nodePhase{layout, steps}, sw, stderr); err != nil || rs.stopped == "" {
		return err
	}
	return fmt.Errorf("%s: wrote the pairs measured so far to %s (meta.json's stopped says so)", rs.stopped, rs.opt.Out)
}

// afterPairs runs the phases planned from the pairs' latencies on every
// rank, unless the survey was stopped: the switch phase (with the node
// fan-out and both-ways steps), the probe of flows at once and the size
// sweep. Rank 0 has the assembled survey s and assembly's error.
func (rs *rankSurvey) afterPairs(s *survey.Survey, assembleErr error, names []string) (*switchPhase, error) {
	stop, err := rs.stopBefore("switch phase, probe and size sweep")
	switch {
	case err != nil:
		return nil, err
	case stop && rs.rank == 0:
		return nil, assembleErr
	case stop:
		return nil, nil
	}
	sw, err := rs.switchBandwidth(s, assembleErr, names)
	if err == nil && rs.opt.Probe != ProbeOff {
		sw.probe, err = rs.probeFlows(s, sw, names)
	}
	if err == nil && rs.opt.SizeSweep != SizeSweepOff && rs.stopped == "" {
		err = runSweep(rs.c, s)
	}
	return sw, err
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
