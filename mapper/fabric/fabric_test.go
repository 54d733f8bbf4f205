package fabric

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// names is the links of the route from a to b by name.
func names(f *Fabric, a, b int) []string { return linkNames(f, f.Path(a, b)) }

func hostsN(n int) []string {
	var h []string
	for i := 0; i < n; i++ {
		h = append(h, "n"+string(rune('a'+i/26))+string(rune('a'+i%26)))
	}
	return h
}

// TestTorusRoutes: on a 4-ring, SimGrid's rule goes up from 0 to 2 (a
// tie at half the ring, from the lower half), down from 2 to 0, and up
// across the wrap from 3 to 1; on a 4 x 4 torus x comes first.
func TestTorusRoutes(t *testing.T) {
	f, err := NewTorus(hostsN(4), []int{4}, 1e9, 1e-6, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a, b int
		want string
	}{
		{0, 2, "torus_naa_to_nab_UP torus_nab_to_nac_UP"},
		// 2 -> 1 (link 1->2 down), then 1 -> 0 (link 0->1 down).
		{2, 0, "torus_nab_to_nac_DOWN torus_naa_to_nab_DOWN"},
		{3, 1, "torus_nad_to_naa_UP torus_naa_to_nab_UP"},
		{1, 0, "torus_naa_to_nab_DOWN"},
		{0, 3, "torus_nad_to_naa_DOWN"},
	} {
		got := strings.Join(names(f, c.a, c.b), " ")
		if got != c.want {
			t.Errorf("route %d -> %d: %s, want %s", c.a, c.b, got, c.want)
		}
	}
	f2, err := NewTorus(hostsN(16), []int{4, 4}, 1e9, 1e-6, false)
	if err != nil {
		t.Fatal(err)
	}
	// (0,0) -> (1,1) = position 5: x first (to position 1), then y.
	if got := names(f2, 0, 5); !slices.Equal(got, []string{"torus_naa_to_nab_UP", "torus_nab_to_naf_UP"}) {
		t.Errorf("route 0 -> 5 on 4 x 4: %v", got)
	}
	if n := len(f2.Links); n != 16*2*2 {
		t.Errorf("4 x 4 torus: %d link directions, want 64 (16 nodes x 2 dimensions x 2 directions)", n)
	}
}

// TestDragonflyRoutes: two groups of 2 chassis x 2 routers x 2 nodes,
// SimGrid's minimal routes by hand.
func TestDragonflyRoutes(t *testing.T) {
	s := DragonflyShape{Groups: 2, Chassis: 2, Routers: 2, Nodes: 2, Blue: 1, Black: 1, Green: 1}
	f, err := NewDragonfly(hostsN(16), s, 1e9, 1e-6, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a, b int
		want string
	}{
		// Same router: the two local links.
		{0, 1, "local_naa_UP local_nab_DOWN"},
		// Same chassis, blade 0 -> 1: one green link.
		{0, 2, "local_naa_UP green_g0_c0_r0_r1_UP local_nac_DOWN"},
		// Chassis 1 -> chassis 0, same blade: one black link.
		{4, 0, "local_nae_UP black_g0_c0_c1_r0_DOWN local_naa_DOWN"},
		// Group 0 (chassis 1, blade 0) -> group 1 (chassis 1, blade 1):
		// green to blade 1 (the group number), black to chassis 0, the
		// global link, arrive on group 1's blade 0 (the source group),
		// green to blade 1, black to chassis 1.
		{4, 14, "local_nae_UP green_g0_c1_r0_r1_UP black_g0_c0_c1_r1_DOWN blue_g0_g1_UP green_g1_c0_r0_r1_UP black_g1_c0_c1_r1_UP local_nao_DOWN"},
	} {
		if got := strings.Join(names(f, c.a, c.b), " "); got != c.want {
			t.Errorf("route %d -> %d:\n got %s\nwant %s", c.a, c.b, got, c.want)
		}
	}
	if _, err := NewDragonfly(hostsN(24), DragonflyShape{Groups: 3, Chassis: 2, Routers: 2, Nodes: 2, Blue: 1, Black: 1, Green: 1}, 1e9, 0, false); err == nil {
		t.Errorf("3 groups on 2 routers per chassis: want an error")
	}
}

