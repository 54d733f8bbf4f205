package network

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/fabric"
)

// A job on part of a machine (a busy dragonfly's scheduler leaves it a
// few routers in each of several groups) has routers between its own
// that none of its nodes hang off: the routers at the far end of a
// group's global link, and the routers a message crosses between its
// own two. The round trips between the job's routers then count hops
// that no graph of the job's routers has, and FindDirect finds none
// (a site-cabled dragonfly's fragment: 0.35 of a hop). FindHidden
// finds the graph with those routers in it.

// maxHiddenHops is the most hops between two routers of different
// groups that FindHidden explains through hidden routers: a local hop
// to the group's router that holds their global link, the global link,
// a local hop from its far end (a dragonfly's minimal route).
var maxHiddenHops = 3

// maxHiddenRouters is the most routers of a job FindHidden looks
// between: 229 routers of a fragment of 32 groups of 16 took 0.5 s.
const maxHiddenRouters = 256

// FindHidden looks in the round trips lat between routers (router[node]:
// its router, numbered from 0; groups[r]: router r's group, a
// dragonfly's, from the outermost switch level) for a graph of links
// between them and routers outside the job (hidden) whose hops explain
// every round trip between the job's routers (Base + PerHop x hops,
// within maxHopResidual of a hop; hopClasses counts them):
//
//   - routers a hop apart are linked;
//   - routers of a group two hops apart where the graph says more meet
//     at a hidden router of their group;
//   - routers of two groups two hops apart where the graph says more:
//     one of them holds a global link to a hidden router of the other's
//     group, linked to its partners in such pairs (gateways);
//   - two groups whose routers are maxHiddenHops apart where the graph
//     says more are joined by a global link between two hidden routers,
//     one in each, each linked to its group's routers of those pairs;
//   - a group whose own routers are all a hop apart has its hidden
//     routers linked to all of them (fillClique), and two hidden routers
//     of a group are one wherever the round trips allow it (merge).
//
// Nothing else is assumed of the wiring: which routers hold the global
// links and how a group's routers are linked are what the round trips
// say. Parallel global links are one: the survey's switch phase prices
// a group's links to the others (topo.SwitchShares). The hidden routers
// are numbered after the job's (nr, nr+1, ...); hidden[i] is the group
// of router nr+i. nil, and a sentence saying why, where the round trips
// are not so explained (groups whose routers are more than two hops
// apart inside, or more than maxHiddenHops between: Aries's rows and
// columns), or every two routers of different groups are as far apart
// (a fat tree's pods).
func FindHidden(router []int32, groups []int32, lat func(a, b int) float64) (d *Direct, hidden []int32, why string) {
	nr := int(slices.Max(router)) + 1
	if len(groups) != nr {
		return nil, nil, "the routers' groups are not known"
	}
	if nr < 2*minDiameter {
		return nil, nil, fmt.Sprintf("%d routers are too few to tell a direct network from switches", nr)
	}
	if nr > maxHiddenRouters {
		return nil, nil, fmt.Sprintf("%d routers are more than the %d routers outside the job are looked for between", nr, maxHiddenRouters)
	}
	l := routerLatencies(router, lat)
	hops, why := hopClasses(nr, l)
	if hops == nil {
		return nil, nil, why
	}
	if alikeApart(nr, hops, groups) {
		return nil, nil, "every two routers of different groups are as many hops apart (a tree's pods, not a dragonfly's groups)"
	}
	h := &hiddenGraph{nr: nr, hops: hops, group: slices.Clone(groups)}
	h.nbrs = make([][]int32, nr)
	for a := range nr {
		for b := a + 1; b < nr; b++ {
			if hops[a*nr+b] == 1 {
				h.link(int32(a), int32(b))
			}
		}
	}
	if why := h.complete(); why != "" {
		return nil, nil, why
	}
	d, why = h.fit(l)
	if d == nil {
		return nil, nil, why
	}
	return d, h.group[nr:], ""
}

// hopClasses counts the hops between every two of nr routers from their
// latencies l (l[a*nr+b]): the nearest pairs (up to a quarter of the
// way from the least round trip to the 90th percentile) are a hop
// apart, the next class's median is a hop more, and every pair is its
// latency's nearest whole number of hops (at least one). nil and why
// where the pairs are all alike.
func hopClasses(nr int, l []float64) (hops []int, why string) {
	base, per, why := hopScale(nr, l)
	if why != "" {
		return nil, why
	}
	return roundHops(nr, l, base, per), ""
}

