package network

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
)

// roundTrips are f's round trips between its hosts: 1 us plus 2 us a
// link, there and back averaged, with uniform noise of up to noise of a
// link either way.
func roundTrips(f *fabric.Fabric, noise float64) func(a, b int) float64 {
	rng := rand.New(rand.NewPCG(7, 7))
	k := len(f.Hosts)
	rtt := make([]float64, k*k)
	for a := 0; a < k; a++ {
		for b := a + 1; b < k; b++ {
			links := float64(len(f.Path(a, b))+len(f.Path(b, a))) / 2
			rtt[a*k+b] = 1e-6 + 2e-6*(links+noise*(2*rng.Float64()-1))
		}
	}
	return func(a, b int) float64 { return rtt[min(a, b)*k+max(a, b)] }
}

func hostNames(k int) []string {
	h := make([]string, k)
	for i := range h {
		h[i] = fmt.Sprintf("n%d", i)
	}
	return h
}

// TestFitDragonfly: the round trips of SimGrid's dragonflies of several
// shapes (fabric.NewDragonfly's routes, link multiplicities that change no
// route) give back their shape, with up to a fifth of a link of noise;
// a torus's and a fat tree's give none.
func TestFitDragonfly(t *testing.T) {
	for _, c := range []struct {
		s      fabric.DragonflyShape
		static bool
	}{
		{fabric.DragonflyShape{Groups: 2, Chassis: 8, Routers: 2, Nodes: 2, Blue: 1, Black: 1, Green: 1}, true},
		{fabric.DragonflyShape{Groups: 2, Chassis: 4, Routers: 4, Nodes: 1, Blue: 2, Black: 1, Green: 1}, true},
		{fabric.DragonflyShape{Groups: 3, Chassis: 2, Routers: 4, Nodes: 2, Blue: 1, Black: 2, Green: 1}, true},
		// One chassis a group: every route is a shortest path.
		{fabric.DragonflyShape{Groups: 4, Chassis: 1, Routers: 4, Nodes: 4, Blue: 2, Black: 1, Green: 1}, false},
		// 1,024 nodes: fitted on a sample of host pairs.
		{fabric.DragonflyShape{Groups: 4, Chassis: 4, Routers: 8, Nodes: 8, Blue: 1, Black: 1, Green: 1}, true},
	} {
		k := c.s.Groups * c.s.Chassis * c.s.Routers * c.s.Nodes
		f, err := fabric.NewDragonfly(hostNames(k), c.s, 1e9, 1e-6, false)
		if err != nil {
			t.Fatal(err)
		}
		fit, why := FitDragonfly(k, roundTrips(f, 0.2))
		if fit == nil {
			t.Errorf("%s: no fit: %s", c.s, why)
			continue
		}
		want := c.s
		want.Blue, want.Black, want.Green = 1, 1, 1
		if fit.Shape != want || fit.Static != c.static || fit.Residual > 0.15 || fit.Next < 0.3 || fit.PerHop < 1.9e-6 || fit.PerHop > 2.1e-6 {
			t.Errorf("%s: fit %+v, want shape %s, static %v, within 0.15 of a link, 2 us a link, the next shape 0.3 or more off", c.s, fit, want, c.static)
		}
	}
	torus, err := fabric.NewTorus(hostNames(32), []int{4, 4, 2}, 1e9, 1e-6, false)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := fabric.NewFatTree(hostNames(64), fabric.FatTreeShape{Children: []int{8, 8}, Parents: []int{1, 4}, Links: []int{1, 1}}, 1e9, 1e-6, false)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]*fabric.Fabric{"4x4x2 torus": torus, "fat tree": tree} {
		if fit, _ := FitDragonfly(len(f.Hosts), roundTrips(f, 0)); fit != nil {
			t.Errorf("%s: fit a dragonfly %+v", name, fit)
		}
	}
	if fit, why := FitDragonfly(3, roundTrips(torus, 0)); fit != nil || why == "" {
		t.Errorf("3 hosts: fit %+v, why %q", fit, why)
	}
}

// BenchmarkFitDragonfly: the fit at 1,024 nodes (every shape's routes
// on 15,345 host pairs).
func BenchmarkFitDragonfly(b *testing.B) {
	s := fabric.DragonflyShape{Groups: 4, Chassis: 4, Routers: 8, Nodes: 8, Blue: 1, Black: 1, Green: 1}
	f, err := fabric.NewDragonfly(hostNames(1024), s, 1e9, 1e-6, false)
	if err != nil {
		b.Fatal(err)
	}
	rtt := roundTrips(f, 0)
	b.ResetTimer()
	for range b.N {
		if fit, why := FitDragonfly(1024, rtt); fit == nil {
			b.Fatal(why)
		}
	}
}
