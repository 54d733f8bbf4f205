package model

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/survey"
)

// Uplink is one switch level's groups' uplinks: seconds per byte out of
// (InvUp) and into (InvDown) each group, by group number (0: not priced),
// and from one group to one sibling (InvPair, the level's median; 0: not
// priced).
type Uplink struct {
	InvUp, InvDown []float64
	InvPair        float64
}

// switchGroups sets the machine's NetGroups from the survey's
// switches.csv: each node's group at each switch level, innermost first.
// A survey whose switches.csv does not name every host's group is an
// error.
func (m *Machine) switchGroups(rows []survey.HostGroup) error {
	if len(rows) == 0 {
		return nil
	}
	of, ok := survey.SwitchLevels(rows, m.Hosts)
	if !ok {
		return fmt.Errorf("%s does not name every host's group at every level; re-run latmap survey", survey.SwitchesFile)
	}
	m.NetGroups = make([][]int32, len(of))
	for k, groups := range of {
		m.NetGroups[k] = make([]int32, len(groups))
		for n, g := range groups {
			m.NetGroups[k][n] = int32(g)
		}
	}
	return nil
}

// numGroups is how many groups switch level k has.
func (m *Machine) numGroups(k int) int {
	ng := 0
	for _, g := range m.NetGroups[k] {
		ng = max(ng, int(g)+1)
	}
	return ng
}

// AddSwitches prices the switch groups' uplinks from switchbw.csv's
// rows: a group's rate out is the median aggregate rate of its rows, its
// rate in the median of the rows it received (a row "to the rest", peer
// group = group, counts both ways: every group sent and received alike in
// its step): a group's steps differ by the links they crossed (a
// dragonfly group's global links to that step's siblings). Where the
// job's hosts' own links differ (hostsDiffer), its best row instead: a
// step slower than that was held by a slower host its hosts sent to in
// that step, not by its uplinks (on PSMN's fabric, simulated with 3 of
// 16 hosts 4xDDR, one leaf's steps ran at 3.7-11.3 GB/s, and their
// median priced uplinks that carry several times that at 7.0; on the
// Aries fragments, whose hosts are alike, the best steps priced a
// group's way out at the one partner group its global links reach
// best, and HPCG's runs were predicted at 0.64x). A group without rows
// takes the median of its level's groups' rates (with a note); a group
// whose rows are all of some of its hosts only (its siblings smaller: a
// dragonfly's chassis beside its routers) is not priced (with a note): on the simulated 1,024-rank
// dragonfly two of a chassis's 8 nodes sent, on one router, and priced
// it at one link's 1.05 GB/s, where its four routers' links carry 5. Without rows, or without switch
// levels, uplinks are not priced, and the notes say so when the survey
// found switch levels. Sharing is a node's own uplinks: a rank whose
// traffic leaves its group waits, like for its node's link, for
// max(out(g) x InvUp(g), in(g) x InvDown(g)). Where a level's rows went
// to the rest (three or more siblings), its rows to one sibling (the
// pair step) price the link between two siblings (InvPair: a
// dragonfly's one global link between two groups carries 1.25 GB/s
// where a group's three carry 3): a rank whose traffic leaves its group
// for a sibling also waits for the busiest of its group's sibling pairs,
// bytes each way times InvPair.
func (md *Model) AddSwitches(rows []survey.SwitchBandwidth) []string {
	m := md.Machine
	if len(m.NetGroups) == 0 || md.NodeSource == noContention {
		return nil
	}
	if len(rows) == 0 {
		md.SwitchSource = "none (no switchbw.csv)"
		return []string{fmt.Sprintf("switch uplinks: the survey found %d switch level(s) but has no %s, so the "+
			"uplinks' sharing is not priced; survey with latmap survey --switch-bandwidth on to measure them",
			len(m.NetGroups), survey.SwitchBandwidthFile)}
	}
	md.Uplinks = make([]Uplink, len(m.NetGroups))
	var notes, measured []string
	rate, of := stats.Median, "median"
	if md.hostsDiffer() {
		rate, of = slices.Max[[]float64], "the median group's best step"
	}
	for k := range m.NetGroups {
		ng := m.numGroups(k)
		up, down, all, pair, partial := m.levelRates(rows, k, md.groupHostRates(k))
		if len(all) == 0 {
			notes = append(notes, fmt.Sprintf("switch uplinks: %s has no row of level %d: its uplinks are not priced", survey.SwitchBandwidthFile, k+1))
			continue
		}
		def, missing, unmeasured, alone := groupsMedian(up, all, rate), 0, 0, 0
		only := m.onlyChildren(k)
		u := Uplink{InvUp: make([]float64, ng), InvDown: make([]float64, ng)}
		for g := 0; g < ng; g++ {
			if len(up[g]) == 0 && len(down[g]) == 0 && only[g] {
				// Its way out is its parent's (priced at the next
				// level), not its level's median of other groups'.
				alone++
				continue
			}
			if len(up[g]) == 0 && partial[g] {
				// Its way out not priced: its rows are some of its hosts'
				// (its way in, where others' rows measured it).
				if unmeasured++; len(down[g]) > 0 {
					u.InvDown[g] = 1 / (stats.Median(down[g]) * 1e6)
				}
				continue
			}
			o, i := def, def
			if len(up[g]) > 0 {
				o = rate(up[g])
			} else {
				missing++
			}
			if len(down[g]) > 0 {
				i = rate(down[g])
			}
			u.InvUp[g], u.InvDown[g] = 1/(o*1e6), 1/(i*1e6)
		}
		desc := fmt.Sprintf("level %d, %d groups: %.4g MB/s out of each (%s)", k+1, ng, def, of)
		if len(pair) > 0 && ng <= maxPairGroups {
			mbps := stats.Median(pair)
			u.InvPair = 1 / (mbps * 1e6)
			desc += fmt.Sprintf(", %.4g MB/s from one to one sibling", mbps)
		}
		md.Uplinks[k] = u
		measured = append(measured, desc)
		notes = append(notes, unpricedNotes(k, ng, missing, alone, unmeasured, def)...)
	}
	// Where the capacities came from, and what was measured: the report
	// shows it beside the node bandwidth's source.
	md.SwitchSource = survey.SwitchBandwidthFile
	if len(measured) > 0 {
		md.SwitchSource += " (measured: " + strings.Join(measured, "; ") + ")"
	}
	return notes
}

