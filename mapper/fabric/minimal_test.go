package fabric

import (
	"fmt"
	"testing"
)

// TestMinimalRoutes: six routers of one host each in three groups of
// two ({0,1}, {2,3}, {4,5}), each group joined by its own link, groups
// 0 and 1 by two links (0-2, 1-3), groups 0 and 2 by 1-4, groups 1 and
// 2 by 3-5 and 2-5. Routed minimally, router 0's message to router 5
// goes 0-1-4-5 (local, global, local: three hops) where the shortest
// path by hops is 0-2-5 (two hops through group 1, which adaptive
// routing takes); to router 3 it splits half and half over 0-2-3 and
// 0-1-3; to router 1 it stays in group 0. Route takes one minimal path
// whole. Groups that a link does not join, or with no link between
// two, are refused with the reason.
func TestMinimalRoutes(t *testing.T) {
	hosts := []string{"a", "b", "c", "d", "e", "f"}
	router := []int32{0, 1, 2, 3, 4, 5}
	links := [][2]int32{{0, 1}, {2, 3}, {4, 5}, {0, 2}, {1, 3}, {1, 4}, {3, 5}, {2, 5}}
	groups := []int32{0, 0, 1, 1, 2, 2}
	f, why, err := NewRouterNetwork(hosts, router, 6, links, 0, 1e9, 1e-6, groups)
	if err != nil || why != "" {
		t.Fatal(err, why)
	}
	shares := func(f *Fabric, a, b int) string {
		m := map[string]float64{}
		f.RouteShares(a, b, func(l int32, x float64) {
			if f.Links[l].Class != "node" {
				m[f.Links[l].Name] += x
			}
		})
		return fmt.Sprint(m)
	}
	path := func(f *Fabric, a, b int) []string {
		var p []string
		f.Route(a, b, func(l int32) {
			if f.Links[l].Class != "node" {
				p = append(p, f.Links[l].Name)
			}
		})
		return p
	}
	for _, c := range []struct {
		a, b int
		want string
	}{
		{0, 5, "map[direct_router0_to_router1_UP:1 direct_router1_to_router4_UP:1 direct_router4_to_router5_UP:1]"},
		{0, 3, "map[direct_router0_to_router1_UP:0.5 direct_router0_to_router2_UP:0.5 direct_router1_to_router3_UP:0.5 direct_router2_to_router3_UP:0.5]"},
		{0, 1, "map[direct_router0_to_router1_UP:1]"},
		{5, 0, "map[direct_router0_to_router1_DOWN:1 direct_router1_to_router4_DOWN:1 direct_router4_to_router5_DOWN:1]"},
	} {
		if got := shares(f, c.a, c.b); got != c.want {
			t.Errorf("minimal %s to %s: shares %s, want %s", hosts[c.a], hosts[c.b], got, c.want)
		}
	}
	if p := path(f, 0, 5); fmt.Sprint(p) != "[direct_router0_to_router1_UP direct_router1_to_router4_UP direct_router4_to_router5_UP]" {
		t.Errorf("minimal route a to f: %v", p)
	}
	if p := path(f, 0, 3); len(p) != 2 {
		t.Errorf("minimal route a to d: %v, want 2 links", p)
	}
	a, err := f.Routed(RoutingAdaptive)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := shares(a, 0, 5), "map[direct_router0_to_router2_UP:1 direct_router2_to_router5_UP:1]"; got != want {
		t.Errorf("adaptive a to f: shares %s, want %s", got, want)
	}
	for _, c := range []struct {
		groups []int32
		why    string
	}{
		{[]int32{0, 1, 1, 0, 2, 2}, "group 0's own links do not join its 2 vertices"},
		{[]int32{0, 0, 1, 1, 2, 3}, "no link joins group 0 to group 3"},
	} {
		f, why, err := NewRouterNetwork(hosts, router, 6, links, 0, 1e9, 1e-6, c.groups)
		if err != nil || why != c.why {
			t.Errorf("groups %v: why %q, want %q (err %v)", c.groups, why, c.why, err)
		}
		if got, want := shares(f, 0, 5), "map[direct_router0_to_router2_UP:1 direct_router2_to_router5_UP:1]"; got != want {
			t.Errorf("groups %v: shares %s, want %s (the shortest paths)", c.groups, got, want)
		}
	}
}
