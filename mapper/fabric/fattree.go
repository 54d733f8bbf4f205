package fabric

import (
	"fmt"
	"strings"
)

// FatTreeShape is SimGrid's FAT_TREE parameters, level by level from
// the nodes up: Children per switch, Parents of each node or switch
// below, and parallel Links to each parent.
type FatTreeShape struct {
	Children, Parents, Links []int
}

// ftNode is a node (level 0) or a switch of a fat tree: its label (one
// digit per level, as SimGrid numbers them) and its links to the level
// above (by parent port) and below (by child port).
type ftNode struct {
	label    []int
	up, down []ftEdge
}

// ftEdge is one physical link seen from one end: the node at the other
// end (its index in its level) and the link's two directions.
type ftEdge struct {
	node     int
	up, down int32
}

// String is s as SimGrid's topo_parameters: "levels;children,...;
// parents,...;links,...".
func (s FatTreeShape) String() string {
	c := func(v []int) string { return strings.ReplaceAll(Dims(v), "x", ",") }
	return fmt.Sprintf("%d;%s;%s;%s", len(s.Children), c(s.Children), c(s.Parents), c(s.Links))
}

type fatTree struct {
	s     FatTreeShape
	nodes [][]ftNode // by level, in SimGrid's position order
}

// NewFatTree is a fat tree routed as SimGrid's FatTreeZone and
// InfiniBand's static d-mod-k routing do: every parallel link its own,
// a message goes up through the parent its destination's position picks
// (position / the ports below, mod the ports at this level) until it
// reaches a switch above the destination, then down the one way there
// is (of parallel cables, the one its source's position picks). Routed
// so, flows to different destinations take different uplinks, and a
// layout whose flows pick the same ones loads them unevenly; NewTree
// prices a group's uplinks as one link of their summed bandwidth
// instead (traffic spread evenly: adaptive routing).
func NewFatTree(hosts []string, s FatTreeShape, bw, lat float64, shared bool) (*Fabric, error) {
	L := len(s.Children)
	if L == 0 || len(s.Parents) != L || len(s.Links) != L {
		return nil, fmt.Errorf("fat tree: want as many parents and link counts as levels (%d)", L)
	}
	count := []int{1}
	for _, c := range s.Children {
		count[0] *= c
	}
	if count[0] != len(hosts) {
		return nil, fmt.Errorf("fat tree has %d nodes, the description %d hosts", count[0], len(hosts))
	}
	for i := 0; i < L; i++ {
		n := 1
		for j := 0; j < L; j++ {
			if j <= i {
				n *= s.Parents[j]
			} else {
				n *= s.Children[j]
			}
		}
		count = append(count, n)
	}
	t := &fatTree{s: s, nodes: make([][]ftNode, L+1)}
	for l := 0; l <= L; l++ {
		t.nodes[l] = t.level(l, count[l])
	}
	ls := linkSet{shared: shared}
	for l := 0; l < L; l++ {
		class := "node"
		if l > 0 {
			class = fmt.Sprintf("up-%d", l)
		}
		for ci := range t.nodes[l] {
			child := &t.nodes[l][ci]
			for pi := range t.nodes[l+1] {
				parent := &t.nodes[l+1][pi]
				if !t.related(l, child, parent) {
					continue
				}
				for j := 0; j < s.Links[l]; j++ {
					name := fmt.Sprintf("ft_%d_%d_%d_%d", l, ci, pi, j)
					if l == 0 {
						name = fmt.Sprintf("node_%s_%d_%d", hosts[ci], pi, j)
					}
					up, down := ls.duplex(name, class, bw, lat)
					child.up[parent.label[l]+j*s.Parents[l]] = ftEdge{pi, up, down}
					parent.down[child.label[l]+j*s.Children[l]] = ftEdge{ci, up, down}
				}
			}
		}
	}
	f := &Fabric{Kind: KindTree, Routing: RuleDModK, Hosts: hosts, Links: ls.links, Shape: fmt.Sprintf("fat tree of %d switch levels, static d-mod-k routing", L)}
	span := 1
	for l := 1; l < L; l++ {
		span *= s.Children[l-1]
		g := make([]int, len(hosts))
		for h := range g {
			g[h] = h / span
		}
		f.Levels = append(f.Levels, GroupLevel{Name: fmt.Sprintf("level%d", l), Class: fmt.Sprintf("up-%d", l), Group: g})
	}
	f.route = t.route
	return f, nil
}

// level makes level l's n nodes or switches, labelled in SimGrid's order
// (a counter, digit 0 first, whose digit i runs over the parents of
// level i below l and the children of level i from l on), ports empty.
func (t *fatTree) level(l, n int) []ftNode {
	s, L := t.s, len(t.s.Children)
	nodes := make([]ftNode, n)
	label := make([]int, L)
	for i := range nodes {
		nd := &nodes[i]
		nd.label = append([]int(nil), label...)
		if l < L {
			nd.up = make([]ftEdge, s.Parents[l]*s.Links[l])
		}
		if l > 0 {
			nd.down = make([]ftEdge, s.Children[l-1]*s.Links[l-1])
		}
		for pos := 0; pos < L; pos++ {
			radix := s.Children[pos]
			if pos < l {
				radix = s.Parents[pos]
			}
			if label[pos]++; label[pos] < radix {
				break
			}
			label[pos] = 0
		}
	}
	return nodes
}

// related: parent (level l+1) is one of child's (level l) parents when
// their labels agree but at digit l.
func (t *fatTree) related(l int, child, parent *ftNode) bool {
	for i := range child.label {
		if i != l && child.label[i] != parent.label[i] {
			return false
		}
	}
	return true
}

func (t *fatTree) route(a, b int, visit func(int32)) {
	s, dst := t.s, t.nodes[0][b].label
	l, cur := 0, a
	// Up until a switch whose subtree holds b: its digits from its level
	// on are b's.
	for l == 0 || !sameFrom(t.nodes[l][cur].label, dst, l) {
		d := b
		for i := 0; i < l; i++ {
			d /= s.Parents[i] * s.Links[i]
		}
		e := t.nodes[l][cur].up[d%(s.Parents[l]*s.Links[l])]
		visit(e.up)
		l, cur = l+1, e.node
	}
	for ; l > 0; l-- {
		e := t.nodes[l][cur].down[(a%s.Links[l-1])*s.Children[l-1]+dst[l-1]]
		visit(e.down)
		cur = e.node
	}
}

// sameFrom: labels x and y agree from digit l on.
func sameFrom(x, y []int, l int) bool {
	for i := l; i < len(x); i++ {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}