// roundHops is every pair's latency as the nearest whole number of hops
// (at least one) on the line base + per a hop (hopScale's).
func roundHops(nr int, l []float64, base, per float64) (hops []int) {
	hops = make([]int, nr*nr)
	for a := range nr {
		for b := range nr {
			if a != b {
				hops[a*nr+b] = max(1, int(math.Round((l[a*nr+b]-base)/per)))
			}
		}
	}
	return hops
}

// hopScale is hopClasses' line: the round trip of a hop, per (the next
// class's median over the nearest's), and at no hop, base (the nearest
// class's median less per).
func hopScale(nr int, l []float64) (base, per float64, why string) {
	var all []float64
	for a := range nr {
		for b := a + 1; b < nr; b++ {
			all = append(all, l[a*nr+b])
		}
	}
	slices.Sort(all)
	lo, p90 := all[0], all[len(all)*9/10]
	if !(p90 > lo) || math.IsInf(p90, 0) || math.IsNaN(p90) {
		return 0, 0, "the round trips between routers are all alike: no hops in them"
	}
	near := lo + (p90-lo)/4
	i := 0
	for i < len(all) && all[i] <= near {
		i++
	}
	if i == len(all) {
		return 0, 0, "the round trips between routers are all alike: no hops in them"
	}
	one := stats.Median(all[:i])
	j := i
	for j < len(all) && all[j] <= one+1.5*(all[i]-one) {
		j++
	}
	per = stats.Median(all[i:j]) - one
	return one - per, per, ""
}

// alikeApart says whether every two of nr routers of different groups
// are as many hops apart: a fat tree's leaves in pods, which no graph
// of routers is (each pod's leaves meet over the same spines), where a
// dragonfly's groups meet over global links at particular routers.
func alikeApart(nr int, hops []int, groups []int32) bool {
	n := -1
	for a := range nr {
		for b := range nr {
			if groups[a] != groups[b] {
				if n >= 0 && hops[a*nr+b] != n {
					return false
				}
				n = hops[a*nr+b]
			}
		}
	}
	return true
}

// hiddenGraph is FindHidden's graph as it grows: the job's nr routers
// and the hidden ones after them, their links (nbrs), each router's
// group, and the hops the round trips count between the job's routers.
type hiddenGraph struct {
	nr    int
	hops  []int
	group []int32
	nbrs  [][]int32
}

// link links routers a and b.
func (h *hiddenGraph) link(a, b int32) {
	h.nbrs[a], h.nbrs[b] = append(h.nbrs[a], b), append(h.nbrs[b], a)
}

// links is the graph's links, each once (a < b), in order.
func (h *hiddenGraph) links() [][2]int32 {
	var out [][2]int32
	for a, nb := range h.nbrs {
		for _, b := range nb {
			if int32(a) < b {
				out = append(out, [2]int32{int32(a), b})
			}
		}
	}
	slices.SortFunc(out, func(x, y [2]int32) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) })
	return out
}

// bfs is the hops from router src to every router over the graph
// (fabric.Unreached where none joins them).
func (h *hiddenGraph) bfs(src int32) []uint16 {
	row := make([]uint16, len(h.nbrs))
	fabric.HopRow(h.nbrs, int(src), row, nil)
	return row
}

// add is a hidden router of group g linked to the routers of to.
func (h *hiddenGraph) add(g int32, to []int32) int32 {
	v := int32(len(h.nbrs))
	h.nbrs, h.group = append(h.nbrs, nil), append(h.group, g)
	to = slices.Clone(to)
	slices.Sort(to)
	for _, r := range slices.Compact(to) {
		h.link(v, r)
	}
	return v
}

// dist is the hops between every two of the job's routers over the graph
// so far (entry a*nr+b).
func (h *hiddenGraph) dist() []int { return h.distFrom(-1) }

// distFrom is dist's rows of the routers of group g only (-1: every
// row; the others are left 0).
func (h *hiddenGraph) distFrom(g int32) []int {
	d := make([]int, h.nr*h.nr)
	for a := range h.nr {
		if g < 0 || h.group[a] == g {
			for b, x := range h.bfs(int32(a))[:h.nr] {
				d[a*h.nr+b] = int(x)
			}
		}
	}
	return d
}

