package fabric

import (
	"fmt"
	"slices"
	"strings"
)

// readZone is the network of a platform's one zone of hosts, routers
// and links, routed as its routing attribute says: Full, every host
// pair's route listed (its way back too, unless symmetrical="NO");
// Floyd, Dijkstra or DijkstraCache, shortest paths by links crossed
// over the routes listed as hops between hosts and routers (SimGrid's
// own pick among equally short paths may differ from latmap's, Graph's
// least latency then destination; a hop of several links is crossed
// in reverse order under Dijkstra, as SimGrid's DijkstraZone builds
// it); Cluster, each host's host_link up,
// the backbone if any, the destination's host_link down; None, no
// network at all.
func (p *simPlatform) readZone() (*Fabric, error) {
	switch {
	case p.nested || len(p.zones) != 1:
		return nil, fmt.Errorf("SimGrid platform of %d zones: latmap reads one zone (no zone inside another, no zoneRoute)", len(p.zones))
	case p.unread != "":
		return nil, fmt.Errorf("SimGrid platform: <%s> is not read (one zone of hosts, routers, links and routes)", p.unread)
	case len(p.hosts) == 0:
		return nil, fmt.Errorf("SimGrid zone with no host")
	}
	for _, r := range p.routes {
		if _, err := simBool(r.Symmetrical); err != nil && r.Symmetrical != "" {
			return nil, fmt.Errorf("route %s -> %s: symmetrical=%q: want YES or NO", r.Src, r.Dst, r.Symmetrical)
		}
	}
	s, err := newSimLinks(append(append([]simLink(nil), p.links...), p.backbones...))
	if err != nil {
		return nil, err
	}
	routing := p.zones[0]
	switch strings.ToLower(routing) {
	case "full":
		return p.full(s)
	case "floyd", "dijkstra", "dijkstracache":
		return p.shortest(s, routing)
	case "cluster":
		return p.cluster(s)
	case "none":
		f := &Fabric{
			Kind: KindGraph, Routing: "none (SimGrid's routing None: no network)", Hosts: p.hosts,
			Shape: fmt.Sprintf("%d hosts and no network (SimGrid routing None)", len(p.hosts)),
		}
		f.route = func(int, int, func(int32)) {}
		return f, f.Check()
	}
	return nil, fmt.Errorf("SimGrid zone routing %q is not read (Full, Floyd, Dijkstra, DijkstraCache, Cluster or None)", routing)
}

// full routes by the routes the zone lists between its hosts.
func (p *simPlatform) full(s *simLinks) (*Fabric, error) {
	f := &Fabric{Kind: KindGraph, Routing: RoutesDeclared, Hosts: p.hosts, Links: s.links}
	if err := f.Check(); err != nil {
		return nil, err
	}
	idx := f.HostIndex()
	n := len(p.hosts)
	routes := make([][]int32, n*n)
	set := func(a, b int, links []int32, r simRoute) error {
		if routes[a*n+b] != nil {
			return fmt.Errorf("a second route from %s to %s (route %s -> %s; routes are symmetrical unless symmetrical=\"NO\")", p.hosts[a], p.hosts[b], r.Src, r.Dst)
		}
		routes[a*n+b] = links
		return nil
	}
	for _, r := range p.routes {
		a, okA := idx[r.Src]
		b, okB := idx[r.Dst]
		if !okA || !okB || a == b {
			continue // a route to a router or to itself: no host pair's
		}
		for _, back := range []bool{false, true} {
			if back && !r.symmetrical() {
				break
			}
			links, err := s.path(r, back)
			if err == nil {
				err = set(map[bool]int{false: a, true: b}[back], map[bool]int{false: b, true: a}[back], links, r)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			if a != b && routes[a*n+b] == nil {
				return nil, fmt.Errorf("SimGrid zone routed Full lists no route from %s to %s", p.hosts[a], p.hosts[b])
			}
		}
	}
	f.route = func(a, b int, visit func(int32)) {
		for _, l := range routes[a*n+b] {
			visit(l)
		}
	}
	f.Shape = fmt.Sprintf("SimGrid zone of %d hosts and %d links, routed Full (every route listed)", n, len(s.links))
	return f, nil
}

// shortest routes by shortest paths over the zone's routes, each a hop
// from a host or router to another crossing its links in order (a
// route of several links passes vertices of its own between them).
func (p *simPlatform) shortest(s *simLinks, routing string) (*Fabric, error) {
	g := &Graph{Links: s.links, HostsForward: true}
	for _, h := range p.hosts {
		g.Host(h)
	}
	for _, r := range p.routers {
		g.Switch(r)
	}
	for _, r := range p.routes {
		for _, back := range []bool{false, true} {
			if back && !r.symmetrical() {
				break
			}
			links, err := s.path(r, back)
			if err != nil {
				return nil, err
			}
			if !strings.EqualFold(routing, "floyd") {
				slices.Reverse(links) // DijkstraZone prepends each link of a hop
			}
			if err := g.hops(r, back, links); err != nil {
				return nil, err
			}
		}
	}
	g.Shape = fmt.Sprintf("SimGrid zone of %d hosts, %d routers and %d links, routed %s", len(p.hosts), len(p.routers), len(s.links), routing)
	return NewGraph(g)
}

// hops adds route r's arcs (back: from its dst to its src) over links.
func (g *Graph) hops(r simRoute, back bool, links []int32) error {
	src, dst := r.Src, r.Dst
	if back {
		src, dst = dst, src
	}
	a, okA := g.Find(src)
	b, okB := g.Find(dst)
	switch {
	case !okA || !okB:
		return fmt.Errorf("route %s -> %s: no host or router named %s", r.Src, r.Dst, map[bool]string{true: dst, false: src}[okA])
	case len(links) == 0:
		return fmt.Errorf("route %s -> %s crosses no link", r.Src, r.Dst)
	}
	from := a
	for i, l := range links {
		to := b
		if i < len(links)-1 {
			to = g.Switch(fmt.Sprintf("%s>%s#%d", src, dst, i+1))
		}
		g.Arc(from, to, l)
		from = to
	}
	return nil
}

// cluster routes a Cluster zone: a host's link up, the backbone, the
// destination's link down.
func (p *simPlatform) cluster(s *simLinks) (*Fabric, error) {
	if len(p.backbones) > 1 {
		return nil, fmt.Errorf("SimGrid Cluster zone with %d backbones", len(p.backbones))
	}
	g := &Graph{Links: s.links}
	in := g.Switch("cluster")
	out := in
	if len(p.backbones) == 1 {
		out = g.Switch("cluster-backbone")
		g.Arc(in, out, s.id[p.backbones[0].ID][0])
	}
	links := map[string]simHostLink{}
	for _, hl := range p.hostLinks {
		links[hl.ID] = hl
	}
	for _, h := range p.hosts {
		hl, ok := links[h]
		up, okU := s.id[hl.Up]
		down, okD := s.id[hl.Down]
		if !ok || !okU || !okD {
			return nil, fmt.Errorf("SimGrid Cluster zone: host %s has no host_link with links up and down", h)
		}
		v := g.Host(h)
		g.Arc(v, in, up[0])
		g.Arc(out, v, down[1])
	}
	g.Shape = fmt.Sprintf("SimGrid Cluster zone of %d hosts", len(p.hosts))
	return NewGraph(g)
}
