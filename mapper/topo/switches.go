package topo

import (
	"fmt"
	"slices"

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
// order of first appearance: of[k][h] is host h's group at level k+1.
// When the survey shows no switch level (one network level above the
// nodes) it returns no rows and a note saying why.
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
	// level all talk at about one round trip. Levels spread wider (a
	// torus's or a dragonfly's hop counts) are no switch groups.
	for _, l := range tp.Levels[tp.NodeLevel+1:] {
		if l.RTTMin > 0 && l.RTTMax > MaxSwitchSpread*l.RTTMin {
			return nil, nil, fmt.Sprintf("the round trips above the nodes do not form switch levels (one level spreads %.3g-%.3g us: a torus or a dragonfly?)", l.RTTMin, l.RTTMax)
		}
	}
	first := make([]int, nh) // a rank of each host
	for r := len(s.Ranks) - 1; r >= 0; r-- {
		first[hostIdx[r]] = r
	}
	var prev []int
	for l := tp.NodeLevel + 1; l < len(tp.Levels); l++ {
		if g := tp.Levels[l].Groups; g < 2 || g >= nh {
			continue
		}
		groups := make([]int, nh)
		num := map[int]int{}
		for h := range groups {
			c := tp.Group[l][first[h]]
			if _, ok := num[c]; !ok {
				num[c] = len(num)
			}
			groups[h] = num[c]
		}
		if !slices.Equal(prev, groups) {
			of = append(of, groups)
			prev = groups
		}
	}
	if len(of) == 0 {
		return nil, nil, "the latencies show no level between the nodes and the whole network"
	}
	names := make([]string, nh)
	for r, h := range hostIdx {
		names[h] = s.Ranks[r].Host
	}
	for k, groups := range of {
		for h, g := range groups {
			rows = append(rows, survey.HostGroup{Host: names[h], Level: k + 1, Group: g})
		}
	}
	return rows, of, ""
}
