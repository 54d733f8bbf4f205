package fabric

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Aries link rates, each way, per tile (a link of 3 lanes): a green link
// joins two routers of a chassis over one tile, a black link two
// routers of a group's chassis over three, a blue (optical) link two
// groups; parallel tiles between two routers add up.
const (
	AriesGreen = 5.25e9
	AriesBlack = 5.25e9
	AriesBlue  = 4.7e9
)

// A Cray XC wiring list, one router tile (port) a line, as
// rtr --interconnect prints it:
//
//	c0-0c0s0a0l00(0:0:0) green -> c0-0c0s6a0l10(0:0:6)
//	c0-0c0s0a0l01(0:0:0) blue -> unused
//	c0-0c0s0a0l50(0:0:0) ptile -> processor
//
// A tile is its router's cname (cabinet cX-Y, chassis cC, blade sS,
// Aries aA) and lRC; the parentheses hold the router's group, chassis
// and blade. The nodes of blade sS (cX-YcCsSnN) hang off its router.
var (
	crayTile  = `(c\d+-\d+c\d+s\d+)(a\d+)l(\d)(\d)(?:\((\d+):(\d+):(\d+)\))?`
	crayLine  = regexp.MustCompile(`^` + crayTile + `\s+(\S+)\s+->\s+(\S+)\s*$`)
	crayPeer  = regexp.MustCompile(`^` + crayTile + `$`)
	craySniff = regexp.MustCompile(`(?m)^c\d+-\d+c\d+s\d+a\d+l\d\d\S*\s+\S+\s+->\s`)
)

// isCray says whether b is a Cray wiring list.
func isCray(b []byte) bool { return craySniff.Match(b) }

// crayRouter is one Aries router of a wiring list.
type crayRouter struct {
	name, blade string // c0-0c0s0a0, c0-0c0s0
	group       int    // -1: not given
	nodes       []int  // node numbers on its blade (its processor tiles')
}

// crayWiring is a wiring list as read: routers in order of first
// mention, and the tiles joining each two (by class).
type crayWiring struct {
	routers map[string]*crayRouter
	order   []*crayRouter
	tiles   map[[2]string]map[string]bool // router pair -> "tile-tile" -> seen
	class   map[[2]string]string
	pairs   [][2]string
	ptiles  bool
}

// readCray reads a Cray XC (Aries) wiring list: each router a switch,
// the four nodes of its blade hosts on it (those whose processor tiles
// are listed: tile lRC serves node C/2; all four where the list has no
// processor tile), each two routers joined by one link a class whose
// rate is the class's per tile times the tiles between them. Routed as
// Aries routes minimally: every message spread evenly over its shortest
// paths. Its levels are the routers, the chassis and the groups (where
// the parentheses give them).
func readCray(b []byte) (*Fabric, error) {
	w := &crayWiring{routers: map[string]*crayRouter{}, tiles: map[[2]string]map[string]bool{}, class: map[[2]string]string{}}
	if err := eachLine(b, false, func(_ int, text string) error { return w.line(text) }); err != nil {
		return nil, err
	}
	return w.fabric()
}

// router is the router of a tile's match m (crayTile's groups).
func (w *crayWiring) router(m []string) *crayRouter {
	name := m[1] + m[2]
	r := w.routers[name]
	if r == nil {
		r = &crayRouter{name: name, blade: m[1], group: -1}
		w.routers[name] = r
		w.order = append(w.order, r)
	}
	if m[5] != "" {
		r.group, _ = strconv.Atoi(m[5])
	}
	return r
}

