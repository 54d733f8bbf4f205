package topo

import (
	"slices"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
)

// SharedLinks is the network a survey's probe of flows at once shows
// where the round trips show no links (the job's routers two hops apart
// or more, through routers outside the job): which classes of flows (a
// router's hosts to a host) slowed each other, and so crossed a common
// link. Each link is a set of classes every two of which the probe found
// sharing or could not judge (a clique of its verdicts, covered
// greedily: SharedCover), and a class crosses the links of the sets it
// is in.
type SharedLinks struct {
	Hosts  []string
	Router []int32 // each host's router, 0 ... Routers-1
	// Routers and Links count the routers and the shared links; Pairs
	// the pairs of classes the probe found sharing.
	Routers, Links, Pairs int
	cross                 map[[2]int32][]int32 // a class (router, host) -> its links
}

// ProbeShared is s's probe's SharedLinks; nil where s has no probe, or
// one that left pairs of classes unjudged (a pair not in shares.csv is
// then not known apart), or a host of s has no router in it.
func ProbeShared(s *survey.Survey) *SharedLinks {
	m := s.Meta.Probe
	if m == nil || m.Unjudged > 0 {
		return nil
	}
	hosts := hostNames(s)
	idx := make(map[string]int, len(hosts))
	sl := &SharedLinks{Hosts: hosts, Router: make([]int32, len(hosts))}
	renum := map[int]int32{}
	for h, name := range hosts {
		r, ok := m.Routers[name]
		if !ok {
			return nil
		}
		if _, ok := renum[r]; !ok {
			renum[r] = int32(len(renum))
		}
		idx[name], sl.Router[h] = h, renum[r]
	}
	sl.Routers = len(renum)
	// The sharing graph between classes, each numbered router x hosts + host.
	adj := map[int32]map[int32]bool{}
	for _, r := range s.Shares {
		a, okA := sl.class(idx, r.SrcA, r.DstA)
		b, okB := sl.class(idx, r.SrcB, r.DstB)
		if !r.Shared || !okA || !okB || a == b {
			continue
		}
		if adj[a] == nil {
			adj[a] = map[int32]bool{}
		}
		if adj[b] == nil {
			adj[b] = map[int32]bool{}
		}
		if !adj[a][b] {
			sl.Pairs++
		}
		adj[a][b], adj[b][a] = true, true
	}
	cliques := SharedCover(adj, sl.unjudgeable())
	sl.Links = len(cliques)
	sl.cross = map[[2]int32][]int32{}
	nh := int32(len(hosts))
	for l, c := range cliques {
		for _, k := range c {
			key := [2]int32{k / nh, k % nh}
			sl.cross[key] = append(sl.cross[key], int32(l))
		}
	}
	return sl
}

// unjudgeable is the pairs of classes the probe cannot judge, both
// ways: no two flows of them have four distinct hosts (one destination
// host; one source router of one host, or of two where one is the
// other class's destination).
func (sl *SharedLinks) unjudgeable() map[int32]map[int32]bool {
	nh := len(sl.Hosts)
	count := make([]int, sl.Routers)
	for _, r := range sl.Router {
		count[r]++
	}
	var classes []int32
	for r := range sl.Routers {
		for b := range nh {
			if int(sl.Router[b]) != r {
				classes = append(classes, int32(r*nh+b))
			}
		}
	}
	// free is how many hosts of router r are neither b1 nor b2.
	free := func(r, b1, b2 int) int {
		n := count[r]
		for _, b := range []int{b1, b2} {
			if int(sl.Router[b]) == r {
				n--
			}
		}
		if b1 == b2 && int(sl.Router[b1]) == r {
			n++
		}
		return n
	}
	out := map[int32]map[int32]bool{}
	for i, x := range classes {
		for _, y := range classes[i+1:] {
			r1, b1, r2, b2 := int(x)/nh, int(x)%nh, int(y)/nh, int(y)%nh
			f1, f2 := free(r1, b1, b2), free(r2, b1, b2)
			if b1 != b2 && f1 > 0 && f2 > 0 && (r1 != r2 || f1 > 1) {
				continue
			}
			if out[x] == nil {
				out[x] = map[int32]bool{}
			}
			if out[y] == nil {
				out[y] = map[int32]bool{}
			}
			out[x][y], out[y][x] = true, true
		}
	}
	return out
}

// class numbers the class of the flow from host src to host dst
// (router x hosts + host); false where either is not a host of sl's.
func (sl *SharedLinks) class(idx map[string]int, src, dst string) (int32, bool) {
	a, okA := idx[src]
	b, okB := idx[dst]
	return sl.Router[a]*int32(len(sl.Hosts)) + int32(b), okA && okB
}

