package fabric

import (
	"fmt"
	"slices"
)

// minimal routes a direct network of routers in groups (a dragonfly's,
// found in a survey) as a dragonfly's minimal routing does: a message
// between groups stays in its source group until it crosses one link
// into its destination group, and then stays there (local, global,
// local); within a group it stays in the group. Among the paths that do
// so it takes the shortest, and where several are as short, at each
// router the link to the router numbered nearest it (path). A shortest
// path by hops alone may cross a third group (two global links, as short
// as one global link and the local hops on either side), which minimal
// routing does not take.
type minimal struct {
	g   *hopGraph
	grp []int32 // each vertex's group
	pos []int32 // each vertex's place in its group
	mem [][]int32
	// in[gr] is the hops between two vertices of group gr inside it:
	// entry i*len(mem[gr])+j from its i-th vertex to its j-th.
	in [][]uint16
	// cross[ga*G+gb] is the links from group ga into group gb.
	cross [][]hop
	from  [][]int32 // the vertex each of cross's links leaves
}

// newMinimal is g's vertices in groups grp (0 ... G-1) routed minimally;
// nil, with how many faults keep grp from a dragonfly's groups and why
// (the first), when a group's own links do not join it or two groups
// have no link between them (g routes by hops alone then); groups not
// numbered so, or one group, count maxFaults.
func newMinimal(g *hopGraph, grp []int32) (*minimal, int, string) {
	if len(grp) != g.k {
		return nil, maxFaults, fmt.Sprintf("%d vertices and %d groups of vertices", g.k, len(grp))
	}
	m := &minimal{g: g, grp: grp, pos: make([]int32, g.k)}
	for v, gr := range grp {
		if gr < 0 {
			return nil, maxFaults, fmt.Sprintf("vertex %d in group %d", v, gr)
		}
		for int(gr) >= len(m.mem) {
			m.mem = append(m.mem, nil)
		}
		m.pos[v] = int32(len(m.mem[gr]))
		m.mem[gr] = append(m.mem[gr], int32(v))
	}
	ng := len(m.mem)
	if ng < 2 {
		return nil, maxFaults, "one group"
	}
	faults, why := 0, ""
	fault := func(s string) {
		if faults++; faults == 1 {
			why = s
		}
	}
	m.cross, m.from = make([][]hop, ng*ng), make([][]int32, ng*ng)
	nbrs := make([][]int32, 0, g.k)
	for gr, mem := range m.mem {
		if len(mem) == 0 {
			return nil, maxFaults, fmt.Sprintf("group %d has no vertex", gr)
		}
		nbrs = nbrs[:0]
		for _, v := range mem {
			var in []int32
			for _, h := range g.out[v] {
				if grp[h.to] == int32(gr) {
					in = append(in, m.pos[h.to])
				} else {
					c := gr*ng + int(grp[h.to])
					m.cross[c], m.from[c] = append(m.cross[c], h), append(m.from[c], v)
				}
			}
			nbrs = append(nbrs, in)
		}
		d := HopTable(nbrs)
		if slices.Contains(d, Unreached) {
			fault(fmt.Sprintf("group %d's own links do not join its %d vertices", gr, len(mem)))
		}
		m.in = append(m.in, d)
	}
	for ga := 0; ga < ng; ga++ {
		for gb := ga + 1; gb < ng; gb++ {
			if len(m.cross[ga*ng+gb]) == 0 {
				fault(fmt.Sprintf("no link joins group %d to group %d", ga, gb))
			}
		}
	}
	if faults > 0 {
		return nil, faults, why
	}
	return m, 0, ""
}

// maxFaults is newMinimal's count of faults where the groups are not
// numbered 0 ... G-1 without a gap, or are one: more than any graph's.
const maxFaults = int(^uint(0) >> 1)

// GroupFaults counts what keeps groups (each vertex's, 0 ... G-1) from
// being a dragonfly's groups over a graph of len(groups) vertices joined
// by links, as NewRouterNetwork's minimal routing needs them: the pairs
// of groups that no link joins, and the groups whose own links do not
// join their vertices; why names the first. Groups not numbered so, or
// one group, count more than any graph's faults.
func GroupFaults(links [][2]int32, groups []int32) (faults int, why string) {
	g, err := newLinkedGraph(len(groups), links)
	if err != nil {
		return maxFaults, err.Error()
	}
	_, faults, why = newMinimal(g, groups)
	return faults, why
}

