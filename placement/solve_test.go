package placement

import (
	"math"
	"testing"
)

func mustTraffic(t testing.TB, flows []Flow, n int) *Traffic {
	t.Helper()
	tr, err := NewTraffic(n, flows)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// The issue's reference optimum: 4x4x4 cubes per node cost 11.736 s for a
// 16^3 stencil on 64 nodes x 64 cores and 209.57 s for 40^3 on 1000 nodes.
// By hand: an edge costs 100*L + 819200 B/B per direction, 1.8192e-4 s
// inside and 1.8192e-3 s between nodes; 16^3 has 11520 edges of which
// 3*3*16*16 = 2304 cross nodes: 2*(9216*1.8192e-4 + 2304*1.8192e-3) =
// 11.736 s; 40^3 has 187200 edges, 3*9*40*40 = 43200 crossing: 209.57 s.
func TestCubeCostMatchesIssue(t *testing.T) {
	for _, c := range []struct {
		n     int
		nodes int
		want  float64
	}{{16, 64, 11.736}, {40, 1000, 209.57}} {
		if testing.Short() && c.n > 16 {
			continue
		}
		flows, n := halo3D(c.n, c.n, c.n, false)
		tr := mustTraffic(t, flows, n)
		m := NewLevelMachine(c.nodes, 1, 64, benchLevels)
		got := m.Cost(tr, cubePlacement(c.n))
		if math.Abs(got-c.want) > 0.0005*c.want {
			t.Errorf("%d^3 cubes: cost %.4f s, want %.3f s", c.n, got, c.want)
		}
	}
}

func TestSolveFindsCubes16(t *testing.T) {
	flows, n := halo3D(16, 16, 16, false)
	tr := mustTraffic(t, flows, n)
	m := NewLevelMachine(64, 1, 64, benchLevels)
	slots, err := m.SelectSlots(n, SelectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sol, err := m.Solve(tr, slots, SolveOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	opt := m.Cost(tr, cubePlacement(16))
	t.Logf("16^3: proposal %.4f s (%s), block %.4f, cyclic %.4f, cubes %.4f; candidates %+v", sol.Cost, sol.Winner, sol.Block, sol.Cyclic, opt, sol.Candidates)
	if sol.Cost > opt*1.0001 {
		t.Errorf("16^3 proposal costs %.4f s, the 4x4x4 cube optimum %.4f s", sol.Cost, opt)
	}
}
