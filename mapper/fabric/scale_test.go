package fabric

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// hyperX is a k x k HyperX of switches, each joined to every other of
// its row and of its column, with per hosts on each: host h on switch
// h/per, switch s at row s/k, column s%k. Where dor is set, the switches'
// forwarding tables route in dimension order: along the row to the
// destination's column, then along the column.
func hyperX(k, per int, dor bool) *Graph {
	g := &Graph{}
	sw := make([]int32, k*k)
	for s := range sw {
		sw[s] = g.Switch(fmt.Sprintf("s%d", s))
		for i := 0; i < per; i++ {
			name := fmt.Sprintf("h%d", s*per+i)
			g.Connect(g.Host(name), sw[s], name, "", 25e9, 1e-7)
		}
	}
	// toward[s][t]: the link from switch s to switch t (one hop apart).
	toward := make([]map[int]int32, k*k)
	for s := range toward {
		toward[s] = map[int]int32{}
	}
	for s := 0; s < k*k; s++ {
		for t := s + 1; t < k*k; t++ {
			if s/k == t/k || s%k == t%k {
				toward[s][t], toward[t][s] = g.Connect(sw[s], sw[t], fmt.Sprintf("s%d-s%d", s, t), "", 50e9, 3e-7)
			}
		}
	}
	if dor {
		down := func(h int) int32 { return int32(2*h + 1) } // host h's links: 2h up, 2h+1 down
		g.Forward = func(v int32, h int) int32 {
			s, t := int(v)/(per+1), h/per // each switch is added before its hosts
			switch {
			case s == t:
				return down(h)
			case s%k != t%k:
				return toward[s][s/k*k+t%k]
			}
			return toward[s][t]
		}
	}
	return g
}

// TestGraphScale: a 32 x 32 HyperX with 2 hosts a switch (1,024
// switches, 2,048 hosts, 65,536 link directions) builds, routes and
// checks its forwarding tables in about a second each on one core:
// every route from every host to 32 of 256 destinations has the hops the
// coordinates say (2 host links, and one switch hop a coordinate that
// differs), routed by the tables or by shortest paths, and a message
// spread over the shortest paths leaves its source whole.
func TestGraphScale(t *testing.T) {
	const k, per = 32, 2
	for _, dor := range []bool{false, true} {
		start := time.Now()
		f, err := NewGraph(hyperX(k, per, dor))
		if err != nil {
			t.Fatal(err)
		}
		built := time.Since(start)
		if len(f.Hosts) != k*k*per || f.Routing != map[bool]string{false: RoutesShortest, true: RoutesFromTables}[dor] {
			t.Fatalf("%d hosts, routing %q", len(f.Hosts), f.Routing)
		}
		start = time.Now()
		n := 0
		for a := range f.Hosts {
			for j := 0; j < 32; j++ {
				b := (a*7 + j*331) % 256 * 8
				if a == b {
					continue
				}
				sa, sb := a/per, b/per
				want := 2
				if sa/k != sb/k {
					want++
				}
				if sa%k != sb%k {
					want++
				}
				if sa == sb {
					want = 2
				}
				if got := len(f.Path(a, b)); got != want {
					t.Fatalf("dor %v: h%d -> h%d crosses %d links, want %d", dor, a, b, got, want)
				}
				n++
			}
		}
		routed := time.Since(start)
		t.Logf("dor %v: built (tables checked) in %v, %d routes in %v", dor, built, n, routed)
		if built > 20*time.Second || routed > 60*time.Second {
			t.Errorf("dor %v: built in %v, routed in %v", dor, built, routed)
		}
	}
	f, err := NewGraph(hyperX(k, per, false))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := f.Routed(RoutingAdaptive)
	out := 0.0
	a.RouteShares(0, len(f.Hosts)-1, func(l int32, x float64) {
		if a.Links[l].Name == "h0_UP" {
			out += x
		}
	})
	if math.Abs(out-1) > 1e-12 {
		t.Errorf("spread h0 -> the last host: %g of the message leaves h0, want 1", out)
	}
}

// BenchmarkGraphRoutes routes every host of the 32 x 32 HyperX to one
// destination after another (each destination's search, then its
// routes).
func BenchmarkGraphRoutes(b *testing.B) {
	f, err := NewGraph(hyperX(32, 2, false))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dst := i % len(f.Hosts)
		for a := range f.Hosts {
			f.Route(a, dst, func(int32) {})
		}
	}
}
