package topo

import (
	"slices"
	"strings"
	"testing"
)

// groupsOf numbers n hosts in runs of size.
func groupsOf(n, size int) []int {
	g := make([]int, n)
	for h := range g {
		g[h] = h / size
	}
	return g
}

// TestTreeShape: the 1,024-rank fat tree's survey (64 nodes, leaves of
// 4, pods of 16; 2,240 MB/s out of a leaf and 4,480 out of a pod against
// a node's 1,120) is SimGrid's "3;4,4,4;1,2,2;1,1,1"; the 2:1 tree of 16
// nodes "2;4,4;1,2;1,1"; a 4:1 tree's one uplink a leaf has no parallel
// links; and shapes no fat tree explains are refused with the reason.
func TestTreeShape(t *testing.T) {
	s, par, why := TreeShape([][]int{groupsOf(64, 4), groupsOf(64, 16)}, []float64{2240, 4480}, 1120)
	if why != "" || !par || !slices.Equal(s.Children, []int{4, 4, 4}) || !slices.Equal(s.Parents, []int{1, 2, 2}) || !slices.Equal(s.Links, []int{1, 1, 1}) {
		t.Errorf("1,024-rank tree: %+v, parallel %v, %q; want children 4,4,4, parents 1,2,2, links 1,1,1", s, par, why)
	}
	if got := s.String(); got != "3;4,4,4;1,2,2;1,1,1" {
		t.Errorf("as SimGrid's topo_parameters: %q", got)
	}
	// Measured 8% under two links: still two.
	s, par, why = TreeShape([][]int{groupsOf(16, 4)}, []float64{2060}, 1120)
	if why != "" || !par || !slices.Equal(s.Children, []int{4, 4}) || !slices.Equal(s.Parents, []int{1, 2}) {
		t.Errorf("2:1 tree: %+v, %v, %q", s, par, why)
	}
	if _, par, why = TreeShape([][]int{groupsOf(16, 4)}, []float64{1100}, 1120); why != "" || par {
		t.Errorf("4:1 tree: parallel %v, %q; want one uplink a leaf, no reason", par, why)
	}
	shuffled := groupsOf(16, 4)
	shuffled[1], shuffled[4] = shuffled[4], shuffled[1]
	uneven := append(groupsOf(12, 4), 3, 3, 4, 4)
	for _, c := range []struct {
		name string
		of   [][]int
		out  []float64
		want string
	}{
		{"groups out of the hosts' order", [][]int{shuffled}, []float64{2240}, "not runs of one size"},
		{"groups of two sizes", [][]int{uneven}, []float64{2240}, "not runs of one size"},
		{"a level not whole groups of the one below", [][]int{groupsOf(24, 4), groupsOf(24, 6)}, []float64{2240, 4480}, "not whole groups"},
		{"a rate between whole links", [][]int{groupsOf(16, 4)}, []float64{1680}, "1.50 times a node's link"},
		{"an unmeasured level", [][]int{groupsOf(16, 4)}, []float64{0}, "level 1's uplinks have no rate"},
		{"less than a link", [][]int{groupsOf(16, 4)}, []float64{400}, "0.36 times a node's link"},
		{"uplinks not a multiple of the level below's", [][]int{groupsOf(64, 4), groupsOf(64, 16)}, []float64{2240, 3360}, "3 uplinks, not a multiple of level 1's 2"},
	} {
		if _, _, why := TreeShape(c.of, c.out, 1120); !strings.Contains(why, c.want) {
			t.Errorf("%s: %q, want it to say %q", c.name, why, c.want)
		}
	}
}
