package network

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
)

// wired is a network of routers in groups as a site cables it: each
// group's routers linked as local says, every two groups by perPair
// global links between routers drawn at random (a person's cabling, not
// a generator's rule). nbrs is each router's links, group its group.
type wired struct {
	nbrs  [][]int32
	group []int32
}

func wireGroups(rng *rand.Rand, groups, routers, perPair int, local func(r, s int) bool) wired {
	w := wired{nbrs: make([][]int32, groups*routers), group: make([]int32, groups*routers)}
	link := func(a, b int) { w.nbrs[a], w.nbrs[b] = append(w.nbrs[a], int32(b)), append(w.nbrs[b], int32(a)) }
	for g := range groups {
		for r := range routers {
			w.group[g*routers+r] = int32(g)
			for s := r + 1; s < routers; s++ {
				if local(r, s) {
					link(g*routers+r, g*routers+s)
				}
			}
		}
		for h := g + 1; h < groups; h++ {
			for range perPair {
				link(g*routers+rng.IntN(routers), h*routers+rng.IntN(routers))
			}
		}
	}
	return w
}

// job is a fragment of w a scheduler leaves: each router kept with
// probability keep (at least two groups'), its routers numbered in
// order; the true hops between them and their groups.
func (w wired) job(rng *rand.Rand, keep float64) (kept []int, hops []uint16, groups []int32) {
	all := fabric.HopTable(w.nbrs)
	for r := range w.nbrs {
		if rng.Float64() < keep {
			kept = append(kept, r)
		}
	}
	k, ids := len(kept), map[int32]int32{}
	hops, groups = make([]uint16, k*k), make([]int32, k)
	for i, a := range kept {
		id, ok := ids[w.group[a]]
		if !ok {
			id = int32(len(ids))
			ids[w.group[a]] = id
		}
		groups[i] = id
		for j, b := range kept {
			hops[i*k+j] = all[a*len(w.nbrs)+b]
		}
	}
	return kept, hops, groups
}

// TestFindHiddenFragments: jobs on fragments of dragonflies wired as
// people cable them (4-8 groups of 4-8 routers linked all to all, one
// or two global links between every two groups on routers drawn at
// random), a router in two to four of each group kept, the round trips
// 2 us + 1 us a hop with noise of 5% of a hop. FindHidden must find a
// graph in every one (their routers are never more than 3 hops apart),
// whose hops between the job's routers are exactly the true ones, which
// routes as a dragonfly's groups (fabric.NewRouterNetwork uses them),
// whose routers outside the job are linked to every router of their
// group (three quarters of them at least: not those added for routers
// two hops apart through a third group), no more of them over all the
// fragments than the jobs' groups have routers they do not (a router
// added for a third group's way may exceed it in one), and which has
// routers outside
// the job wherever the job's own routers' links make some pair farther
// than it is.
func TestFindHiddenFragments(t *testing.T) {
	rng := rand.New(rand.NewPCG(69, 1))
	allToAll := func(r, s int) bool { return true }
	needed, found, minimal, hiddenAll, linkedAll, hiddenMax := 0, 0, 0, 0, 0, 0
	for c := range 40 {
		groups, routers := 4+rng.IntN(5), 4+rng.IntN(5)
		w := wireGroups(rng, groups, routers, 1+c%2, allToAll)
		kept, hops, grp := w.job(rng, 0.3+0.4*rng.Float64())
		k := len(kept)
		if k < 2*minDiameter || slices.Max(grp) < 2 {
			continue
		}
		lat := func(a, b int) float64 { return 2e-6 + 1e-6*float64(hops[a*k+b]) + 0.05e-6*(rng.Float64()-0.5) }
		router := OwnRouters(k)
		d, hidden, why := FindHidden(router, grp, lat)
		if d == nil {
			t.Errorf("case %d (%d x %d, %d routers kept): no graph: %s", c, groups, routers, k, why)
			continue
		}
		found++
		all := append(slices.Clone(grp), hidden...)
		nbrs := adjacency(len(all), d.Links)
		got := fabric.HopTable(nbrs)
		short := false
		// The job's routers' links alone (a link's second end is the
		// larger: an outside router's, if either is).
		own := fabric.HopTable(adjacency(k, slices.DeleteFunc(slices.Clone(d.Links), func(l [2]int32) bool { return int(l[1]) >= k })))
		for a := range k {
			for b := range k {
				if int(got[a*len(all)+b]) != int(hops[a*k+b]) {
					t.Fatalf("case %d: routers %d and %d: %d hops found, %d true", c, a, b, got[a*len(all)+b], hops[a*k+b])
				}
				short = short || own[a*k+b] > hops[a*k+b]
			}
		}
		// Each group's routers are all linked to each other: so are
		// the routers outside the job (fillClique), but for those added
		// for routers two hops apart through a third group.
		for v := k; v < len(all); v++ {
			hiddenAll++
			n := 0
			for r := range k {
				if all[r] == all[v] && slices.Contains(nbrs[v], int32(r)) {
					n++
				}
			}
			if n == groupSize(grp, all[v]) {
				linkedAll++
			}
		}
		// The routers outside the job can be no more than the job's
		// groups' routers it does not have, where those that the round
		// trips cannot tell apart are one (merge).
		outside := 0
		for r := range w.nbrs {
			if !slices.Contains(kept, r) && slices.ContainsFunc(kept, func(a int) bool { return w.group[a] == w.group[r] }) {
				outside++
			}
		}
		hiddenMax += outside
		if short {
			needed++
			if len(hidden) == 0 {
				t.Errorf("case %d: the job's links leave pairs farther than they are, and no router outside the job was found", c)
			}
		}
		hosts := make([]string, k)
		for h := range hosts {
			hosts[h] = "h" + string(rune('a'+h%26)) + string(rune('a'+h/26))
		}
		// Two groups whose routers are all nearer through a third group's
		// than over their own global link (drawn at random, it can land
		// 3 hops from each) have no link of their own in the graph: the
		// network is then routed by shortest paths, as it is.
		_, whyNot, err := fabric.NewRouterNetwork(hosts, router, len(all), d.Links, 0, 1e9, 1e-6, all)
		if err != nil || whyNot != "" && !strings.HasPrefix(whyNot, "no link joins group") {
			t.Errorf("case %d: not routed: %v %s", c, err, whyNot)
		}
		if whyNot == "" {
			minimal++
		}
	}
	if found < 20 || needed < 10 || minimal < found/2 || linkedAll < hiddenAll*3/4 || hiddenAll > hiddenMax {
		t.Errorf("%d fragments found, %d needing routers outside the job, %d routed minimally, %d of %d outside routers linked to their whole group: "+
			"want at least 20, 10, half and three quarters; the job's groups have %d routers it does not", found, needed, minimal, linkedAll, hiddenAll, hiddenMax)
	}
	t.Logf("%d fragments found, %d with routers outside the job (%d, %d linked to their whole group; the job's groups have %d more), "+
		"%d routed minimally in their groups", found, needed, hiddenAll, linkedAll, hiddenMax, minimal)
}

