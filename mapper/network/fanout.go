package network

import (
	"fmt"
	"strings"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/internal/text"
	"github.com/latmap/latmap/mapper/survey"
)

// FanOut is how many links' worth a node drives at once, from
// nodebw.csv's fan-out rows: the median over the sampled hosts of their
// rate to several nodes at once over their rate to one, at most the peers
// they sent to; under minPorts (a tree's node, or noise) 1. The note says
// what was found ("" without fan-out rows).
func FanOut(rows []survey.NodeBandwidth) (float64, string) {
	var ratios []float64
	for _, r := range rows {
		if peers := strings.Split(r.Peer, survey.FanOutPeers); len(peers) > 1 && r.PairMBps > 0 && r.AggregateMBps > 0 {
			ratios = append(ratios, min(r.AggregateMBps/r.PairMBps, float64(len(peers))))
		}
	}
	if len(ratios) == 0 {
		return 1, ""
	}
	p := stats.Median(ratios)
	if p < minPorts {
		return 1, fmt.Sprintf("node links: a node sending to several nodes at once moves %.2fx what it moves to one "+
			"(nodebw.csv's fan-out, %s): one link each", p, text.Count(len(ratios), "host"))
	}
	return p, fmt.Sprintf("node links: a node sending to several nodes at once moves %.2fx what it moves to one "+
		"(nodebw.csv's fan-out, %s: a torus's or several adapters' links); a node's traffic is priced over that many "+
		"links where it goes to as many nodes", p, text.Count(len(ratios), "host"))
}

// minPorts is the fan-out ratio under which a node has one link.
var minPorts = 1.25

// Reverse is the share of a message's bytes its way back carries, from
// nodebw.csv's both-ways row (bench/bothways.go): the rate of one rank
// sending alone over the rate each way of two sending to each other,
// less one; 0 under MinReverse (a full-duplex fabric, or noise), at most
// 1 (a half-duplex link: what one way carries, the other does too). The
// note says what was measured ("" without the row).
func Reverse(rows []survey.NodeBandwidth) (float64, string) {
	for _, r := range rows {
		peer, ok := strings.CutPrefix(r.Peer, survey.BothWaysPeer)
		if !ok || !(r.AggregateMBps > 0) || !(r.PairMBps > 0) {
			continue
		}
		x := r.PairMBps/r.AggregateMBps - 1
		what := fmt.Sprintf("cross traffic: %s and %s sending to each other at once moved %.4g MB/s each way, "+
			"one sending alone %.4g MB/s (nodebw.csv's both-ways row)", r.Host, peer, r.AggregateMBps, r.PairMBps)
		if x < MinReverse {
			return 0, fmt.Sprintf("%s: within %.0f%%, so a message's way back is priced as carrying nothing", what, 100*MinReverse)
		}
		x = min(x, 1)
		return x, fmt.Sprintf("%s: a message's way back is priced as carrying %.3g%% of its bytes, "+
			"on every link of the network found in the round trips", what, 100*x)
	}
	return 0, ""
}

// MinReverse is the least share Reverse prices: a few per cent is
// within what two runs of the same step differ by on a real fabric.
const MinReverse = 0.02
