package bench

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/latmap/latmap/bench/schedule"
	"github.com/latmap/latmap/internal/progress"
)

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
