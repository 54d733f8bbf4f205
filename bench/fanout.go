package bench

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/survey"
)

// The node fan-out phase (nodebw.csv's fan-out rows): its steps, and their
// times turned into the rows. A node of a fat tree or a
// dragonfly has one link to its switch or router: what its ranks send to
// several nodes at once shares it. A node of a torus (or one with several
// adapters) drives a link per direction: its ranks sending to different
// neighbours do not share. The node bandwidth phase cannot tell the two
// apart (every step sends a node's ranks to one node), so after the pairs
// are measured a few sampled hosts each, alone, send from all their ranks
// first to their nearest host, then one rank to each of their nearest
// hosts (a host of one rank: that rank to FanOutOneRankPeers of them at once):
// the second rate over the first is how many links' worth the node
// drives at once (placement/model's ports).

// FanOutMaxHosts is how many hosts are sampled (spread over the host order).
const FanOutMaxHosts = 2

// FanOutOneRankPeers is how many hosts a host of one rank sends to at once: a
// two-dimensional torus node's links, enough to tell a node of one link
// from one of several (a job of one rank a node, MPI and OpenMP, puts
// one rank on every torus node).
const FanOutOneRankPeers = 4

// FanOutStep is one step: Dst and Src are each rank's partners (nil: none).
// Host sends, alone: to one host (Fan false) or to each of Peers, one of
// its ranks to each (a host of one rank: that rank to all of them).
type FanOutStep struct {
	Host     int
	Fan      bool
	Peers    []int // the hosts sent to, fanOutNearest first
	Dst, Src [][]int
}

// FanOutPlan is the phase's schedule for the ranks on hosts (a host name per
// rank) from the survey's pairs s (the round trips at its first size):
// for up to FanOutMaxHosts hosts with at least two ranks (where none has two,
// of all), the fanOutNearest hosts by median round trip, as many as the host
// has ranks (FanOutOneRankPeers for a host of one rank). It is nil when the
// ranks run on fewer than three hosts (a fan-out needs two peers).
func FanOutPlan(s *survey.Survey, hosts []string) []FanOutStep {
	of, names := fanOutHosts(hosts)
	nh := len(names)
	if nh < 3 || len(s.Tables) == 0 || len(s.Ranks) != len(hosts) {
		return nil
	}
	members := make([][]int, nh)
	for r, h := range of {
		members[h] = append(members[h], r)
	}
	var sample []int // hosts of two ranks or more; none: every host
	for h := range members {
		if len(members[h]) >= 2 {
			sample = append(sample, h)
		}
	}
	if sample == nil {
		for h := range members {
			sample = append(sample, h)
		}
	}
	if len(sample) > FanOutMaxHosts {
		picked := make([]int, FanOutMaxHosts)
		for i := range picked {
			picked[i] = sample[i*(len(sample)-1)/(FanOutMaxHosts-1)]
		}
		sample = picked
	}
	near := fanOutNearest(s, of, nh, sample)
	var steps []FanOutStep
	for _, h := range sample {
		from := members[h]
		peers := near[h][:min(len(near[h]), len(from))]
		if len(from) == 1 {
			peers = near[h][:min(len(near[h]), FanOutOneRankPeers)]
		}
		if len(peers) < 2 {
			continue
		}
		one := FanOutStep{Host: h, Peers: peers[:1], Dst: make([][]int, len(hosts)), Src: make([][]int, len(hosts))}
		fan := FanOutStep{Host: h, Fan: true, Peers: peers, Dst: make([][]int, len(hosts)), Src: make([][]int, len(hosts))}
		for i, r := range from[:min(len(from), len(peers))] {
			if p := members[peers[0]]; i < len(p) {
				one.send(r, p[i])
			}
		}
		for i, p := range peers {
			fan.send(from[i%len(from)], members[p][0])
		}
		steps = append(steps, one, fan)
	}
	return steps
}

// send has rank r send to rank q in st.
func (st *FanOutStep) send(r, q int) {
	st.Dst[r], st.Src[q] = append(st.Dst[r], q), append(st.Src[q], r)
}