// unpricedNotes say how many of switch level k's ng groups took their
// level's rate def (missing: no row), are priced at the next level
// (alone: no sibling) or not at all (unmeasured: rows of some hosts).
func unpricedNotes(k, ng, missing, alone, unmeasured int, def float64) []string {
	var notes []string
	if missing > 0 {
		notes = append(notes, fmt.Sprintf("switch uplinks: %d of the %d level-%d groups have no row in %s and "+
			"take the median of the others (%.4g MB/s)", missing, ng, k+1, survey.SwitchBandwidthFile, def))
	}
	if alone > 0 {
		notes = append(notes, fmt.Sprintf("switch uplinks: %d of the %d level-%d groups have no row in %s and no "+
			"sibling in their level-%d group, whose way out is theirs: priced there, not at the others' median",
			alone, ng, k+1, survey.SwitchBandwidthFile, k+2))
	}
	if unmeasured > 0 {
		notes = append(notes, fmt.Sprintf("switch uplinks: %d of the %d level-%d groups sent from only some of "+
			"their hosts (their siblings have fewer), which does not measure their uplinks: "+
			"their way out is not priced", unmeasured, ng, k+1))
	}
	return notes
}

// groupsMedian is the rate out of a group without rows of its own: the
// median over the groups with rows of each one's rate (up: each group's
// rates out, rate: a group's of its rows), else of every row (all).
func groupsMedian(up [][]float64, all []float64, rate func([]float64) float64) float64 {
	var each []float64
	for _, r := range up {
		if len(r) > 0 {
			each = append(each, rate(r))
		}
	}
	if len(each) == 0 {
		return stats.Median(all)
	}
	return stats.Median(each)
}

// hostsDiffer says whether the job's hosts' own links differ: the
// slowest's rate out under saturatedShare of the fastest's (a few 4xDDR
// hosts among 4xQDR ones).
func (md *Model) hostsDiffer() bool {
	lo, hi := math.Inf(1), 0.0
	for _, inv := range md.InvInject {
		if inv > 0 {
			lo, hi = min(lo, 1/inv), max(hi, 1/inv)
		}
	}
	return hi > 0 && lo < saturatedShare*hi
}

// onlyChildren reports, for each group of switch level k, whether it is
// the only level-k group of its level-(k+1) group (none at the
// outermost level): all its traffic out leaves that group too.
func (m *Machine) onlyChildren(k int) []bool {
	only := make([]bool, m.numGroups(k))
	if k+1 >= len(m.NetGroups) {
		return only
	}
	kids := map[int32]map[int32]bool{} // parent -> its level-k groups
	for n, g := range m.NetGroups[k] {
		p := m.NetGroups[k+1][n]
		if kids[p] == nil {
			kids[p] = map[int32]bool{}
		}
		kids[p][g] = true
	}
	for n, g := range m.NetGroups[k] {
		only[g] = len(kids[m.NetGroups[k+1][n]]) == 1
	}
	return only
}

