package network

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

// TestFindDirectBlueGeneL: Blue Gene/L's mmpi log names each rank's
// torus coordinates (<x,y,z,t>): 32 nodes, x 0-7 around the machine's
// ring of 8, y 0-3 (a mesh: half of a ring of 8). The links FindDirect
// finds in the round trips alone are exactly the pairs one step apart
// in x (around the ring) or y, and the graph is 4 + 3 hops across.
func TestFindDirectBlueGeneL(t *testing.T) {
	s, err := survey.ReadMMPIFile(filepath.Join("..", "..", "testdata", "mmpi", "blue_gene_ammpi_32_64_100.dat"), survey.MMPIOptions{})
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`<(\d+),(\d+),(\d+),(\d+)>`)
	n := s.N()
	x, y := make([]int, n), make([]int, n)
	for i, r := range s.Ranks {
		m := re.FindStringSubmatch(r.Host)
		if m == nil {
			t.Fatalf("rank %d: no coordinates in %q", i, r.Host)
		}
		x[i], _ = strconv.Atoi(m[1])
		y[i], _ = strconv.Atoi(m[2])
	}
	tab := s.Tables[0]
	d, why := FindDirect(n, func(a, b int) float64 { return (tab.At(survey.Mean, a, b) + tab.At(survey.Mean, b, a)) / 2 })
	if d == nil {
		t.Fatalf("no direct network found: %s", why)
	}
	var want [][2]int32
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			dx, dy := (x[a]-x[b]+8)%8, y[a]-y[b]
			if (dy == 0 && (dx == 1 || dx == 7)) || (dx == 0 && (dy == 1 || dy == -1)) {
				want = append(want, [2]int32{int32(a), int32(b)})
			}
		}
	}
	if !slices.Equal(d.Links, want) {
		t.Errorf("links %v, want the torus neighbours %v", d.Links, want)
	}
	if d.Diameter != 7 || d.MinDegree != 3 || d.MaxDegree != 4 {
		t.Errorf("diameter %d, degrees %d-%d; want 7 and 3-4", d.Diameter, d.MinDegree, d.MaxDegree)
	}
	t.Logf("Blue Gene/L: %d links, %.3f us + %.3f us a hop, residual %.2f of a hop", len(d.Links), d.Base, d.PerHop, d.Residual)
	testutil.Record(t, "the direct network found in Blue Gene/L's mmpi log (32 nodes named by their torus coordinates)", "links found", len(d.Links), "the torus's neighbour pairs", len(want), "diameter, degrees", fmt.Sprintf("%d, %d-%d", d.Diameter, d.MinDegree, d.MaxDegree), "residual (hops)", d.Residual, "held to", "exactly the neighbour pairs; diameter 7, degrees 3-4; residual under FindDirect's 0.3")
}

// TestFindDirectNotTrees: the round trips of switch trees (two and three
// levels, noisy), of a dragonfly's levels (router, chassis, group) and
// of one switch are no direct network: each node's nearest form groups.
func TestFindDirectNotTrees(t *testing.T) {
	for _, spec := range []synth.Spec{
		{Nodes: 16, Sockets: 1, Cores: 1, NodesPerSwitch: 4, RTT: [4]float64{1, 1, 3, 5}, Noise: 0.05, Seed: 1},
		{Nodes: 64, Sockets: 1, Cores: 1, NodesPerSwitch: 4, NodesPerPod: 16, PodRTT: 9, RTT: [4]float64{1, 1, 3, 5}, Noise: 0.1, Seed: 2},
		{Nodes: 32, Sockets: 1, Cores: 1, RTT: [4]float64{1, 1, 4, 4}, Noise: 0.1, Seed: 3},
	} {
		s := synth.New(spec)
		tab := s.Tables[0]
		if d, _ := FindDirect(s.N(), func(a, b int) float64 { return tab.At(survey.Mean, a, b) }); d != nil {
			t.Errorf("%+v: found a direct network %+v", spec, d)
		}
	}
	// A dragonfly: 2 nodes a router, 4 routers a chassis, 2 chassis a
	// group, 4 groups; 1 us more a level.
	const k = 64
	level := func(a, b int) int {
		for l, size := range []int{2, 8, 16, 64} {
			if a/size == b/size {
				return l
			}
		}
		return 4
	}
	rtt := func(a, b int) float64 { return 2 + float64(level(a, b)) + 0.01*math.Sin(float64(a*k+b)) }
	if d, why := FindDirect(k, rtt); d != nil {
		t.Errorf("dragonfly: found a direct network %+v", d)
	} else {
		t.Logf("dragonfly: %s", why)
	}
}

