package bothways

import (
	"fmt"

	"github.com/latmap/latmap/mapper/survey"
)

// Repeats is how many times each step runs (its best time counts).
const Repeats = 2

// Step is one step: Dst and Src are each rank's partners (nil: none).
// Both is true when the two ranks send to each other at once.
type Step struct {
	Both     bool
	Dst, Src [][]int
}

// Plan is the phase's schedule for the ranks on hosts (a host name per
// rank): Repeats times, the first rank of the first host (survey.HostIndex's
// numbering) sending to the first rank of the second alone, then the two
// sending to each other. It is nil when the ranks run on one host.
func Plan(hosts []string) []Step {
	a, b := firstRanks(hosts)
	if b < 0 {
		return nil
	}
	var steps []Step
	for range Repeats {
		for _, both := range []bool{false, true} {
			st := Step{Both: both, Dst: make([][]int, len(hosts)), Src: make([][]int, len(hosts))}
			st.Dst[a], st.Src[b] = []int{b}, []int{a}
			if both {
				st.Dst[b], st.Src[a] = []int{a}, []int{b}
			}
			steps = append(steps, st)
		}
	}
	return steps
}

// firstRanks are the first ranks of the first two hosts (-1: no second).
func firstRanks(hosts []string) (int, int) {
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

// Row turns every rank's step times (times[rank][from+step], as each
// rank's Exchange returned them, the receiver's too; a sender sent
// messages of size bytes) into nodebw.csv's both-ways row: host the
// first host, peer_host survey.BothWaysPeer and the second, pair_MBps
// the best one-way rate, aggregate_MBps the best rate each way with both
// sending, seconds that step's time. A step takes its slower rank's
// time: a send completes once its bytes are in the transport's buffers,
// so a sender alone can finish well before its receiver (62 MB/s over a
// 50 MB/s shaped link measured at the sender). Nil without steps.
func Row(hosts []string, steps []Step, times [][]float64, from, size, messages int) (*survey.NodeBandwidth, error) {
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
	a, b := firstRanks(hosts)
	return &survey.NodeBandwidth{Host: hosts[a], Peer: survey.BothWaysPeer + hosts[b], Ranks: 1, Size: size, Messages: messages,
		Seconds: both, AggregateMBps: bytes / both / 1e6, PairMBps: bytes / one / 1e6}, nil
}
