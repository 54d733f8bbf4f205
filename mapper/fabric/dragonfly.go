package fabric

import (
	"fmt"
	"slices"
)

// DragonflyShape is a dragonfly's size: groups of chassis of routers
// (blades) of nodes, and how many parallel links join two groups (blue,
// the global links), two chassis of a group (black) and two routers of
// a chassis (green). SimGrid's topo_parameters spell it
// "groups,blue;chassis,black;routers,green;nodes".
type DragonflyShape struct {
	Groups, Chassis, Routers, Nodes int
	Blue, Black, Green              int
}

// coords are a node position's group, chassis, router and node.
func (s DragonflyShape) coords(p int) (g, c, r, n int) {
	n = p % s.Nodes
	p /= s.Nodes
	r = p % s.Routers
	p /= s.Routers
	c = p % s.Chassis
	return p / s.Chassis, c, r, n
}

// router numbers the router of group g, chassis c, blade r.
func (s DragonflyShape) router(g, c, r int) int { return (g*s.Chassis+c)*s.Routers + r }

// dragonfly holds a dragonfly's link ids for routing.
type dragonfly struct {
	s DragonflyShape
	// local[2*p] from node p to its router, local[2*p+1] back.
	local []int32
	// green[(router*Routers+k)] from a router to blade k of its
	// chassis; black[router*Chassis+k] to chassis k's router of the same
	// blade; blue[router] to the group it is joined to (-1: none).
	green, black, blue []int32
}

// NewDragonfly is a dragonfly of shape s whose node at position p (node
// fastest, then router, chassis, group) is hosts[p], every link bw
// bytes/s (parallel links add up) and lat seconds, routed minimally as
// SimGrid's DragonflyZone routes: up the node's local link; to another
// group through the router of its chassis whose blade number is the
// target group (green), chassis 0 of the group (black), the one global
// link between the groups (blue); then within the target group to the
// target's blade (green) and chassis (black), and down its local link.
// The global link to group g is on blade g of chassis 0, so a dragonfly
// needs no more groups than routers in a chassis.
func NewDragonfly(hosts []string, s DragonflyShape, bw, lat float64, shared bool) (*Fabric, error) {
	for _, v := range []int{s.Groups, s.Chassis, s.Routers, s.Nodes, s.Blue, s.Black, s.Green} {
		if v < 1 {
			return nil, fmt.Errorf("dragonfly %+v: every count must be at least 1", s)
		}
	}
	total := s.Groups * s.Chassis * s.Routers * s.Nodes
	if total != len(hosts) {
		return nil, fmt.Errorf("a dragonfly of %d groups x %d chassis x %d routers x %d nodes has %d nodes, the description names %d",
			s.Groups, s.Chassis, s.Routers, s.Nodes, total, len(hosts))
	}
	if s.Groups > s.Routers {
		return nil, fmt.Errorf("dragonfly of %d groups: the global link to group g leaves from blade g of chassis 0, "+
			"and a chassis has %d routers (SimGrid's rule); describe at most %d groups", s.Groups, s.Routers, s.Routers)
	}
	d := emptyDragonfly(s)
	ls := linkSet{shared: shared}
	for p := range hosts {
		d.local[2*p], d.local[2*p+1] = ls.duplex(fmt.Sprintf("local_%s", hosts[p]), "local", bw, lat)
	}
	for g := 0; g < s.Groups; g++ {
		for c := 0; c < s.Chassis; c++ {
			for j := 0; j < s.Routers; j++ {
				for k := j + 1; k < s.Routers; k++ {
					a, b := s.router(g, c, j), s.router(g, c, k)
					d.green[a*s.Routers+k], d.green[b*s.Routers+j] = ls.duplex(fmt.Sprintf("green_g%d_c%d_r%d_r%d", g, c, j, k), "green", bw*float64(s.Green), lat)
				}
			}
			for k := c + 1; k < s.Chassis; k++ {
				for r := 0; r < s.Routers; r++ {
					a, b := s.router(g, c, r), s.router(g, k, r)
					d.black[a*s.Chassis+k], d.black[b*s.Chassis+c] = ls.duplex(fmt.Sprintf("black_g%d_c%d_c%d_r%d", g, c, k, r), "black", bw*float64(s.Black), lat)
				}
			}
		}
	}
	per := s.Chassis * s.Routers
	for i := 0; i < s.Groups; i++ {
		for j := i + 1; j < s.Groups; j++ {
			d.blue[i*per+j], d.blue[j*per+i] = ls.duplex(fmt.Sprintf("blue_g%d_g%d", i, j), "blue", bw*float64(s.Blue), lat)
		}
	}
	f := &Fabric{Kind: KindDragonfly, Routing: RuleDragonfly, Hosts: hosts, Links: ls.links,
		Shape: fmt.Sprintf("dragonfly of %d groups x %d chassis x %d routers x %d nodes", s.Groups, s.Chassis, s.Routers, s.Nodes)}
	f.route = d.route
	router, chassis, group := make([]int, total), make([]int, total), make([]int, total)
	for p := range hosts {
		g, c, r, _ := s.coords(p)
		router[p], chassis[p], group[p] = s.router(g, c, r), g*s.Chassis+c, g
	}
	// A level whose links do not exist (one chassis a group: no black
	// link) groups hosts as the level above does: left out.
	classes := f.Classes()
	for _, lv := range []GroupLevel{
		{Name: "router", Class: "green", Group: router},
		{Name: "chassis", Class: "black", Group: chassis},
		{Name: "group", Class: "blue", Group: group},
	} {
		if slices.Contains(classes, lv.Class) {
			f.Levels = append(f.Levels, lv)
		}
	}
	at := attached{g: d.routerGraph(), router: make([]int32, total), up: make([]int32, total), down: make([]int32, total)}
	for p := range hosts {
		at.router[p], at.up[p], at.down[p] = int32(router[p]), d.local[2*p], d.local[2*p+1]
	}
	var err error
	f.spread, err = adaptive(f, at)
	return f, err
}