// TestAdaptiveTorusDragonfly: routed adaptive, a 4 x 4 torus spreads
// (0,0) -> (1,1) half x first, half y first, and a tie at half a ring
// half each way round; a dragonfly spreads a message between chassis
// half over each blade's black link, and a message between groups over
// every path as short as the one over their global link. Static routing
// stays one path.
func TestAdaptiveTorusDragonfly(t *testing.T) {
	shares := func(f *Fabric, a, b int) map[string]float64 {
		m := map[string]float64{}
		f.RouteShares(a, b, func(l int32, x float64) { m[f.Links[l].Name] += x })
		return m
	}
	torus, err := NewTorus(hostsN(16), []int{4, 4}, 1e9, 1e-6, false)
	if err != nil {
		t.Fatal(err)
	}
	fly, err := NewDragonfly(hostsN(64), DragonflyShape{Groups: 4, Chassis: 2, Routers: 4, Nodes: 2, Blue: 1, Black: 1, Green: 1}, 1e9, 1e-6, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f    *Fabric
		a, b int
		want map[string]float64
	}{
		{torus, 0, 5, map[string]float64{"torus_naa_to_nab_UP": 0.5, "torus_nab_to_naf_UP": 0.5, "torus_naa_to_nae_UP": 0.5, "torus_nae_to_naf_UP": 0.5}},
		{torus, 0, 2, map[string]float64{"torus_naa_to_nab_UP": 0.5, "torus_nab_to_nac_UP": 0.5, "torus_nad_to_naa_DOWN": 0.5, "torus_nac_to_nad_DOWN": 0.5}},
		// Group 0, chassis 1 blade 1 -> chassis 0 blade 2.
		{fly, 10, 4, map[string]float64{"local_nak_UP": 1, "black_g0_c0_c1_r1_DOWN": 0.5, "green_g0_c0_r1_r2_UP": 0.5,
			"green_g0_c1_r1_r2_UP": 0.5, "black_g0_c0_c1_r2_DOWN": 0.5, "local_nae_DOWN": 1}},
	} {
		a, err := c.f.Routed(RoutingAdaptive)
		if err != nil {
			t.Fatal(err)
		}
		if got := shares(a, c.a, c.b); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s, %d -> %d adaptive: %v, want %v", c.f.Shape, c.a, c.b, got, c.want)
		}
		if got := shares(c.f, c.a, c.b); len(got) != len(names(c.f, c.a, c.b)) {
			t.Errorf("%s, %d -> %d static: %v, not one path", c.f.Shape, c.a, c.b, got)
		}
	}
	// Group 1 chassis 1 blade 3 -> group 2 chassis 1 blade 3, 5 hops:
	// to chassis 0 either way (black first from blade 3, or green to
	// blade 2 first), then group 1's global link to group 2 (from blade
	// 2) or to group 3 (from blade 3: through group 3 is 5 hops too), so
	// 3/4 cross group 1's link to group 2 and 1/4 group 3's.
	a, _ := fly.Routed(RoutingAdaptive)
	got := shares(a, ((1*2+1)*4+3)*2, ((2*2+1)*4+3)*2)
	if got["blue_g1_g2_UP"] != 0.75 || got["blue_g1_g3_UP"] != 0.25 || got["blue_g2_g3_DOWN"] != 0.25 || got["black_g1_c0_c1_r3_DOWN"] != 0.5 {
		t.Errorf("group 1 -> group 2 adaptive: %v", got)
	}
}

