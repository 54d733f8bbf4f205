package network

import (
	"fmt"
	"math"
	"slices"

	"github.com/latmap/latmap/mapper/fabric"
)

// Direct is a direct network found in the round trips between nodes (a
// torus's or a mesh's: each node linked to a few others, a message
// hopping over the nodes between), by FindDirect.
type Direct struct {
	// Links are the node pairs joined by a link (a < b).
	Links [][2]int32
	// Base and PerHop fit the round trips: Base + PerHop x hops;
	// Residual is their root mean square error over PerHop.
	Base, PerHop, Residual float64
	// Diameter is the most hops between two nodes; MinDegree and
	// MaxDegree the fewest and most links of a node.
	Diameter, MinDegree, MaxDegree int
	// Shortcuts counts the links added between nodes whose round trip
	// is a hop or more shorter than the hops between them without it
	// (linkShortcuts).
	Shortcuts int
}

// maxHopResidual is the largest root mean square error, as a fraction
// of a hop's round trip, of a hop count that explains the round trips.
// On Blue Gene/L's 8 x 4 partition (testdata's mmpi log, 0.2 us a hop)
// it is 0.20; a fat tree's or a dragonfly's round trips have no graph
// that fits at all (each node's nearest form cliques).
var maxHopResidual = 0.3

// minDiameter is the fewest hops across a network FindDirect takes for
// a direct one: with two, a torus of 4 nodes is as much a switch tree's
// two levels.
var minDiameter = 3

// MaxDirectNodes is the most nodes FindDirect looks at
// (fabric.MaxDirectNodes).
const MaxDirectNodes = fabric.MaxDirectNodes

// directSteps is how many link thresholds FindDirect tries: from
// 1/directSteps of the spread between the smallest and the median round
// trip between nodes, up to 3/4 of it.
const directSteps = 64

// FindDirect looks in the round trips rtt(a, b) between k nodes for a
// direct network: a graph that links each node to the nodes within some
// threshold of its nearest one, joins every node, has at most
// maxDirectDegree links a node (not a tree's switch), is at least
// minDiameter hops across, and whose hop counts explain the round trips
// (Base + PerHop x hops, within maxHopResidual of a hop). Thresholds are
// tried from the smallest up, until a graph explains the round trips
// worse than the one before: that one, with a link added between nodes
// whose round trip is a hop or more shorter than its hops say
// (linkShortcuts), whose pairs the hops then need not explain (SimGrid's
// dragonfly of 4 chassis a group: 0.38 of a hop before, 0.16 after).
// nil, and a sentence saying why, when no graph does.
func FindDirect(k int, rtt func(a, b int) float64) (*Direct, string) {
	if k < 2*minDiameter {
		return nil, fmt.Sprintf("%d nodes are too few to tell a direct network from switches", k)
	}
	if k > MaxDirectNodes {
		return nil, fmt.Sprintf("%d nodes are more than the %d a direct network is looked for in", k, MaxDirectNodes)
	}
	lat := make([]float64, k*k)
	near := make([]float64, k)
	all := make([]float64, 0, k*(k-1)/2)
	for a := 0; a < k; a++ {
		near[a] = math.Inf(1)
		for b := 0; b < k; b++ {
			if a != b {
				lat[a*k+b] = rtt(a, b)
				near[a] = min(near[a], lat[a*k+b])
				if a < b {
					all = append(all, lat[a*k+b])
				}
			}
		}
	}
	slices.Sort(all)
	lo, med := all[0], all[len(all)/2]
	if !(med > lo) || math.IsInf(med, 0) {
		return nil, "the round trips between nodes are all alike: no hops in them"
	}
	var best *Direct
	why, edges := "no threshold links every node", -1
	// Each threshold's graph is built in the same buffers (a graph kept
	// as the best takes a copy of its links).
	nbrs := make([][]int32, k)
	var links [][2]int32
	for j := 1; j <= directSteps*3/4; j++ {
		theta := float64(j) / directSteps * (med - lo)
		for a := range nbrs {
			nbrs[a] = nbrs[a][:0]
		}
		links = links[:0]
		for a := 0; a < k; a++ {
			for b := a + 1; b < k; b++ {
				if l := lat[a*k+b]; l <= near[a]+theta || l <= near[b]+theta {
					links = append(links, [2]int32{int32(a), int32(b)})
					nbrs[a], nbrs[b] = append(nbrs[a], int32(b)), append(nbrs[b], int32(a))
				}
			}
		}
		if len(links) == edges {
			continue // the graph of the threshold before
		}
		edges = len(links)
		if w := sparseAndJoined(nbrs); w != "" {
			why = w
			if w == tooManyLinks {
				break // a node's links only grow with the threshold
			}
			continue
		}
		d, w := fitHops(k, lat, nbrs, nil)
		if d == nil {
			why = w
			continue
		}
		d.Links = slices.Clone(links)
		if best != nil && d.Residual > best.Residual {
			break // more links than the best graph's only blur the hops
		}
		best = d
	}
	if best == nil {
		return nil, why
	}
	if d := linkShortcuts(k, lat, best); d.Residual <= maxHopResidual {
		return d, ""
	}
	return nil, fmt.Sprintf("the hops of the best graph explain the round trips only within %.2f of a hop (%.3g each)", best.Residual, best.PerHop)
}

