package topo

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
)

// sharingGraph is the graph of every two vertices of each clique.
func sharingGraph(cliques ...[]int32) map[int32]map[int32]bool {
	adj := map[int32]map[int32]bool{}
	for _, c := range cliques {
		for _, a := range c {
			for _, b := range c {
				if a != b {
					if adj[a] == nil {
						adj[a] = map[int32]bool{}
					}
					adj[a][b] = true
				}
			}
		}
	}
	return adj
}

// checkCover fails where cover leaves an edge of adj uncovered or has a
// set that is no clique of adj.
func checkCover(t *testing.T, name string, adj map[int32]map[int32]bool, cover [][]int32) {
	t.Helper()
	in := map[[2]int32]bool{}
	for _, c := range cover {
		for i, a := range c {
			for _, b := range c[i+1:] {
				if !adj[a][b] {
					t.Errorf("%s: %v is no clique (%d-%d apart)", name, c, a, b)
				}
				in[[2]int32{a, b}], in[[2]int32{b, a}] = true, true
			}
		}
	}
	for a, nb := range adj {
		for b := range nb {
			if !in[[2]int32{a, b}] {
				t.Errorf("%s: edge %d-%d not covered by %v", name, a, b, cover)
			}
		}
	}
}

// TestSharedCover: the flows of each link slow each other two by two,
// so a union of links' sets of flows is a union of cliques, and
// SharedCover gives back those sets: two links of four flows sharing
// two flows ({0 1 2 3} and {2 3 4 5}), a third apart, and one of two.
// Grown edge by edge instead, from the first edge not yet covered, the
// cover took {0 1 2 3}, then {2 4 3 5}... as one set only where the
// vertex adjacent to all of it came in order; on the graph of three
// links below ({0 1 2}, {0 3 4}, {1 3 5}: a triangle of flows 0, 1 and 3
// across three links, itself a maximal clique) the cover is the three
// links, which cover the triangle's edges. At
// more maximal cliques than it chooses from (maxSharedCliques), every
// edge still lies in a clique of the cover.
func TestSharedCover(t *testing.T) {
	links := [][]int32{{0, 1, 2, 3}, {2, 3, 4, 5}, {6, 7, 8}, {9, 10}}
	adj := sharingGraph(links...)
	got := SharedCover(adj, nil)
	checkCover(t, "four links", adj, got)
	if fmt.Sprint(got) != fmt.Sprint(links) {
		t.Errorf("four links: cover %v, want %v", got, links)
	}
	tri := [][]int32{{0, 1, 2}, {0, 3, 4}, {1, 3, 5}}
	adj = sharingGraph(tri...)
	got = SharedCover(adj, nil)
	checkCover(t, "triangle", adj, got)
	if fmt.Sprint(got) != fmt.Sprint(tri) {
		t.Errorf("triangle: cover %v, want the three links (their edges cover {0 1 3}'s)", got)
	}
	// One link of four classes, 0 and 1 to one host, 2 and 3 to
	// another: the probe cannot judge 0 with 1 nor 2 with 3 (no four
	// distinct hosts), and found the other four pairs sharing. Taken as
	// able to share, the unjudged pairs make the link one clique; left
	// out, the four pairs are four cliques, each a link of two classes.
	shared, free := sharingGraph([]int32{0, 2}, []int32{0, 3}, []int32{1, 2}, []int32{1, 3}), sharingGraph([]int32{0, 1}, []int32{2, 3})
	if got := SharedCover(shared, free); fmt.Sprint(got) != "[[0 1 2 3]]" {
		t.Errorf("one link, two pairs unjudged: cover %v, want [[0 1 2 3]]", got)
	}
	if got := SharedCover(shared, nil); len(got) != 4 {
		t.Errorf("one link, the pairs unjudged left out: cover %v, want the 4 pairs", got)
	}
	defer func(m int) { maxSharedCliques = m }(maxSharedCliques)
	maxSharedCliques = 1
	adj = sharingGraph(links...)
	got = SharedCover(adj, nil)
	checkCover(t, "past the bound", adj, got)
	if len(got) < 4 {
		t.Errorf("past the bound: cover %v of fewer sets than links", got)
	}
}

