package topo

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
)

// hyperX is a k x k HyperX found in a survey: routers in rows and
// columns, each joined to every router of its row and of its column,
// per hosts on each (h<router><a, b, ...>); a flow between routers in
// neither one row nor one column has two shortest paths.
func hyperX(t testing.TB, k, per int) (*fabric.Fabric, map[string]int) {
	t.Helper()
	var hosts []string
	var router []int32
	routers := map[string]int{}
	for r := range k * k {
		for s := range per {
			h := fmt.Sprintf("h%d%c", r, 'a'+s)
			hosts, router = append(hosts, h), append(router, int32(r))
			routers[h] = r
		}
	}
	var links [][2]int32
	for a := range int32(k * k) {
		for b := a + 1; b < int32(k*k); b++ {
			if a/int32(k) == b/int32(k) || a%int32(k) == b%int32(k) {
				links = append(links, [2]int32{a, b})
			}
		}
	}
	f, _, err := fabric.NewRouterNetwork(hosts, router, k*k, links, 0, 1e9, 1e-6, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f, routers
}

// truthRoutes is f with each class of flows (a router to a host) on
// one of its shortest paths drawn at random: the way a subnet manager
// routed it, which the round trips do not show.
func truthRoutes(f *fabric.Fabric, routers map[string]int, seed uint64) *fabric.Fabric {
	rng := rand.New(rand.NewPCG(seed, 1))
	pick := map[[2]int]int{}
	return f.Pinned(func(a, b int) []int32 {
		c := f.Candidates(a, b, 16)
		k := [2]int{routers[f.Hosts[a]], b}
		if _, ok := pick[k]; !ok {
			pick[k] = rng.IntN(len(c))
		}
		return c[min(pick[k], len(c)-1)]
	})
}

// TestFitProbe: on a 3 x 3 HyperX (two hosts a router) whose classes of flows take shortest
// paths drawn at random, the probe's verdicts (two flows slow each
// other where they share a link, FlowSlowdown) on half the pairs of
// classes of flows choose routes that judge the other half better than the routes
// the round trips give (one shortest path by the routers' numbering);
// given every verdict, the routes chosen agree with all but a few.
func TestFitProbe(t *testing.T) {
	f, routers := hyperX(t, 3, 2)
	idx := f.HostIndex()
	for seed := range uint64(3) {
		truth := FlowSlowdown(truthRoutes(f, routers, seed))
		shared := func(x, y [2]string) bool {
			return truth(idx[x[0]], idx[x[1]], idx[y[0]], idx[y[1]]) > 1.5
		}
		half := func(x, y [2]string) bool { // by the pair of classes, as the probe judges
			cx, cy := fmt.Sprint(routers[x[0]], x[1]), fmt.Sprint(routers[y[0]], y[1])
			h := fnv.New32a()
			fmt.Fprint(h, min(cx, cy), max(cx, cy))
			return h.Sum32()%2 == 0
		}
		fit := FitProbe(f, f.Hosts, routers, 1.5, func(x, y [2]string) (bool, bool) {
			return shared(x, y), half(x, y)
		})
		if fit == nil || fit.Moved == 0 {
			t.Fatalf("seed %d: no route moved: %+v", seed, fit)
		}
		held := func(g *fabric.Fabric) (wrong, n int) {
			fs := FlowSlowdown(g)
			for _, a := range f.Hosts {
				for _, b := range f.Hosts {
					for _, c := range f.Hosts {
						for _, d := range f.Hosts {
							if a == b || c == d || a == c || a == d || b == c || b == d || a+b > c+d {
								continue
							}
							x, y := [2]string{a, b}, [2]string{c, d}
							if routers[a] == routers[c] && b == d || half(x, y) {
								continue
							}
							n++
							if (fs(idx[a], idx[b], idx[c], idx[d]) > 1.5) != shared(x, y) {
								wrong++
							}
						}
					}
				}
			}
			return wrong, n
		}
		before, n := held(f)
		after, _ := held(fit.Fabric)
		t.Logf("seed %d: fitted on %d pairs (%d wrong before, %d after, %d classes moved); held out %d: %d wrong before, %d after",
			seed, fit.Pairs, fit.Before, fit.After, fit.Moved, n, before, after)
		if before == 0 || after*4 > before {
			t.Errorf("seed %d: the held-out pairs judged wrong went from %d to %d of %d, want at most a quarter", seed, before, after, n)
		}
		all := FitProbe(f, f.Hosts, routers, 1.5, func(x, y [2]string) (bool, bool) { return shared(x, y), true })
		if all.After*20 > all.Pairs || all.After >= all.Before {
			t.Errorf("seed %d: given every verdict, %d of %d pairs are judged wrong (%d before)", seed, all.After, all.Pairs, all.Before)
		}
	}
}

// BenchmarkFitProbe: FitProbe on a 4 x 4 HyperX whose classes of flows
// take shortest paths drawn at random, every verdict given: 2 hosts a
// router (32 hosts, 992 flows, 512 classes), 4 (64 hosts, 1,024
// classes) and 8 (128 hosts, 16,256 flows, 2,048 classes: MaxFitClasses).
func BenchmarkFitProbe(b *testing.B) {
	for _, per := range []int{2, 4, 8} {
		f, routers := hyperX(b, 4, per)
		idx := f.HostIndex()
		truth := FlowSlowdown(truthRoutes(f, routers, 1))
		v := func(x, y [2]string) (bool, bool) {
			return truth(idx[x[0]], idx[x[1]], idx[y[0]], idx[y[1]]) > 1.5, true
		}
		b.Run(fmt.Sprintf("hosts=%d", len(f.Hosts)), func(b *testing.B) {
			for b.Loop() {
				fit := FitProbe(f, f.Hosts, routers, 1.5, v)
				b.ReportMetric(float64(fit.Before), "wrong-before")
				b.ReportMetric(float64(fit.After), "wrong-after")
				b.ReportMetric(float64(fit.Pairs), "pairs")
			}
		})
	}
}

// TestFitProbeManyHosts: on a 4 x 4 HyperX of 4 hosts a router (64
// hosts, 4,032 flows, 1,024 classes of flows) whose classes take
// shortest paths drawn at random, given every verdict the routes chosen
// agree with all but a few; the probe is asked once a pair of classes,
// and a class's four flows are priced as one.
func TestFitProbeManyHosts(t *testing.T) {
	f, routers := hyperX(t, 4, 4)
	idx := f.HostIndex()
	truth := FlowSlowdown(truthRoutes(f, routers, 2))
	asked := 0
	v := func(x, y [2]string) (bool, bool) {
		asked++
		return truth(idx[x[0]], idx[x[1]], idx[y[0]], idx[y[1]]) > 1.5, true
	}
	pf := newProbeFitter(f, f.Hosts, routers, 1.5, v)
	if pf == nil || len(pf.flows) != 4032 || len(pf.classes) != 1024 || len(pf.units) != 1024 {
		t.Fatalf("64 hosts, 4 a router: want 4,032 flows in 1,024 classes, each one unit; got %+v", pf)
	}
	if asked > 1024*1023/2 {
		t.Errorf("the probe's verdict was asked %d times, more than once a pair of classes", asked)
	}
	fit := FitProbe(f, f.Hosts, routers, 1.5, v)
	t.Logf("%d pairs of flows judged: %d wrong before, %d after, %d classes moved", fit.Pairs, fit.Before, fit.After, fit.Moved)
	if fit.Moved == 0 || fit.After*20 > fit.Before {
		t.Errorf("64 hosts: %d of %d pairs judged wrong after the fit (%d before), want under a twentieth of before", fit.After, fit.Pairs, fit.Before)
	}
	// The pairs of flows judged, counted one by one: of four distinct
	// hosts, in two classes.
	pairs := 0
	for i, x := range pf.flows {
		for _, y := range pf.flows[i+1:] {
			if x[0] != y[0] && x[0] != y[1] && x[1] != y[0] && x[1] != y[1] && (routers[f.Hosts[x[0]]] != routers[f.Hosts[y[0]]] || x[1] != y[1]) {
				pairs++
			}
		}
	}
	if fit.Pairs != pairs {
		t.Errorf("the fit judged %d pairs of flows, counted one by one %d", fit.Pairs, pairs)
	}
}

// TestFitProbeBound: FitProbe takes as many classes of flows as the
// probe does (MaxFitClasses). 36 hosts each its own router make 1,260
// classes; 64 of them 4,032, more, and it chooses nothing; the same 64
// hosts 4 a router make 1,024 (TestFitProbeManyHosts).
func TestFitProbeBound(t *testing.T) {
	v := func(x, y [2]string) (bool, bool) { return false, true }
	for _, c := range []struct{ k, classes int }{{6, 1260}, {8, 4032}} {
		f, _ := hyperX(t, c.k, 1)
		if n := fitClasses(f.Hosts, nil); n != c.classes {
			t.Errorf("%d hosts each its own router: %d classes, want %d", len(f.Hosts), n, c.classes)
		}
		if fit := FitProbe(f, f.Hosts, nil, 1.5, v); (fit == nil) != (c.classes > MaxFitClasses) {
			t.Errorf("%d hosts, %d classes: fit %+v, want one only up to %d classes", len(f.Hosts), c.classes, fit, MaxFitClasses)
		}
	}
	f, routers := hyperX(t, 4, 4)
	if n := fitClasses(f.Hosts, routers); n != 1024 {
		t.Errorf("64 hosts 4 a router: %d classes, want 1,024", n)
	}
}

// TestFitSurveyProbePartial: a survey's probe that left pairs of classes
// unjudged chooses no route (its judged pairs are the ones the random
// steps could not clear, no sample of the rest) and says why; complete,
// the same verdict moves a route.
func TestFitSurveyProbePartial(t *testing.T) {
	f, _ := hyperX(t, 3, 1)
	s := &survey.Survey{}
	// The probe's four hosts: h0a -> h4a and h1a -> h5a (routers 0 -> 4
	// and 1 -> 5, each two hops, both ways sharing 1 -> 4) judged shared.
	routers := map[string]int{"h0a": 0, "h1a": 1, "h4a": 4, "h5a": 5}
	s.Shares = []survey.Share{{SrcA: "h0a", DstA: "h4a", SrcB: "h1a", DstB: "h5a", SlowdownA: 2, SlowdownB: 2, Shared: true}}
	for _, c := range []struct {
		unjudged int
		moved    bool
	}{{5, false}, {0, true}} {
		s.Meta.Probe = &survey.ProbeMeta{Routers: routers, Threshold: 1.5, Judged: 1, Unjudged: c.unjudged}
		fit := FitSurveyProbe(s, f)
		if fit == nil || (fit.Moved > 0) != c.moved || (fit.Fabric != f) != c.moved {
			t.Fatalf("unjudged %d: %+v, want moved %v", c.unjudged, fit, c.moved)
		}
		if refused := strings.Contains(fit.Line(), "no route chosen from it, as it left 5 pairs"); refused != (c.unjudged > 0) {
			t.Errorf("unjudged %d: %s", c.unjudged, fit.Line())
		}
	}
}

// TestFitSurveyProbeGuesses: without a probe, FitSurveyProbe counts the
// pairs of the survey's hosts whose route is a guess among several
// shortest paths, and says how to find it. On a 3 x 3 HyperX of one host
// a router, a pair of routers in neither one row nor one column has two
// (row first, or column first): 36 of the 72 ordered pairs. On a star of
// three routers every pair has one path, and there is nothing to say.
func TestFitSurveyProbeGuesses(t *testing.T) {
	f, routers := hyperX(t, 3, 1)
	s := &survey.Survey{}
	for h := range routers {
		s.Ranks = append(s.Ranks, survey.Rank{Rank: len(s.Ranks), Host: h})
	}
	fit := FitSurveyProbe(s, f)
	if fit == nil || fit.Guesses != 36 || fit.GuessPairs != 72 || fit.Fabric != f || !strings.Contains(fit.Line(), "latmap survey --probe on") {
		t.Fatalf("3 x 3 HyperX, no probe: %+v, want 36 of 72 pairs guessed and the probe advised", fit)
	}
	t.Log(fit.Line())
	star, _, err := fabric.NewRouterNetwork([]string{"h0a", "h1a", "h2a"}, []int32{0, 1, 2}, 3, [][2]int32{{0, 1}, {0, 2}}, 0, 1e9, 1e-6, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fit := FitSurveyProbe(s, star); fit != nil {
		t.Errorf("a star of routers, one path a pair: %+v (%s), want nothing to say", fit, fit.Line())
	}
}
