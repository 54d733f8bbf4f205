package probe

import (
	"math/rand/v2"
	"testing"
)

// TestProberJudgesEveryPair: the prober, driven step by step on the fake
// ring (6 routers of 3 hosts, links shared max-min fair) with each
// flow's time its class's base time times its slowdown times a noise of
// up to 20%, judges every two flows of four distinct hosts as the
// network shares them, choosing its own steps and when to stop the
// random ones, in far fewer steps than every pair of flows. With the
// threshold past the slowdown two flows on one link cause (2x), it
// finds no sharing, and the check fails.
func TestProberJudgesEveryPair(t *testing.T) {
	n, p := ringPlan()
	run := func(threshold float64) (*Prober, map[[2]int]bool) {
		pr := NewProber(p, threshold, 7)
		noise := rand.New(rand.NewPCG(3, 4))
		for steps := 0; ; steps++ {
			flows := pr.Next()
			if flows == nil {
				break
			}
			if steps > 100000 {
				t.Fatalf("the prober has not stopped after %d steps", steps)
			}
			slow := n.slowdowns(flows)
			secs := make([]float64, len(flows))
			for k, f := range flows {
				base := 0.01 * float64(1+p.Class(f)%3) // classes of different speeds alone
				secs[k] = base * slow[k] * (1 + 0.2*noise.Float64())
			}
			pr.Record(secs)
		}
		shared := map[[2]int]bool{}
		for _, j := range pr.Judged {
			a, b := p.Class(j.A), p.Class(j.B)
			if j.Shared {
				shared[[2]int{min(a, b), max(a, b)}] = true
			}
		}
		return pr, shared
	}
	pr, shared := run(1.4)
	pairs, sharing, _ := checkEveryPair(t, n, p, func(a, b int) bool { return shared[[2]int{min(a, b), max(a, b)}] })
	total := pr.Steps[0] + pr.Steps[1] + pr.Steps[2]
	t.Logf("%d pairs of flows (%d share): %d steps (%d alone, %d random clearing %d pairs of classes, %d moving %d pairs two at a time)",
		pairs, sharing, total, pr.Steps[0], pr.Steps[1], pr.ClearedByGroups, pr.Steps[2], len(pr.Judged))
	twice := 0
	for _, j := range pr.Judged {
		if j.Shared {
			twice++
		}
	}
	if pr.Steps[0] != 2*p.Classes() || pr.Steps[2] != len(pr.Judged)+twice {
		t.Errorf("steps %v: want each of the %d classes alone twice, each of the %d pairs judged once, and again the %d shared", pr.Steps, p.Classes(), len(pr.Judged), twice)
	}
	if pr.Steps[1] >= pr.Max.Matchings {
		t.Errorf("%d random steps: the cap (%d) stopped them, not their fruitlessness", pr.Steps[1], pr.Max.Matchings)
	}
	if total*4 > pairs {
		t.Errorf("%d steps, want at most a quarter of the %d pairs of flows", total, pairs)
	}
	// The mutation: a threshold no sharing reaches judges every pair
	// apart, and the sharing pairs are missed.
	mt := &testing.T{}
	_, blind := run(2.5)
	if _, _, _ = checkEveryPair(mt, n, p, func(a, b int) bool { return blind[[2]int{min(a, b), max(a, b)}] }); !mt.Failed() {
		t.Errorf("a threshold of 2.5 judged every pair right: the check cannot fail")
	}
}

// TestProberFewHosts: with fewer than four hosts there are no two flows
// of four distinct hosts, so after the flows alone the prober stops.
func TestProberFewHosts(t *testing.T) {
	pr := NewProber(NewPlan([]int{0, 0, 1}), 1.4, 1)
	steps := 0
	for f := pr.Next(); f != nil; f = pr.Next() {
		if len(f) != 1 {
			t.Fatalf("step %v: want one flow at a time", f)
		}
		pr.Record([]float64{1})
		steps++
	}
	if steps != 2*pr.Plan.Classes() || len(pr.Judged) != 0 {
		t.Errorf("%d steps, %d judged: want the %d classes alone twice and nothing judged", steps, len(pr.Judged), pr.Plan.Classes())
	}
}

// TestProberMaxPairs: with MaxPairs, the pair steps stop after that many
// pairs, and Unjudged says how many the random steps left unmoved.
func TestProberMaxPairs(t *testing.T) {
	_, p := ringPlan()
	pr := NewProber(p, 1.4, 7)
	pr.Max.Pairs = 10
	for f := pr.Next(); f != nil; f = pr.Next() {
		secs := make([]float64, len(f))
		for k := range secs {
			secs[k] = 1
		}
		pr.Record(secs)
	}
	if len(pr.Judged) != 10 || pr.Unjudged() != pr.Left()-10 || pr.Left() <= 10 || pr.Phase() != 3 {
		t.Errorf("%d judged, %d unjudged of %d left, phase %d: want 10 judged, the rest unjudged, done", len(pr.Judged), pr.Unjudged(), pr.Left(), pr.Phase())
	}
}