// TestSimGridPlatforms reads the simulated clusters of testdata/sim: on
// the 2:1 fat tree, routed d-mod-k, node0's messages to node5 and node6
// (another leaf) leave leaf 0 over its two uplinks (to top switch 1 and
// 0: the destination's position mod 2), each link 1.25 GB/s; routed
// adaptive, over one bundle of both (2.5 GB/s).
func TestSimGridPlatforms(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "sim")
	ft, err := Read(filepath.Join(dir, "fattree-16x4.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if ft.Kind != KindTree || len(ft.Hosts) != 16 || ft.Hosts[15] != "node15" {
		t.Fatalf("fat tree: kind %s, hosts %v", ft.Kind, ft.Hosts)
	}
	for _, c := range []struct {
		routing string
		b       int
		want    []string
		uplink  float64
	}{
		{RoutingStatic, 5, []string{"node_node0_0_0_UP", "ft_1_0_1_0_UP", "ft_1_1_1_0_DOWN", "node_node5_1_0_DOWN"}, 1.25e9},
		{RoutingStatic, 6, []string{"node_node0_0_0_UP", "ft_1_0_0_0_UP", "ft_1_1_0_0_DOWN", "node_node6_1_0_DOWN"}, 1.25e9},
		{RoutingAdaptive, 5, []string{"node_node0_UP", "level1_0_UP", "level1_1_DOWN", "node_node5_DOWN"}, 2.5e9},
		{RoutingAdaptive, 6, []string{"node_node0_UP", "level1_0_UP", "level1_1_DOWN", "node_node6_DOWN"}, 2.5e9},
	} {
		f, err := ft.Routed(c.routing)
		if err != nil {
			t.Fatal(err)
		}
		if got := names(f, 0, c.b); !slices.Equal(got, c.want) {
			t.Errorf("fat tree routed %s, 0 -> %d: %v, want %v", c.routing, c.b, got, c.want)
		}
		for _, l := range f.Path(0, c.b) {
			bw := f.Links[l].Bandwidth
			if w := map[bool]float64{true: 1.25e9, false: c.uplink}[strings.HasPrefix(f.Links[l].Name, "node")]; bw != w {
				t.Errorf("routed %s, %s: %g B/s, want %g", c.routing, f.Links[l].Name, bw, w)
			}
		}
	}
	if _, err := ft.Routed("ugal"); err == nil {
		t.Error("routing ugal: no error")
	}
	tor, err := Read(filepath.Join(dir, "torus-4x4.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if tor.Kind != KindTorus || len(tor.Links) != 64 || tor.Links[0].Latency != 1e-6 {
		t.Errorf("torus: %s, %d links, latency %g", tor.Kind, len(tor.Links), tor.Links[0].Latency)
	}
	// SimGrid's cross traffic: on by default, off where the platform's
	// <config> says so, and kept by adaptive routing.
	if a, _ := ft.Routed(RoutingAdaptive); ft.Reverse != CrossTraffic || tor.Reverse != CrossTraffic || a.Reverse != CrossTraffic {
		t.Errorf("cross traffic: fat tree %g (adaptive %g), torus %g, want %g", ft.Reverse, a.Reverse, tor.Reverse, CrossTraffic)
	}
	const cl = `<cluster id="c" prefix="n" radical="0-3" bw="1Gbps" lat="1us" topology="TORUS" topo_parameters="4"/>`
	for v, want := range map[string]float64{"no": 0, "0": 0, "off": 0, "yes": CrossTraffic, "1": CrossTraffic} {
		f, err := Parse([]byte(`<platform version="4.1"><config><prop id="network/crosstraffic" value="` + v + `"/></config>` + cl + `</platform>`))
		if err != nil || f.Reverse != want {
			t.Errorf("network/crosstraffic %s: error %v, reverse not %g", v, err, want)
		}
	}
	if _, err := Parse([]byte(`<platform><config><prop id="network/crosstraffic" value="maybe"/></config>` + cl + `</platform>`)); err == nil || !strings.Contains(err.Error(), "crosstraffic") {
		t.Errorf("network/crosstraffic maybe: error %v", err)
	}
}

// TestParseErrors: every bad description is an error naming the
// problem.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "empty"},
		{"hello", "not a network description"},
		{`<platform><cluster id="c" prefix="n" radical="0-3" suffix="" bw="1Gbps" lat="1us" topology="TORUS" topo_parameters="3"/></platform>`, "3 torus has 3 nodes, the description names 4"},
		{`<platform><cluster id="c" prefix="n" radical="0-3" bw="fast" lat="1us" topology="TORUS" topo_parameters="4"/></platform>`, "bandwidth"},
		{`<platform><cluster id="c" prefix="n" radical="3-0" bw="1Gbps" lat="1us" topology="TORUS" topo_parameters="4"/></platform>`, "radical"},
		{`<platform><cluster id="c" prefix="n" radical="0-3" bw="1Gbps" lat="1us" topology="FLAT"/></platform>`, "not one latmap routes"},
		{`<platform><cluster id="c" prefix="n" radical="0-3" bw="1Gbps" lat="1us" topology="FAT_TREE" topo_parameters="2;2,2;0,2;1,1"/></platform>`, "want positive integers"},
		{`<platform><cluster id="c" prefix="n" radical="0-3" bw="1Gbps" lat="1us" topology="FAT_TREE" topo_parameters="2;2,2;4000000,4000000;1,1"/></platform>`, "switch ports at a level"},
		{`<platform><cluster id="c" prefix="n" radical="0-3" bw="1Gbps" lat="1us" topology="FAT_TREE" topo_parameters="2;2,4;1,2;1,1"/></platform>`, "has 8 nodes, the cluster 4"},
		{"SwitchName=s0 Nodes=n[0-1]\nSwitchName=s1 Switches=s9", "not declared"},
		{"SwitchName=s0 Nodes=n[0-1]\nSwitchName=s1 Nodes=n1", "under two switches"},
		{"SwitchName=s0 Nodes=n[0-1\n", "unbalanced"},
		{"torus 2x2 bw=1Gbps lat=1us\na 0 0\nb 0 0\n", "position of a"},
		{"torus 2x2 bw=1Gbps lat=1us\na 0 5\n", "out of 0..1"},
		{"dragonfly groups=2,1 chassis=1,1 routers=1,1 nodes=2 bw=1Gbps lat=1us\n", "at most 1 groups"},
	} {
		_, err := Parse([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.in, err, c.want)
		}
	}
}

