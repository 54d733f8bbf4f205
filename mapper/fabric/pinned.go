package fabric

import "slices"

// RoutesPinned: a network found in a survey, or a list of links, whose
// routes between some hosts were chosen among their shortest paths to
// agree with the survey's probe of flows at once (Pinned), the rest as
// before.
const RoutesPinned = "shortest paths chosen by the probe of flows at once"

// Candidates is up to max routes from host a to host b, each a list of
// links in order: Route's own first, then, where the route is a guess
// among several shortest paths by hops (a network found in a survey,
// whose routing the round trips do not tell; a declared graph routed by
// shortest paths, RoutesShortest: a list of links), the others, each
// once. A network routed by its forwarding tables or by a rule has
// only its own route.
func (f *Fabric) Candidates(a, b, max int) [][]int32 {
	if a == b || max < 1 {
		return nil
	}
	out := [][]int32{f.Path(a, b)}
	if f.paths == nil {
		return out
	}
	f.paths(a, b, func(p []int32) bool {
		if !slices.ContainsFunc(out, func(q []int32) bool { return slices.Equal(p, q) }) {
			out = append(out, slices.Clone(p))
		}
		return len(out) < max
	})
	return out
}

// Guessed reports whether f's routes are a guess among several shortest
// paths (Candidates offers the others): a network found in a survey, a
// list of links routed by shortest paths.
func (f *Fabric) Guessed() bool { return f.paths != nil }

// Pinned is f with the route from host a to host b set to route(a, b)
// where it returns links (a path Candidates gave; nil: f's own route and
// spread, as before): the one way a flow goes, taken where a probe of
// flows at once told it. Routed adaptive it is f's adaptive routing
// where f has one (a found dragonfly's, routed minimally), else itself.
func (f *Fabric) Pinned(route func(a, b int) []int32) *Fabric {
	p := *f
	own, shares := f.route, f.shares
	p.route = func(a, b int, visit func(int32)) {
		if r := route(a, b); r != nil {
			for _, l := range r {
				visit(l)
			}
			return
		}
		own(a, b, visit)
	}
	p.shares = func(a, b int, visit func(int32, float64)) {
		switch r := route(a, b); {
		case r != nil:
			for _, l := range r {
				visit(l, 1)
			}
		case shares != nil:
			shares(a, b, visit)
		default:
			own(a, b, func(l int32) { visit(l, 1) })
		}
	}
	p.Routing, p.measured = RoutesPinned, nil
	p.Shape += ", some routes chosen by the probe of flows at once"
	return &p
}

// allPaths visits each shortest path by hops from vertex a to vertex b
// (its links in order, hop.step's) until visit returns false; path is
// scratch.
func (g *hopGraph) allPaths(a, b int, path []int32, visit func([]int32) bool) ([]int32, bool) {
	if a == b {
		return path, visit(path)
	}
	dist := g.table()
	here := dist[b*g.k+a]
	for _, h := range g.out[a] {
		if dist[b*g.k+int(h.to)] != here-1 {
			continue
		}
		n := len(path)
		h.step(b, func(l int32) { path = append(path, l) })
		var more bool
		if path, more = g.allPaths(int(h.to), b, path, visit); !more {
			return path, false
		}
		path = path[:n]
	}
	return path, true
}

// paths visits each shortest path between the hosts' routers, with the
// hosts' own links at its ends, until visit returns false.
func (at *attached) paths(a, b int, visit func([]int32) bool) {
	var head []int32
	ra, rb := a, b
	if at.router != nil {
		ra, rb = int(at.router[a]), int(at.router[b])
		head = append(head, at.up[a])
	}
	at.g.allPaths(ra, rb, head, func(p []int32) bool {
		if at.router != nil {
			p = append(p, at.down[b])
		}
		return visit(p)
	})
}

// paths visits each shortest path from host a to host b (the arcs
// onward, net.onward, at every vertex) until visit returns false.
func (n *net) paths(a, b int, visit func([]int32) bool) {
	d := n.toward(b)
	vb := n.g.hostV[b]
	var walk func(cur int32, path []int32) ([]int32, bool)
	walk = func(cur int32, path []int32) ([]int32, bool) {
		if cur == vb {
			return path, visit(path)
		}
		for _, h := range n.onward(d, cur, vb, nil) {
			var more bool
			if path, more = walk(h.to, append(path, h.link)); !more {
				return path, false
			}
			path = path[:len(path)-1]
		}
		return path, true
	}
	walk(n.g.hostV[a], nil)
}
