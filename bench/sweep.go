package bench

import (
	"encoding/json"
	"fmt"

	"github.com/latmap/latmap/bench/roundtrip"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/sweep"
)

// The size sweep phase (sweep.csv, see
// mapper/survey/sweep): after the pairs, rank 0 times a few pairs of its
// own, one of each kind the survey has, at every size from 64 bytes to
// the survey's largest (at least 1 MiB) in steps of two, one pair at a
// time while the other ranks sleep in a barrier.

// SweepRepeats is how many round trips a pair times at each size up to
// SweepRepeatBytes; above it, as many as carry SweepRepeatBytes each way, at least
// SweepMinRepeats. SweepWarm round trips come first at each size.
const (
	SweepRepeats     = 20
	SweepMinRepeats  = 3
	SweepRepeatBytes = 16 << 20
	SweepWarm        = 2
)

// sweepRepeats is how many round trips a pair times at size.
func sweepRepeats(size int) int {
	return max(SweepMinRepeats, min(SweepRepeats, SweepRepeatBytes/max(size, 1)))
}

// sweepPlan is what rank 0 tells every rank to do.
type sweepPlan struct {
	Pairs []sweep.Pair
	Sizes []int
}

// SweepPlan is the sweep of a survey: its pairs and sizes (none for a nil
// survey).
func SweepPlan(s *survey.Survey) ([]sweep.Pair, []int) {
	if s == nil {
		return nil, nil
	}
	host, _ := survey.HostIndex(s.Ranks)
	sockets := make([]int, s.N())
	for i, r := range s.Ranks {
		sockets[i] = r.Socket
	}
	return sweep.Pairs(host, sockets), sweep.Sizes(s.Sizes())
}

// runSweep is the sweep on every rank: rank 0 passes the survey it assembled
// (nil on the other ranks, and on rank 0 when assembling failed: then
// nothing is timed) and gets the rows in its Sweep.
func runSweep(c comm, s *survey.Survey) error {
	rows, err := sweepRun(c, s)
	if s != nil && err == nil {
		s.Sweep = rows
	}
	return err
}

func sweepRun(c comm, s *survey.Survey) ([]sweep.Row, error) {
	var p sweepPlan
	var b []byte
	if c.Rank() == 0 {
		p.Pairs, p.Sizes = SweepPlan(s)
		var err error
		if b, err = json.Marshal(p); err != nil {
			return nil, err
		}
	}
	b, err := c.Bcast(b)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("size sweep: rank 0's sweepPlan: %w", err)
	}
	var rows []sweep.Row
	out := make([]float64, SweepRepeats)
	for _, pr := range p.Pairs {
		me, peer := c.Rank(), -1
		switch c.Rank() {
		case pr.A:
			peer = pr.B
		case pr.B:
			peer = pr.A
		}
		for _, size := range p.Sizes {
			if peer < 0 {
				break
			}
			o := out[:sweepRepeats(size)]
			if err := c.PingPong(peer, me < peer, size, SweepWarm, o); err != nil {
				return nil, err
			}
			if me == pr.A && me < peer {
				rows = append(rows, sweepRow(pr, size, o))
			}
		}
		if err := c.Wait(peer >= 0); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// sweepRow is a pair's round trips at size (us is sorted in place), summarised
// as the survey summarises a pair's (roundtrip.Summarize).
func sweepRow(p sweep.Pair, size int, us []float64) sweep.Row {
	st := roundtrip.Summarize(us)
	return sweep.Row{A: p.A, B: p.B, Where: p.Where, Size: size, Count: st.Samples, MinUs: st.Min, MedianUs: st.Median}
}
