package topo

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
)

// PlanSwitchGroups is the switch phase's plan for the survey s: the
// levels the network description f declares above the nodes when there
// is one (DeclaredSwitchGroups), else those found in the latencies
// (SwitchGroups). A description that lacks a surveyed host, or has no
// groups (a torus), leaves the plan to the latencies, and the note says
// so.
func PlanSwitchGroups(s *survey.Survey, f *fabric.Fabric) (rows []survey.HostGroup, of [][]int, note string) {
	if f == nil {
		return SwitchGroups(s)
	}
	rows, of, why := DeclaredSwitchGroups(s, f)
	if of != nil {
		return rows, of, ""
	}
	rows, of, note = SwitchGroups(s)
	if note != "" {
		return rows, of, why + "; " + note
	}
	return rows, of, why + "; the levels found in the latencies were measured"
}

// DeclaredSwitchGroups is each surveyed host's group at each level the
// network description f declares above the nodes (a tree's switches; a
// dragonfly's routers, chassis and groups), as switches.csv's rows and
// of (SwitchGroups'), innermost first. Levels that leave every surveyed
// host alone, put them all in one group, or group them as the level
// below are left out. With no level left, or a surveyed host the
// description lacks, it returns no rows and says why.
func DeclaredSwitchGroups(s *survey.Survey, f *fabric.Fabric) (rows []survey.HostGroup, of [][]int, note string) {
	names := hostNames(s)
	if miss := f.Missing(names, 5); len(miss) > 0 {
		return nil, nil, fmt.Sprintf("%s does not describe host(s) %s", f.Source, strings.Join(miss, ", "))
	}
	idx := f.HostIndex()
	var prev []int
	for _, lv := range f.Levels {
		groups := make([]int, len(names))
		for h, name := range names {
			groups[h] = lv.Group[idx[name]]
		}
		groups = fabric.Renumber(groups)
		if ng := maxInt(groups) + 1; ng < 2 || ng == len(names) || slices.Equal(groups, prev) {
			continue
		}
		of, prev = append(of, groups), groups
	}
	if len(of) == 0 {
		return nil, nil, fmt.Sprintf("%s (%s) declares no groups of the surveyed hosts above the nodes", f.Source, f.Shape)
	}
	return switchRows(names, of), of, ""
}

// hostNames are s's hosts in order of first appearance.
func hostNames(s *survey.Survey) []string {
	idx, nh := survey.HostIndex(s.Ranks)
	names := make([]string, nh)
	for r, h := range idx {
		names[h] = s.Ranks[r].Host
	}
	return names
}

// switchRows are switches.csv's rows of the groups of (of[k][host]).
func switchRows(names []string, of [][]int) []survey.HostGroup {
	var rows []survey.HostGroup
	for k, groups := range of {
		for h, g := range groups {
			rows = append(rows, survey.HostGroup{Host: names[h], Level: k + 1, Group: g})
		}
	}
	return rows
}

// ClassShare is what the switch phase measured of one class of declared
// links: at switch level Level (the description's level Name), for the
// Groups steps whose routed prediction (every link at its declared
// bandwidth) is bound by links of Class, the median measured aggregate
// out of a group, the median predicted one, and the median of their
// ratios, Share. A class the description gives no bandwidth (a Slurm
// topology.conf's uplinks) has the level's steps, RoutedMBps and Share 0:
// a group's links of that class carry MeasuredMBps.
type ClassShare struct {
	Class, Name              string
	Level, Groups            int
	MeasuredMBps, RoutedMBps float64
	Share                    float64
}

// SwitchShares compares the survey's switch phase (switches.csv,
// switchbw.csv) with the network description f, level by level: the
// level's steps are routed over f as the phase runs them, every group at
// once (routedSteps), and the aggregate the declared links allow a group
// (its hosts sending / the most loaded link's load over its bandwidth,
// with the network's cross traffic on each route back: Fabric.Reverse)
// set against the measured one. Steps bound by a node's own link are
// the node phase's (nodebw.csv), not counted, nor steps bound as much by
// links of two classes (which of them falls short is not in the step).
// Levels whose groups are not a level of f, and descriptions that lack
// a surveyed host, give none.
func SwitchShares(s *survey.Survey, f *fabric.Fabric) []ClassShare {
	names := hostNames(s)
	of, ok := survey.SwitchLevels(s.Switches, names)
	if !ok || len(s.SwitchBandwidth) == 0 || len(f.Missing(names, 1)) > 0 {
		return nil
	}
	at := f.HostIndex()
	fhost := make([]int, len(names))
	for h, n := range names {
		fhost[h] = at[n]
	}
	var out []ClassShare
	for k, groups := range of {
		lv := declaredLevel(f, fhost, groups)
		if lv == nil {
			continue
		}
		undeclared := !slices.ContainsFunc(f.Links, func(l fabric.Link) bool { return l.Class == lv.Class && l.Bandwidth > 0 })
		members := groupMembers(groups)
		var rest, pair []stepBound
		if !undeclared {
			sib, idx := Siblings(groups, len(members), of, k)
			rest, pair = routedSteps(f, fhost, members, sib, idx)
		}
		by := map[string]*shareRows{}
		for _, r := range s.SwitchBandwidth {
			if r.Level != k+1 || r.Group >= len(members) || r.PeerGroup >= len(members) || r.AggregateMBps <= 0 {
				continue
			}
			routed, class := 0.0, lv.Class
			if !undeclared {
				b := pair[r.Group]
				if r.PeerGroup == r.Group {
					b = rest[r.Group]
				}
				routed, class = b.bps, b.class
			}
			if class == "" || class == "node" || class == "local" {
				continue
			}
			if by[class] == nil {
				by[class] = &shareRows{}
			}
			by[class].add(r.AggregateMBps, routed/1e6, r.PeerGroup != r.Group)
		}
		for _, class := range slices.Sorted(maps.Keys(by)) {
			out = append(out, by[class].share(class, lv.Name, k+1, !f.Declared()))
		}
	}
	return out
}

