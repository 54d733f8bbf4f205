package network

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
)

// TestRegroupFragment: BenchmarkSimProbe64's job, every router r of
// group g of a 6-group dragonfly of 4 routers where g + r is not a
// multiple of 3 (the global link between groups g and h on router
// (3g+2h+1) mod 4 of g), two nodes a router, with the outermost switch
// level as that survey's found it: router 1 of group 0 in group 2,
// router 2 of group 0 a group alone. Discover must move that router to
// its group, find the routers outside the job that the wiring has
// (each linked to the job's routers the wiring links it to), and route
// as a dragonfly. With the level's groups as they are, the router
// outside the job found for group 2 also holds group 0's global links.
func TestRegroupFragment(t *testing.T) {
	w := wired{nbrs: make([][]int32, 24), group: make([]int32, 24)}
	link := func(a, b int) { w.nbrs[a], w.nbrs[b] = append(w.nbrs[a], int32(b)), append(w.nbrs[b], int32(a)) }
	for g := range 6 {
		for r := range 4 {
			w.group[4*g+r] = int32(g)
			for s := r + 1; s < 4; s++ {
				link(4*g+r, 4*g+s)
			}
		}
		for h := g + 1; h < 6; h++ {
			link(4*g+(3*g+2*h+1)%4, 4*h+(3*h+2*g+1)%4)
		}
	}
	var kept []int
	for v := range 24 {
		if (v/4+v%4)%3 != 0 {
			kept = append(kept, v)
		}
	}
	k := len(kept)
	all := fabric.HopTable(w.nbrs)
	router := make([]int32, 2*k)
	level := make([]int32, 2*k) // the survey's outermost level
	for h := range router {
		v := kept[h/2]
		router[h] = int32(h / 2)
		level[h] = w.group[v]
		if v == 1 { // router 1 of group 0
			level[h] = 2
		}
	}
	lat := func(a, b int) float64 {
		return 2e-6 + 1e-6*float64(all[kept[router[a]]*24+kept[router[b]]]+1)
	}
	n := Discover(Input{Hosts: 2 * k, Latency: lat, Switches: [][]int32{router, level}})
	if n.Kind != KindRouters || !slices.Equal(n.Moved, []int32{0}) {
		t.Fatalf("found %v, routers moved %v (%s): want a graph of routers, router 0 moved", n.Kind, n.Moved, n.Why)
	}
	if !strings.Contains(n.Describe(), "; 1 router(s) moved") || !strings.Contains(n.Describe(), "round trips of 3 pair(s) of routers") || !strings.Contains(n.MovedNote([]string{"x0", "x1"}), "router(s) of x0 moved") {
		t.Errorf("the routers moved are not named: %s; %s", n.Describe(), n.MovedNote([]string{"x0", "x1"}))
	}
	for a := range k {
		for b := range k {
			if (n.Groups[a] == n.Groups[b]) != (w.group[kept[a]] == w.group[kept[b]]) {
				t.Errorf("routers %d and %d: groups %d and %d found, %d and %d wired", a, b, n.Groups[a], n.Groups[b], w.group[kept[a]], w.group[kept[b]])
			}
		}
	}
	// Each router outside the job found is one the wiring has: linked
	// to the same routers of the job.
	nbrs := adjacency(n.Routers, n.Graph.Links)
	for v := k; v < n.Routers; v++ {
		var got []int
		for _, r := range nbrs[v] {
			if int(r) < k {
				got = append(got, kept[r])
			}
		}
		slices.Sort(got)
		if !slices.ContainsFunc(w.nbrs, func(nb []int32) bool { return slices.Equal(got, jobNbrs(nb, kept)) }) {
			t.Errorf("router %d outside the job is linked to routers %v of the job: no router is so wired", v, got)
		}
	}
	// Routers 0 of group 1 and 2 of group 3 are 2 hops apart through
	// group 2's or group 0's router outside the job; the path that stays
	// in their groups crosses group 1's router 2 and group 3's router 0.
	if pairs, a, b := n.ThroughThird(); pairs != 3 || kept[a] != 4 || kept[b] != 14 {
		t.Errorf("%d pairs of routers routed through a third group (the first %d and %d), want 3, the first routers 4 and 14", pairs, a, b)
	}
	hosts := make([]string, 2*k)
	for h := range hosts {
		hosts[h] = string(rune('a'+h/26)) + string(rune('a'+h%26))
	}
	if _, whyNot, err := fabric.NewRouterNetwork(hosts, router, n.Routers, n.Graph.Links, 0, 1e9, 1e-6, n.Groups); err != nil || whyNot != "" {
		t.Errorf("not routed as a dragonfly: %v %s", err, whyNot)
	}
}

// jobNbrs are the routers of nb that the job kept, in order.
func jobNbrs(nb []int32, kept []int) []int {
	var out []int
	for _, r := range nb {
		if slices.Contains(kept, int(r)) {
			out = append(out, int(r))
		}
	}
	slices.Sort(out)
	return out
}

