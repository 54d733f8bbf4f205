package fabric

import (
	"fmt"
	"strings"
)

// tables routes a Graph by its switches' forwarding tables (Graph.Forward).
type tables struct {
	g *Graph
	n *net
	// end[l] is the vertex link l leads to, from[l] the one it leaves
	// (-1: no arc crosses it).
	end, from []int32
}

// newTables checks, for every destination host, that the tables take a
// message from every other host's first link to it: each switch on the
// way has an entry for the host, for a link that leaves it, and the
// switches visited do not come round again. It returns the first
// problem, naming the switch and the host.
func newTables(g *Graph, n *net) (*tables, error) {
	t := &tables{g: g, n: n, end: make([]int32, len(g.Links)), from: make([]int32, len(g.Links))}
	for i := range t.end {
		t.end[i], t.from[i] = -1, -1
	}
	for _, a := range g.arcs {
		if t.end[a.link] >= 0 {
			return nil, fmt.Errorf("link %s is crossed by two arcs: forwarding tables route over links that each join two ports", g.Links[a.link].Name)
		}
		t.end[a.link], t.from[a.link] = a.to, a.from
	}
	// state[v] is b*2+1 while v is on a walk to host b, b*2+2 once v is
	// known to reach b (stamps, so that it need not be cleared).
	state := make([]int, len(g.names))
	var walk []int32
	for b := range g.hostV {
		for a, va := range g.hostV {
			if a == b || len(n.out[va]) == 0 {
				continue
			}
			var err error
			if walk, err = t.check(n.out[va][0].to, b, state, walk[:0]); err != nil {
				return nil, fmt.Errorf("forwarding tables, from host %s: %w", g.names[va], err)
			}
		}
	}
	return t, nil
}

// check follows the tables from vertex v towards host b, marking the
// switches it passes as reaching b.
func (t *tables) check(v int32, b int, state []int, walk []int32) ([]int32, error) {
	g := t.g
	vb := g.hostV[b]
	for v != vb && state[v] != b*2+2 {
		if g.hostN[v] >= 0 && len(walk) == 0 {
			return walk, fmt.Errorf("its first link leads to host %s, not to a switch", g.names[v])
		}
		if g.hostN[v] >= 0 {
			return walk, fmt.Errorf("switch %s sends traffic for host %s to host %s", g.names[walk[len(walk)-1]], g.names[vb], g.names[v])
		}
		if state[v] == b*2+1 {
			return walk, fmt.Errorf("traffic for host %s goes round a loop: %s", g.names[vb], t.loop(walk, v))
		}
		state[v] = b*2 + 1
		walk = append(walk, v)
		next, err := t.next(v, b)
		if err != nil {
			return walk, err
		}
		v = next
	}
	for _, w := range walk {
		state[w] = b*2 + 2
	}
	return walk, nil
}

// next is the vertex switch v's table sends traffic for host b to.
func (t *tables) next(v int32, b int) (int32, error) {
	g := t.g
	l := g.Forward(v, b)
	switch {
	case l == -1:
		return -1, fmt.Errorf("switch %s has no forwarding entry for host %s", g.names[v], g.names[g.hostV[b]])
	case l < 0 || int(l) >= len(t.end) || t.from[l] != v:
		return -1, fmt.Errorf("switch %s forwards traffic for host %s out of a port with no link", g.names[v], g.names[g.hostV[b]])
	}
	return t.end[l], nil
}

// loop names the switches of walk from v's first visit on, and v again.
func (t *tables) loop(walk []int32, v int32) string {
	var s []string
	on := false
	for _, w := range walk {
		on = on || w == v
		if on {
			s = append(s, t.g.names[w])
		}
	}
	return strings.Join(append(s, t.g.names[v]), " -> ")
}

// route visits the links the tables send a message from host a to host
// b over: host a's first link, then each switch's entry for b
// (newTables checked that they reach it).
func (t *tables) route(a, b int, visit func(int32)) {
	g := t.g
	first := t.n.out[g.hostV[a]][0]
	visit(first.link)
	for v, vb := first.to, g.hostV[b]; v != vb; {
		l := g.Forward(v, b)
		visit(l)
		v = t.end[l]
	}
}