// NonMinimal is the pairs of vertices a < b, of a graph of len(groups)
// vertices joined by links, in different groups (each vertex's, 0 ...
// G-1), whose shortest path is shorter than any minimal one (local,
// global, local): through a third group. A machine whose round trips
// show those hops does not route them minimally. Nil where the groups
// are no dragonfly's (GroupFaults).
func NonMinimal(links [][2]int32, groups []int32) [][2]int32 {
	g, err := newLinkedGraph(len(groups), links)
	if err != nil {
		return nil
	}
	if m, _, _ := newMinimal(g, groups); m != nil {
		return m.shorter()
	}
	return nil
}

// newLinkedGraph is the graph of k vertices joined by links, each link's
// number its index in links.
func newLinkedGraph(k int, links [][2]int32) (*hopGraph, error) {
	g := newHopGraph(k)
	for i, l := range links {
		if err := checkLink(l, k); err != nil {
			return nil, err
		}
		a, b := l[0], l[1]
		g.out[a], g.out[b] = append(g.out[a], hop{b, int32(i), -1}), append(g.out[b], hop{a, int32(i), -1})
	}
	g.sortOut()
	return g, nil
}

// shorter is the pairs of vertices a < b in different groups whose
// hops in m.g are fewer than any minimal path's (NonMinimal).
func (m *minimal) shorter() (pairs [][2]int32) {
	k, dist := m.g.k, m.g.table()
	for a := range k {
		for b := a + 1; b < k; b++ {
			if m.grp[a] != m.grp[b] && int32(dist[b*k+a]) < m.hops(a, b) {
				pairs = append(pairs, [2]int32{int32(a), int32(b)})
			}
		}
	}
	return pairs
}

// inside is the hops from v to b inside their group.
func (m *minimal) inside(v, b int) int32 {
	gr := m.grp[v]
	return int32(m.in[gr][int(m.pos[b])*len(m.mem[gr])+int(m.pos[v])])
}

// hops is the hops from v to b of a minimal path (v in b's group or in
// the message's source group).
func (m *minimal) hops(v, b int) int32 {
	gv, gb := int(m.grp[v]), int(m.grp[b])
	if gv == gb {
		return m.inside(v, b)
	}
	c := gv*len(m.mem) + gb
	best := int32(-1)
	for i, h := range m.cross[c] {
		if d := m.inside(v, int(m.from[c][i])) + 1 + m.inside(int(h.to), b); best < 0 || d < best {
			best = d
		}
	}
	return best
}

// next calls visit with each link out of cur, on a minimal path to b,
// one hop nearer b: within cur's group, or into b's.
func (m *minimal) next(cur, b int, d func(int) int32, visit func(hop)) {
	here := d(cur)
	for _, h := range m.g.out[cur] {
		to := int(h.to)
		if m.grp[to] != m.grp[cur] && m.grp[to] != m.grp[b] {
			continue
		}
		if d(to) == here-1 {
			visit(h)
		}
	}
}

// path visits one minimal path's links from a to b: from each vertex,
// the link next names to the vertex numbered nearest it (of two as near,
// the lower). Routers numbered in the survey's order (a dragonfly's group
// by group, chassis by chassis, router by router within a chassis, as
// SimGrid's and Cray's node numbers run) are then routed in dimension
// order: a chassis's own links (to routers fewer than a chassis apart in
// number) before the links between chassis (a chassis or more apart),
// as SimGrid's dragonfly routes and a machine routing minimally and
// statically does. Which of several minimal paths a machine takes is not
// in the round trips; spreading over them (as minimal adaptive routing
// does) priced the survey-alone dragonflies of 4 groups of 2 chassis
// 1.19-1.22x their block runs, and advised a proposal for GROMACS that
// simulated 7-14% slower.
func (m *minimal) path(a, b int, visit func(int32)) {
	d := func(v int) int32 { return m.hops(v, b) }
	for cur := a; cur != b; {
		var best hop
		moved := false
		m.next(cur, b, d, func(h hop) {
			if !moved || apart(h.to, cur) < apart(best.to, cur) {
				best, moved = h, true
			}
		})
		if !moved { // newMinimal's checks leave none such
			panic(fmt.Sprintf("fabric: no minimal hop from vertex %d to %d", cur, b))
		}
		best.step(b, visit)
		cur = int(best.to)
	}
}

// apart is how far apart in number vertices v and w are.
func apart(v int32, w int) int {
	if d := int(v) - w; d > 0 {
		return d
	}
	return w - int(v)
}

// checkLink is an error where link l does not join two different
// vertices of k.
func checkLink(l [2]int32, k int) error {
	if a, b := l[0], l[1]; a < 0 || b < 0 || int(a) >= k || int(b) >= k || a == b {
		return fmt.Errorf("link between %d and %d of %d", a, b, k)
	}
	return nil
}
