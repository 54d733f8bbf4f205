package fabric

import (
	"fmt"
	"strings"
	"testing"
)

// TestMinimalRoutes: six routers of one host each in three groups of
// two ({0,1}, {2,3}, {4,5}), each group joined by its own link, groups
// 0 and 1 by two links (0-2, 1-3), groups 0 and 2 by 1-4, groups 1 and
// 2 by 3-5 and 2-5. Routed minimally, router 0's message to router 5
// goes 0-1-4-5 (local, global, local: three hops) where the shortest
// path by hops is 0-2-5 (two hops through group 1, which adaptive
// routing takes); to router 3, of 0-2-3 and 0-1-3, it takes 0-1-3
// (router 1 is nearer 0 in number); to router 1 it stays in group 0.
// As measured (Fabric.Measured), 0 and 5, whose hops are fewer than any
// minimal path's, go 0-2-5, and every other pair minimally.
// Groups that a link does not join, or with no link between two, are
// refused with the reason.
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
	// Measured: 0 to 5 over 0-2-5 (the round trips' two hops, through
	// group 1), every other pair as minimal routing takes it.
	v := f.Measured()
	if v == f {
		t.Fatal("Measured is f itself: want 0 and 5 routed through group 1")
	}
	for _, c := range []struct {
		routed string
		f      *Fabric
		a, b   int
		want   string
	}{
		{"minimal", f, 0, 5, "map[direct_router0_to_router1_UP:1 direct_router1_to_router4_UP:1 direct_router4_to_router5_UP:1]"},
		{"minimal", f, 0, 3, "map[direct_router0_to_router1_UP:1 direct_router1_to_router3_UP:1]"},
		{"minimal", f, 0, 1, "map[direct_router0_to_router1_UP:1]"},
		{"minimal", f, 5, 0, "map[direct_router0_to_router1_DOWN:1 direct_router1_to_router4_DOWN:1 direct_router4_to_router5_DOWN:1]"},
		{"measured", v, 0, 5, "map[direct_router0_to_router2_UP:1 direct_router2_to_router5_UP:1]"},
		{"measured", v, 5, 0, "map[direct_router0_to_router2_DOWN:1 direct_router2_to_router5_DOWN:1]"},
		{"measured", v, 0, 3, "map[direct_router0_to_router1_UP:1 direct_router1_to_router3_UP:1]"},
	} {
		if got := shares(c.f, c.a, c.b); got != c.want {
			t.Errorf("%s %s to %s: shares %s, want %s", c.routed, hosts[c.a], hosts[c.b], got, c.want)
		}
	}
	if p := path(f, 0, 5); fmt.Sprint(p) != "[direct_router0_to_router1_UP direct_router1_to_router4_UP direct_router4_to_router5_UP]" {
		t.Errorf("minimal route a to f: %v", p)
	}
	if p := path(v, 0, 5); fmt.Sprint(p) != "[direct_router0_to_router2_UP direct_router2_to_router5_UP]" {
		t.Errorf("measured: Route a to f %v, want 0-2-5", p)
	}
	if n, why := GroupFaults(links, groups); n != 0 || why != "" {
		t.Errorf("GroupFaults %d %q, want none", n, why)
	}
	if p := NonMinimal(links, groups); fmt.Sprint(p) != "[[0 5]]" {
		t.Errorf("NonMinimal %v, want [[0 5]]: 0-2-5 through group 1 is shorter than any minimal path", p)
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
		faults int
		why    string
	}{
		// group 0 (0, 3) and group 1 (1, 2) are each split
		{[]int32{0, 1, 1, 0, 2, 2}, 2, "group 0's own links do not join its 2 vertices"},
		// no link joins group 0 to 3, nor 1 to 2 (router 4 to 2 or 3)
		{[]int32{0, 0, 1, 1, 2, 3}, 2, "no link joins group 0 to group 3"},
		{[]int32{0, 0, 0, 0, 0, 0}, maxFaults, "one group"},
	} {
		if n, why := GroupFaults(links, c.groups); n != c.faults || why != c.why {
			t.Errorf("groups %v: GroupFaults %d %q, want %d %q", c.groups, n, why, c.faults, c.why)
		}
		if p := NonMinimal(links, c.groups); p != nil {
			t.Errorf("groups %v: NonMinimal %v, want none (no dragonfly's groups)", c.groups, p)
		}
		f, why, err := NewRouterNetwork(hosts, router, 6, links, 0, 1e9, 1e-6, c.groups)
		if err != nil || why != c.why {
			t.Errorf("groups %v: why %q, want %q (err %v)", c.groups, why, c.why, err)
		}
		if got, want := shares(f, 0, 5), "map[direct_router0_to_router2_UP:1 direct_router2_to_router5_UP:1]"; got != want {
			t.Errorf("groups %v: shares %s, want %s (the shortest paths)", c.groups, got, want)
		}
		if f.Measured() != f {
			t.Errorf("groups %v: Measured is not f (no minimal routing to depart from)", c.groups)
		}
	}
}

