package sizesweep

import (
	"encoding/json"
	"fmt"

	"github.com/latmap/latmap/bench/roundtrip"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/sweep"
)

// Comm is the part of MPI the sweep uses (bench's comm).
type Comm interface {
	Rank() int
	PingPong(peer int, lo bool, size, warm int, out []float64) error
	Wait(active bool) error
	Bcast(b []byte) ([]byte, error)
}

// Repeats is how many round trips a pair times at each size up to
// RepeatBytes; above it, as many as carry RepeatBytes each way, at least
// MinRepeats. Warm round trips come first at each size.
const (
	Repeats     = 20
	MinRepeats  = 3
	RepeatBytes = 16 << 20
	Warm        = 2
)

// repeats is how many round trips a pair times at size.
func repeats(size int) int {
	return max(MinRepeats, min(Repeats, RepeatBytes/max(size, 1)))
}

// plan is what rank 0 tells every rank to do.
type plan struct {
	Pairs []sweep.Pair
	Sizes []int
}

// Plan is the sweep of a survey: its pairs and sizes (none for a nil
// survey).
func Plan(s *survey.Survey) ([]sweep.Pair, []int) {
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

// Run is the sweep on every rank: rank 0 passes the survey it assembled
// (nil on the other ranks, and on rank 0 when assembling failed: then
// nothing is timed) and gets the rows in its Sweep.
func Run(c Comm, s *survey.Survey) error {
	rows, err := run(c, s)
	if s != nil && err == nil {
		s.Sweep = rows
	}
	return err
}

func run(c Comm, s *survey.Survey) ([]sweep.Row, error) {
	var p plan
	var b []byte
	if c.Rank() == 0 {
		p.Pairs, p.Sizes = Plan(s)
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
		return nil, fmt.Errorf("size sweep: rank 0's plan: %w", err)
	}
	var rows []sweep.Row
	out := make([]float64, Repeats)
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
			o := out[:repeats(size)]
			if err := c.PingPong(peer, me < peer, size, Warm, o); err != nil {
				return nil, err
			}
			if me == pr.A && me < peer {
				rows = append(rows, row(pr, size, o))
			}
		}
		if err := c.Wait(peer >= 0); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// row is a pair's round trips at size (us is sorted in place), summarised
// as the survey summarises a pair's (roundtrip.Summarize).
func row(p sweep.Pair, size int, us []float64) sweep.Row {
	st := roundtrip.Summarize(us)
	return sweep.Row{A: p.A, B: p.B, Where: p.Where, Size: size, Count: st.Samples, MinUs: st.Min, MedianUs: st.Median}
}
