package fabric

import (
	"fmt"
	"sync"
)

// net is a Graph's arcs by vertex and its shortest paths, found back
// from each destination host as it is first routed to and kept while
// they fit in maxPathEntries.
type net struct {
	g        *Graph
	out, in  [][]hop   // by vertex: the arcs out (to, link) and in (from, link)
	transit  []bool    // a message may pass through the vertex
	latency  []float64 // by link
	mu       sync.Mutex
	dests    map[int]*dest // by destination host number
	spreader spreader
}

// dest is the shortest paths to one host: each vertex's hops to it
// (Unreached: none) and the least latency of its shortest paths.
type dest struct {
	dist []uint16
	lat  []float64
}

// maxPathEntries bounds the vertices' distances kept (destinations x
// vertices): past it the kept ones are dropped and found again as
// needed.
const maxPathEntries = 1 << 24

// newNet indexes g's arcs.
func newNet(g *Graph) *net {
	nv := len(g.names)
	n := &net{g: g, out: make([][]hop, nv), in: make([][]hop, nv), transit: make([]bool, nv), dests: map[int]*dest{}, spreader: newSpreader(nv)}
	for _, a := range g.arcs {
		n.out[a.from] = append(n.out[a.from], hop{a.to, a.link, -1})
		n.in[a.to] = append(n.in[a.to], hop{a.from, a.link, -1})
	}
	n.latency = make([]float64, len(g.Links))
	for l, link := range g.Links {
		n.latency[l] = link.Latency
	}
	switches := len(g.hostV) < nv
	for v := range n.transit {
		n.transit[v] = g.hostN[v] < 0 || g.HostsForward || !switches
	}
	return n
}

// firstHop is the vertex host vertex v's first link leads to (v itself
// where it has none).
func (n *net) firstHop(v int32) int32 {
	if len(n.out[v]) == 0 {
		return v
	}
	return n.out[v][0].to
}

// connected returns an error naming the hosts a message cannot reach
// from, or to, the first switch (the first vertex where the graph has
// no switch) through vertices that forward.
func (n *net) connected() error {
	root := int32(-1)
	for v := range n.transit {
		if n.g.hostN[v] < 0 {
			root = int32(v)
			break
		}
	}
	if root < 0 {
		root = n.g.hostV[0]
	}
	for _, way := range []struct {
		arcs [][]hop
		what string
	}{{n.out, "from"}, {n.in, "to"}} {
		seen := n.reach(root, way.arcs)
		var lost []int32
		for _, v := range n.g.hostV {
			if !seen[v] {
				lost = append(lost, v)
			}
		}
		if len(lost) > 0 {
			return fmt.Errorf("the links do not join %d host(s) (%s) %s %s, and through it the rest", len(lost), vertexList(n.g, lost, 5), way.what, n.g.names[root])
		}
	}
	return nil
}

// reach marks the vertices a breadth-first walk from root over arcs
// reaches, going on only from vertices that forward.
func (n *net) reach(root int32, arcs [][]hop) []bool {
	seen := make([]bool, len(arcs))
	seen[root] = true
	queue := []int32{root}
	for i := 0; i < len(queue); i++ {
		u := queue[i]
		if u != root && !n.transit[u] {
			continue
		}
		for _, a := range arcs[u] {
			if !seen[a.to] {
				seen[a.to] = true
				queue = append(queue, a.to)
			}
		}
	}
	return seen
}

// heights is each switch's hops above the leaf switches (0: a leaf),
// by a breadth-first walk out from the leaves over links between
// switches either way. A leaf is a switch with hosts on it, but where
// some switches have none (a tree's spines), a switch with hosts whose
// every neighbour has hosts is a spine that serves a few hosts of its
// own (a real fabric's management nodes), not a leaf.
func (n *net) heights() []uint16 {
	g := n.g
	hasHosts := make([]bool, len(n.out))
	hostless := false
	for v := range n.out {
		for _, a := range n.out[v] {
			hasHosts[v] = hasHosts[v] || g.hostN[a.to] >= 0
		}
		hostless = hostless || g.hostN[v] < 0 && !hasHosts[v]
	}
	d := make([]uint16, len(n.out))
	var queue []int32
	for v := range d {
		d[v] = Unreached
		if g.hostN[v] >= 0 || !hasHosts[v] {
			continue
		}
		leaf := !hostless
		for _, a := range n.out[v] {
			leaf = leaf || g.hostN[a.to] < 0 && !hasHosts[a.to]
		}
		if leaf {
			d[v] = 0
			queue = append(queue, int32(v))
		}
	}
	for i := 0; i < len(queue); i++ {
		u := queue[i]
		for _, arcs := range [][]hop{n.out[u], n.in[u]} {
			for _, a := range arcs {
				if g.hostN[a.to] < 0 && d[a.to] == Unreached {
					d[a.to] = d[u] + 1
					queue = append(queue, a.to)
				}
			}
		}
	}
	return d
}

