package fabric

import (
	"fmt"
	"slices"
)

// NewTorus is a torus of the given dimensions (x first) whose host at
// position p (x = p mod dims[0], y = p / dims[0] mod dims[1], ...) is
// hosts[p]: each host has one full-duplex link of bw bytes/s and lat
// seconds to its next neighbour in each dimension (wrapping around), so
// it drives 2 x len(dims) link directions at once. Routing is dimension
// order, x first, each dimension the shorter way round (a tie at half
// the ring goes up from the lower half, down from the upper: SimGrid's
// TorusZone).
func NewTorus(hosts []string, dimensions []int, bw, lat float64, shared bool) (*Fabric, error) {
	total := 1
	for _, d := range dimensions {
		if d < 1 {
			return nil, fmt.Errorf("torus dimension %d: want at least 1", d)
		}
		total *= d
		if total > 1<<24 {
			return nil, fmt.Errorf("torus %s is larger than 16M nodes", Dims(dimensions))
		}
	}
	if len(dimensions) == 0 || total != len(hosts) {
		return nil, fmt.Errorf("a %s torus has %d nodes, the description names %d", Dims(dimensions), total, len(hosts))
	}
	s := linkSet{shared: shared}
	nd := len(dimensions)
	// up[p*nd+j] goes from p to its next neighbour in dimension j, down
	// the other way; g (for adaptive routing) has both.
	up, down := make([]int32, total*nd), make([]int32, total*nd)
	g := newHopGraph(total)
	for p := 0; p < total; p++ {
		stride := 1
		for j, d := range dimensions {
			// A dimension of one node has no link: no route moves
			// along it (a link from a host to itself counted among
			// the network's links, in latmap topo --topology's classes
			// and --what-if's links changed).
			if next := TorusNext(p, stride, d); next != p {
				up[p*nd+j], down[p*nd+j] = s.duplex(fmt.Sprintf("torus_%s_to_%s", hosts[p], hosts[next]), "torus-"+axisName(j), bw, lat)
				g.out[p] = append(g.out[p], hop{int32(next), up[p*nd+j], -1})
				g.out[next] = append(g.out[next], hop{int32(p), down[p*nd+j], -1})
			}
			stride *= d
		}
	}
	f := &Fabric{Kind: KindTorus, Routing: RuleDimension, Shape: Dims(dimensions) + " torus", Hosts: hosts, Links: s.links}
	f.route = func(a, b int, visit func(int32)) { torusRoute(dimensions, up, down, a, b, visit) }
	// Adaptive: every minimal path, each dimension either way round where
	// both are as short (half a ring).
	var err error
	f.spread, err = adaptive(f, attached{g: g})
	return f, err
}

// TorusNext is the node after node p, around the ring of d nodes whose
// places are stride apart (NewTorus's numbering: stride 1 for x, dims[0]
// for y, ...).
func TorusNext(p, stride, d int) int {
	if (p/stride)%d == d-1 {
		return p - (d-1)*stride
	}
	return p + stride
}

// torusRoute walks from a to b in dimension order.
func torusRoute(dimensions []int, up, down []int32, a, b int, visit func(int32)) {
	nd := len(dimensions)
	cur := a
	for cur != b {
		stride := 1
		for j, d := range dimensions {
			my, target, at := (a/stride)%d, (b/stride)%d, (cur/stride)%d
			if at == target {
				stride *= d
				continue
			}
			if (target > my && target <= my+d/2) || (my > d/2 && (my+d/2)%d >= target) {
				visit(up[cur*nd+j])
				if at == d-1 {
					cur -= (d - 1) * stride
				} else {
					cur += stride
				}
			} else {
				next := cur - stride
				if at == 0 {
					next = cur + (d-1)*stride
				}
				visit(down[next*nd+j])
				cur = next
			}
			break
		}
	}
}

// axisName names dimension j: x, y, z, then d3, d4, ...
func axisName(j int) string {
	if j < 3 {
		return string(rune('x' + j))
	}
	return fmt.Sprintf("d%d", j)
}

// MaxDirectNodes is the most nodes a direct network is looked for in
// (network.FindDirect: each threshold it tries walks the hops between every
// two nodes) and TorusInOrder looks at.
const MaxDirectNodes = 1024

// TorusInOrder returns the dimensions (x first) of the torus whose
// links, with node p at position p (x = p mod dims[0], y = p / dims[0]
// mod dims[1], ...: NewTorus's numbering), are exactly links
// between k nodes, trying fewer dimensions first; nil when no torus in
// that order has them. A graph network.FindDirect finds can be a torus in
// several ways (a 4 x 4 torus is, link for link, a 4-dimensional
// hypercube); the nodes' own order, where it follows the coordinates,
// tells which, and so which links form a dimension: what dimension
// order routing needs.
func TorusInOrder(k int, links [][2]int32) []int {
	if k < 2 || k > MaxDirectNodes {
		return nil
	}
	want := make(map[[2]int32]bool, len(links))
	for _, l := range links {
		want[[2]int32{min(l[0], l[1]), max(l[0], l[1])}] = true
	}
	var found []int
	for nd := 1; nd <= 24 && found == nil; nd++ {
		eachFactoring(k, nd, nil, func(dims []int) bool {
			if torusLinksAre(k, dims, want) {
				found = slices.Clone(dims)
			}
			return found != nil
		})
	}
	return found
}

// eachFactoring calls try with every ordered factoring of k into nd
// factors of at least 2 (after the factors in dims), until try returns
// true.
func eachFactoring(k, nd int, dims []int, try func([]int) bool) bool {
	if nd == 1 {
		return k >= 2 && try(append(dims, k))
	}
	for f := 2; f <= k/2; f++ {
		if k%f == 0 && eachFactoring(k/f, nd-1, append(dims, f), try) {
			return true
		}
	}
	return false
}

// torusLinksAre says whether the torus of dims (x first) joins exactly
// the node pairs of want.
func torusLinksAre(k int, dims []int, want map[[2]int32]bool) bool {
	n := 0
	for p := 0; p < k; p++ {
		stride := 1
		for _, d := range dims {
			next := TorusNext(p, stride, d)
			stride *= d
			if d == 2 && next < p {
				continue // a ring of 2 is one link, counted from its lower end
			}
			if !want[[2]int32{int32(min(p, next)), int32(max(p, next))}] {
				return false
			}
			n++
		}
	}
	return n == len(want)
}
