package bench

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Ending early. Slurm ends a job at its time limit with SIGTERM (then
// SIGKILL after KillWait, 30 s by default), Ctrl-C sends SIGINT, and
// mpirun and srun pass either on to every rank. The survey then stops at
// the end of its pass over the pairs, where every pair measured so far
// has the same number of round trips: rank 0 says so to every rank (a
// broadcast after each pass) and they skip the rest (the later passes and
// sizes, the isolation sample, the node and switch phases) and write the
// survey so far, marked stopped in meta.json. A second signal ends the
// rank at once, as Go's default does.

// errStopped is what the measurement returns when the survey stops early.
var errStopped = errors.New("stopped early")

// watchSignals returns what rankEnv.Stop reports, the name of the first
// SIGTERM or SIGINT ("" before one), and what stops watching.
func watchSignals() (stop func() string, done func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	var got atomic.Value
	quit := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			name := "SIGTERM"
			if s == syscall.SIGINT {
				name = "SIGINT"
			}
			got.Store(name)
			signal.Reset(syscall.SIGTERM, syscall.SIGINT)
		case <-quit:
		}
	}()
	return func() string { v, _ := got.Load().(string); return v }, func() { signal.Stop(ch); close(quit) }
}

// stopSignal is every rank's copy of rank 0's answer to whether the
// survey stops now: the signal's name, or "" (one broadcast). Without a
// signal, rank 0 sends ":N" at the end of a pass that took pass: N is how
// many rounds the next pass runs between looks inside it, and every rank
// sets rs.checkEvery to it.
func (rs *rankSurvey) stopSignal(pass time.Duration, rounds int) (string, error) {
	if rs.stop == nil {
		return "", nil
	}
	var msg []byte
	if rs.rank == 0 {
		msg = []byte(rs.stop())
		if len(msg) == 0 && pass > 0 {
			msg = fmt.Appendf(nil, ":%d", roundsBetweenLooks(pass, rounds))
		}
	}
	got, err := rs.c.Bcast(msg)
	if every, ok := strings.CutPrefix(string(got), ":"); ok {
		rs.checkEvery, err = strconv.Atoi(every)
		return "", err
	}
	return string(got), err
}

// Looks inside a pass. mpirun (Open MPI 4 and 5) kills the ranks 1 s after
// passing a signal on, so a pass that takes longer (large sizes, many
// ranks) would end with nothing written: a pass at least 2 x lookEvery
// long also looks every lookEvery, and a stop there keeps the passes done
// before it. The first pass of a size, whose time is not known yet,
// looks firstLooks times when it has at least 2 x firstLooks rounds; a
// stop there keeps the sizes before it.
const (
	lookEvery  = 200 * time.Millisecond
	firstLooks = 64
)

// roundsBetweenLooks is how many rounds of the next pass run between
// looks, from the time the last one took for rounds rounds (0: none
// inside).
func roundsBetweenLooks(pass time.Duration, rounds int) int {
	if pass < 2*lookEvery {
		return 0
	}
	return max(1, int(int64(rounds)*int64(lookEvery)/int64(pass)))
}

// stopAfterPass is every rank's answer, after done of npass passes at
// size index si (of the isolation sample's passes when iso), to whether
// the survey stops now: rank 0's. took is the pass's time, 0 at a look
// inside a pass. When it stops, this rank keeps the round trips of the
// passes done at this size (all of them when iso) and drops the
// isolation sample and the later sizes, and rs.stopped says why and
// where.
func (rs *rankSurvey) stopAfterPass(si, done, npass int, iso bool, took time.Duration, rounds int) (bool, error) {
	got, err := rs.stopSignal(took, rounds)
	if err != nil || got == "" {
		return false, err
	}
	sizes := rs.opt.Sizes
	if done == 0 && !iso {
		// Inside the first pass at this size: the sizes before it are whole.
		if si == 0 {
			return true, fmt.Errorf("stopped by %s inside the first pass over the pairs at %d bytes: nothing measured, nothing written", got, sizes[0])
		}
		rs.stopped = fmt.Sprintf("stopped by %s inside the first pass over the pairs at %d bytes; sizes %v not measured", got, sizes[si], sizes[si:])
		rs.opt.Sizes = sizes[:si:si]
		rs.data.samples, rs.data.isoSamples = rs.data.samples[:si], rs.data.isoSamples[:si]
		return true, nil
	}
	keep := min(done*rs.trips.burst, rs.trips.repeats)
	rs.stopped = fmt.Sprintf("stopped by %s after %d of %d passes over the pairs at %d bytes (%d round trips a pair)", got, done, npass, sizes[si], keep)
	if iso {
		keep = rs.trips.repeats
		rs.stopped = fmt.Sprintf("stopped by %s in the isolation sample at %d bytes, after every pair's %d round trips (the sample dropped)", got, sizes[si], keep)
	}
	if si+1 < len(sizes) {
		rs.stopped += fmt.Sprintf("; sizes %v not measured", sizes[si+1:])
	}
	for i := range rs.data.samples[si] {
		rs.data.samples[si][i] = rs.data.samples[si][i][:keep]
	}
	clear(rs.data.isoSamples[si])
	rs.trips.repeats = keep
	rs.opt.Sizes = sizes[: si+1 : si+1]
	rs.data.samples, rs.data.isoSamples = rs.data.samples[:si+1], rs.data.isoSamples[:si+1]
	return true, nil
}

// stopBefore is every rank's answer, once every pair is measured, to
// whether the survey stops before the phases named (rank 0's); it is
// true too when it stopped already.
func (rs *rankSurvey) stopBefore(phases string) (bool, error) {
	if rs.stopped != "" {
		return true, nil
	}
	got, err := rs.stopSignal(0, 0)
	if got != "" {
		rs.stopped = fmt.Sprintf("stopped by %s after every pair was measured, before the %s", got, phases)
	}
	return got != "", err
}
