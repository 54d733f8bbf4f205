package fabric

import (
	"fmt"
	"strings"
)

// KindGraph is a network given as it is wired: hosts, the switches or
// routers between them and the links that join them, routed by the
// switches' forwarding tables or by shortest paths (NewGraph).
const KindGraph = "graph"

// Where a fabric's routes come from (Fabric.Routing), beside the rules
// of the generated kinds ("rule: ...").
const (
	// RoutesFromTables: every switch forwards as its forwarding table
	// says (InfiniBand's subnet manager's, read from ibroute or
	// dump_lfts.sh).
	RoutesFromTables = "forwarding tables"
	// RoutesShortest: one shortest path a pair (fewest hops, then least
	// latency, then the destination's number modulo the ties, as d-mod-k
	// spreads destinations over parallel ports).
	RoutesShortest = "shortest paths"
	// RoutesSpread: every message spread evenly, switch by switch, over
	// the links onward on its shortest paths (adaptive routing).
	RoutesSpread = "shortest paths, spread evenly"
	// RoutesDeclared: each pair's route is listed in the file (SimGrid's
	// Full routing).
	RoutesDeclared = "routes declared in the file"
)

// Graph is a network as it is wired, for NewGraph: vertices (hosts, and
// the switches or routers between them) and arcs, each arc from one
// vertex to another over one of Links. Vertices are numbered in the
// order they are added, hosts and switches alike; hosts are also
// numbered among themselves, in the same order (the fabric's Hosts).
type Graph struct {
	// Links are the fabric's links (Connect adds two, one each way).
	Links []Link
	// Forward, where set, is the switches' forwarding tables: the link
	// switch vertex sw sends traffic for host number h out of, -1 where
	// its table has no entry, -2 where the entry's port has no link.
	// Then a message takes exactly the links the tables name; else
	// shortest paths.
	Forward func(sw int32, h int) int32
	// HostsForward lets messages pass through hosts (SimGrid's routed
	// zones, direct networks whose nodes route); without it only
	// switches forward, unless the graph has no switch at all.
	HostsForward bool
	// Adaptive: the fabric's own routing spreads every message over its
	// shortest paths (an Aries network), not only when Routed so.
	Adaptive bool
	// Levels, where set, are the hosts' groups (host-indexed); nil: the
	// leaf switches' hosts where some share one (graphLevels).
	Levels []GroupLevel
	// Shape says what the network is in words ("InfiniBand fabric of
	// ..."); NewGraph adds how it is routed.
	Shape string
	names []string
	hostN []int32 // vertex -> host number, -1 for a switch
	hostV []int32 // host number -> vertex
	index map[string]int32
	arcs  []arc
	err   error
}

// Host adds a host named name, or finds the vertex already named so (an
// error if it is a switch).
func (g *Graph) Host(name string) int32 { return g.vertex(name, true) }

// Switch adds a switch or router named name, or finds the vertex
// already named so (an error if it is a host).
func (g *Graph) Switch(name string) int32 { return g.vertex(name, false) }

// Find is the vertex named name, and whether there is one.
func (g *Graph) Find(name string) (int32, bool) {
	v, ok := g.index[name]
	return v, ok
}

// Name is vertex v's name.
func (g *Graph) Name(v int32) string { return g.names[v] }

// IsHost says whether vertex v is a host.
func (g *Graph) IsHost(v int32) bool { return g.hostN[v] >= 0 }

// HostCount is how many hosts the graph has.
func (g *Graph) HostCount() int { return len(g.hostV) }

// arc is one way a message may go: from a vertex to another over a
// link.
type arc struct{ from, to, link int32 }

func (g *Graph) vertex(name string, host bool) int32 {
	if g.index == nil {
		g.index = map[string]int32{}
	}
	if v, ok := g.index[name]; ok {
		if (g.hostN[v] >= 0) != host && g.err == nil {
			g.err = fmt.Errorf("%s is named both as a host and as a switch", name)
		}
		return v
	}
	v := int32(len(g.names))
	g.names, g.index[name] = append(g.names, name), v
	if host {
		g.hostN = append(g.hostN, int32(len(g.hostV)))
		g.hostV = append(g.hostV, v)
	} else {
		g.hostN = append(g.hostN, -1)
	}
	return v
}

// AddLink adds a link and returns its number, for arcs to cross.
func (g *Graph) AddLink(l Link) int32 {
	g.Links = append(g.Links, l)
	return int32(len(g.Links) - 1)
}

// Arc adds an arc from vertex a to vertex b over link l: a message at a
// may go on to b, crossing l.
func (g *Graph) Arc(a, b, l int32) {
	if (a < 0 || b < 0 || int(a) >= len(g.names) || int(b) >= len(g.names) || l < 0 || int(l) >= len(g.Links) || a == b) && g.err == nil {
		g.err = fmt.Errorf("arc from vertex %d to %d over link %d: no such vertex or link, or a loop", a, b, l)
		return
	}
	g.arcs = append(g.arcs, arc{from: a, to: b, link: l})
}

