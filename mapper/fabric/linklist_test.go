package fabric

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// hyperX2x2 is a 2 x 2 HyperX as a list of links: four switches, each
// joined to the other of its row and of its column, a host on each.
const hyperX2x2 = `# a 2 x 2 HyperX
host h00 h01 h10 h11
h00 s00 100Gb/s 100ns
h01 s01 100Gb/s 100ns
h10 s10 100Gb/s 100ns
h11 s11 100Gb/s 100ns
s00 s01 50GB/s 0.3us row
s10 s11 50GB/s 0.3us row
s00 s10 50GB/s 0.3us col
s01 s11 50GB/s 0.3us col
`

// TestLinkListHyperX: the list's units (100 Gbit/s is 12.5 GB/s), its
// classes, one shortest path a pair routed static, and adaptive the
// even spread of h00 -> h11 over its two shortest paths (by the row
// first or by the column first): at each hop the shares sum to 1, half
// each way.
func TestLinkListHyperX(t *testing.T) {
	f, err := Parse([]byte(hyperX2x2))
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != KindGraph || len(f.Hosts) != 4 || !slices.Equal(f.Classes(), []string{"node", "row", "col"}) {
		t.Fatalf("kind %s, hosts %v, classes %v", f.Kind, f.Hosts, f.Classes())
	}
	if l := linkByName(t, f, "h00-s00_UP"); l.Bandwidth != 12.5e9 || math.Abs(l.Latency-1e-7) > 1e-18 {
		t.Errorf("h00's link: %+v, want 12.5e9 B/s and 100 ns", l)
	}
	if l := linkByName(t, f, "s00-s01_DOWN"); l.Bandwidth != 50e9 || math.Abs(l.Latency-3e-7) > 1e-18 {
		t.Errorf("a row link: %+v, want 5e10 B/s and 0.3 us", l)
	}
	if p := f.Path(0, 3); len(p) != 4 || f.Routing != RoutesShortest {
		t.Errorf("static h00 -> h11: %v (routing %q), want one path of 4 links", linkNames(f, p), f.Routing)
	}
	a, err := f.Routed(RoutingAdaptive)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	a.RouteShares(0, 3, func(l int32, x float64) { got[a.Links[l].Name] += x })
	hops := [][]string{
		{"h00-s00_UP"},
		{"s00-s01_UP", "s00-s10_UP"},
		{"s01-s11_UP", "s10-s11_UP"},
		{"h11-s11_DOWN"},
	}
	n := 0
	for i, hop := range hops {
		sum := 0.0
		for _, name := range hop {
			sum += got[name]
			n++
			if want := 1 / float64(len(hop)); math.Abs(got[name]-want) > 1e-12 {
				t.Errorf("hop %d: %s carries %g of the message, want %g", i, name, got[name], want)
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("hop %d: shares sum to %g, want 1", i, sum)
		}
	}
	if len(got) != n {
		t.Errorf("h00 -> h11 spread over %v, want only the links of its two shortest paths", got)
	}
}

// TestLinkListHosts: without a host line the ends of one link are the
// hosts; where every end has several, every end is one (a ring of four
// nodes that route: n0 -> n2 two links either way round).
func TestLinkListHosts(t *testing.T) {
	f, err := Parse([]byte(strings.Replace(hyperX2x2, "host h00 h01 h10 h11\n", "", 1)))
	if err != nil || !slices.Equal(f.Hosts, []string{"h00", "h01", "h10", "h11"}) {
		t.Fatalf("hosts by degree: %v, %v", f.Hosts, err)
	}
	ring, err := Parse([]byte("n0 n1 1GB/s 1us\nn1 n2 1GB/s 1us\nn2 n3 1GB/s 1us\nn3 n0 1GB/s 1us\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ring.Hosts) != 4 || len(ring.Path(0, 2)) != 2 {
		t.Errorf("ring: hosts %v, n0 -> n2 %v", ring.Hosts, linkNames(ring, ring.Path(0, 2)))
	}
}

// TestLinkListErrors: each bad line is an error naming it.
func TestLinkListErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a b 1GB/s 1us\nc d fast 1us\n", `line 2: bandwidth "fast"`},
		{"a b 1GB/s 1us\nc d 1GB/s soon\n", `line 2: latency "soon"`},
		{"a b 1GB/s 1us\na a 1GB/s 1us\n", "line 2: a link from a to itself"},
		{"a b 1GB/s 1us\nc d 1GB/s 1us 2 3\n", "line 2: \"c d 1GB/s 1us 2 3\": want"},
		{"host a x\na b 1GB/s 1us\n", "host x is on no link"},
		{"host a b\na s 1GB/s 1us\nb t 1GB/s 1us\n", "do not join"},
	} {
		if _, err := Parse([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.in, err, c.want)
		}
	}
}

