package bench

import (
	"fmt"
	"strings"
	"time"

	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
)

// The node bandwidth phase (nodebw.csv): like mpiGraph, in step k every
// rank of host h sends to the rank with the same local index on host
// (h+k) mod H while receiving from host (h-k) mod H, first with all of a
// host's ranks at once (the node's aggregate injection bandwidth), then
// with one rank per host (a single pair's bandwidth), so a reader sees how
// much the node link is shared.
const (
	// NodeBWAuto measures when the survey spans at least 2 hosts.
	NodeBWAuto = "auto"
	NodeBWOn   = "on"
	NodeBWOff  = "off"
	// DefaultNodeBWSize is the phase's default message size (1 MiB).
	DefaultNodeBWSize = 1 << 20
	// nodeBWMessages is how many messages each sending rank exchanges in
	// a step; topo.PhaseShifts how many shift steps are sampled. At 1 MiB
	// over 400 Mbit/s links with 2 ranks a node a step takes about 1.5 s
	// (0.8 s all ranks, 0.7 s one rank); with 4 in flight, fewer messages
	// measured one rank at 60-70% of what 16 give.
	nodeBWMessages = 16
	// nodeBWWindow is how many messages a rank keeps in flight each way.
	nodeBWWindow = 4
)

// nodeLayout is where every rank runs, as the node bandwidth phase needs it.
type nodeLayout struct {
	hosts   []string // host names by host index
	host    []int    // host index of each rank
	local   []int    // index of each rank among its host's ranks
	members [][]int  // ranks of each host, in rank order
}

func newNodeLayout(names []string) nodeLayout {
	idx, nh := survey.HostIndexOf(names)
	l := nodeLayout{hosts: make([]string, nh), host: idx, local: make([]int, len(names)), members: make([][]int, nh)}
	for r, h := range idx {
		l.hosts[h] = names[r]
		l.local[r] = len(l.members[h])
		l.members[h] = append(l.members[h], r)
	}
	return l
}

// peer is the rank on host h+shift with rank r's local index, or -1 when
// that host has fewer ranks or (single) r is not its host's first rank.
func (l nodeLayout) peer(r, shift int, single bool) int {
	li := l.local[r]
	if single && li != 0 {
		return -1
	}
	nh := len(l.members)
	m := l.members[((l.host[r]+shift)%nh+nh)%nh]
	if li >= len(m) {
		return -1
	}
	return m[li]
}

// allHosts tells every rank every rank's host name.
func allHosts(c comm, host string) ([]string, error) {
	all, err := c.Gather([]byte(host))
	if err != nil {
		return nil, fmt.Errorf("gathering host names: %w", err)
	}
	var joined []byte
	if c.Rank() == 0 {
		parts := make([]string, len(all))
		for i, b := range all {
			parts[i] = string(b)
		}
		joined = []byte(strings.Join(parts, "\n"))
	}
	got, err := c.Bcast(joined)
	if err != nil {
		return nil, fmt.Errorf("sharing host names: %w", err)
	}
	names := strings.Split(string(got), "\n")
	if len(names) != c.Size() {
		return nil, fmt.Errorf("sharing host names: got %d names for %d ranks", len(names), c.Size())
	}
	return names, nil
}

// nodeBandwidth runs the phase on every rank and returns this rank's send
// times: for each sampled step, the all-ranks time then the one-rank time
// (0 when it did not send). It returns nil times when the phase is off or
// the ranks run on one host.
func (rs *rankSurvey) nodeBandwidth(l nodeLayout) ([]int, []float64, error) {
	if rs.opt.NodeBandwidth == NodeBWOff || len(l.hosts) < 2 {
		return nil, nil, nil
	}
	steps := topo.Shifts(len(l.hosts))
	times := make([]float64, 0, 2*len(steps))
	for _, k := range steps {
		for _, single := range []bool{false, true} {
			if err := rs.c.Wait(false); err != nil {
				return nil, nil, err
			}
			dst, src := l.peer(rs.rank, k, single), l.peer(rs.rank, -k, single)
			if src >= 0 && l.peer(src, k, single) != rs.rank {
				src = -1
			}
			secs, err := rs.c.Exchange(Partner(dst), Partner(src), rs.opt.NodeBWSize, nodeBWMessages)
			if err != nil {
				rs.c.Abort(1)
				return nil, nil, fmt.Errorf("node bandwidth step %d: %w", k, err)
			}
			if dst < 0 {
				secs = 0
			}
			times = append(times, secs)
		}
	}
	return steps, times, nil
}

// nodeBandwidthRows turns every rank's send times (times[rank], as
// nodeBandwidth returns them) into nodebw.csv's rows: one per host and
// step.
func nodeBandwidthRows(l nodeLayout, steps []int, times [][]float64, size int) ([]survey.NodeBandwidth, error) {
	var rows []survey.NodeBandwidth
	bytesPerRank := float64(nodeBWMessages) * float64(size)
	for si, k := range steps {
		for h, members := range l.members {
			row := survey.NodeBandwidth{Host: l.hosts[h], Peer: l.hosts[(h+k)%len(l.hosts)], Size: size, Messages: nodeBWMessages}
			var single float64
			for _, r := range members {
				if len(times[r]) != 2*len(steps) {
					return nil, fmt.Errorf("rank %d reported %d node bandwidth times, want %d", r, len(times[r]), 2*len(steps))
				}
				if t := times[r][2*si]; t > 0 {
					row.Ranks++
					row.Seconds = max(row.Seconds, t)
				}
				if t := times[r][2*si+1]; t > 0 {
					single = t
				}
			}
			if row.Ranks == 0 || row.Seconds <= 0 {
				continue
			}
			row.AggregateMBps = float64(row.Ranks) * bytesPerRank / row.Seconds / 1e6
			if single > 0 {
				row.PairMBps = bytesPerRank / single / 1e6
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// addNodeBandwidth puts the phase's rows and its meta.json record into s
// (rank 0), or a warning when it was asked for and could not run.
func addNodeBandwidth(s *survey.Survey, opt Options, l nodeLayout, steps []int, times [][]float64, took time.Duration) error {
	if opt.NodeBandwidth == NodeBWOff {
		return nil
	}
	if len(steps) == 0 {
		if opt.NodeBandwidth == NodeBWOn {
			s.Meta.Warnings = append(s.Meta.Warnings, "--node-bandwidth on: the ranks run on one host, so there is no node link to measure (nodebw.csv not written)")
		}
		return nil
	}
	rows, err := nodeBandwidthRows(l, steps, times, opt.NodeBWSize)
	if err != nil {
		return err
	}
	s.NodeBandwidth = rows
	s.Meta.NodeBandwidth = &survey.NodeBandwidthMeta{SizeBytes: opt.NodeBWSize, Steps: len(steps), Seconds: took.Seconds()}
	return nil
}