// probeSurvey is a survey of one rank on each of hosts, whose probe put
// them on routers and judged the rows of shares, every pair of classes
// judged unless unjudged.
func probeSurvey(routers map[string]int, shares []survey.Share, unjudged int, hosts ...string) *survey.Survey {
	s := &survey.Survey{Shares: shares}
	for _, h := range hosts {
		s.Ranks = append(s.Ranks, survey.Rank{Rank: len(s.Ranks), Host: h})
	}
	s.Meta.Probe = &survey.ProbeMeta{Routers: routers, Threshold: 1.5, Judged: len(shares), Unjudged: unjudged}
	return s
}

// TestProbeShared: three routers of two hosts; the probe found the
// flows a0 -> b0 and c0 -> b1 slowing each other (the classes router 0
// to b0 and router 2 to b1), and a1 -> c0 and b0 -> c1, but not a0 -> b1
// and c0 -> a1. Each shared pair is a link its two classes cross, in
// the order of the fabric's route between the node links; a class no
// pair shared crosses none. A probe that left pairs unjudged, or whose
// routers lack a host of the survey, gives none.
func TestProbeShared(t *testing.T) {
	routers := map[string]int{"a0": 5, "a1": 5, "b0": 7, "b1": 7, "c0": 9, "c1": 9}
	shares := []survey.Share{
		{SrcA: "a0", DstA: "b0", SrcB: "c0", DstB: "b1", SlowdownA: 2, SlowdownB: 1.9, Shared: true},
		{SrcA: "a1", DstA: "c0", SrcB: "b0", DstB: "c1", SlowdownA: 1.7, SlowdownB: 2, Shared: true},
		{SrcA: "a0", DstA: "b1", SrcB: "c0", DstB: "a1", SlowdownA: 1, SlowdownB: 1.1},
	}
	hosts := []string{"a0", "a1", "b0", "b1", "c0", "c1"}
	sl := ProbeShared(probeSurvey(routers, shares, 0, hosts...))
	if sl == nil || sl.Routers != 3 || sl.Links != 2 || sl.Pairs != 2 || fmt.Sprint(sl.Router) != "[0 0 1 1 2 2]" {
		t.Fatalf("shared links %+v: want 3 routers, 2 links of 2 pairs", sl)
	}
	f, err := sl.Fabric(1e9, 0)
	if err != nil {
		t.Fatal(err)
	}
	idx := f.HostIndex()
	path := func(a, b string) []string {
		var names []string
		for _, l := range f.Path(idx[a], idx[b]) {
			names = append(names, f.Links[l].Name)
		}
		return names
	}
	ab, cb := path("a1", "b0"), path("c1", "b1") // the classes of the first row, from the routers' other hosts
	ac, bc := path("a0", "c0"), path("b1", "c1") // the second row's
	if len(ab) != 3 || len(cb) != 3 || len(ac) != 3 || len(bc) != 3 || ab[1] != cb[1] || ac[1] == ab[1] || bc[1] != ac[1] {
		t.Errorf("routes a1->b0 %v, c1->b1 %v, a0->c0 %v, b1->c1 %v: want each shared pair on one link of its own", ab, cb, ac, bc)
	}
	if p := path("a0", "b1"); len(p) != 2 {
		t.Errorf("a0 -> b1, which shared nothing: %v, want its node links alone", p)
	}
	if p := path("a0", "a1"); len(p) != 2 {
		t.Errorf("a0 -> a1 on one router: %v, want its node links alone", p)
	}
	if sl := ProbeShared(probeSurvey(routers, shares, 3, hosts...)); sl != nil {
		t.Errorf("a probe with pairs unjudged: %+v, want none", sl)
	}
	if sl := ProbeShared(probeSurvey(routers, shares, 0, append(hosts, "d0")...)); sl != nil {
		t.Errorf("a host the probe has no router of: %+v, want none", sl)
	}
}