// TestFindHiddenRefuses: FindHidden finds no graph where its routers
// would make some pair nearer or farther than it is: a fat tree's
// leaves in pods (every two of different pods alike apart), and groups
// whose routers are linked only along rows and columns (Cray's Aries:
// up to 2 hops inside a group, 5 between), where a graph with hidden
// routers is found only if its hops are the true ones.
func TestFindHiddenRefuses(t *testing.T) {
	router := OwnRouters(12)
	pods := make([]int32, 12)
	for r := range pods {
		pods[r] = int32(r / 4)
	}
	tree := func(a, b int) float64 {
		if pods[a] == pods[b] {
			return 3e-6
		}
		return 5e-6
	}
	if d, _, why := FindHidden(router, pods, tree); d != nil || why == "" {
		t.Errorf("a fat tree's pods found as a graph of routers: %v %q", d, why)
	}
	rng := rand.New(rand.NewPCG(69, 2))
	rows := func(r, s int) bool { return r/3 == s/3 || r%3 == s%3 }
	refused := 0
	for c := range 20 {
		w := wireGroups(rng, 5, 9, 1, rows)
		kept, hops, grp := w.job(rng, 0.5)
		k := len(kept)
		if k < 2*minDiameter || slices.Max(grp) < 1 {
			continue
		}
		d, hidden, _ := FindHidden(OwnRouters(k), grp, func(a, b int) float64 { return 2e-6 + 1e-6*float64(hops[a*k+b]) })
		if d == nil {
			refused++
			continue
		}
		n := k + len(hidden)
		got := fabric.HopTable(adjacency(n, d.Links))
		for a := range k {
			for b := range k {
				if got[a*n+b] != hops[a*k+b] {
					t.Fatalf("case %d: routers %d and %d: %d hops found, %d true", c, a, b, got[a*n+b], hops[a*k+b])
				}
			}
		}
	}
	t.Logf("rows and columns: %d of 20 fragments refused", refused)
}

// groupSize is how many of routers (grp: each one's group) are in group g.
func groupSize(grp []int32, g int32) int {
	n := 0
	for _, x := range grp {
		if x == g {
			n++
		}
	}
	return n
}