// shareRows gathers one class's steps at one level, those to the rest
// ([0]) apart from those to one sibling ([1]).
type shareRows struct {
	measured, routed, ratio [2][]float64
}

func (b *shareRows) add(measured, routed float64, pair bool) {
	k := 0
	if pair {
		k = 1
	}
	b.measured[k], b.routed[k] = append(b.measured[k], measured), append(b.routed[k], routed)
	if routed > 0 {
		b.ratio[k] = append(b.ratio[k], measured/routed)
	}
}

// share is the class's ClassShare: the medians over its steps; in a
// network found in the survey (assumed: its links all at one rate), over
// the kind of step (to the rest, to one sibling) whose median ratio is
// the larger. Each step's ratio bounds the class's capacity from below
// where the other classes are priced right, and an assumed rate is low
// on a class of parallel links: steps that run at the assumed class's
// bound in the model may run at another class's on the machine. On the
// dragonfly of 4 groups of 4 routers of 4 nodes with 2 global links
// between two groups, the pair steps measured 1.93x one link, the steps
// to the rest 1.50x (bound by the local links feeding the global ones,
// as the network declared shows).
func (b *shareRows) share(class, name string, level int, assumed bool) ClassShare {
	pick := func(x [2][]float64) []float64 { return append(slices.Clone(x[0]), x[1]...) }
	if assumed && len(b.ratio[0]) > 0 && len(b.ratio[1]) > 0 {
		k := 0
		if stats.Median(b.ratio[1]) > stats.Median(b.ratio[0]) {
			k = 1
		}
		pick = func(x [2][]float64) []float64 { return x[k] }
	}
	c := ClassShare{Class: class, Name: name, Level: level, Groups: len(pick(b.measured)), MeasuredMBps: stats.Median(pick(b.measured))}
	if r := pick(b.ratio); len(r) > 0 {
		c.RoutedMBps, c.Share = stats.Median(pick(b.routed)), stats.Median(r)
	}
	return c
}

// declaredLevel is f's level that groups the surveyed hosts (fhost[h]
// is host h's fabric host) as groups does, or nil.
func declaredLevel(f *fabric.Fabric, fhost, groups []int) *fabric.GroupLevel {
	for i := range f.Levels {
		lv := &f.Levels[i]
		fwd, back := map[int]int{}, map[int]int{}
		same := true
		for h, g := range groups {
			d := lv.Group[fhost[h]]
			if x, ok := fwd[g]; ok && x != d {
				same = false
				break
			}
			if x, ok := back[d]; ok && x != g {
				same = false
				break
			}
			fwd[g], back[d] = d, g
		}
		if same {
			return lv
		}
	}
	return nil
}

// groupMembers lists each group's hosts in host order.
func groupMembers(groups []int) [][]int {
	members := make([][]int, maxInt(groups)+1)
	for h, g := range groups {
		members[g] = append(members[g], h)
	}
	return members
}

// Siblings lists, for each group of level k (ng groups, groups[host]),
// the groups of level k under the same group of level k+1 (all of them
// at the top level), in group order, and the group's index among them.
func Siblings(groups []int, ng int, of [][]int, k int) (sib [][]int, idx []int) {
	parent := make([]int, ng)
	if k+1 < len(of) {
		for h, g := range groups {
			parent[g] = of[k+1][h]
		}
	}
	byParent := map[int][]int{}
	for g := 0; g < ng; g++ {
		byParent[parent[g]] = append(byParent[parent[g]], g)
	}
	sib, idx = make([][]int, ng), make([]int, ng)
	for _, set := range byParent {
		for i, g := range set {
			sib[g], idx[g] = set, i
		}
	}
	return sib, idx
}
