package links

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
)

// TestLazyRoutesAsTable: a routed network too large for the route table
// (here: a bound of one entry) computes its routes as first used, and
// gives the same answers as the table: every route, each link's load and
// each rank's longest link time after random flows (static and spread
// over shortest paths), and the fluid sharing's arrival times.
func TestLazyRoutesAsTable(t *testing.T) {
	hosts := make([]string, 36)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("n%02d", i)
	}
	torus, err := fabric.NewTorus(hosts, []int{6, 6}, 1e9, 1e-6, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, routing := range []string{fabric.RoutingStatic, fabric.RoutingAdaptive} {
		f, err := torus.Routed(routing)
		if err != nil {
			t.Fatal(err)
		}
		in := RouteInputs{Hosts: hosts, NodeOut: make([]float64, 36), NodeIn: make([]float64, 36), PairBW: func(a, b int) float64 { return 0 }}
		eager, _, err := NewRoutes(f, in)
		if err != nil {
			t.Fatal(err)
		}
		old := maxRouteTable
		maxRouteTable = 1
		lazy, _, err := NewRoutes(f, in)
		maxRouteTable = old
		if err != nil {
			t.Fatal(err)
		}
		if eager.Start == nil || lazy.Start != nil {
			t.Fatalf("%s: eager table %v, lazy table %v: want one of each", routing, eager.Start != nil, lazy.Start == nil)
		}
		var c PathCache
		for a := int32(0); a < 36; a++ {
			for b := int32(0); b < 36; b++ {
				el, es := eager.Route(nil, a, b)
				ll, ls := lazy.Route(&c, a, b)
				if !slices.Equal(el, ll) || !slices.Equal(ones(es, len(el)), ones(ls, len(ll))) {
					t.Fatalf("%s: route %d -> %d: table %v %v, lazy %v %v", routing, a, b, el, es, ll, ls)
				}
			}
		}
		const ranks = 72
		rng := rand.New(rand.NewPCG(3, 4))
		le, ll := NewLoads(&eager.Table, ranks, false), NewLoads(&lazy.Table, ranks, false)
		lf := NewLoads(&lazy.Table, ranks, true) // flat: the same, priced at once
		var flows []FluidFlow
		for i := 0; i < 300; i++ {
			u, v := int32(rng.IntN(ranks)), int32(rng.IntN(ranks))
			if u/2 == v/2 {
				continue
			}
			bytes := float64(1 + rng.IntN(1<<20))
			le.Flow(u, v, u/2, v/2, bytes, 1)
			ll.Flow(u, v, u/2, v/2, bytes, 1)
			lf.Flow(u, v, u/2, v/2, bytes, 1)
			flows = append(flows, FluidFlow{U: u, V: v, A: u / 2, B: v / 2, Bytes: bytes})
		}
		for u := int32(0); u < ranks; u++ {
			le.Price(u, 1)
			ll.Price(u, 1)
		}
		if !slices.Equal(le.load, ll.load) || !slices.Equal(le.LongT, ll.LongT) {
			t.Errorf("%s: loads or longest link times differ between the table and lazy routes", routing)
		}
		lf.PriceAll(1)
		if !slices.Equal(lf.load, ll.load) || !slices.Equal(lf.LongT, ll.LongT) || !slices.Equal(lf.longL, ll.longL) || lf.Tree.Max() != ll.Tree.Max() || lf.Tree.Argmax() != ll.Tree.Argmax() {
			t.Errorf("%s: a flat Loads's loads, longest links or slowest rank differ from the indexed one's", routing)
		}
		if fe, fl := eager.Fluid(ranks, flows), lazy.Fluid(ranks, flows); !slices.Equal(fe, fl) {
			t.Errorf("%s: fluid arrivals differ: table %v, lazy %v", routing, fe[:4], fl[:4])
		}
	}
}

// ones is share, or n ones for nil (all of the bytes).
func ones(share []float32, n int) []float32 {
	if share == nil {
		return slices.Repeat([]float32{1}, n)
	}
	return share
}
