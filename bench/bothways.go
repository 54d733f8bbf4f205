package bench

import (
	"fmt"

	"github.com/latmap/latmap/mapper/survey"
)

// The both-ways phase (nodebw.csv's both-ways row): its steps, and their
// times turned into the row. A link that carries a message
// one way may carry some of it back while it flows: a transport's
// acknowledgements, a half-duplex link, SimGrid's cross traffic (5% of
// each message on its route back, counted there as one of the link's
// flows). Then two nodes sending to each other at once each move less
// than one of them sending alone, as osu_bibw against osu_bw shows on a
// real fabric. One rank of the survey's first host sends to one rank of
// its second alone, then both send to each other at once, twice over
// (after the node fan-out); the best one-way rate over the best
// both-ways rate, less one, is the share of a message's bytes its way
// back carries (mapper/network.Reverse), which the model prices
// on a network found in the survey, whose links are priced from pairs
// measured one way at a time.

// BothWaysRepeats is how many times each step runs (its best time counts).
const BothWaysRepeats = 2

// BothWaysStep is one step: Dst and Src are each rank's partners (nil: none).
// Both is true when the two ranks send to each other at once.
type BothWaysStep struct {
	Both     bool
	Dst, Src [][]int
}

// BothWaysPlan is the phase's schedule for the ranks on hosts (a host name per
// rank): BothWaysRepeats times, the first rank of the first host (survey.HostIndex's
// numbering) sending to the first rank of the second alone, then the two
// sending to each other. It is nil when the ranks run on one host.
func BothWaysPlan(hosts []string) []BothWaysStep {
	a, b := bothWaysRanks(hosts)
	if b < 0 {
		return nil
	}
	var steps []BothWaysStep
	for range BothWaysRepeats {
		for _, both := range []bool{false, true} {
			st := BothWaysStep{Both: both, Dst: make([][]int, len(hosts)), Src: make([][]int, len(hosts))}
			st.Dst[a], st.Src[b] = []int{b}, []int{a}
			if both {
				st.Dst[b], st.Src[a] = []int{a}, []int{b}
			}
			steps = append(steps, st)
		}
	}
	return steps
}

// bothWaysRanks are the first ranks of the first two hosts (-1: no second).
func bothWaysRanks(hosts []string) (int, int) {
	of, _ := survey.HostIndexOf(hosts)
	a, b := -1, -1
	for r, h := range of {
		switch {
		case h == 0 && a < 0:
			a = r
		case h == 1 && b < 0:
			b = r
		}
	}
	return a, b
}

// BothWaysRow turns every rank's step times (times[rank][from+step], as each
// rank's Exchange returned them, the receiver's too; a sender sent
// messages of size bytes) into nodebw.csv's both-ways row: host the
// first host, peer_host survey.BothWaysPeer and the second, pair_MBps
// the best one-way rate, aggregate_MBps the best rate each way with both
// sending, seconds that step's time. A step takes its slower rank's
// time: a send completes once its bytes are in the transport's buffers,
// so a sender alone can finish well before its receiver (62 MB/s over a
// 50 MB/s shaped link measured at the sender). Nil without steps.
func BothWaysRow(hosts []string, steps []BothWaysStep, times [][]float64, from, size, messages int) (*survey.NodeBandwidth, error) {
	if len(steps) == 0 {
		return nil, nil
	}
	if len(times) != len(hosts) {
		return nil, fmt.Errorf("both-ways times of %d ranks, want %d", len(times), len(hosts))
	}
	bytes := float64(messages) * float64(size)
	var one, both float64 // best seconds
	for si, st := range steps {
		secs := 0.0
		for r := range hosts {
			if len(times[r]) < from+len(steps) {
				return nil, fmt.Errorf("rank %d reported %d times, want %d", r, len(times[r]), from+len(steps))
			}
			if len(st.Dst[r]) > 0 || len(st.Src[r]) > 0 {
				if t := times[r][from+si]; t > 0 {
					secs = max(secs, t)
				} else {
					return nil, fmt.Errorf("both-ways step %d: rank %d reported no time", si, r)
				}
			}
		}
		best := &one
		if st.Both {
			best = &both
		}
		if *best == 0 || secs < *best {
			*best = secs
		}
	}
	if one == 0 || both == 0 {
		return nil, fmt.Errorf("both-ways steps: none one way or none both ways")
	}
	a, b := bothWaysRanks(hosts)
	return &survey.NodeBandwidth{Host: hosts[a], Peer: survey.BothWaysPeer + hosts[b], Ranks: 1, Size: size, Messages: messages,
		Seconds: both, AggregateMBps: bytes / both / 1e6, PairMBps: bytes / one / 1e6}, nil
}
