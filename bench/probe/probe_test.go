package probe

import (
	"math/rand/v2"
	"testing"
)

// ringNet is a fake network: routers on a ring, hosts hosts a router,
// every link directed. A flow leaves its host's link, crosses the ring
// the short way and enters its destination's link; where both ways are
// as short, the destination host's parity picks one, as a subnet
// manager's tables spread one router's hosts over equal routes (so two
// flows between the same two routers may go opposite ways, and only
// the destination host tells).
type ringNet struct{ routers, hosts int }

func (n ringNet) router(h int) int { return h / n.hosts }

// ringPlan is the tests' ring, 6 routers of 3 hosts, and its plan.
func ringPlan() (ringNet, *Plan) {
	n := ringNet{routers: 6, hosts: 3}
	router := make([]int, n.routers*n.hosts)
	for h := range router {
		router[h] = n.router(h)
	}
	return n, NewPlan(router)
}

// links is f's directed links: host links as ("host", h, up or down),
// ring links as ("ring", from, to).
func (n ringNet) links(f Flow) map[[3]int]bool {
	ls := map[[3]int]bool{{-1, f.Src, 0}: true, {-1, f.Dst, 1}: true}
	r, d := n.router(f.Src), n.router(f.Dst)
	fwd := (d - r + n.routers) % n.routers
	step := 1
	if fwd > n.routers/2 || fwd*2 == n.routers && f.Dst%2 == 1 {
		step = n.routers - 1
	}
	for r != d {
		next := (r + step) % n.routers
		ls[[3]int{r, next, 2}] = true
		r = next
	}
	return ls
}

// slowdowns is each flow's time moving at once with the others against
// its time alone: max-min fair rates on links of one capacity
// (progressive filling), as a network shares its links. A flow slowed
// by a link elsewhere leaves its share of a common link to the others,
// which then go nearly as fast as alone: what the rule "neither slowed"
// is for.
func (n ringNet) slowdowns(flows []Flow) []float64 {
	on := map[[3]int][]int{}
	for i, f := range flows {
		for l := range n.links(f) {
			on[l] = append(on[l], i)
		}
	}
	rate := make([]float64, len(flows))
	frozen := make([]bool, len(flows))
	for left := len(flows); left > 0; {
		best, bestLink := 2.0, [3]int{}
		for l, fs := range on {
			used, free := 0.0, 0
			for _, i := range fs {
				if frozen[i] {
					used += rate[i]
				} else {
					free++
				}
			}
			if free > 0 && (1-used)/float64(free) < best {
				best, bestLink = (1-used)/float64(free), l
			}
		}
		for _, i := range on[bestLink] {
			if !frozen[i] {
				rate[i], frozen[i] = best, true
				left--
			}
		}
	}
	for i := range rate {
		rate[i] = 1 / rate[i]
	}
	return rate
}

func (n ringNet) share(f, g Flow) bool {
	lf := n.links(f)
	for l := range n.links(g) {
		if lf[l] {
			return true
		}
	}
	return false
}

// TestProbeFindsEverySharingPair: on the fake ring of 6 routers of 3
// hosts, its links shared max-min fair, random steps cleared by the rule
// "neither slowed", then the
// pairs left moved two at a time, tell for every two flows of four
// distinct hosts exactly whether they share a link, in far fewer steps
// than every pair of flows; classes by the two routers alone would not
// (the ring's even split makes flows between two routers go opposite
// ways by destination host).
func TestProbeFindsEverySharingPair(t *testing.T) {
	n, p := ringPlan()
	router := p.router
	if p.Classes() != n.routers*len(router) {
		t.Fatalf("%d classes, want %d (each router to each host)", p.Classes(), n.routers*len(router))
	}
	if p.Class(Flow{0, 7}) != p.Class(Flow{1, 7}) || p.Class(Flow{0, 7}) == p.Class(Flow{0, 8}) {
		t.Errorf("classes: 0->7 %d, 1->7 %d, 0->8 %d; want one router's flows to a host in one class, each host its own",
			p.Class(Flow{0, 7}), p.Class(Flow{1, 7}), p.Class(Flow{0, 8}))
	}
	c := p.NewClearer()
	rng := rand.New(rand.NewPCG(1, 69))
	const steps = 300
	for range steps {
		flows := p.Matching(rng)
		c.Step(flows, n.slowdowns(flows), 1.7)
	}
	left := c.Left()
	shared := map[[2]int]bool{}
	for _, pr := range left {
		fa, fb, _ := p.Pair(pr[0], pr[1])
		if s := n.slowdowns([]Flow{fa, fb}); max(s[0], s[1]) > 1.7 {
			shared[pr] = true
		}
	}
	pairs, sharing, mixed := checkEveryPair(t, n, p, func(a, b int) bool { return shared[[2]int{min(a, b), max(a, b)}] })
	t.Logf("%d pairs of flows (%d share), %d classes, %d steps in all (%d alone, %d random, %d pairs left); %d classes by routers hold pairs that disagree",
		pairs, sharing, p.Classes(), p.Classes()+steps+len(left), p.Classes(), steps, len(left), mixed)
	if sharing == 0 || sharing == pairs {
		t.Fatalf("%d of %d pairs share: the fake network tells nothing", sharing, pairs)
	}
	if total := p.Classes() + steps + len(left); total*4 > pairs {
		t.Errorf("%d steps in all, want at most a quarter of the %d pairs of flows", total, pairs)
	}
	if mixed == 0 {
		t.Errorf("every class by routers agrees: the fake network does not route by destination host")
	}
}

