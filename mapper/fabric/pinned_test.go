package fabric

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCandidatesPinned: on a ring of four routers (0-1-3-2-0), two
// hosts each, a flow between diagonal routers has two shortest paths
// (over router 1 or 2), Route's own first; a flow between neighbours
// one. Pinned sends the one pinned pair over the other path, by Route
// and RouteShares alike, and leaves the rest as they were; routed
// adaptive (f spreads every flow already) it is itself.
func TestCandidatesPinned(t *testing.T) {
	hosts := []string{"a0", "b0", "a1", "b1", "a2", "b2", "a3", "b3"}
	router := []int32{0, 0, 1, 1, 2, 2, 3, 3}
	f, _, err := NewRouterNetwork(hosts, router, 4, [][2]int32{{0, 1}, {1, 3}, {3, 2}, {2, 0}}, 0, 1e9, 1e-6, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := func(p []int32) []string {
		var out []string
		for _, l := range p {
			out = append(out, f.Links[l].Name)
		}
		return out
	}
	c := f.Candidates(0, 6, 8) // a0 (router 0) to a3 (router 3)
	if len(c) != 2 || !slices.Equal(c[0], f.Path(0, 6)) {
		t.Fatalf("a0 -> a3: %d candidates %v, want Route's own %v and one more", len(c), c, names(f.Path(0, 6)))
	}
	for _, p := range c {
		if len(p) != 4 {
			t.Errorf("a0 -> a3: candidate %v is not node, two hops, node", names(p))
		}
	}
	if slices.Equal(c[0], c[1]) {
		t.Fatalf("a0 -> a3: the two candidates are one path %v", names(c[0]))
	}
	if got := f.Candidates(0, 2, 8); len(got) != 1 {
		t.Errorf("a0 -> a1 (neighbouring routers): %d candidates, want 1", len(got))
	}
	if got := f.Candidates(0, 6, 1); len(got) != 1 {
		t.Errorf("at most 1: %d candidates", len(got))
	}
	p := f.Pinned(func(a, b int) []int32 {
		if a == 0 && b == 6 {
			return c[1]
		}
		return nil
	})
	if !slices.Equal(p.Path(0, 6), c[1]) {
		t.Errorf("pinned a0 -> a3 routes %v, want %v", names(p.Path(0, 6)), names(c[1]))
	}
	var shared []int32
	p.RouteShares(0, 6, func(l int32, s float64) {
		if s != 1 {
			t.Errorf("pinned a0 -> a3 carries %.2f on %s, want all of it", s, f.Links[l].Name)
		}
		shared = append(shared, l)
	})
	if !slices.Equal(shared, c[1]) {
		t.Errorf("pinned a0 -> a3 shares %v, want %v", names(shared), names(c[1]))
	}
	if !slices.Equal(p.Path(1, 7), f.Path(1, 7)) {
		t.Errorf("b0 -> b3, not pinned, routes %v, want %v as before", names(p.Path(1, 7)), names(f.Path(1, 7)))
	}
	n := 0
	p.RouteShares(1, 7, func(int32, float64) { n++ })
	if n != 6 { // its node links and both paths' two hops, spread as f spreads it
		t.Errorf("b0 -> b3, not pinned, spreads over %d links, want 6", n)
	}
	if a, _ := p.Routed(RoutingAdaptive); a != p {
		t.Errorf("pinned, routed adaptive: %s, want itself", a.Routing)
	}
	if p.Routing != RoutesPinned || f.Routing == RoutesPinned {
		t.Errorf("routing %q (was %q)", p.Routing, f.Routing)
	}
}

// TestGraphCandidates: a list of links routed by shortest paths (a
// guess of the machine's routing, RoutesShortest) offers its other
// shortest paths as candidates, its own route first: on a ring of four
// switches a host each, two paths between opposite hosts, one between
// neighbours. A graph routed by forwarding tables offers its own alone.
func TestGraphCandidates(t *testing.T) {
	const list = "host h[0-3]\nh0 s0 10Gb/s 1us\nh1 s1 10Gb/s 1us\nh2 s2 10Gb/s 1us\nh3 s3 10Gb/s 1us\n" +
		"s0 s1 10Gb/s 1us\ns1 s3 10Gb/s 1us\ns3 s2 10Gb/s 1us\ns2 s0 10Gb/s 1us\n"
	path := filepath.Join(t.TempDir(), "ring.txt")
	if err := os.WriteFile(path, []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Routing != RoutesShortest {
		t.Fatalf("routing %q, want %q", f.Routing, RoutesShortest)
	}
	idx := f.HostIndex()
	c := f.Candidates(idx["h0"], idx["h3"], 8)
	if len(c) != 2 || !slices.Equal(c[0], f.Path(idx["h0"], idx["h3"])) || slices.Equal(c[0], c[1]) || len(c[1]) != 4 {
		t.Errorf("h0 -> h3: candidates %v, want its route %v and one more of 4 links", c, f.Path(idx["h0"], idx["h3"]))
	}
	if got := f.Candidates(idx["h0"], idx["h1"], 8); len(got) != 1 {
		t.Errorf("h0 -> h1: %d candidates, want 1", len(got))
	}
	g := &Graph{}
	a, b, s := g.Host("a"), g.Host("b"), g.Switch("s")
	_, sa := g.Connect(a, s, "a", "", 1e9, 0)
	_, sb := g.Connect(b, s, "b", "", 1e9, 0)
	g.Forward = func(sw int32, h int) int32 { return []int32{sa, sb}[h] }
	tf, err := NewGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	if got := tf.Candidates(0, 1, 8); len(got) != 1 || tf.Routing != RoutesFromTables {
		t.Errorf("forwarding tables (%s): %d candidates, want 1", tf.Routing, len(got))
	}
	if !f.Guessed() || tf.Guessed() {
		t.Errorf("routes a guess: shortest paths %v (want true), forwarding tables %v (want false)", f.Guessed(), tf.Guessed())
	}
}