// ShortcutsNote says how many of d's links linkShortcuts added ("" none).
func (d *Direct) ShortcutsNote() string {
	if d.Shortcuts == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d of them added between nodes whose round trip is a hop or more shorter than the others' hops between them: "+
		"a way between them those links lack)", d.Shortcuts)
}

// shortcutHops is how much shorter than the graph's hops a round trip
// must be, in hops, for linkShortcuts to link its two nodes: a whole hop
// less a quarter for noise (none of Blue Gene/L's round trips is more
// than half a hop shorter than its graph's hops: none is linked there,
// TestFindDirectBlueGeneL).
var shortcutHops = 0.75

// maxShortcuts is the largest fraction of the node pairs linkShortcuts
// links: SimGrid's dragonflies need 5-15% (TestFindDirectShortcuts).
var maxShortcuts = 0.25

// linkShortcuts adds to d a link between every two nodes whose round
// trip is a hop or more (shortcutHops) shorter than d's hops between them
// say: a way between them the graph lacks (a link whose round trip is
// over the threshold's, or routes that do not retrace their way back:
// SimGrid's dragonfly routes a message between two routers of a chassis
// other than the first over their own link and then the first
// chassis's link into the destination, both ways: two hops). Routed over
// the graph without it, their messages would detour through other
// nodes' links and load them with what the machine does not. d itself
// when there is none, or when the links would leave the hops explaining
// the other pairs' round trips worse than maxHopResidual or give a node
// more than maxDirectDegree links, or more than maxShortcuts of pairs.
func linkShortcuts(k int, lat []float64, d *Direct) *Direct {
	nbrs := adjacency(k, d.Links)
	hops := fabric.HopTable(nbrs)
	links := slices.Clone(d.Links)
	for a := 0; a < k; a++ {
		for b := a + 1; b < k; b++ {
			if lat[a*k+b]-d.Base-d.PerHop*float64(hops[a*k+b]) <= -shortcutHops*d.PerHop {
				links = append(links, [2]int32{int32(a), int32(b)})
				nbrs[a], nbrs[b] = append(nbrs[a], int32(b)), append(nbrs[b], int32(a))
			}
		}
	}
	if len(links) == len(d.Links) || float64(len(links)-len(d.Links)) > maxShortcuts*float64(k*(k-1)/2) {
		return d
	}
	// A shortcut is a way its two nodes' messages take, not a hop of the
	// graph's (above: two hops), so its own pair is not fitted on it.
	short := map[[2]int32]bool{}
	for _, l := range links[len(d.Links):] {
		short[l] = true
	}
	r, _ := fitHops(k, lat, nbrs, func(a, b int) bool { return short[[2]int32{int32(a), int32(b)}] })
	if r == nil || r.Residual > maxHopResidual || r.MaxDegree > maxDirectDegree {
		return d
	}
	r.Links, r.Shortcuts = links, len(links)-len(d.Links)
	return r
}

// maxDirectDegree is the most links a node of a direct network has
// (a 6-D torus's 12; Tofu's 10).
var maxDirectDegree = 16

