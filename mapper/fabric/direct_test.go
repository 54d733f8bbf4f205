package fabric

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestDirectRoutes: on a direct network of a 4 x 3 torus (x first),
// Route's path from every host to every other is as many links as the
// hops between them, each leaving the host the one before reached; and
// RouteShares moves the whole message out of the source and into the
// destination, its shares summing to the hops (every byte crosses that
// many links). Links that leave a host alone are an error.
func TestDirectRoutes(t *testing.T) {
	const x, y = 4, 3
	hosts := make([]string, x*y)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("n%d", i)
	}
	var links [][2]int32
	for p := 0; p < x*y; p++ {
		for _, q := range []int{p/x*x + (p%x+1)%x, (p + x) % (x * y)} {
			links = append(links, [2]int32{int32(min(p, q)), int32(max(p, q))})
		}
	}
	f, err := NewDirect(hosts, links, 0, 1e9, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	// Each link's ends, from its name's order of creation: link 2i is
	// links[i] a -> b, 2i+1 b -> a.
	end := func(l int32) (from, to int) {
		p := links[l/2]
		if l%2 == 0 {
			return int(p[0]), int(p[1])
		}
		return int(p[1]), int(p[0])
	}
	hops := func(a, b int) int {
		dx, dy := (a%x-b%x+x)%x, (a/x-b/x+y)%y
		return min(dx, x-dx) + min(dy, y-dy)
	}
	for a := range hosts {
		for b := range hosts {
			path := f.Path(a, b)
			if len(path) != hops(a, b) {
				t.Fatalf("%d -> %d: %d links, want %d hops", a, b, len(path), hops(a, b))
			}
			at := a
			for _, l := range path {
				from, to := end(l)
				if from != at {
					t.Fatalf("%d -> %d: link %s leaves %d, the path is at %d", a, b, f.Links[l].Name, from, at)
				}
				at = to
			}
			var out, in, sum float64
			f.RouteShares(a, b, func(l int32, share float64) {
				from, to := end(l)
				if from == a {
					out += share
				}
				if to == b {
					in += share
				}
				sum += share
			})
			if a != b && (math.Abs(out-1) > 1e-12 || math.Abs(in-1) > 1e-12 || math.Abs(sum-float64(hops(a, b))) > 1e-9) {
				t.Errorf("%d -> %d: %.3g leaves, %.3g arrives, %.3g crossed; want 1, 1, %d", a, b, out, in, sum, hops(a, b))
			}
		}
	}
	if _, err := NewDirect(hosts[:3], [][2]int32{{0, 1}}, 0, 1e9, 0); err == nil {
		t.Error("host 2 joined by no link: no error")
	}
}

// TestRouterNetworkRoutes: on a ring of 4 routers with 2 hosts each,
// a message between the hosts of one router crosses their node links
// alone; one to the opposite router leaves over its node link, splits
// half and half over the ring's two ways (two hops each) and arrives
// over the destination's node link; one to the next router crosses the
// one link between them. Route takes one of the ways whole. A host on
// a router the network does not have is an error.
func TestRouterNetworkRoutes(t *testing.T) {
	hosts := []string{"a0", "a1", "b0", "b1", "c0", "c1", "d0", "d1"}
	router := []int32{0, 0, 1, 1, 2, 2, 3, 3}
	f, _, err := NewRouterNetwork(hosts, router, 4, [][2]int32{{0, 1}, {1, 2}, {2, 3}, {0, 3}}, 0, 1e9, 1e-6, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(f.Links); got != 2*len(hosts)+2*4 {
		t.Fatalf("%d links, want %d node links and 8 between routers", got, 2*len(hosts))
	}
	shares := func(a, b int) map[string]float64 {
		m := map[string]float64{}
		f.RouteShares(a, b, func(l int32, x float64) { m[f.Links[l].Name] += x })
		return m
	}
	for _, c := range []struct {
		a, b int
		want map[string]float64
	}{
		{0, 1, map[string]float64{"node_a0_UP": 1, "node_a1_DOWN": 1}},
		{1, 4, map[string]float64{"node_a1_UP": 1, "direct_router0_to_router1_UP": 0.5, "direct_router1_to_router2_UP": 0.5,
			"direct_router0_to_router3_UP": 0.5, "direct_router2_to_router3_DOWN": 0.5, "node_c0_DOWN": 1}},
		{7, 0, map[string]float64{"node_d1_UP": 1, "direct_router0_to_router3_DOWN": 1, "node_a0_DOWN": 1}},
	} {
		if got := shares(c.a, c.b); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s to %s: shares %v, want %v", hosts[c.a], hosts[c.b], got, c.want)
		}
		var path []string
		f.Route(c.a, c.b, func(l int32) { path = append(path, f.Links[l].Name) })
		if want := map[int]int{0: 2, 1: 4, 7: 3}[c.a]; len(path) != want {
			t.Errorf("%s to %s: route %v, want %d links", hosts[c.a], hosts[c.b], path, want)
		}
	}
	if _, _, err := NewRouterNetwork(hosts, []int32{0, 0, 1, 1, 2, 2, 3, 4}, 4, [][2]int32{{0, 1}, {1, 2}, {2, 3}}, 0, 1e9, 1e-6, nil); err == nil {
		t.Error("a host on router 4 of 4: no error")
	}
}