// routerGraph is the dragonfly's routers and the links between them:
// green to the other blades of a chassis, black to the same blade of
// the group's other chassis, blue from blade j of chassis 0 of group g
// to blade g of chassis 0 of group j.
func (d *dragonfly) routerGraph() *hopGraph {
	s := d.s
	nr, per := s.Groups*s.Chassis*s.Routers, s.Chassis*s.Routers
	g := newHopGraph(nr)
	for a := 0; a < nr; a++ {
		grp, c, r := a/per, a/s.Routers%s.Chassis, a%s.Routers
		for k := 0; k < s.Routers; k++ {
			if k != r {
				g.out[a] = append(g.out[a], hop{int32(s.router(grp, c, k)), d.green[a*s.Routers+k], -1})
			}
		}
		for k := 0; k < s.Chassis; k++ {
			if k != c {
				g.out[a] = append(g.out[a], hop{int32(s.router(grp, k, r)), d.black[a*s.Chassis+k], -1})
			}
		}
		if l := d.blue[a]; l >= 0 {
			g.out[a] = append(g.out[a], hop{int32(s.router(a%per, 0, grp)), l, -1})
		}
	}
	return g
}

// route is SimGrid's minimal dragonfly route (DragonflyZone's
// get_local_route), quirks included: after a green hop inside the
// target group the route continues from that blade's router of chassis
// 0.
func (d *dragonfly) route(a, b int, visit func(int32)) {
	s := d.s
	mg, mc, mr, _ := s.coords(a)
	tg, tc, tr, _ := s.coords(b)
	visit(d.local[2*a])
	cg, cc, cr := mg, mc, mr
	if cg != tg || cc != tc || cr != tr {
		if tg != cg {
			if cr != tg {
				visit(d.green[s.router(cg, cc, cr)*s.Routers+tg])
				cr = tg
			}
			if cc != 0 {
				visit(d.black[s.router(cg, cc, cr)*s.Chassis])
				cc = 0
			}
			visit(d.blue[s.router(cg, cc, cr)])
			cg, cc, cr = tg, 0, mg
		}
		if tr != cr {
			visit(d.green[s.router(cg, cc, cr)*s.Routers+tr])
			cc, cr = 0, tr
		}
		if tc != cc {
			visit(d.black[s.router(cg, cc, cr)*s.Chassis+tc])
		}
	}
	visit(d.local[2*b+1])
}
