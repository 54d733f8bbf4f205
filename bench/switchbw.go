package bench

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"time"

	"github.com/latmap/latmap/bench/fit"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
)

// The switch bandwidth phase (switches.csv, switchbw.csv): a group of
// nodes behind one switch shares the switch's uplinks, and fat trees are
// often 2:1 or 3:1 oversubscribed, so a group whose nodes all talk outside
// it gets less than its nodes' links add up to. After the pairs are
// measured, rank 0 finds the switch levels in the latencies (latmap topo:
// the levels above the node), and at each level every rank of every host
// of every group sends at once to the rank with its local index on the
// host with its index in the group Shift groups on, while receiving from
// the group Shift groups back, like the node phase one level up. What
// leaves a group per second with all its hosts sending is what its
// uplinks carry. Its settings are the node phase's words.
const (
	SwitchBWAuto = NodeBWAuto
	SwitchBWOn   = NodeBWOn
	SwitchBWOff  = NodeBWOff
	// The size sweep's settings (Options.SizeSweep): auto is on.
	SizeSweepOn  = NodeBWOn
	SizeSweepOff = NodeBWOff
)

// SwitchMessages is how many messages each rank sends in a step of the
// switch phase, SwitchWindow how many it keeps in flight each way (the
// node phase's).
const (
	SwitchMessages = nodeBWMessages
	SwitchWindow   = nodeBWWindow
)

// SwitchStep is one step of the switch phase at switch level Level. Dst
// and Src are each rank's partner (-1: none); Group is each rank's group
// at that level, Peer each group's peer group in the step (the group
// itself: its hosts sent to several groups, "to the rest").
type SwitchStep struct {
	Level, Shift int
	Dst, Src     []int
	Group        []int
	Peer         []int
}

// SwitchPhase is the switch phase's schedule for ranks on hosts (a host
// name per rank) grouped as of (topo.PlanSwitchGroups' of). A group
// exchanges with its siblings only, the groups of its level inside the
// same group of the level above (all of them at the top level), so that
// what it measures is its own links, not a bottleneck further up. In the
// step of shift s, a group of m siblings:
//
//   - with one sibling (m = 2), sends to it;
//   - with more, sends to the rest: the host at position p of sibling j
//     sends to sibling j + 1 + (s'-1+p) mod (m-1), s' = 1 + (s-1) mod
//     (m-1), so a group's hosts reach different groups at once, over all
//     its links (a leaf's uplinks, a dragonfly group's global links, a
//     router's local links). Each position's hosts shift by one amount,
//     so every rank receives from one rank. A last step (Shift 0, the
//     pair step) has every group send to its next sibling alone: what
//     one sibling can take, a dragonfly's one global link between two
//     groups where the rest is three or more.
func SwitchPhase(hosts []string, of [][]int) []SwitchStep {
	l := newNodeLayout(hosts)
	var steps []SwitchStep
	for k, groups := range of {
		ng := 0
		for _, g := range groups {
			ng = max(ng, g+1)
		}
		members := make([][]int, ng) // hosts of each group, in host order
		pos := make([]int, len(groups))
		for h, g := range groups {
			pos[h] = len(members[g])
			members[g] = append(members[g], h)
		}
		sib, idx := topo.Siblings(groups, ng, of, k)
		most := 0
		for _, s := range sib {
			most = max(most, len(s))
		}
		for _, shift := range topo.SwitchShifts(most) {
			st := SwitchStep{Level: k + 1, Shift: shift, Dst: make([]int, len(hosts)), Src: make([]int, len(hosts)), Group: make([]int, len(hosts)), Peer: make([]int, ng)}
			for g := range st.Peer {
				// The group the step goes to (SwitchPeer: none in the pair
				// step of a group with one sibling, which measured it
				// already), or the group itself where it goes to the rest.
				st.Peer[g] = topo.SwitchPeer(sib[g], idx[g], shift, 0)
				if len(sib[g]) > 2 && shift > 0 {
					st.Peer[g] = g
				}
			}
			for r := range st.Src {
				st.Src[r] = -1
			}
			for r := range hosts {
				h := l.host[r]
				g := groups[h]
				st.Group[r] = g
				st.Dst[r] = -1
				to := topo.SwitchPeer(sib[g], idx[g], shift, pos[h])
				if to < 0 {
					continue
				}
				peerHosts := members[to]
				if pos[h] >= len(peerHosts) {
					continue
				}
				if mem := l.members[peerHosts[pos[h]]]; l.local[r] < len(mem) {
					st.Dst[r] = mem[l.local[r]]
				}
			}
			for r, d := range st.Dst {
				if d >= 0 {
					st.Src[d] = r
				}
			}
			steps = append(steps, st)
		}
	}
	return steps
}