// short lists the pairs of the job's routers, a of group ga and b of gb
// (a < b where ga == gb), the round trips count n hops apart where the
// graph dist counts more (dist's rows of ga's routers: distFrom(ga)).
func (h *hiddenGraph) short(dist []int, ga, gb int32, n int) [][2]int32 {
	var out [][2]int32
	for a := range h.nr {
		if h.group[a] != ga {
			continue
		}
		for b := range h.nr {
			if h.group[b] == gb && a != b && (ga != gb || a < b) && h.hops[a*h.nr+b] == n && dist[a*h.nr+b] > n {
				out = append(out, [2]int32{int32(a), int32(b)})
			}
		}
	}
	return out
}

// complete adds the hidden routers FindHidden's rules name, group by
// group and pair of groups by pair; why where a pair of routers is
// farther than they explain.
func (h *hiddenGraph) complete() string {
	ng := slices.Max(h.group) + 1
	for g := range ng {
		if s := h.short(h.distFrom(g), g, g, 2); len(s) > 0 {
			h.add(g, append(ends(s, 0), ends(s, 1)...))
		}
	}
	for ga := range ng {
		for gb := ga + 1; gb < ng; gb++ {
			h.gateways(ga, gb)
			if s := h.short(h.distFrom(ga), ga, gb, maxHiddenHops); len(s) > 0 {
				x, y := h.add(ga, ends(s, 0)), h.add(gb, ends(s, 1))
				h.link(x, y)
			}
		}
	}
	for g := range ng {
		h.fillClique(g)
	}
	h.merge()
	dist := h.dist()
	for a := range h.nr {
		for b := range h.nr {
			if a != b && dist[a*h.nr+b] > h.hops[a*h.nr+b] {
				return fmt.Sprintf("routers %d and %d are %d hops apart by their round trip, but %d by the routers found "+
					"(with %d hidden ones outside the job)", a, b, h.hops[a*h.nr+b], dist[a*h.nr+b], len(h.nbrs)-h.nr)
			}
		}
	}
	return ""
}

// fillClique links each hidden router of group g to every router of
// the job in g, where those are all a hop apart (a dragonfly's group
// linked all to all, as most are: the hidden routers are too) and its
// links leave no two of the job's routers nearer than their round trip
// (a router the rules above added for two routers a hop apart through a
// third group's global links, which no one router of g is). The rules
// link a hidden router only to the routers whose round trips need it,
// and routed over that, a group's traffic to another crowds onto the
// global links of the routers it can see.
func (h *hiddenGraph) fillClique(g int32) {
	var own, hidden []int32
	for r, gr := range h.group {
		switch {
		case gr != g:
		case r < h.nr:
			own = append(own, int32(r))
		default:
			hidden = append(hidden, int32(r))
		}
	}
	for i, a := range own {
		for _, b := range own[i+1:] {
			if h.hops[int(a)*h.nr+int(b)] != 1 {
				return
			}
		}
	}
	for _, v := range hidden {
		var added []int32
		for _, r := range own {
			if !slices.Contains(h.nbrs[v], r) {
				h.link(v, r)
				added = append(added, r)
			}
		}
		if h.undershootsVia(v) {
			h.nbrs[v] = h.nbrs[v][:len(h.nbrs[v])-len(added)]
			for _, r := range added {
				h.nbrs[r] = h.nbrs[r][:len(h.nbrs[r])-1]
			}
		}
	}
}

// undershootsVia says whether the graph puts two of the job's routers
// nearer than their round trip through router u: after links to u
// alone changed, the only ways that can be shorter than before.
func (h *hiddenGraph) undershootsVia(u int32) bool {
	du := h.bfs(u)
	for a := range h.nr {
		for b := a + 1; b < h.nr; b++ {
			if int(du[a])+int(du[b]) < h.hops[a*h.nr+b] {
				return true
			}
		}
	}
	return false
}

// maxMergeHidden is the most routers outside the job of one group that
// merge tries every two of.
const maxMergeHidden = 64

// merge makes two routers outside the job of one group one wherever the
// round trips allow it: the rules above add a router for each global
// link they need, and a router holding two (to two groups, whose
// routers are then two hops apart through it) would be counted twice,
// its local links carrying half the traffic they carry. Two are one
// where, so joined, no two of the job's routers are nearer than their
// round trip (two routers the round trips cannot tell apart are taken
// for one: the fewest routers that explain them).
func (h *hiddenGraph) merge() {
	byGroup := map[int32][]int32{}
	for v := h.nr; v < len(h.nbrs); v++ {
		byGroup[h.group[v]] = append(byGroup[h.group[v]], int32(v))
	}
	for _, g := range slices.Sorted(maps.Keys(byGroup)) {
		mem := byGroup[g]
		if len(mem) > maxMergeHidden {
			continue
		}
		for i := 0; i < len(mem); i++ {
			for j := i + 1; j < len(mem); {
				if h.join(mem[i], mem[j]) {
					mem = slices.Delete(mem, j, j+1)
				} else {
					j++
				}
			}
		}
	}
	h.compact()
}