// TestFindDirectTorus: a 3-D torus of 4 x 4 x 2 (a ring of 2 is one
// neighbour each way) with noisy round trips of 3 us + 0.5 a hop.
func TestFindDirectTorus(t *testing.T) {
	dims := []int{4, 4, 2}
	k := 32
	coord := func(p int) []int { return []int{p % 4, p / 4 % 4, p / 16} }
	hops := func(a, b int) int {
		h := 0
		ca, cb := coord(a), coord(b)
		for j, d := range dims {
			x := (ca[j] - cb[j] + d) % d
			h += min(x, d-x)
		}
		return h
	}
	rtt := func(a, b int) float64 { return 3 + 0.5*float64(hops(a, b)) + 0.05*math.Sin(float64(7*a+13*b)) }
	d, why := FindDirect(k, rtt)
	if d == nil {
		t.Fatalf("no direct network: %s", why)
	}
	var want [][2]int32
	for a := 0; a < k; a++ {
		for b := a + 1; b < k; b++ {
			if hops(a, b) == 1 {
				want = append(want, [2]int32{int32(a), int32(b)})
			}
		}
	}
	if !slices.Equal(d.Links, want) || d.Diameter != 5 {
		t.Errorf("links %v (diameter %d), want %v (5)", d.Links, d.Diameter, want)
	}
	if math.Abs(d.PerHop-0.5) > 0.02 || math.Abs(d.Base-3) > 0.05 {
		t.Errorf("fit %.3f + %.3f a hop, want 3 + 0.5", d.Base, d.PerHop)
	}
}

// torusLinks are the node pairs one hop apart on a torus of dims, node p
// at coordinates p mod dims[0], p / dims[0] mod dims[1], ..., renamed
// by name (nil: as numbered).
func torusLinks(dims []int, name func(int) int) [][2]int32 {
	k := 1
	for _, d := range dims {
		k *= d
	}
	if name == nil {
		name = func(p int) int { return p }
	}
	var links [][2]int32
	for a := 0; a < k; a++ {
		for b := a + 1; b < k; b++ {
			h, pa, pb := 0, a, b
			for _, d := range dims {
				x := (pa%d - pb%d + d) % d
				h += min(x, d-x)
				pa, pb = pa/d, pb/d
			}
			if h == 1 {
				links = append(links, [2]int32{int32(name(a)), int32(name(b))})
			}
		}
	}
	return links
}

// TestTorusInOrder: the links of a torus with its nodes numbered in
// coordinate order (x fastest) give back its dimensions, among the
// tori those links also are in another order (4 x 4, 4 x 2 x 2 and
// 2 x 2 x 2 x 2 are one graph); the same links with two nodes' numbers
// swapped, or a mesh's, are no torus in order.
func TestTorusInOrder(t *testing.T) {
	for _, dims := range [][]int{{4, 4}, {4, 2, 2}, {2, 2, 4}, {2, 2, 2, 2}, {8}, {3, 5}, {4, 4, 2}, {6, 4, 3}} {
		k := 1
		for _, d := range dims {
			k *= d
		}
		if got := fabric.TorusInOrder(k, torusLinks(dims, nil)); !slices.Equal(got, dims) {
			t.Errorf("torus %v: TorusInOrder says %v", dims, got)
		}
		swap := func(p int) int {
			switch p {
			case 1:
				return k - 2
			case k - 2:
				return 1
			}
			return p
		}
		if got := fabric.TorusInOrder(k, torusLinks(dims, swap)); got != nil {
			t.Errorf("torus %v with nodes 1 and %d swapped: TorusInOrder says %v, want none", dims, k-2, got)
		}
	}
	// An 8 x 4 mesh in y (Blue Gene/L's 32-node partition): a ring of
	// 4 joins its y ends, a mesh does not.
	var mesh [][2]int32
	for _, l := range torusLinks([]int{8, 4}, nil) {
		if l[1]-l[0] != 24 {
			mesh = append(mesh, l)
		}
	}
	if got := fabric.TorusInOrder(32, mesh); got != nil {
		t.Errorf("an 8 x 4 mesh: TorusInOrder says %v, want none", got)
	}
}