// Connect joins vertices a and b by a full-duplex link of bw bytes/s
// (0: not declared) and lat seconds: two links, name_UP from a to b and
// name_DOWN back, of class class ("": NewGraph names it, autoClasses).
// It returns the two links' numbers.
func (g *Graph) Connect(a, b int32, name, class string, bw, lat float64) (ab, ba int32) {
	ab = g.AddLink(Link{Name: name + "_UP", Class: class, Bandwidth: bw, Latency: lat})
	ba = g.AddLink(Link{Name: name + "_DOWN", Class: class, Bandwidth: bw, Latency: lat})
	g.Arc(a, b, ab)
	g.Arc(b, a, ba)
	return ab, ba
}

// NewGraph is the network g describes. Routed by g.Forward where set
// (every message takes exactly the links the tables name; an error
// names the switch and the host where a table has no entry or sends
// traffic round a loop), else by shortest paths (RoutesShortest; spread
// over them where g.Adaptive); Routed's RoutingAdaptive spreads every
// message over its shortest paths (RoutesSpread). Links without a class
// are named by where they stand (autoClasses). Shortest paths are found
// by a breadth-first search back from each destination as it is first
// routed to, so a fabric of many thousand hosts costs only the
// destinations its users route to.
func NewGraph(g *Graph) (*Fabric, error) {
	if g.err != nil {
		return nil, g.err
	}
	if len(g.hostV) == 0 {
		return nil, fmt.Errorf("the network names no host")
	}
	for _, lv := range g.Levels {
		if len(lv.Group) != len(g.hostV) {
			return nil, fmt.Errorf("level %s groups %d hosts, the network has %d", lv.Name, len(lv.Group), len(g.hostV))
		}
	}
	n := newNet(g)
	if err := n.connected(); err != nil {
		return nil, err
	}
	autoClasses(g, n)
	hosts := make([]string, len(g.hostV))
	for h, v := range g.hostV {
		hosts[h] = g.names[v]
	}
	f := &Fabric{Kind: KindGraph, Hosts: hosts, Links: g.Links, Levels: g.Levels}
	if f.Levels == nil {
		f.Levels = graphLevels(g, n)
	}
	shape := g.Shape
	if shape == "" {
		shape = fmt.Sprintf("network of %d hosts, %d switches and %d links", len(g.hostV), len(g.names)-len(g.hostV), len(g.Links))
	}
	f.route = n.path
	spread := *f
	spread.shares, spread.Routing = n.spread, RoutesSpread
	spread.Shape = shape + ", routed adaptive (every message spread evenly over its shortest paths)"
	switch {
	case g.Forward != nil:
		t, err := newTables(g, n)
		if err != nil {
			return nil, err
		}
		f.route, f.Routing, f.Shape = t.route, RoutesFromTables, shape+", routed by its forwarding tables"
		f.spread = &spread
	case g.Adaptive:
		f.shares, f.Routing, f.Shape = n.spread, RoutesSpread, spread.Shape
	default:
		f.Routing, f.Shape = RoutesShortest, shape+", one shortest path a pair"
		f.spread, f.paths = &spread, n.paths
	}
	return f, f.Check()
}

// autoClasses names the links g left without a class: "node" where a
// host stands at either end; between switches "up-K" from a switch K-1
// hops above the leaf switches to one K hops above (a tree's levels, as
// NewTree names them), "peer-K" between two switches K hops above them
// (a HyperX's, a dragonfly's: "peer-0").
func autoClasses(g *Graph, n *net) {
	var height []uint16
	for _, a := range g.arcs {
		l := &g.Links[a.link]
		if l.Class != "" {
			continue
		}
		if g.hostN[a.from] >= 0 || g.hostN[a.to] >= 0 {
			l.Class = "node"
			continue
		}
		if height == nil {
			height = n.heights()
		}
		hf, ht := height[a.from], height[a.to]
		switch {
		case hf == Unreached || ht == Unreached:
			l.Class = "switch" // no leaf switch below it
		case hf == ht:
			l.Class = fmt.Sprintf("peer-%d", hf)
		default:
			l.Class = fmt.Sprintf("up-%d", max(hf, ht))
		}
	}
}

// graphLevels groups the hosts by the switch their first link reaches
// (a leaf switch, a router): one level, whose class is the most common
// class of the links those switches send to other switches; none where
// no two hosts share a switch or all share one.
func graphLevels(g *Graph, n *net) []GroupLevel {
	group := make([]int, len(g.hostV))
	ids := map[int32]int{}
	shared := false
	classes := map[string]int{}
	for h, v := range g.hostV {
		leaf := n.firstHop(v)
		if g.hostN[leaf] >= 0 {
			return nil // a direct network: no switch
		}
		id, seen := ids[leaf]
		if !seen {
			id = len(ids)
			ids[leaf] = id
			for _, a := range n.out[leaf] {
				if g.hostN[a.to] < 0 {
					classes[g.Links[a.link].Class]++
				}
			}
		}
		shared = shared || seen
		group[h] = id
	}
	if !shared || len(ids) < 2 || len(classes) == 0 {
		return nil
	}
	best := ""
	for c, k := range classes {
		if best == "" || k > classes[best] || k == classes[best] && c < best {
			best = c
		}
	}
	return []GroupLevel{{Name: "leaf switch", Class: best, Group: group}}
}

// vertexList names up to max of vertices, then "...".
func vertexList(g *Graph, vs []int32, max int) string {
	var s []string
	for i, v := range vs {
		if i == max {
			s = append(s, "...")
			break
		}
		s = append(s, g.names[v])
	}
	return strings.Join(s, ", ")
}