// TestSlurmAndPlain: a Slurm tree of two leaves under a root, and a
// plain torus whose hosts are listed out of order.
func TestSlurmAndPlain(t *testing.T) {
	f, err := Parse([]byte("# two leaves\nSwitchName=s0 Nodes=tux[01-02]\nSwitchName=s1 Nodes=tux[03-04] LinkSpeed=100\nSwitchName=root Switches=s[0-1]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Hosts, []string{"tux01", "tux02", "tux03", "tux04"}) {
		t.Errorf("hosts %v", f.Hosts)
	}
	if got := len(f.Path(0, 1)); got != 2 {
		t.Errorf("same leaf: %d links, want 2 (up and down the node links)", got)
	}
	if got := len(f.Path(0, 2)); got != 4 {
		t.Errorf("other leaf: %d links, want 4", got)
	}
	p, err := Parse([]byte("torus 2x2 bw=10Gbps lat=1us\nd 1 1\na 0 0\nb 1 0 # x y\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Hosts, []string{"a", "b", "unlisted-2", "d"}) || p.Links[0].Bandwidth != 1.25e9 {
		t.Errorf("plain torus: hosts %v, bandwidth %g", p.Hosts, p.Links[0].Bandwidth)
	}
}

// FuzzParse: no description makes Parse panic, and what it accepts routes
// every pair of hosts over links it has, and its group levels (the switch
// phase's plan on it) give every host a group, none below 0, and links
// of the level's class exist.
func FuzzParse(f *testing.F) {
	for _, p := range []string{"fattree-16x4.xml", "torus-4x4.xml", "fattree-1024.xml", "fattree-16x4-dmodk.xml"} {
		if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sim", p)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("SwitchName=s0 Nodes=n[0-3]\nSwitchName=r Switches=s0\n"))
	f.Add([]byte("torus 2x2 bw=1Gbps lat=1us\na 0 0\n"))
	f.Add([]byte(slurmYAML))
	f.Add([]byte("dragonfly groups=2,1 chassis=1,1 routers=2,1 nodes=1 bw=1Gbps lat=1us\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fab, err := Parse(b)
		if err != nil || len(fab.Hosts) > 64 {
			return
		}
		for a := range fab.Hosts {
			for c := range fab.Hosts {
				for _, l := range fab.Path(a, c) {
					if l < 0 || int(l) >= len(fab.Links) {
						t.Fatalf("route %d -> %d crosses link %d of %d", a, c, l, len(fab.Links))
					}
				}
			}
		}
		for _, lv := range fab.Levels {
			if len(lv.Group) != len(fab.Hosts) || slices.Min(append([]int{0}, lv.Group...)) < 0 || !slices.Contains(fab.Classes(), lv.Class) {
				t.Fatalf("level %s: %d groups for %d hosts, class %s of %v", lv.Name, len(lv.Group), len(fab.Hosts), lv.Class, fab.Classes())
			}
		}
	})
}

// slurmYAML is topology.yaml as Slurm's topology.yaml(5) documents it:
// a tree (the default) and a block topology.
const slurmYAML = `---
- topology: topo1
  cluster_default: true
  tree:
    switches:
      - switch: sw_root
        children: s[1-2]
      - switch: s1
        nodes: node[01-02]
      - switch: s2
        nodes: node[03-04]
- topology: topo2
  cluster_default: false
  block:
    block_sizes:
      - 2
      - 4
    blocks:
      - block: b1
        nodes: node[01-02]
      - block: b2
        nodes: node[03-04]
      - block: b3
        nodes: node[05-06]
`

// TestSlurmYAML: the default topology is the tree (node01 to node03
// crosses both leaves' uplinks); the block topology alone groups blocks
// of 2 nodes, then 2 blocks.
func TestSlurmYAML(t *testing.T) {
	f, err := Parse([]byte(slurmYAML))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Hosts) != 4 || len(f.Path(0, 1)) != 2 || len(f.Path(0, 2)) != 4 {
		t.Errorf("tree: hosts %v, routes %d and %d links, want 4 hosts, 2 and 4", f.Hosts, len(f.Path(0, 1)), len(f.Path(0, 2)))
	}
	i := strings.Index(slurmYAML, "- topology: topo2")
	b, err := Parse([]byte("---\n" + slurmYAML[i:]))
	if err != nil {
		t.Fatal(err)
	}
	// node01 -> node03: other block, same 4-node group: node, block up,
	// block down, node; node01 -> node05: across the 4-node groups too.
	if len(b.Hosts) != 6 || len(b.Path(0, 2)) != 4 || len(b.Path(0, 4)) != 6 {
		t.Errorf("block: hosts %v, routes %d and %d links, want 6 hosts, 4 and 6", b.Hosts, len(b.Path(0, 2)), len(b.Path(0, 4)))
	}
	if _, err := Parse([]byte("- topology: a\n  flat: true\n")); err == nil || !strings.Contains(err.Error(), "flat") {
		t.Errorf("a flat topology: error %v, want one saying it is flat", err)
	}
	if _, err := Parse([]byte("- topology: a\n  tree:\n    switchez: []\n")); err == nil {
		t.Errorf("an unknown key: want an error")
	}
}