// tooManyLinks is sparseAndJoined's reason for a node of more than
// maxDirectDegree links.
var tooManyLinks = fmt.Sprintf("the nearest nodes are more than %d a node (a switch's)", maxDirectDegree)

// sparseAndJoined says why the graph nbrs is no direct network's when
// a node has more than maxDirectDegree links or the links leave nodes
// apart ("" when neither): a cheap test before the hops are counted.
func sparseAndJoined(nbrs [][]int32) string {
	root := make([]int32, len(nbrs))
	for i := range root {
		root[i] = int32(i)
	}
	var find func(x int32) int32
	find = func(x int32) int32 {
		for root[x] != x {
			root[x] = root[root[x]]
			x = root[x]
		}
		return x
	}
	parts := len(nbrs)
	for a, n := range nbrs {
		if len(n) > maxDirectDegree {
			return tooManyLinks
		}
		for _, b := range n {
			if ra, rb := find(int32(a)), find(b); ra != rb {
				root[ra] = rb
				parts--
			}
		}
	}
	if parts > 1 {
		return "the nearest nodes form groups that no link joins (a tree's switches)"
	}
	return ""
}

// fitHops fits the round trips lat to the hop counts of the graph nbrs,
// which joins every node (sparseAndJoined): nil and why when it is under
// minDiameter across (all to all, a switch's, is 1) or the round trips do
// not grow with the hops. The pairs skip reports (nil: none) are left
// out of the fit.
func fitHops(k int, lat []float64, nbrs [][]int32, skip func(a, b int) bool) (*Direct, string) {
	hops := fabric.HopTable(nbrs)
	d := lineFit(k, lat, func(a, b int) int { return int(hops[a*k+b]) }, skip)
	d.MinDegree, d.MaxDegree = degrees(nbrs)
	if d.Diameter < minDiameter {
		return nil, fmt.Sprintf("the graph of nearest nodes is %d hops across", d.Diameter)
	}
	if !(d.PerHop > 0) {
		return nil, "the round trips do not grow with the hops"
	}
	return d, ""
}

// lineFit fits the round trips lat between k vertices (entry a*k+b) to
// Base + PerHop x hop(a, b) by least squares over the pairs a < b that
// skip does not report (nil: none): d's Base, PerHop, Residual (the root
// mean square error over PerHop) and Diameter (the most hops between
// two of them, skipped pairs too).
func lineFit(k int, lat []float64, hop func(a, b int) int, skip func(a, b int) bool) *Direct {
	d := &Direct{}
	var sh, sl, shh, shl, n float64
	for a := 0; a < k; a++ {
		for b := a + 1; b < k; b++ {
			h := hop(a, b)
			d.Diameter = max(d.Diameter, h)
			if skip != nil && skip(a, b) {
				continue
			}
			x, y := float64(h), lat[a*k+b]
			sh, sl, shh, shl, n = sh+x, sl+y, shh+x*x, shl+x*y, n+1
		}
	}
	d.PerHop = (n*shl - sh*sl) / (n*shh - sh*sh)
	d.Base = (sl - d.PerHop*sh) / n
	var ss float64
	for a := 0; a < k; a++ {
		for b := a + 1; b < k; b++ {
			if skip != nil && skip(a, b) {
				continue
			}
			r := lat[a*k+b] - d.Base - d.PerHop*float64(hop(a, b))
			ss += r * r
		}
	}
	d.Residual = math.Sqrt(ss/n) / d.PerHop
	return d
}

// adjacency is each of k vertices' neighbours over links.
func adjacency(k int, links [][2]int32) [][]int32 {
	nbrs := make([][]int32, k)
	for _, l := range links {
		nbrs[l[0]], nbrs[l[1]] = append(nbrs[l[0]], l[1]), append(nbrs[l[1]], l[0])
	}
	return nbrs
}

// degrees is the fewest and the most links a vertex of nbrs has.
func degrees(nbrs [][]int32) (lo, hi int) {
	lo = math.MaxInt
	for _, n := range nbrs {
		lo, hi = min(lo, len(n)), max(hi, len(n))
	}
	return lo, hi
}