// checkEveryPair checks, for every two flows of four distinct hosts on
// n, that shared (of their classes) says what the network does; it
// returns how many pairs there are, how many share, and how many
// classes by routers hold pairs that disagree.
func checkEveryPair(t *testing.T, n ringNet, p *Plan, shared func(a, b int) bool) (pairs, sharing, mixed int) {
	t.Helper()
	var flows []Flow
	for s := range p.router {
		for d := range p.router {
			if s != d {
				flows = append(flows, Flow{s, d})
			}
		}
	}
	byRouters := map[[4]int]map[bool]bool{}
	for i, f := range flows {
		for _, g := range flows[i+1:] {
			if f.Src == g.Src || f.Src == g.Dst || f.Dst == g.Src || f.Dst == g.Dst {
				continue
			}
			pairs++
			got, want := shared(p.Class(f), p.Class(g)), n.share(f, g)
			if want {
				sharing++
			}
			if got != want {
				t.Errorf("flows %v and %v: found sharing %v, the network says %v", f, g, got, want)
			}
			k := [4]int{p.router[f.Src], p.router[f.Dst], p.router[g.Src], p.router[g.Dst]}
			if byRouters[k] == nil {
				byRouters[k] = map[bool]bool{}
			}
			byRouters[k][want] = true
		}
	}
	for _, v := range byRouters {
		if len(v) == 2 {
			mixed++
		}
	}
	return pairs, sharing, mixed
}

// TestPairFourHosts: two classes whose flows always share a host have
// no pair; the others' pair is of four distinct hosts, of the classes.
func TestPairFourHosts(t *testing.T) {
	// Host 0 alone on router 0; hosts 1 and 2 on router 1; host 3 on 2.
	p := NewPlan([]int{0, 1, 1, 2})
	a, b := p.Class(Flow{0, 1}), p.Class(Flow{0, 2})
	if _, _, ok := p.Pair(a, b); ok {
		t.Errorf("0->1 and 0->2 paired: router 0 has one host")
	}
	a, b = p.Class(Flow{1, 3}), p.Class(Flow{1, 0})
	fa, fb, ok := p.Pair(a, b)
	if !ok || fa != (Flow{1, 3}) && fa != (Flow{2, 3}) || fb.Dst != 0 || fa.Src == fb.Src || p.Class(fa) != a || p.Class(fb) != b {
		t.Errorf("pair of 1->3 and 1->0's classes: %v %v %v, want router 1's two hosts to 3 and 0", fa, fb, ok)
	}
	if _, _, ok := p.Pair(a, a); ok {
		t.Errorf("a class paired with itself")
	}
	c := p.NewClearer()
	before := len(c.Left())
	c.Step([]Flow{{1, 3}, {2, 0}}, []float64{1, 2}, 1.7)
	if c.Cleared(a, b) {
		t.Errorf("cleared with one flow slowed")
	}
	c.Step([]Flow{{1, 3}, {2, 0}}, []float64{1, 1.2}, 1.7)
	if !c.Cleared(a, b) || !c.Cleared(b, a) || len(c.Left()) != before-1 {
		t.Errorf("cleared %v %v, %d pairs left of %d: want the pair cleared both ways, one pair fewer left", c.Cleared(a, b), c.Cleared(b, a), len(c.Left()), before)
	}
}