// TestMinimalDimensionOrder: two groups of SimGrid's dragonfly shape, 2
// chassis of 3 routers each (router g*6 + c*3 + b: group g, chassis c,
// blade b; one host each), a chassis's routers joined all to all, a
// blade's two routers joined, group 0's link to group 1 from its
// chassis 0, blade 1 to group 1's chassis 0, blade 0. Minimal paths are
// taken in dimension order, a chassis's own links first, as SimGrid's
// dragonfly routes: 3 to 2 (chassis 1, blade 0 to chassis 0, blade 2)
// crosses to blade 2 in chassis 1, then to chassis 0 (not to chassis 0
// first); 5 to 11 goes to the global link's blade, then its chassis,
// across, then to blade 2, then chassis 1.
func TestMinimalDimensionOrder(t *testing.T) {
	var links [][2]int32
	for g := int32(0); g < 2; g++ {
		for c := int32(0); c < 2; c++ {
			for b := int32(0); b < 3; b++ {
				for b2 := b + 1; b2 < 3; b2++ {
					links = append(links, [2]int32{g*6 + c*3 + b, g*6 + c*3 + b2})
				}
			}
		}
		for b := int32(0); b < 3; b++ {
			links = append(links, [2]int32{g*6 + b, g*6 + 3 + b})
		}
	}
	links = append(links, [2]int32{1, 6})
	var hosts []string
	var router []int32
	groups := make([]int32, 12)
	for r := range int32(12) {
		hosts, router, groups[r] = append(hosts, fmt.Sprintf("n%d", r)), append(router, r), r/6
	}
	f, why, err := NewRouterNetwork(hosts, router, 12, links, 0, 1e9, 1e-6, groups)
	if err != nil || why != "" {
		t.Fatal(err, why)
	}
	for _, c := range []struct {
		a, b int
		want []int32 // the routers passed
	}{
		{3, 2, []int32{3, 5, 2}},
		{5, 11, []int32{5, 4, 1, 6, 8, 11}},
		{11, 5, []int32{11, 9, 6, 1, 2, 5}},
	} {
		var got []string
		f.RouteShares(c.a, c.b, func(l int32, x float64) {
			if f.Links[l].Class != "node" {
				got = append(got, fmt.Sprintf("%s:%g", f.Links[l].Name, x))
			}
		})
		var want []string
		for i := 1; i < len(c.want); i++ {
			from, to, dir := c.want[i-1], c.want[i], "UP"
			if from > to {
				from, to, dir = to, from, "DOWN"
			}
			want = append(want, fmt.Sprintf("direct_router%d_to_router%d_%s:1", from, to, dir))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%d to %d: %v, want %v", c.a, c.b, got, want)
		}
	}
}

// TestPairGlobals: each pair of groups' global links are priced as one
// link between the two groups, each a share of it. TestMinimalRoutes's
// network: groups 0 and 1 joined by two links (0-2, 1-3), groups 1 and
// 2 by two (3-5, 2-5), groups 0 and 2 by one (1-4); every link 1 GB/s.
func TestPairGlobals(t *testing.T) {
	hosts := []string{"a", "b", "c", "d", "e", "f"}
	links := [][2]int32{{0, 1}, {2, 3}, {4, 5}, {0, 2}, {1, 3}, {1, 4}, {3, 5}, {2, 5}}
	f, why, err := NewRouterNetwork(hosts, []int32{0, 1, 2, 3, 4, 5}, 6, links, 0, 1e9, 1e-6, []int32{0, 0, 1, 1, 2, 2})
	if err != nil || why != "" {
		t.Fatal(err, why)
	}
	want := map[string]float64{"0_to_router1": 1e9, "2_to_router3": 1e9, "4_to_router5": 1e9, "0_to_router2": 0.5e9, "1_to_router3": 0.5e9,
		"1_to_router4": 1e9, "3_to_router5": 0.5e9, "2_to_router5": 0.5e9}
	for _, l := range f.Links {
		if l.Class == "node" {
			continue
		}
		for end, bw := range want {
			if strings.Contains(l.Name, "router"+end+"_") && l.Bandwidth != bw {
				t.Errorf("%s (%s): %.3g B/s, want %.3g", l.Name, l.Class, l.Bandwidth, bw)
			}
		}
	}
	s, _ := f.Routed(RoutingAdaptive)
	for l := range f.Links {
		if s.Links[l].Bandwidth != f.Links[l].Bandwidth {
			t.Errorf("routed adaptive: %s at %.3g B/s, %.3g routed minimally", s.Links[l].Name, s.Links[l].Bandwidth, f.Links[l].Bandwidth)
		}
	}
}