// TestRouterNetworkShortcut: routers 0-1, 0-2, 1-3 and 3-4, and a
// shortcut 2-3 (the last link given: two routers of SimGrid's chassis
// 1, whose messages cross their own link and chassis 0's link into the
// destination). A message that ends over the shortcut also crosses the
// link into its destination of the path the other links give (2 to 3:
// 1 to 3; 3 to 2: 0 to 2), whole and spread alike; one that passes
// over it (2 to 4) crosses the shortcut alone; without the shortcut
// counted, none does.
func TestRouterNetworkShortcut(t *testing.T) {
	hosts := []string{"h0", "h1", "h2", "h3", "h4"}
	links := [][2]int32{{0, 1}, {0, 2}, {1, 3}, {3, 4}, {2, 3}}
	for _, c := range []struct {
		shortcuts int
		want      map[[2]int]string
	}{
		{1, map[[2]int]string{
			{2, 3}: "node_h2_UP direct_router2_to_router3_UP direct_router1_to_router3_UP node_h3_DOWN",
			{3, 2}: "node_h3_UP direct_router2_to_router3_DOWN direct_router0_to_router2_UP node_h2_DOWN",
			{2, 4}: "node_h2_UP direct_router2_to_router3_UP direct_router3_to_router4_UP node_h4_DOWN",
		}},
		{0, map[[2]int]string{
			{2, 3}: "node_h2_UP direct_router2_to_router3_UP node_h3_DOWN",
			{3, 2}: "node_h3_UP direct_router2_to_router3_DOWN node_h2_DOWN",
			{2, 4}: "node_h2_UP direct_router2_to_router3_UP direct_router3_to_router4_UP node_h4_DOWN",
		}},
	} {
		f, _, err := NewRouterNetwork(hosts, []int32{0, 1, 2, 3, 4}, 5, links, c.shortcuts, 1e9, 1e-6, nil)
		if err != nil {
			t.Fatal(err)
		}
		for ab, want := range c.want {
			var path, spread []string
			f.Route(ab[0], ab[1], func(l int32) { path = append(path, f.Links[l].Name) })
			f.RouteShares(ab[0], ab[1], func(l int32, x float64) {
				if x != 1 {
					t.Errorf("%d shortcuts, %v: %s carries %g of the message, want all", c.shortcuts, ab, f.Links[l].Name, x)
				}
				spread = append(spread, f.Links[l].Name)
			})
			if got := strings.Join(path, " "); got != want || strings.Join(spread, " ") != want {
				t.Errorf("%d shortcuts, router %d to %d: route %s, spread %v; want %s", c.shortcuts, ab[0], ab[1], got, spread, want)
			}
		}
	}
	if _, _, err := NewRouterNetwork(hosts, []int32{0, 1, 2, 3, 4}, 5, links, 6, 1e9, 1e-6, nil); err == nil {
		t.Error("6 shortcuts among 5 links: no error")
	}
}