// TestRegroupFragments: jobs on fragments of dragonflies wired as
// people cable them (TestFindHiddenFragments'), each with one router
// put in the group of a router it has a global link to, as average
// linkage may where the two are a hop apart. Where that leaves groups
// no dragonfly's, Discover must find hops exactly the true ones, and
// groups a dragonfly's in most; those it mends are mostly the wired.
func TestRegroupFragments(t *testing.T) {
	rng := rand.New(rand.NewPCG(69, 2))
	allToAll := func(r, s int) bool { return true }
	tried, mended, wiredBack := 0, 0, 0
	for c := 0; c < 200 && tried < 30; c++ {
		w := wireGroups(rng, 4+rng.IntN(5), 4+rng.IntN(3), 1, allToAll)
		kept, hops, grp := w.job(rng, 0.3+0.4*rng.Float64())
		k := len(kept)
		if k < 2*minDiameter || slices.Max(grp) < 2 {
			continue
		}
		wrong, ok := misgroup(rng, k, hops, grp)
		if !ok {
			continue
		}
		lat := func(a, b int) float64 { return 2e-6 + 1e-6*float64(hops[a*k+b]) }
		router := OwnRouters(k)
		if d, hidden, _ := FindHidden(router, wrong, lat); d != nil && unjoined(d, wrong, hidden) == 0 {
			continue // a dragonfly's groups as they are: nothing to mend
		}
		if d, hidden, _ := FindHidden(router, grp, lat); d == nil || unjoined(d, grp, hidden) > 0 {
			continue // two wired groups nearer through a third than by their own link: no dragonfly's groups to mend to
		}
		tried++
		n, _ := findRouters(router, Input{Hosts: k, Latency: lat, Switches: [][]int32{wrong}})
		if n == nil {
			t.Logf("case %d: none", c)
			continue
		}
		got := fabric.HopTable(adjacency(n.Routers, n.Graph.Links))
		for a := range k * min(n.Hidden, 1) { // FindHidden's graph: FindDirect's fits within maxHopResidual
			for b := range k {
				if int(got[a*n.Routers+b]) != int(hops[a*k+b]) {
					t.Fatalf("case %d: routers %d and %d: %d hops found, %d true (hidden %d, moved %v, shortcuts %d, k %d)", c, a, b, got[a*n.Routers+b], hops[a*k+b], n.Hidden, n.Moved, n.Graph.Shortcuts, k)
				}
			}
		}
		if n.Moved == nil {
			d, hidden, why := FindHidden(router, wrong, lat)
			t.Logf("case %d unmended: kind %v hidden %d, FindHidden %v %s unjoined %d", c, n.Kind, n.Hidden, d != nil, why, unjoined(d, wrong, hidden))
			continue
		}
		mended++
		if slices.Equal(fabric.Renumber(n.Groups[:k]), fabric.Renumber(grp)) {
			wiredBack++
		}
	}
	if tried < 20 || mended < tried*3/4 || wiredBack < mended*9/10 {
		t.Errorf("%d jobs misgrouped, %d mended to a dragonfly's groups, %d of them the wired ones: want 20, three quarters, nine in ten", tried, mended, wiredBack)
	}
	t.Logf("%d jobs misgrouped, %d mended, %d to the wired groups", tried, mended, wiredBack)
}

// misgroup moves one of k routers (groups grp, hops between them) that
// shares its group with another to the group of a router of another
// group a hop from it; false where none is.
func misgroup(rng *rand.Rand, k int, hops []uint16, grp []int32) ([]int32, bool) {
	var moves [][2]int
	for r := range k {
		for s := range k {
			if grp[s] != grp[r] && hops[r*k+s] == 1 && groupSize(grp, grp[r]) > 1 {
				moves = append(moves, [2]int{r, s})
			}
		}
	}
	if len(moves) == 0 {
		return nil, false
	}
	m := moves[rng.IntN(len(moves))]
	wrong := slices.Clone(grp)
	wrong[m[0]] = grp[m[1]]
	return wrong, true
}

// TestFindRoutersFragments: jobs on fragments of dragonflies wired as
// people cable them (TestFindHiddenFragments', one or two global links
// between every two groups, 30-90% of the routers kept), the round
// trips exact, the outermost level the wired groups. Where FindRouters'
// own line fits a graph whose hops are not the round trips' (the most
// of those that needed no router outside the job), findRouters must
// take FindHidden's: every graph found counts every pair's hops right.
func TestFindRoutersFragments(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 3))
	allToAll := func(r, s int) bool { return true }
	jobs, miscounted := 0, 0
	for c := 0; c < 300; c++ {
		w := wireGroups(rng, 4+rng.IntN(5), 4+rng.IntN(3), 1+c%2, allToAll)
		kept, hops, grp := w.job(rng, 0.3+0.6*rng.Float64())
		k := len(kept)
		if k < 2*minDiameter || slices.Max(grp) < 2 {
			continue
		}
		jobs++
		lat := func(a, b int) float64 { return 2e-6 + 1e-6*float64(hops[a*k+b]) }
		router := OwnRouters(k)
		if d, _ := FindRouters(router, lat); d != nil && !hopsAsCounted(k, first(hopClasses(k, routerLatencies(router, lat))), d) {
			miscounted++
		}
		n, why := findRouters(router, Input{Hosts: k, Latency: lat, Switches: [][]int32{grp}})
		if n == nil {
			t.Errorf("case %d: no graph: %s", c, why)
			continue
		}
		got := fabric.HopTable(adjacency(n.Routers, n.Graph.Links))
		for a := range k {
			for b := range k {
				if int(got[a*n.Routers+b]) != int(hops[a*k+b]) {
					t.Fatalf("case %d (%d routers, %d outside the job): routers %d and %d: %d hops found, %d true", c, k, n.Hidden, a, b, got[a*n.Routers+b], hops[a*k+b])
				}
			}
		}
	}
	if jobs < 250 || miscounted < 20 {
		t.Errorf("%d jobs, FindRouters miscounted %d: want 250 and 20 at least (the case this holds findRouters to)", jobs, miscounted)
	}
	t.Logf("%d jobs, FindRouters' graph miscounted hops in %d", jobs, miscounted)
}

// first is the first of two results.
func first[T, U any](t T, _ U) T { return t }
