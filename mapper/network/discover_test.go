package network

import (
	"slices"
	"testing"
)

// TestRouterGroups: the routers' groups are the outermost switch
// level's, numbered from 0 in the order met; none where that level is
// the routers' own, has one group, or splits a router's nodes.
func TestRouterGroups(t *testing.T) {
	router := []int32{0, 0, 1, 1, 2, 2, 3, 3}
	for _, c := range []struct {
		levels [][]int32
		want   []int32
	}{
		{[][]int32{{0, 0, 1, 1, 2, 2, 3, 3}, {7, 7, 7, 7, 5, 5, 5, 5}}, []int32{0, 0, 1, 1}},
		{[][]int32{{0, 0, 1, 1, 2, 2, 3, 3}, {0, 0, 1, 1, 0, 0, 1, 1}, {4, 4, 4, 4, 9, 9, 9, 9}}, []int32{0, 0, 1, 1}},
		{[][]int32{{0, 0, 1, 1, 2, 2, 3, 3}}, nil},
		{[][]int32{{0, 0, 1, 1, 2, 2, 3, 3}, {1, 1, 1, 1, 1, 1, 1, 1}}, nil},
		{[][]int32{{0, 0, 1, 1, 2, 2, 3, 3}, {0, 1, 1, 1, 2, 2, 2, 2}}, nil},
		{nil, nil},
	} {
		if got := RouterGroups(c.levels, router, 4); !slices.Equal(got, c.want) {
			t.Errorf("levels %v: groups %v, want %v", c.levels, got, c.want)
		}
	}
}