// join moves router v's links to u where that leaves no two of the
// job's routers nearer than their round trip, and says whether it did.
func (h *hiddenGraph) join(u, v int32) bool {
	moved := h.nbrs[v]
	var added []int32
	for _, w := range moved {
		h.nbrs[w] = slices.DeleteFunc(h.nbrs[w], func(x int32) bool { return x == v })
		if w != u && !slices.Contains(h.nbrs[u], w) {
			h.link(u, w)
			added = append(added, w)
		}
	}
	h.nbrs[v] = nil
	if !h.undershootsVia(u) {
		return true
	}
	h.nbrs[u] = h.nbrs[u][:len(h.nbrs[u])-len(added)]
	for _, w := range added {
		h.nbrs[w] = h.nbrs[w][:len(h.nbrs[w])-1]
	}
	h.nbrs[v] = moved
	for _, w := range moved {
		h.nbrs[w] = append(h.nbrs[w], v)
	}
	return false
}

// compact drops the routers outside the job that join left without a
// link, numbering the rest in order.
func (h *hiddenGraph) compact() {
	id, next := make([]int32, len(h.nbrs)), int32(0)
	var group []int32
	for v := range h.nbrs {
		id[v] = -1
		if v < h.nr || len(h.nbrs[v]) > 0 {
			id[v], next = next, next+1
			group = append(group, h.group[v])
		}
	}
	links := h.links()
	h.nbrs, h.group = make([][]int32, next), group
	for _, l := range links {
		h.link(id[l[0]], id[l[1]])
	}
}

// gateways explains the pairs of routers of groups ga and gb two hops
// apart that the graph puts farther: a router of either group holds a
// global link to a router outside the job in the other group, linked to
// its partners in those pairs; then the next, until none is left. The
// router is one within two hops of every router of the other group
// where one is (the far end of its global link is a hop from each of
// them where the group is linked all to all; a router that is not, but
// whose partner is, is that partner's way in), of those the one in the
// most such pairs, of those the lowest-numbered.
func (h *hiddenGraph) gateways(ga, gb int32) {
	for {
		s := h.short(h.distFrom(ga), ga, gb, 2)
		if len(s) == 0 {
			return
		}
		count := map[int32]int{}
		for _, p := range s {
			count[p[0]]++
			count[p[1]]++
		}
		far := func(r int32) int32 { // the other group of the pair
			if h.group[r] == gb {
				return ga
			}
			return gb
		}
		score := func(r int32) int {
			for x := range h.nr {
				if h.group[x] == far(r) && h.hops[int(r)*h.nr+x] > 2 {
					return count[r]
				}
			}
			return count[r] + len(s) + 1 // before every router that is not
		}
		best := s[0][0]
		for r := range count {
			if sc, sb := score(r), score(best); sc > sb || sc == sb && r < best {
				best = r
			}
		}
		var partners []int32
		for _, p := range s {
			switch best {
			case p[0]:
				partners = append(partners, p[1])
			case p[1]:
				partners = append(partners, p[0])
			}
		}
		h.link(best, h.add(far(best), partners))
	}
}

// ends is the routers at end e of pairs (0: first, 1: second), each
// once, in order.
func ends(pairs [][2]int32, e int) []int32 {
	var out []int32
	for _, p := range pairs {
		out = append(out, p[e])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// fit fits the job's routers' latencies l to the graph's hops (lineFit):
// the Direct of its links (hidden routers' too); nil and why where the
// job's routers are all a hop apart or the hops explain the latencies
// worse than maxHopResidual.
func (h *hiddenGraph) fit(l []float64) (*Direct, string) {
	dist := h.dist()
	d := lineFit(h.nr, l, func(a, b int) int { return dist[a*h.nr+b] }, nil)
	d.MinDegree, d.MaxDegree = degrees(h.nbrs)
	if d.Diameter < 2 {
		return nil, "the routers are all a hop apart (a switch's)"
	}
	if !(d.PerHop > 0) {
		return nil, "the round trips do not grow with the hops"
	}
	if d.Residual > maxHopResidual {
		return nil, fmt.Sprintf("the hops of the routers found with %d hidden ones explain the round trips only within %.2f of a hop",
			len(h.nbrs)-h.nr, d.Residual)
	}
	d.Links = h.links()
	return d, ""
}