// line reads one tile's line.
func (w *crayWiring) line(text string) error {
	m := crayLine.FindStringSubmatch(text)
	if m == nil {
		return fmt.Errorf("%q is not a tile's line of a Cray wiring list (cX-YcCsSaAlRC(g:c:s) class -> peer)", text)
	}
	r := w.router(m[:8])
	class, peer := m[8], m[9]
	switch class {
	case "ptile":
		if peer != "processor" {
			return fmt.Errorf("a processor tile to %s", peer)
		}
		w.ptiles = true
		col, _ := strconv.Atoi(m[4])
		if n := col / 2; col < 8 && !slices.Contains(r.nodes, n) {
			r.nodes = append(r.nodes, n)
		}
		return nil
	case "green", "black", "blue":
	default:
		return fmt.Errorf("link class %q: a Cray XC (Aries) wiring list has green, black, blue and ptile tiles (a Gemini torus's X+, Y- ... are not read)", class)
	}
	if peer == "unused" {
		return nil
	}
	p := crayPeer.FindStringSubmatch(peer)
	if p == nil {
		return fmt.Errorf("peer %q is not a tile (cX-YcCsSaAlRC), unused or processor", peer)
	}
	q := w.router(p)
	if q == r {
		return fmt.Errorf("a %s tile from router %s to itself", class, r.name)
	}
	a, z := r.name+"l"+m[3]+m[4], q.name+"l"+p[3]+p[4]
	key, tile := [2]string{r.name, q.name}, a+"-"+z
	if key[0] > key[1] {
		key, tile = [2]string{q.name, r.name}, z+"-"+a
	}
	if c, ok := w.class[key]; ok && c != class {
		return fmt.Errorf("routers %s and %s joined by %s and %s tiles", key[0], key[1], c, class)
	}
	if w.tiles[key] == nil {
		w.tiles[key], w.class[key] = map[string]bool{}, class
		w.pairs = append(w.pairs, key)
	}
	w.tiles[key][tile] = true
	return nil
}

// fabric builds the graph of the routers and their nodes.
func (w *crayWiring) fabric() (*Fabric, error) {
	if len(w.pairs) == 0 {
		return nil, fmt.Errorf("the wiring list joins no two routers")
	}
	g := &Graph{Adaptive: true}
	vertex := map[string]int32{}
	var router, chassis, group []int
	for ri, r := range w.order {
		vertex[r.name] = g.Switch(r.name)
		nodes := r.nodes
		if !w.ptiles {
			nodes = []int{0, 1, 2, 3}
		}
		slices.Sort(nodes)
		for _, n := range nodes {
			name := fmt.Sprintf("%sn%d", r.blade, n)
			g.Connect(g.Host(name), vertex[r.name], "node_"+name, "node", 0, 0)
			ch := r.blade[:strings.LastIndexByte(r.blade, 's')]
			router, chassis, group = append(router, ri), append(chassis, crayIndex(ch)), append(group, r.group)
		}
	}
	rates := map[string]float64{"green": AriesGreen, "black": AriesBlack, "blue": AriesBlue}
	for _, key := range w.pairs {
		class := w.class[key]
		g.Connect(vertex[key[0]], vertex[key[1]], class+"_"+key[0]+"_"+key[1], class, rates[class]*float64(len(w.tiles[key])), 0)
	}
	g.Levels = crayLevels(router, chassis, group)
	g.Shape = fmt.Sprintf("Cray XC (Aries) network of %d routers and %d nodes", len(w.order), len(router))
	return NewGraph(g)
}

// crayIndex numbers a chassis's cname (cX-YcC) as X, Y, C in a number:
// distinct chassis, distinct numbers.
func crayIndex(ch string) int {
	var x, y, c int
	fmt.Sscanf(ch, "c%d-%dc%d", &x, &y, &c)
	return (x*1024+y)*16 + c
}

// crayLevels are a Cray's levels from each node's router, chassis and
// group (-1: not given; then no group level).
func crayLevels(router, chassis, group []int) []GroupLevel {
	lv := []GroupLevel{{Name: "router", Class: "green", Group: Renumber(router)}, {Name: "chassis", Class: "black", Group: Renumber(chassis)}}
	if !slices.Contains(group, -1) {
		lv = append(lv, GroupLevel{Name: "group", Class: "blue", Group: Renumber(group)})
	}
	return lv
}

// Renumber numbers groups 0, 1, ... in order of first appearance.
func Renumber[T int | int32](g []T) []T {
	ids := map[T]T{}
	out := make([]T, len(g))
	for i, x := range g {
		id, ok := ids[x]
		if !ok {
			id = T(len(ids))
			ids[x] = id
		}
		out[i] = id
	}
	return out
}