// SwitchRows turns every rank's step times (times[rank][step], 0 for a
// step it did not send in; later steps' times ignored) into switchbw.csv's
// rows: one per step and sending group. A group's rate is what its ranks
// sent over the step's time, its slowest sending rank's; where slow names
// hosts linked slower than the others (bench/fit.SlowHosts), the slowest
// of its ranks that neither run on one nor send to or receive from one,
// as if they all had, and no row where every rank did: a flow into or
// out of a slower host is held to that host's link, which says nothing
// of the group's uplinks. On PSMN's fabric (simulated), the steps
// that sent into its 4xDDR hosts priced every leaf's uplinks at a third
// of what they carry.
func SwitchRows(hosts []string, steps []SwitchStep, times [][]float64, size int, slow map[string]bool) ([]survey.SwitchBandwidth, error) {
	if len(times) != len(hosts) {
		return nil, fmt.Errorf("switch bandwidth times of %d ranks, want %d", len(times), len(hosts))
	}
	l := newNodeLayout(hosts)
	var rows []survey.SwitchBandwidth
	for si, st := range steps {
		byGroup := make([]survey.SwitchBandwidth, len(st.Peer))
		sent := make([]map[int]bool, len(st.Peer))
		clear := make([]float64, len(st.Peer)) // the slowest rank's time clear of slow hosts
		for r := range hosts {
			if len(times[r]) < len(steps) {
				return nil, fmt.Errorf("rank %d reported %d switch bandwidth times, want %d", r, len(times[r]), len(steps))
			}
			t := times[r][si]
			if st.Dst[r] < 0 || t <= 0 {
				continue
			}
			g := st.Group[r]
			b := &byGroup[g]
			b.Ranks++
			b.Seconds = max(b.Seconds, t)
			if !slow[hosts[r]] && !slow[hosts[st.Dst[r]]] && (st.Src[r] < 0 || !slow[hosts[st.Src[r]]]) {
				clear[g] = max(clear[g], t)
			}
			if sent[g] == nil {
				sent[g] = map[int]bool{}
			}
			sent[g][l.host[r]] = true
		}
		for g, b := range byGroup {
			if b.Ranks == 0 || b.Seconds <= 0 {
				continue
			}
			if slow != nil && clear[g] == 0 {
				continue // every rank's flows were held to a slower host's link
			}
			if clear[g] > 0 {
				b.Seconds = clear[g]
			}
			b.Level, b.Group, b.PeerGroup = st.Level, g, st.Peer[g]
			b.Hosts, b.Size, b.Messages = len(sent[g]), size, SwitchMessages
			b.AggregateMBps = float64(b.Ranks) * float64(SwitchMessages) * float64(size) / b.Seconds / 1e6
			rows = append(rows, b)
		}
	}
	return rows, nil
}

// switchPhase is the outcome on rank 0 of the phases planned from the
// latencies: the switch groups, the switch phase's rows and a note when it
// did not run, the node fan-out's rows (bench/fanout.go), the both-ways
// row (bench/bothways.go) and the probe of flows at once.
type switchPhase struct {
	groups []survey.HostGroup
	rows   []survey.SwitchBandwidth
	fan    []survey.NodeBandwidth
	note   string
	steps  int
	took   time.Duration
	of     [][]int     // each host's group at each level (topo.PlanSwitchGroups'), on every rank
	probe  *probePhase // the probe of flows at once (bench/probeflows.go)
}

