package fabric

import (
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
)

// ringGraph is four switches s0-s1-s2-s3-s0 in a ring, host hK on sK,
// every link 1 GB/s and 1 us: between h0 and h2 two paths are as short
// (over s1 or over s3).
func ringGraph() *Graph {
	g := &Graph{}
	var sw [4]int32
	for i := range sw {
		sw[i] = g.Switch("s" + string(rune('0'+i)))
		h := g.Host("h" + string(rune('0'+i)))
		g.Connect(h, sw[i], "h"+string(rune('0'+i)), "", 1e9, 1e-6)
	}
	for i := range sw {
		j := (i + 1) % 4
		g.Connect(sw[i], sw[j], "s"+string(rune('0'+i))+"s"+string(rune('0'+j)), "", 1e9, 1e-6)
	}
	return g
}

// linkNames names links.
func linkNames(f *Fabric, links []int32) []string {
	var out []string
	for _, l := range links {
		out = append(out, f.Links[l].Name)
	}
	return out
}

// TestGraphShortestPaths: on the ring, h0 -> h1 is the one shortest
// path (h0's link, s0-s1, h1's link back); h0 -> h2 has two as short,
// taken by the destination's number mod 2 (2 mod 2 = 0: the first
// added, over s1), as h1 -> h3 (the second, over s2); spread, half the message goes each way and every
// link's share is what crosses it.
func TestGraphShortestPaths(t *testing.T) {
	f, err := NewGraph(ringGraph())
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != KindGraph || f.Routing != RoutesShortest || len(f.Hosts) != 4 || len(f.Links) != 16 {
		t.Fatalf("kind %s, routing %q, %d hosts, %d links", f.Kind, f.Routing, len(f.Hosts), len(f.Links))
	}
	for _, c := range []struct {
		a, b int
		want string
	}{
		{0, 1, "h0_UP s0s1_UP h1_DOWN"},
		{0, 2, "h0_UP s0s1_UP s1s2_UP h2_DOWN"},
		// From s1 to h3 over s0 or over s2, in the order added:
		// 3 mod 2 = 1, the second, over s2.
		{1, 3, "h1_UP s1s2_UP s2s3_UP h3_DOWN"},
		{1, 0, "h1_UP s0s1_DOWN h0_DOWN"},
		{0, 3, "h0_UP s3s0_DOWN h3_DOWN"},
	} {
		if got := strings.Join(linkNames(f, f.Path(c.a, c.b)), " "); got != c.want {
			t.Errorf("route %d -> %d: %s, want %s", c.a, c.b, got, c.want)
		}
	}
	// Classes by where links stand: host links "node", the ring's
	// switches all leaf switches (peers at height 0).
	if c := f.Classes(); !slices.Equal(c, []string{"node", "peer-0"}) {
		t.Errorf("classes %v, want node, peer-0", c)
	}
	a, err := f.Routed(RoutingAdaptive)
	if err != nil || a.Routing != RoutesSpread {
		t.Fatalf("adaptive: %v, routing %q", err, a.Routing)
	}
	got := map[string]float64{}
	a.RouteShares(0, 2, func(l int32, x float64) { got[a.Links[l].Name] += x })
	want := map[string]float64{"h0_UP": 1, "s0s1_UP": 0.5, "s1s2_UP": 0.5, "s3s0_DOWN": 0.5, "s2s3_DOWN": 0.5, "h2_DOWN": 1}
	if len(got) != len(want) {
		t.Errorf("spread 0 -> 2 over %v, want %v", got, want)
	}
	for name, x := range want {
		if math.Abs(got[name]-x) > 1e-12 {
			t.Errorf("spread 0 -> 2: %s carries %g, want %g (all: %v)", name, got[name], x, got)
		}
	}
}

// TestGraphLatencyBreaksTies: of two paths as short by hops, the one of
// least latency is taken, whatever the destination's number.
func TestGraphLatencyBreaksTies(t *testing.T) {
	g := ringGraph()
	g.Links[10].Latency = 5e-6 // s1s2_UP: the way over s1 is slower
	f, err := NewGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(linkNames(f, f.Path(0, 2)), " "); got != "h0_UP s3s0_DOWN s2s3_DOWN h2_DOWN" {
		t.Errorf("route 0 -> 2: %s, want the way over s3", got)
	}
}

// TestGraphErrors: a host the links do not join, and a vertex named as
// both a host and a switch.
func TestGraphErrors(t *testing.T) {
	g := ringGraph()
	g.Host("lonely")
	if _, err := NewGraph(g); err == nil || !strings.Contains(err.Error(), "lonely") {
		t.Errorf("a host without links: error %v, want one naming it", err)
	}
	g = ringGraph()
	g.Switch("h1")
	if _, err := NewGraph(g); err == nil || !strings.Contains(err.Error(), "h1 is named both") {
		t.Errorf("h1 as a switch too: error %v", err)
	}
}