// TestFindDirectShortcuts: the round trips of SimGrid's dragonflies of 4
// groups x 2 chassis x 4 routers and of 2 groups x 2 chassis x 2
// routers, a node each (their routes, quirks included:
// fabric.NewDragonfly), 2 us a link crossed each way. A message between
// two routers of chassis 1 crosses their own link and then chassis 0's
// link into the destination, both ways: those pairs are two links
// apart, and the graph of the one-link pairs routes them over chassis 0
// (3 hops). FindDirect links them: the graph is the dragonfly's, 70
// links (48 within chassis, 16 between the chassis of a group, 6
// between groups; 24 added) and 9 (4, 4 and 1; 2 added). The pairs it
// links are left out of the refit: counted at one hop, the 2 of the
// small one left its hops 0.34 of a hop off, and it routed them over
// chassis 0. With 4 chassis a group (2 groups of 4 chassis of 2
// routers, dragonfly-32x2-4chassis.xml's) any two routers of chassis 1-3
// are two links apart, their own chassis's link and then chassis 0's
// black link, and the one-link graph explains the round trips within
// 0.38 of a hop: all of them are linked (18 added, 6 of them chassis
// 1-3's own links), and the hops explain the rest within 0.3; before,
// no direct network was found there. Blue Gene/L's torus gets none
// (TestFindDirectBlueGeneL).
func TestFindDirectShortcuts(t *testing.T) {
	for _, tc := range []struct {
		groups, chassis, routers, added int
	}{{4, 2, 4, 24}, {2, 2, 2, 2}, {2, 4, 2, 18}} {
		sh := fabric.DragonflyShape{Groups: tc.groups, Chassis: tc.chassis, Routers: tc.routers, Nodes: 1, Blue: 1, Black: 1, Green: 1}
		k := tc.groups * tc.chassis * tc.routers
		hosts := make([]string, k)
		for h := range hosts {
			hosts[h] = "node" + strconv.Itoa(h)
		}
		f, err := fabric.NewDragonfly(hosts, sh, 1e9, 1e-6, false)
		if err != nil {
			t.Fatal(err)
		}
		d, why := FindDirect(k, func(a, b int) float64 { return float64(len(f.Path(a, b))+len(f.Path(b, a))) * 2 })
		if d == nil {
			t.Fatalf("%d groups of %d chassis of %d routers: no direct network: %s", tc.groups, tc.chassis, tc.routers, why)
		}
		var want [][2]int32
		r, c := tc.routers, tc.chassis
		for a := 0; a < k; a++ {
			for b := a + 1; b < k; b++ {
				ga, ca, ra, gb, cb, rb := a/(c*r), a/r%c, a%r, b/(c*r), b/r%c, b%r
				if (ga == gb && (ca == cb || ra == rb || (ca > 0 && cb > 0))) || (ga != gb && ca == 0 && cb == 0 && ra == gb && rb == ga) {
					want = append(want, [2]int32{int32(a), int32(b)})
				}
			}
		}
		slices.SortFunc(d.Links, func(x, y [2]int32) int { return int(x[0]-y[0])*k + int(x[1]-y[1]) })
		if !slices.Equal(d.Links, want) || d.Shortcuts != tc.added {
			t.Errorf("%d groups of %d chassis of %d routers: %d links (%d added): %v; want the dragonfly's %d (%d added): %v", tc.groups, tc.chassis, tc.routers, len(d.Links), d.Shortcuts, d.Links, len(want), tc.added, want)
		}
		if d.Residual > maxHopResidual {
			t.Errorf("%d groups of %d chassis: the hops explain the round trips within %.2f of a hop", tc.groups, tc.chassis, d.Residual)
		}
		t.Logf("%d groups of %d chassis of %d routers: %d links%s, residual %.2f of a hop", tc.groups, tc.chassis, tc.routers, len(d.Links), d.ShortcutsNote(), d.Residual)
	}
}
