package fabric

import (
	"fmt"
	"slices"
)

// LongerThanShortest reports whether some route of shape s between two
// routers crosses more links than the shortest path between them.
func (s DragonflyShape) LongerThanShortest() bool {
	d := emptyDragonfly(s)
	g := d.routerGraph()
	if g.hops() != nil {
		return false
	}
	dist := g.table()
	for a := 0; a < g.k; a++ {
		for b := 0; b < g.k; b++ {
			if a == b {
				continue
			}
			n := -2 // the nodes' own links
			d.route(a*s.Nodes, b*s.Nodes, func(int32) { n++ })
			if n > int(dist[b*g.k+a]) {
				return true
			}
		}
	}
	return false
}

// emptyDragonfly is shape s's routing with every link id 0 (blue: -1
// where a router has no global link): what walks its routes' lengths
// needs, with no link made, and what NewDragonfly gives its links.
func emptyDragonfly(s DragonflyShape) *dragonfly {
	nr, per := s.Groups*s.Chassis*s.Routers, s.Chassis*s.Routers
	d := &dragonfly{s: s, local: make([]int32, 2*nr*s.Nodes), green: make([]int32, nr*s.Routers), black: make([]int32, nr*s.Chassis), blue: slices.Repeat([]int32{-1}, nr)}
	for i := 0; i < s.Groups; i++ {
		for j := 0; j < s.Groups; j++ {
			if i != j {
				d.blue[i*per+j] = 0
			}
		}
	}
	return d
}

// String is the shape as SimGrid's topo_parameters spell it.
func (s DragonflyShape) String() string {
	return fmt.Sprintf("%d,%d;%d,%d;%d,%d;%d", s.Groups, s.Blue, s.Chassis, s.Black, s.Routers, s.Green, s.Nodes)
}

// DragonflyShapes are the dragonflies of k nodes, one link of each
// kind, of two groups or more and no more groups than a chassis has
// routers (SimGrid's rule: NewDragonfly).
func DragonflyShapes(k int) []DragonflyShape {
	var out []DragonflyShape
	for g := 2; g <= k; g++ {
		if k%g != 0 {
			continue
		}
		for c := 1; c <= k/g; c++ {
			if k/g%c != 0 {
				continue
			}
			for r := g; r <= k/g/c; r++ {
				if k/g/c%r == 0 {
					out = append(out, DragonflyShape{Groups: g, Chassis: c, Routers: r, Nodes: k / g / c / r, Blue: 1, Black: 1, Green: 1})
				}
			}
		}
	}
	return out
}

// RouteLengths counts the links of shape s's route from node a to node
// b, walking the route NewDragonfly's fabric takes (the link ids do not
// matter, so none are made).
func (s DragonflyShape) RouteLengths() func(a, b int) int {
	d := emptyDragonfly(s)
	return func(a, b int) int {
		n := 0
		d.route(a, b, func(int32) { n++ })
		return n
	}
}
