package topo

import (
	"fmt"
	"math"
	"slices"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
)

// MaxSwitchSpread is the widest ratio of the slowest to the fastest round
// trip of one level above the nodes that SwitchGroups takes for a level
// of switches (a chosen policy: a simulated two-level fat tree's levels
// spread 1.06-1.07, a 4 x 4 torus's 1.1-4).
const MaxSwitchSpread = 1.5

// SwitchGroups finds the switch levels above the nodes in s's latencies
// (its smallest size) and returns each host's group at each level, as
// switches.csv's rows (level 1 the innermost), with hosts numbered in
// order of first appearance: of[k][h] is host h's group at level k+1. When the survey shows no switch level (one network level above
// the nodes), or levels that are not switches (a level under the top one
// spreads wider than MaxSwitchSpread: a torus's or a mesh's hop counts),
// it returns no rows and a note saying why. The top level (the whole
// network) may spread: a dragonfly's groups meet over global links that
// start at particular routers, so their round trips differ by a few hops;
// each group's aggregate out is still what its links carry.
func SwitchGroups(s *survey.Survey) (rows []survey.HostGroup, of [][]int, note string) {
	if len(s.Tables) == 0 {
		return nil, nil, "no pairs measured"
	}
	tp, err := Infer(s, Options{Size: s.Tables[0].Size})
	if err != nil {
		return nil, nil, fmt.Sprintf("no topology: %v", err)
	}
	hostIdx, nh := survey.HostIndex(s.Ranks)
	if !tp.HostsAgree || tp.NodeLevel < 0 && nh < len(s.Ranks) {
		return nil, nil, "the nodes found in the latencies are not the hosts"
	}
	// Switches make a tree: two hosts whose groups first meet at one
	// level all talk at about one round trip. Levels under the top that
	// spread wider (a torus's hop counts) are no switch groups.
	spread := func(l Level) bool { return l.RTTMin > 0 && l.RTTMax > MaxSwitchSpread*l.RTTMin }
	for _, l := range tp.Levels[tp.NodeLevel+1 : max(tp.NodeLevel+1, len(tp.Levels)-1)] {
		if spread(l) {
			return nil, nil, fmt.Sprintf("the round trips above the nodes do not form switch levels (one level spreads %.3g-%.3g us: a torus or a mesh?)", l.RTTMin, l.RTTMax)
		}
	}
	first := make([]int, nh) // a rank of each host
	for r := len(s.Ranks) - 1; r >= 0; r-- {
		first[hostIdx[r]] = r
	}
	var prev []int
	skipped := 0
	for l := tp.NodeLevel + 1; l < len(tp.Levels); l++ {
		if g := tp.Levels[l].Groups; g < 2 || g >= nh {
			continue
		}
		groups := make([]int, nh)
		for h := range groups {
			groups[h] = tp.Group[l][first[h]]
		}
		groups = fabric.Renumber(groups)
		if slices.Equal(prev, groups) {
			continue
		}
		if !groupsApart(s, hostIdx, groups, tp.Group[min(l+1, len(tp.Levels)-1)], first) {
			skipped++
			continue
		}
		of = append(of, groups)
		prev = groups
	}
	if len(of) == 0 {
		note := "the latencies show no level between the nodes and the whole network"
		if skipped > 0 {
			note += fmt.Sprintf(" (%d level(s) whose groups are no further from each other than inside skipped)", skipped)
		}
		return nil, nil, note
	}
	return switchRows(hostNames(s), of), of, ""
}

// groupsApart tells whether a level's groups (groups[host]) stand apart
// from their siblings, the groups under the same group of the level above
// (parent[rank]): the median round trip between hosts of sibling groups
// is at least LevelRatio times the median inside a group. A level that
// average linkage cut out of hosts that are all one hop from each other,
// a dragonfly group's routers (all to all inside a chassis, one link to
// the other chassis), is no group whose links the switch phase could
// measure apart.
func groupsApart(s *survey.Survey, hostIdx, groups, parent, first []int) bool {
	t := s.Tables[0]
	m, err := ChooseMetric(t, -1)
	if err != nil {
		return true
	}
	var inside, between []float64
	t.Each(func(a, b, i int) {
		ha, hb := hostIdx[a], hostIdx[b]
		if ha == hb {
			return
		}
		v := float64(t.Values[m][i])
		if v != v || v <= 0 {
			return
		}
		switch {
		case groups[ha] == groups[hb]:
			inside = append(inside, v)
		case parent[first[ha]] == parent[first[hb]]:
			between = append(between, v)
		}
	})
	if len(inside) == 0 || len(between) == 0 {
		return true
	}
	return stats.Median(between) >= DefaultOptions().LevelRatio*stats.Median(inside)
}

// NearestInside reports whether every host of s is nearer (by the round
// trips of its smallest size) to each host of its own group (groups,
// by host index) than to any host outside it: hosts behind one switch
// or router, whose flows to a destination leave the same way. A HyperX
// row is a level of groups (one hop inside, two to most hosts outside)
// whose hosts are as near the hosts of their columns, outside it.
func NearestInside(s *survey.Survey, groups []int) bool {
	if len(s.Tables) == 0 {
		return false
	}
	t := s.Tables[0]
	m, err := ChooseMetric(t, -1)
	if err != nil {
		return false
	}
	hostIdx, nh := survey.HostIndex(s.Ranks)
	if len(groups) != nh {
		return false
	}
	maxIn, minOut := make([]float64, nh), make([]float64, nh)
	for h := range minOut {
		minOut[h] = math.Inf(1)
	}
	t.Each(func(a, b, i int) {
		ha, hb := hostIdx[a], hostIdx[b]
		v := float64(t.Values[m][i])
		if ha == hb || v != v || v <= 0 {
			return
		}
		for _, h := range []int{ha, hb} {
			if groups[ha] == groups[hb] {
				maxIn[h] = max(maxIn[h], v)
			} else {
				minOut[h] = min(minOut[h], v)
			}
		}
	})
	for h := range maxIn {
		if maxIn[h] >= minOut[h] {
			return false
		}
	}
	return true
}