// switchBandwidth runs the switch phase, the node fan-out and the
// both-ways steps on every rank. Rank 0 has the assembled survey s (nil
// elsewhere) and assembly's error, finds the switch levels and the
// fan-out's hosts and tells every rank; all run the steps; rank 0 gathers
// the times and returns the rows.
func (rs *rankSurvey) switchBandwidth(s *survey.Survey, assembleErr error, hosts []string) (*switchPhase, error) {
	var ph switchPhase
	// Rank 0 plans the groups of each level and the fan-out (none: the
	// phase does not run), or stops every rank with assembly's error.
	var of [][]int
	var fan []FanOutStep
	if err := agree(rs.c, func() error {
		if assembleErr == nil && rs.opt.SwitchBandwidth != SwitchBWOff {
			ph.groups, of, ph.note = topo.PlanSwitchGroups(s, rs.opt.fabric)
		}
		if assembleErr == nil && rs.opt.NodeBandwidth != NodeBWOff {
			fan = FanOutPlan(s, hosts)
		}
		return assembleErr
	}); err != nil {
		return nil, err
	}
	if err := share(rs.c, &of, "the switch groups"); err != nil {
		return nil, err
	}
	ph.of = of
	if err := share(rs.c, &fan, "the fan-out steps"); err != nil {
		return nil, err
	}
	start := time.Now()
	steps := SwitchPhase(hosts, of)
	// This rank's partners in each step, the switch steps' (one each
	// way) then the fan-out's (any number).
	var dsts, srcs [][]int
	for _, st := range steps {
		dsts, srcs = append(dsts, Partner(st.Dst[rs.rank])), append(srcs, Partner(st.Src[rs.rank]))
	}
	for _, f := range fan {
		dsts, srcs = append(dsts, f.Dst[rs.rank]), append(srcs, f.Src[rs.rank])
	}
	// Then the both-ways steps, planned from the hosts alone.
	var both []BothWaysStep
	if rs.opt.NodeBandwidth != NodeBWOff {
		both = BothWaysPlan(hosts)
	}
	for _, b := range both {
		dsts, srcs = append(dsts, b.Dst[rs.rank]), append(srcs, b.Src[rs.rank])
	}
	if len(dsts) == 0 {
		return &ph, nil // every rank knows: nothing to gather
	}
	times := make([]float64, len(dsts))
	for i := range times {
		if err := rs.c.Wait(false); err != nil {
			return nil, err
		}
		secs, err := rs.c.Exchange(dsts[i], srcs[i], rs.opt.NodeBWSize, SwitchMessages)
		if err != nil {
			rs.c.Abort(1)
			return nil, fmt.Errorf("switch, fan-out or both-ways step %d of %d: %w", i+1, len(dsts), err)
		}
		if len(dsts[i]) > 0 || len(srcs[i]) > 0 { // a receiver's: bench/bothways.go
			times[i] = secs
		}
	}
	all, err := rs.gatherFloats(times)
	if err != nil || rs.rank != 0 {
		return &ph, err
	}
	ns := len(steps) // the switch steps, then the fan-out's
	ph.took, ph.steps = time.Since(start), ns
	if ph.fan, err = FanOutRows(hosts, fan, all, ns, rs.opt.NodeBWSize, SwitchMessages); err != nil {
		return nil, err
	}
	row, err := BothWaysRow(hosts, both, all, ns+len(fan), rs.opt.NodeBWSize, SwitchMessages)
	if err != nil {
		return nil, err
	}
	if row != nil {
		ph.fan = append(ph.fan, *row)
	}
	ph.rows, err = SwitchRows(hosts, steps, all, rs.opt.NodeBWSize, fit.SlowHosts(s))
	return &ph, err
}

// gatherFloats gathers every rank's floats at rank 0.
func (rs *rankSurvey) gatherFloats(v []float64) ([][]float64, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	all, err := rs.c.Gather(buf.Bytes())
	if err != nil || rs.rank != 0 {
		return nil, err
	}
	out := make([][]float64, len(all))
	for r, b := range all {
		if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&out[r]); err != nil {
			return nil, fmt.Errorf("decoding rank %d's switch bandwidth times: %w", r, err)
		}
	}
	return out, nil
}

// levelsFrom is where switch levels planned with topo.PlanSwitchGroups
// came from, given its note: --topology's file where its levels were
// taken, else "latencies".
func (o Options) levelsFrom(note string) string {
	if o.Topology != "" && note == "" {
		return o.Topology
	}
	return "latencies"
}

// addSwitchBandwidth puts the phase's files and meta.json record into s,
// or a warning when it was asked for and did not run.
func addSwitchBandwidth(s *survey.Survey, opt Options, ph *switchPhase) {
	if ph != nil {
		s.NodeBandwidth = append(s.NodeBandwidth, ph.fan...)
	}
	if ph == nil || opt.SwitchBandwidth == SwitchBWOff {
		return
	}
	flag := "--switch-bandwidth on"
	if opt.Topology != "" {
		flag = "--topology"
	}
	if len(ph.groups) == 0 {
		if opt.SwitchBandwidth == SwitchBWOn || opt.Topology != "" {
			s.Meta.Warnings = append(s.Meta.Warnings, flag+": "+ph.note+", so there is no switch uplink to measure (switches.csv not written)")
		}
		return
	}
	if opt.Topology != "" && ph.note != "" {
		s.Meta.Warnings = append(s.Meta.Warnings, flag+": "+ph.note)
	}
	levels := 0
	for _, g := range ph.groups {
		levels = max(levels, g.Level)
	}
	s.Switches, s.SwitchBandwidth = ph.groups, ph.rows
	s.Meta.SwitchBandwidth = &survey.SwitchBandwidthMeta{Levels: levels, SizeBytes: opt.NodeBWSize, Steps: ph.steps, Seconds: ph.took.Seconds(), Planned: opt.levelsFrom(ph.note)}
}