// fanOutHosts is each rank's host index (survey.HostIndex's numbering of
// hosts, a host name per rank) and each host's name.
func fanOutHosts(hosts []string) (of []int, names []string) {
	of, nh := survey.HostIndexOf(hosts)
	names = make([]string, nh)
	for r, h := range of {
		names[h] = hosts[r]
	}
	return of, names
}

// fanOutNearest lists, for each sampled host, the other hosts by the median
// round trip of the measured pairs between their ranks, fanOutNearest first
// (ties by host order).
func fanOutNearest(s *survey.Survey, of []int, nh int, sample []int) map[int][]int {
	tab := s.Tables[0]
	m := survey.Median
	if !tab.HasValues(m) {
		m = survey.Mean
	}
	vals := tab.Values[m]
	rtt := map[int]map[int][]float64{}
	for _, h := range sample {
		rtt[h] = map[int][]float64{}
	}
	tab.Each(func(a, b, i int) {
		ha, hb := of[a], of[b]
		if ha == hb || math.IsNaN(float64(vals[i])) {
			return
		}
		if x, ok := rtt[ha]; ok {
			x[hb] = append(x[hb], float64(vals[i]))
		}
		if x, ok := rtt[hb]; ok {
			x[ha] = append(x[ha], float64(vals[i]))
		}
	})
	out := map[int][]int{}
	for _, h := range sample {
		type peer struct {
			h   int
			rtt float64
		}
		var ps []peer
		for g, v := range rtt[h] {
			ps = append(ps, peer{g, stats.Median(v)})
		}
		slices.SortFunc(ps, func(x, y peer) int { return cmp.Or(cmp.Compare(x.rtt, y.rtt), cmp.Compare(x.h, y.h)) })
		for _, p := range ps {
			out[h] = append(out[h], p.h)
		}
	}
	return out
}

// FanOutRows turns every rank's step times (times[rank][from+step], 0 where it
// did not send; it sent messages of size bytes to each of its partners) into nodebw.csv's
// fan-out rows, one per sampled host: peer_host the hosts sent to joined
// by survey.FanOutPeers, aggregate_MBps the fan-out's rate, pair_MBps the
// same ranks' rate to the fanOutNearest host.
func FanOutRows(hosts []string, steps []FanOutStep, times [][]float64, from, size, messages int) ([]survey.NodeBandwidth, error) {
	if len(times) != len(hosts) {
		return nil, fmt.Errorf("fan-out times of %d ranks, want %d", len(times), len(hosts))
	}
	_, names := fanOutHosts(hosts)
	rate := func(si int) (int, float64) {
		n, streams, secs := 0, 0, 0.0
		for r := range hosts {
			if len(times[r]) < from+len(steps) {
				return 0, 0
			}
			if t := times[r][from+si]; len(steps[si].Dst[r]) > 0 && t > 0 {
				n, streams, secs = n+1, streams+len(steps[si].Dst[r]), max(secs, t)
			}
		}
		if n == 0 {
			return 0, 0
		}
		return n, float64(streams) * float64(messages) * float64(size) / secs / 1e6
	}
	var rows []survey.NodeBandwidth
	for si := 0; si+1 < len(steps); si += 2 {
		one, fan := steps[si], steps[si+1]
		if one.Fan || !fan.Fan || one.Host != fan.Host {
			return nil, fmt.Errorf("fan-out steps %d and %d are not a host's pair", si, si+1)
		}
		_, pair := rate(si)
		n, agg := rate(si + 1)
		if n == 0 || pair <= 0 {
			continue
		}
		var peers []string
		for _, p := range fan.Peers {
			peers = append(peers, names[p])
		}
		rows = append(rows, survey.NodeBandwidth{Host: names[fan.Host], Peer: strings.Join(peers, survey.FanOutPeers), Ranks: n,
			Size: size, Messages: messages, AggregateMBps: agg, PairMBps: pair,
			Seconds: float64(len(fan.Peers)) * float64(messages) * float64(size) / agg / 1e6})
	}
	return rows, nil
}