// levelRates sorts switch level k's rows (MB/s) by group: each group's
// rates out (up) and in (down), all of them, the pair step's rows to one
// sibling (pair: where the level's rows went to the rest too), and the
// groups whose rows were of some of their hosts only (partial). A row of
// some of its group's hosts counts as the group's (its uplinks') where
// at least minPartialHosts of them sent and what left is under
// saturatedShare of what their own links carry (hostRate: each group's
// median node rate, MB/s; nil: unknown): then the uplinks, not the
// senders, held them. On a fragmented allocation of a site-cabled
// dragonfly (simulated, 1,024 ranks on groups of 15, 15, 15, 15 and 4
// hosts), 12 or 13 of a group's 15 hosts sent in every step (the group
// of 4 has no host at their positions), moved 0.3 of their links' rate,
// and four groups' global links went unpriced: the stencil's runs
// predicted at 0.73-0.81 of the simulated ones.
func (m *Machine) levelRates(rows []survey.SwitchBandwidth, k int, hostRate []float64) (up, down [][]float64, all, pair []float64, partial []bool) {
	ng := m.numGroups(k)
	up, down = make([][]float64, ng), make([][]float64, ng)
	size := make([]int, ng)
	partial = make([]bool, ng)
	for _, g := range m.NetGroups[k] {
		size[g]++
	}
	rest := make([]bool, ng) // the group's rows went to the rest
	for _, r := range rows {
		if r.Level == k+1 && r.PeerGroup == r.Group && r.Group < ng {
			rest[r.Group] = true
		}
	}
	for _, r := range rows {
		if r.Level != k+1 || r.AggregateMBps <= 0 || r.Group >= ng || r.PeerGroup >= ng {
			continue
		}
		if rest[r.Group] && r.PeerGroup != r.Group && r.Hosts == size[r.Group] {
			// The pair step, where the group's rows to the rest
			// measured its uplinks (a group of one sibling's rows are
			// its uplinks').
			pair = append(pair, r.AggregateMBps)
			continue
		}
		if r.Hosts < size[r.Group] && !uplinkBound(r, size[r.Group], hostRate) {
			// Some of its hosts sent (its siblings are smaller): what
			// left is theirs, not what its uplinks carry.
			partial[r.Group] = true
			continue
		}
		up[r.Group] = append(up[r.Group], r.AggregateMBps)
		down[r.PeerGroup] = append(down[r.PeerGroup], r.AggregateMBps)
		all = append(all, r.AggregateMBps)
	}
	return up, down, all, pair, partial
}

// minPartialHosts is the share of a group's hosts that must have sent in
// a row of some of them for it to measure the group's uplinks: fewer sit
// on few of its switches (on SimGrid's 1,024-rank dragonfly, 2 of a
// chassis's 8 nodes sent, on one router, at one link's 1.05 GB/s where
// its four routers' links carry 5). saturatedShare is how far under its
// senders' own links a row's rate must be for the uplinks to have held
// it.
const (
	minPartialHosts = 0.75
	saturatedShare  = 0.8
)

// uplinkBound says whether row r, of some of its group's size hosts,
// measured the group's uplinks (levelRates).
func uplinkBound(r survey.SwitchBandwidth, size int, hostRate []float64) bool {
	if hostRate == nil || r.Group >= len(hostRate) || !(hostRate[r.Group] > 0) {
		return false
	}
	return float64(r.Hosts) >= minPartialHosts*float64(size) && r.AggregateMBps < saturatedShare*float64(r.Hosts)*hostRate[r.Group]
}

// groupHostRates is each switch level k group's median node rate out
// (MB/s), from the model's node links (0 for a group none of whose node
// links is priced: its partial rows are not counted, another group's
// are).
func (md *Model) groupHostRates(k int) []float64 {
	ng := md.numGroups(k)
	by := make([][]float64, ng)
	for n, g := range md.NetGroups[k] {
		if n < len(md.InvInject) && md.InvInject[n] > 0 {
			by[g] = append(by[g], 1/md.InvInject[n]/1e6)
		}
	}
	out := make([]float64, ng)
	for g, v := range by {
		if len(v) > 0 {
			out[g] = stats.Median(v)
		}
	}
	return out
}

// maxPairGroups is the most groups a switch level may have for its
// sibling pairs' links to be priced (the evaluator keeps a load per
// ordered pair of groups).
const maxPairGroups = 512

// uplinkTime is switch level k's group g's time to move out bytes out of
// the group and in bytes into it.
func (md *Model) uplinkTime(k int, g int32, out, in float64) float64 {
	if k >= len(md.Uplinks) || md.Uplinks[k].InvUp == nil {
		return 0
	}
	u := &md.Uplinks[k]
	return max(max(out, 0)*u.InvUp[g], max(in, 0)*u.InvDown[g])
}
