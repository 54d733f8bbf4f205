package topo

import (
	"fmt"
	"math"

	"github.com/latmap/latmap/mapper/fabric"
)

// TreeShapeTolerance is how far a switch level's measured rate out of a
// group may be from a whole number of node links (a share of that
// number) for the level to count as that many parallel uplinks.
const TreeShapeTolerance = 0.15

// TreeShape is the fat tree (SimGrid's FAT_TREE parameters, as
// fabric.NewFatTree takes them) that a survey's switch levels describe,
// with the hosts in the survey's order: of[k][h] is host h's group at
// switch level k, innermost first; outMBps[k] what a level-k group's
// hosts together sent out of it (the switch phase, median; 0: not
// measured); linkMBps what one node's link carries (the node phase).
// Each level's groups must be runs of the hosts' order, all of one size,
// each made of whole groups of the level below; a group's uplinks are
// its rate out over one node link's, which must be within
// TreeShapeTolerance of a whole number k of links, a multiple of the
// level below's (each switch of the group takes k / k below parents).
// The top switches join the outermost groups. It says why not, or
// parallel == false where no group has two uplinks or more (a tree
// whose uplinks are one link each routes one way).
func TreeShape(of [][]int, outMBps []float64, linkMBps float64) (s fabric.FatTreeShape, parallel bool, why string) {
	if len(of) == 0 || len(outMBps) != len(of) || !(linkMBps > 0) {
		return s, false, "no switch level with its uplinks and a node's link measured"
	}
	n := len(of[0])
	size, below := 1, 1
	s.Parents = []int{1}
	for k, groups := range of {
		g, ok := runSize(groups)
		if !ok {
			return s, false, fmt.Sprintf("level %d's groups are not runs of one size in the hosts' order", k+1)
		}
		if g <= size || g%size != 0 || n%g != 0 {
			return s, false, fmt.Sprintf("level %d's groups of %d hosts are not whole groups of level %d's %d", k+1, g, k, size)
		}
		if !(outMBps[k] > 0) {
			return s, false, fmt.Sprintf("level %d's uplinks have no rate (not measured, or not priced: the switch uplinks' lines say why)", k+1)
		}
		x := outMBps[k] / linkMBps
		links := int(math.Round(x))
		if links < 1 || math.Abs(x-float64(links)) > TreeShapeTolerance*float64(links) {
			return s, false, fmt.Sprintf("level %d's groups send %.4g MB/s out, %.2f times a node's link (%.4g MB/s): not a whole number of links", k+1, outMBps[k], x, linkMBps)
		}
		if links%below != 0 {
			return s, false, fmt.Sprintf("level %d's groups have %d uplinks, not a multiple of level %d's %d", k+1, links, k, below)
		}
		parallel = parallel || links > 1
		s.Children = append(s.Children, g/size)
		s.Parents = append(s.Parents, links/below)
		size, below = g, links
	}
	s.Children = append(s.Children, n/size)
	s.Links = make([]int, len(s.Children))
	for i := range s.Links {
		s.Links[i] = 1
	}
	return s, parallel, ""
}

// runSize is the size of groups' groups when each is one run of
// consecutive hosts and all are of one size.
func runSize(groups []int) (int, bool) {
	seen := map[int]bool{}
	size := 0
	for start := 0; start < len(groups); {
		end := start
		for end < len(groups) && groups[end] == groups[start] {
			end++
		}
		if seen[groups[start]] || size != 0 && end-start != size {
			return 0, false
		}
		seen[groups[start]], size = true, end-start
		start = end
	}
	return size, size > 0
}
