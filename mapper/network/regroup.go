package network

import (
	"fmt"
	"slices"
	"strings"

	"github.com/latmap/latmap/mapper/fabric"
)

// The outermost switch level the survey finds in the round trips
// (average linkage) is a dragonfly's groups only where the routers'
// round trips cluster as the groups do. On a fragment they need not: a
// router with one other router of its group in the job is a hop from it
// and as near, over a global link, to a router of another group, and
// average linkage can put it in that group. On BenchmarkSimProbe64's
// fragment (64 hosts on 16 routers of 6 groups) the level put router 1
// of group 0 with group 2's three routers and left router 2 of group 0
// a group alone. The routers outside the job found for those groups
// then merged group 0's router that holds its global links with group
// 2's (the round trips cannot tell one from two), no link joined two
// of the level's groups, so the routes were spread over every shortest
// path, and LAMMPS eam's block layout was priced at 0.0356 s for 0.0258
// s simulated. With that router in its own group the graph found is the
// one wired, and block is priced at 0.0253 s.

// maxRegroupTries is the most groupings regroup finds a graph for; of
// more than 64 routers, fewer: maxRegroupWork over the routers squared
// (FindHidden took 0.5 s on 229 routers, so at most 5 tries there).
const (
	maxRegroupTries = 64
	maxRegroupWork  = maxRegroupTries * 64 * 64
)

// regroup mends groups (groups[r]: router r's group at the outermost
// switch level; hops: between the job's nr routers by their round trips,
// hopClasses') where they are no dragonfly's groups: their graph (d,
// and hidden, the groups of its routers outside the job, numbered after
// the nr routers) leaves two groups with no link between them, or a
// group that its own links do not join. Routers are moved one at a time
// to a group whose routers are all a hop from them (a group linked all
// to all, as a dragonfly's is; hopMoves), find giving each grouping's
// graph, the move that leaves the fewest such pairs of groups first,
// until none is left. It gives the groups, their graph and the routers
// moved; nil groups where the level's groups are a dragonfly's already,
// or no such moves make them one within maxRegroupTries graphs.
func regroup(nr int, hops []int, groups []int32, d *Direct, hidden []int32,
	find func([]int32) (*Direct, []int32)) (better []int32, _ *Direct, _, moved []int32) {
	cur := groups
	bad := unjoined(d, cur, hidden)
	tries, most := 1, min(maxRegroupTries, max(2, maxRegroupWork/(nr*nr)))
	for bad > 0 && tries < most {
		var next []int32
		var nd *Direct
		var nh []int32
		var r0 int32
		for _, m := range hopMoves(nr, hops, cur) {
			if tries >= most {
				break
			}
			try := slices.Clone(cur)
			try[m[0]] = m[1]
			try = fabric.Renumber(try)
			td, th := find(try)
			tries++
			if n := unjoined(td, try, th); n < bad {
				next, nd, nh, r0, bad = try, td, th, m[0], n
			}
		}
		if next == nil {
			break
		}
		cur, d, hidden, moved = next, nd, nh, append(moved, r0)
	}
	if bad > 0 || len(moved) == 0 {
		return nil, nil, nil, nil
	}
	return cur, d, hidden, moved
}

// hopMoves are the moves regroup tries, a router and its new group:
// to each other group whose routers are all a hop from it, first the
// routers that are not a hop from every other router of their own
// group.
func hopMoves(nr int, hops []int, groups []int32) (moves [][2]int32) {
	aHop := func(r int, g int32) bool {
		for s := range nr {
			if s != r && groups[s] == g && hops[r*nr+s] != 1 {
				return false
			}
		}
		return true
	}
	var later [][2]int32
	for r := range nr {
		for g := range slices.Max(groups) + 1 {
			switch {
			case g == groups[r] || !aHop(r, g):
			case aHop(r, groups[r]):
				later = append(later, [2]int32{int32(r), g})
			default:
				moves = append(moves, [2]int32{int32(r), g})
			}
		}
	}
	return append(moves, later...)
}

// unjoined counts the pairs of groups (groups: of the job's routers;
// hidden: of d's routers after them) that no link of d joins, and the
// groups whose own links do not join their routers; a graph not found
// (nil) counts more than any.
func unjoined(d *Direct, groups, hidden []int32) int {
	if d == nil {
		return int(^uint(0) >> 1)
	}
	n, _ := fabric.GroupFaults(d.Links, append(slices.Clone(groups), hidden...))
	return n
}

// MovedNote says which routers (each by the first of hosts that hangs
// off it) were moved from their group at the outermost switch level to
// make the groups a dragonfly's ("" none).
func (n *Network) MovedNote(hosts []string) string {
	if len(n.Moved) == 0 {
		return ""
	}
	rep := Representatives(n.Router)
	names := make([]string, len(n.Moved))
	for i, r := range n.Moved {
		names[i] = hosts[rep[r]]
	}
	return fmt.Sprintf(", with the router(s) of %s moved to a group whose routers are all a hop from them (the level's groups "+
		"left two groups unlinked: no dragonfly's)", strings.Join(names, ", "))
}

// groupsNote is Describe's word on the groups: the routers moved into
// them (MovedNote's count), and where they are a dragonfly's, the pairs
// of routers routed through a third group (ThroughThird); "" neither.
func (n *Network) groupsNote() string {
	note := ""
	if len(n.Moved) > 0 {
		note = fmt.Sprintf("; %d router(s) moved from their group at the outermost switch level to one whose routers are all a hop "+
			"from them, as the level's groups left two groups unlinked (no dragonfly's)", len(n.Moved))
	}
	if pairs, _, _ := n.ThroughThird(); pairs > 0 {
		note += fmt.Sprintf("; the round trips of %d pair(s) of routers in different groups are shorter than any path that stays "+
			"in their two groups: routed through a third group, not minimally", pairs)
	}
	return note
}

// ThroughThird counts the pairs of the job's routers in different groups
// whose round trips (the graph's hops) are fewer than any path that
// stays in their two groups (local, global, local) takes, and gives the
// first (-1, -1 where there is none, or no groups, or the groups are
// no dragonfly's: fabric.NonMinimal): a dragonfly's
// minimal routing does not take their route, the machine does, through
// a third group.
func (n *Network) ThroughThird() (pairs int, a, b int32) {
	a, b = -1, -1
	if n.Kind != KindRouters || n.Graph == nil || len(n.Groups) != n.Routers {
		return 0, a, b
	}
	nr := int32(n.Routers - n.Hidden)
	for _, p := range fabric.NonMinimal(n.Graph.Links, n.Groups) {
		if p[1] < nr {
			if pairs++; a < 0 {
				a, b = p[0], p[1]
			}
		}
	}
	return pairs, a, b
}