// TestForwardingTables: tables that send h0's traffic for h1 the long
// way round the ring (s0 -> s3 -> s2 -> s1) are followed link by link;
// a table that sends it back round a loop, or has no entry, is an error
// naming the switch and the host.
func TestForwardingTables(t *testing.T) {
	g := ringGraph()
	// Vertices: s0 0, h0 1, s1 2, h1 3, s2 4, h2 5, s3 6, h3 7; links:
	// switch's links: hK_UP 2K and hK_DOWN 2K+1, then the ring's
	// s0s1 8 (UP, s0 -> s1) and 9 (DOWN), s1s2 10, 11, s2s3 12, 13,
	// s3s0 14, 15.
	down := map[int32]int32{0: 1, 2: 3, 4: 5, 6: 7} // switch -> link to its host
	// Counter-clockwise: s0 -> s3 is s3s0_DOWN (15), s1 -> s0 s0s1_DOWN
	// (9), s2 -> s1 s1s2_DOWN (11), s3 -> s2 s2s3_DOWN (13).
	ccw := map[int32]int32{0: 15, 2: 9, 4: 11, 6: 13}
	sw := map[int]int32{0: 0, 1: 2, 2: 4, 3: 6}
	g.Forward = func(v int32, h int) int32 {
		if v == sw[h] {
			return down[v]
		}
		return ccw[v]
	}
	f, err := NewGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	if f.Routing != RoutesFromTables {
		t.Errorf("routing %q", f.Routing)
	}
	want := "h0_UP s3s0_DOWN s2s3_DOWN s1s2_DOWN h1_DOWN"
	if got := strings.Join(linkNames(f, f.Path(0, 1)), " "); got != want {
		t.Errorf("route h0 -> h1 by the tables: %s, want %s", got, want)
	}
	// Adaptive: shortest paths again, the tables set aside.
	if a, _ := f.Routed(RoutingAdaptive); a.Routing != RoutesSpread || len(a.Path(0, 1)) != 3 {
		t.Errorf("adaptive: routing %q, path %v", a.Routing, linkNames(a, a.Path(0, 1)))
	}
	// s3 sends traffic for h1 back to s0: s0 -> s3 -> s0.
	g = ringGraph()
	g.Forward = func(v int32, h int) int32 {
		switch {
		case v == sw[h]:
			return down[v]
		case v == 6 && h == 1:
			return 14 // s3s0_UP
		}
		return ccw[v]
	}
	if _, err := NewGraph(g); err == nil || !strings.Contains(err.Error(), "traffic for host h1 goes round a loop: s0 -> s3 -> s0") {
		t.Errorf("a loop: error %v", err)
	}
	g = ringGraph()
	g.Forward = func(v int32, h int) int32 {
		if v == 4 && h == 3 {
			return -1
		}
		if v == sw[h] {
			return down[v]
		}
		return ccw[v]
	}
	if _, err := NewGraph(g); err == nil || !strings.Contains(err.Error(), "switch s2 has no forwarding entry for host h3") {
		t.Errorf("a missing entry: error %v", err)
	}
}

// TestRestrict: a fabric of four hosts restricted to two, in the other
// order, routes them as the whole does (over the switches of the hosts
// left out), groups them afresh, and names the hosts it lacks.
func TestRestrict(t *testing.T) {
	g := ringGraph()
	f, err := NewGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.Restrict([]string{"h2", "h0"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Hosts, []string{"h2", "h0"}) || len(r.Links) != len(f.Links) {
		t.Fatalf("restricted: hosts %v, %d links", r.Hosts, len(r.Links))
	}
	if got, want := linkNames(r, r.Path(1, 0)), linkNames(f, f.Path(0, 2)); !slices.Equal(got, want) {
		t.Errorf("restricted h0 -> h2: %v, want the whole fabric's %v", got, want)
	}
	a, _ := r.Routed(RoutingAdaptive)
	n := 0
	a.RouteShares(1, 0, func(int32, float64) { n++ })
	if n != 6 {
		t.Errorf("restricted, adaptive: %d links crossed h0 -> h2, want 6 (both ways round)", n)
	}
	if _, err := f.Restrict([]string{"h1", "x9", "h0", "y7"}); err == nil || !strings.Contains(err.Error(), "2 of the 4 hosts: x9, y7") {
		t.Errorf("missing hosts: error %v", err)
	}
	if _, err := f.Restrict([]string{"h1", "h1"}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a host twice: error %v", err)
	}
}

// TestSlurmGraph: a topology.conf whose leaves are each under two
// spines is a graph, its leaves the hosts' groups; adaptive, a message
// between the leaves goes half over each spine.
func TestSlurmGraph(t *testing.T) {
	f, err := Parse([]byte("SwitchName=l0 Nodes=a,b\nSwitchName=l1 Nodes=c\nSwitchName=s0 Switches=l[0-1]\nSwitchName=s1 Switches=l[0-1]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != KindGraph || !slices.Equal(f.Hosts, []string{"a", "b", "c"}) || len(f.Levels) != 1 || !slices.Equal(f.Levels[0].Group, []int{0, 0, 1}) {
		t.Fatalf("kind %s, hosts %v, levels %+v", f.Kind, f.Hosts, f.Levels)
	}
	a, _ := f.Routed(RoutingAdaptive)
	got := map[string]float64{}
	a.RouteShares(0, 2, func(l int32, x float64) { got[a.Links[l].Name] += x })
	want := map[string]float64{"node_a_UP": 1, "l0-s0_UP": 0.5, "l0-s1_UP": 0.5, "l1-s0_DOWN": 0.5, "l1-s1_DOWN": 0.5, "node_c_DOWN": 1}
	if !maps.Equal(got, want) {
		t.Errorf("a -> c spread: %v, want %v", got, want)
	}
}