// toward is the shortest paths to host b: a breadth-first walk back
// from it over the arcs in, going on only from vertices that forward,
// each vertex's least latency found on the way (every vertex a hop
// nearer is final before any a hop farther is reached from it).
func (n *net) toward(b int) *dest {
	n.mu.Lock()
	defer n.mu.Unlock()
	if d := n.dests[b]; d != nil {
		return d
	}
	nv := len(n.out)
	if (len(n.dests)+1)*nv > maxPathEntries {
		n.dests = map[int]*dest{}
	}
	d := &dest{dist: make([]uint16, nv), lat: make([]float64, nv)}
	for i := range d.dist {
		d.dist[i] = Unreached
	}
	vb := n.g.hostV[b]
	d.dist[vb] = 0
	queue := []int32{vb}
	for i := 0; i < len(queue); i++ {
		u := queue[i]
		if u != vb && !n.transit[u] {
			continue
		}
		for _, a := range n.in[u] {
			w, lat := a.to, d.lat[u]+n.latency[a.link]
			switch {
			case d.dist[w] == Unreached:
				d.dist[w], d.lat[w] = d.dist[u]+1, lat
				queue = append(queue, w)
			case d.dist[w] == d.dist[u]+1 && lat < d.lat[w]:
				d.lat[w] = lat
			}
		}
	}
	n.dests[b] = d
	return d
}

// onward appends to out the arcs out of cur one hop nearer host vertex
// vb on d's shortest paths (into vertices that forward, or vb).
func (n *net) onward(d *dest, cur, vb int32, out []hop) []hop {
	here := d.dist[cur]
	for _, a := range n.out[cur] {
		if d.dist[a.to] == here-1 && (n.transit[a.to] || a.to == vb) {
			out = append(out, a)
		}
	}
	return out
}

// path visits one shortest path's links from host a to host b: from
// each vertex, among the arcs onward the one of least latency to b, of
// several as short the (b mod their number)-th, as d-mod-k routing
// spreads destinations over parallel links.
func (n *net) path(a, b int, visit func(int32)) {
	d := n.toward(b)
	vb := n.g.hostV[b]
	var next []hop
	for cur := n.g.hostV[a]; cur != vb; {
		next = n.onward(d, cur, vb, next[:0])
		best := -1.0
		k := 0
		for _, h := range next {
			switch lat := n.latency[h.link] + d.lat[h.to]; {
			case best < 0 || lat < best*(1-1e-12):
				best, next[0], k = lat, h, 1
			case lat <= best*(1+1e-12):
				next[k] = h
				k++
			}
		}
		if k == 0 { // connected leaves none such
			panic(fmt.Sprintf("fabric: no shortest path from %s to %s", n.g.names[cur], n.g.names[vb]))
		}
		h := next[b%k]
		visit(h.link)
		cur = h.to
	}
}

// spread visits the links of every shortest path from host a to host b
// with the share of a message that crosses each: from each vertex,
// evenly over its arcs onward (spreader.pass), as adaptive routing
// spreads it.
func (n *net) spread(a, b int, visit func(int32, float64)) {
	d := n.toward(b)
	vb := n.g.hostV[b]
	n.spreader.mu.Lock()
	defer n.spreader.mu.Unlock()
	n.spreader.pass(int(n.g.hostV[a]), int(vb), func(cur int, out []hop) []hop {
		return n.onward(d, int32(cur), vb, out)
	}, visit)
}