// TestCrayWiring reads testdata/cray-small.wiring (two groups, three
// chassis, four Aries routers): its nodes from the processor tiles,
// each two routers one link of the tiles' rates added up (3 black tiles:
// 15.75 GB/s), routed minimal adaptive, grouped by router, chassis and
// group; with xtprocadmin's table its nodes take their nid names.
func TestCrayWiring(t *testing.T) {
	wiring := filepath.Join("testdata", "cray-small.wiring")
	f, err := Read(wiring)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"c0-0c0s0n0", "c0-0c0s0n1", "c0-0c0s0n2", "c0-0c0s0n3", "c0-0c0s1n0", "c1-0c0s0n1"}
	if !slices.Equal(f.Hosts, want) || f.Routing != RoutesSpread {
		t.Fatalf("hosts %v, routing %q; want %v, spread", f.Hosts, f.Routing, want)
	}
	for name, bw := range map[string]float64{
		"green_c0-0c0s0a0_c0-0c0s1a0_UP": AriesGreen,
		"black_c0-0c0s0a0_c0-0c1s0a0_UP": 3 * AriesBlack,
		"blue_c0-0c0s1a0_c1-0c0s0a0_UP":  AriesBlue,
	} {
		if l := linkByName(t, f, name); l.Bandwidth != bw {
			t.Errorf("%s: %g B/s, want %g", name, l.Bandwidth, bw)
		}
	}
	var route []string
	f.RouteShares(0, 5, func(l int32, x float64) {
		route = append(route, f.Links[l].Name)
		if x != 1 {
			t.Errorf("%s carries %g of c0-0c0s0n0 -> c1-0c0s0n1, its one shortest path", f.Links[l].Name, x)
		}
	})
	if w := []string{"node_c0-0c0s0n0_UP", "green_c0-0c0s0a0_c0-0c0s1a0_UP", "blue_c0-0c0s1a0_c1-0c0s0a0_UP", "node_c1-0c0s0n1_DOWN"}; !slices.Equal(route, w) {
		t.Errorf("c0-0c0s0n0 -> c1-0c0s0n1: %v, want %v", route, w)
	}
	levels := map[string][]int{"router": {0, 0, 0, 0, 1, 2}, "chassis": {0, 0, 0, 0, 0, 1}, "group": {0, 0, 0, 0, 0, 1}}
	for _, lv := range f.Levels {
		if !slices.Equal(lv.Group, levels[lv.Name]) {
			t.Errorf("level %s (%s): %v, want %v", lv.Name, lv.Class, lv.Group, levels[lv.Name])
		}
		delete(levels, lv.Name)
	}
	if len(levels) > 0 {
		t.Errorf("levels missing: %v", levels)
	}
	n, err := ReadAll([]string{wiring, filepath.Join("testdata", "cray-small.nids")})
	if err != nil {
		t.Fatal(err)
	}
	if w := []string{"nid00000", "nid00001", "nid00002", "nid00003", "nid00004", "nid00193"}; !slices.Equal(n.Hosts, w) {
		t.Errorf("named by xtprocadmin: %v, want %v", n.Hosts, w)
	}
	if _, err := Parse([]byte("c0-0c0s0a0l00(0:0:0) X+ -> c0-0c0s1a0l00(0:0:1)\n")); err == nil || !strings.Contains(err.Error(), "line 1: link class \"X+\"") {
		t.Errorf("a Gemini line: error %v", err)
	}
}