// TestUnjudgeable: the pairs of classes of flows (a router's hosts to a
// host) with no two flows of four distinct hosts: of one destination
// host; from a router of one host; from a router of two hosts one of
// which is the other class's destination. Two classes from a router of
// two hosts to hosts elsewhere, or from two routers, are judged.
func TestUnjudgeable(t *testing.T) {
	// Routers 0 (h0, h1), 1 (h2, h3), 2 (h4 alone).
	sl := &SharedLinks{Hosts: []string{"h0", "h1", "h2", "h3", "h4"}, Router: []int32{0, 0, 1, 1, 2}, Routers: 3}
	u := sl.unjudgeable()
	class := func(r, b int32) int32 { return r*5 + b }
	for _, c := range []struct {
		r1, b1, r2, b2 int32
		want           bool
	}{
		{0, 2, 1, 4, false}, // h0 -> h2, h3 -> h4
		{0, 2, 0, 3, false}, // h0 -> h2, h1 -> h3
		{0, 2, 2, 2, true},  // one destination
		{0, 4, 1, 4, true},  // one destination
		{2, 0, 2, 1, true},  // router 2's one host
		{0, 4, 2, 1, true},  // router 2's one host is h4, the other's destination
		{0, 2, 1, 0, false}, // h1 -> h2, h3 -> h0
		{0, 2, 0, 4, false}, // h0 -> h2, h1 -> h4
		{0, 4, 1, 0, false}, // h1 -> h4, h2 -> h0
	} {
		if got := u[class(c.r1, c.b1)][class(c.r2, c.b2)]; got != c.want || u[class(c.r2, c.b2)][class(c.r1, c.b1)] != got {
			t.Errorf("router %d to h%d and router %d to h%d: unjudgeable %v, want %v", c.r1, c.b1, c.r2, c.b2, got, c.want)
		}
	}
}

// BenchmarkSharedCover times SharedCover on the sharing graph of random
// links: every class of flows (a router's hosts to a host) of a job of
// 16 hosts, two a router, and of 32, one and two a router, on 3 or 4 of
// 30-100 links drawn at random, the pairs of one destination host not
// judged (free). At 32 hosts, --probe auto's most, place and topo each
// cover the probe's graph once.
func BenchmarkSharedCover(b *testing.B) {
	for _, c := range []struct{ routers, per, links, cross int }{{8, 2, 40, 3}, {16, 2, 60, 3}, {16, 2, 30, 4}, {32, 1, 100, 4}} {
		shared, free := randomSharing(c.routers, c.per, c.links, c.cross)
		b.Run(fmt.Sprintf("%d hosts on %d routers, %d links", c.routers*c.per, c.routers, c.links), func(b *testing.B) {
			n := 0
			for b.Loop() {
				n = len(SharedCover(shared, free))
			}
			b.ReportMetric(float64(n), "links")
		})
	}
}

// randomSharing is the sharing graph (pairs of classes on a common
// link, of two destination hosts) and the pairs not judged (one
// destination host) of routers x per hosts whose classes each cross
// cross of links links drawn at random.
func randomSharing(routers, per, links, cross int) (shared, free map[int32]map[int32]bool) {
	nh := routers * per
	rng := rand.New(rand.NewPCG(1, 2))
	on := make([][]int32, links)
	var classes []int32
	for r := range routers {
		for b := range nh {
			if b/per != r {
				k := int32(r*nh + b)
				classes = append(classes, k)
				for range cross {
					l := rng.IntN(links)
					on[l] = append(on[l], k)
				}
			}
		}
	}
	shared, free = map[int32]map[int32]bool{}, map[int32]map[int32]bool{}
	add := func(g map[int32]map[int32]bool, a, b int32) {
		if g[a] == nil {
			g[a] = map[int32]bool{}
		}
		if g[b] == nil {
			g[b] = map[int32]bool{}
		}
		g[a][b], g[b][a] = true, true
	}
	for _, ks := range on {
		for i, a := range ks {
			for _, b := range ks[i+1:] {
				if a%int32(nh) != b%int32(nh) {
					add(shared, a, b)
				}
			}
		}
	}
	for i, a := range classes {
		for _, b := range classes[i+1:] {
			if a%int32(nh) == b%int32(nh) {
				add(free, a, b)
			}
		}
	}
	return shared, free
}