// Fabric is sl as a network (fabric.NewShared), each shared link of bw
// bytes/s and lat seconds.
func (sl *SharedLinks) Fabric(bw, lat float64) (*fabric.Fabric, error) {
	return fabric.NewShared(sl.Hosts, sl.Router, sl.Routers, sl.Links, func(r int32, b int) []int32 {
		return sl.cross[[2]int32{r, int32(b)}]
	}, bw, lat)
}

// SharedCover covers the edges of the graph shared (each vertex's
// neighbours, both ways: the pairs found sharing) with cliques of it
// with the edges of free added (pairs that may share, not judged): flows
// that cross one link all slow each other, so a link is a clique. It
// takes the maximal cliques of the shared graph's vertices
// (Bron-Kerbosch, at most maxSharedCliques of them) and from those,
// greedily, the one covering the most shared edges not yet covered (the
// first in order on ties), until every one is; where there are more
// maximal cliques, each shared edge not yet covered grows its own from
// the vertices adjacent to all of it. Three flows that slow each other
// two by two on three links, their edges covered by no other cliques,
// are one clique, priced as one link. On the simulated Aries fragments,
// without the pairs of one destination host (free), a link's classes
// were split over several cliques: 137 links where 38 cover them.
func SharedCover(shared, free map[int32]map[int32]bool) [][]int32 {
	adj := map[int32]map[int32]bool{}
	for _, g := range []map[int32]map[int32]bool{shared, free} {
		for a, nb := range g {
			if adj[a] == nil {
				adj[a] = map[int32]bool{}
			}
			for b := range nb {
				adj[a][b] = true
			}
		}
	}
	var verts []int32
	for v := range shared {
		verts = append(verts, v)
	}
	slices.Sort(verts)
	cands, ok := maximalCliques(adj, verts)
	covered := map[[2]int32]bool{}
	key := func(a, b int32) [2]int32 { return [2]int32{min(a, b), max(a, b)} }
	gain := func(c []int32) int {
		g := 0
		for i, x := range c {
			for _, y := range c[i+1:] {
				if shared[x][y] && !covered[key(x, y)] {
					g++
				}
			}
		}
		return g
	}
	var cliques [][]int32
	take := func(c []int32) {
		for i, x := range c {
			for _, y := range c[i+1:] {
				covered[key(x, y)] = true
			}
		}
		cliques = append(cliques, c)
	}
	for ok {
		best, most := -1, 0
		for i, c := range cands {
			if g := gain(c); g > most {
				best, most = i, g
			}
		}
		if best < 0 {
			return cliques
		}
		take(cands[best])
	}
	for _, a := range verts {
		for _, b := range sortedKeys(shared[a]) {
			if b < a || covered[key(a, b)] {
				continue
			}
			c := []int32{a, b}
			for _, w := range sortedKeys(adj[a]) {
				if !slices.Contains(c, w) && allAdjacent(adj, w, c) {
					c = append(c, w)
				}
			}
			slices.Sort(c)
			take(c)
		}
	}
	return cliques
}

// maxSharedCliques bounds the maximal cliques SharedCover chooses from.
var maxSharedCliques = 100000

// maximalCliques is every maximal clique of adj (Bron-Kerbosch with a
// pivot, vertices verts in order), each sorted; false where there are
// more than maxSharedCliques.
func maximalCliques(adj map[int32]map[int32]bool, verts []int32) ([][]int32, bool) {
	var out [][]int32
	var rec func(r, p, x []int32) bool
	rec = func(r, p, x []int32) bool {
		if len(p) == 0 && len(x) == 0 {
			if len(r) > 1 {
				c := slices.Clone(r)
				slices.Sort(c)
				out = append(out, c)
			}
			return len(out) <= maxSharedCliques
		}
		pivot, most := int32(-1), -1
		for _, u := range append(slices.Clone(p), x...) {
			n := 0
			for _, v := range p {
				if adj[u][v] {
					n++
				}
			}
			if n > most {
				pivot, most = u, n
			}
		}
		for _, v := range slices.Clone(p) {
			if adj[pivot][v] {
				continue
			}
			var np, nx []int32
			for _, w := range p {
				if adj[v][w] {
					np = append(np, w)
				}
			}
			for _, w := range x {
				if adj[v][w] {
					nx = append(nx, w)
				}
			}
			if !rec(append(r, v), np, nx) {
				return false
			}
			p = slices.DeleteFunc(p, func(w int32) bool { return w == v })
			x = append(x, v)
		}
		return true
	}
	if !rec(nil, slices.Clone(verts), nil) {
		return nil, false
	}
	return out, true
}

// allAdjacent reports whether w is adjacent to every vertex of c.
func allAdjacent(adj map[int32]map[int32]bool, w int32, c []int32) bool {
	for _, x := range c {
		if !adj[w][x] {
			return false
		}
	}
	return true
}

// sortedKeys is m's keys in order.
func sortedKeys(m map[int32]bool) []int32 {
	keys := make([]int32, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
