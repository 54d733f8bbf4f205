package fabric

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// plainTorus is a plain description of an x-by-y torus (z 1), host hX_Y
// at (X, Y).
func plainTorus(x, y int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "torus %dx%dx1 bw=10Gbps lat=1us\n", x, y)
	for i := range x {
		for j := range y {
			fmt.Fprintf(&b, "h%d_%d %d %d 0\n", i, j, i, j)
		}
	}
	return b.String()
}

// TestSummarizeRing checks the summary of a 4-host ring against its
// geometry: of the 12 ordered pairs, 8 are neighbours (one link) and 4
// are opposite (two links); the 16 link crossings over its 8 directed
// links are 2 routes a link on average; every link is used.
func TestSummarizeRing(t *testing.T) {
	f, err := ReadPlain(strings.NewReader(plainTorus(4, 1)))
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(f)
	if s.Sampled || s.Pairs != 12 || len(s.Hosts) != 4 {
		t.Fatalf("pairs %d (sampled %v), hosts %d: want all 12 pairs of 4 hosts", s.Pairs, s.Sampled, len(s.Hosts))
	}
	if fmt.Sprint(s.Hops) != "[0 8 4]" {
		t.Errorf("route lengths %v, want [0 8 4] (8 pairs one link apart, 4 two)", s.Hops)
	}
	var links int
	var mean float64
	for _, c := range s.Classes {
		links += c.Links
		mean += c.MeanRoutes * float64(c.Links)
		if c.Links > 0 && (c.Routes < c.MeanRoutes || c.MinBps != 1.25e9 || c.MaxLatency != 1e-6) {
			t.Errorf("class %s: busiest %g under its mean %g, or bandwidth %g B/s / latency %g s not the declared 1.25e9 / 1e-6", c.Class, c.Routes, c.MeanRoutes, c.MinBps, c.MaxLatency)
		}
	}
	if links != 8 || math.Abs(mean/float64(links)-2) > 1e-9 || s.UnusedCount != 0 {
		t.Errorf("%d links, %g routes a link, %d unused: want 8 links, 2 routes each on average, none unused", links, mean/float64(links), s.UnusedCount)
	}
}

// TestSummarizeSamples checks the sample of a fabric with more host
// pairs than summaryPairs: a 32 x 32 torus (1,047,552 ordered pairs).
// On a ring of 32 a host's 31 others are 256 hops away in all, so on
// the torus its 1,023 others are 2 x 32 x 256 = 16,384 hops away: a mean
// route of 16,384 / 1,023 links, which the sample finds within 1% if
// its routes have the right lengths. Every link of the torus carries as
// many routes of all pairs; of a uniform sample's, the busiest within
// 25% of the mean (a sample drawn from a few hosts loads the links near
// them).
func TestSummarizeSamples(t *testing.T) {
	f, err := ReadPlain(strings.NewReader(plainTorus(32, 32)))
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(f)
	if !s.Sampled || s.Pairs != summaryPairs {
		t.Fatalf("sampled %v, %d pairs: want a sample of %d", s.Sampled, s.Pairs, summaryPairs)
	}
	var n, sum int
	for k, c := range s.Hops {
		n, sum = n+c, sum+k*c
	}
	want := 16384.0 / 1023
	if got := float64(sum) / float64(n); n != s.Pairs || math.Abs(got/want-1) > 0.01 {
		t.Errorf("%d pairs counted of %d; mean route %.4f links, want %.4f within 1%%", n, s.Pairs, got, want)
	}
	for _, c := range s.Classes {
		if c.Routes > 1.25*c.MeanRoutes {
			t.Errorf("class %s: the busiest link carries %g routes, the mean %g: not a uniform sample", c.Class, c.Routes, c.MeanRoutes)
		}
	}
	var b bytes.Buffer
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "a sample of 524288 host pairs") || !strings.Contains(b.String(), "links no route crosses in the sample: none") {
		t.Errorf("the text does not say the routes were sampled:\n%s", b.String())
	}
}

// TestSummarizeTables checks the summary of the small InfiniBand fabric
// routed by its forwarding tables (testdata/ib-small.*), read in its
// own formats: hosta and hostb on leaf1, hostc on leaf2. The tables take
// hosta's and hostb's traffic to each other over leaf1 (2 links), to
// hostc up to the spine and down to leaf2 (4 links), and hostc's back
// over the leaf2-leaf1 peer link (3 links); so leaf1->leaf2, spine->leaf1
// and leaf2->spine carry no route, which the summary names.
func TestSummarizeTables(t *testing.T) {
	f, err := ReadAll([]string{filepath.Join("testdata", "ib-small.topo"), filepath.Join("testdata", "ib-small.lft")})
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(f)
	if s.Routing != RoutesFromTables || len(s.Hosts) != 3 || s.Pairs != 6 {
		t.Fatalf("routing %q, %d hosts, %d pairs: want forwarding tables, 3 hosts, 6 pairs", s.Routing, len(s.Hosts), s.Pairs)
	}
	if fmt.Sprint(s.Hops) != "[0 0 2 2 2]" {
		t.Errorf("route lengths %v, want [0 0 2 2 2]", s.Hops)
	}
	if len(s.Levels) != 1 || s.Levels[0].Groups != 2 || s.Levels[0].MinHosts != 1 || s.Levels[0].MaxHosts != 2 {
		t.Errorf("levels %+v: want one of 2 leaf switches, of 1 and 2 hosts", s.Levels)
	}
	var b bytes.Buffer
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if s.UnusedCount != 3 || !strings.Contains(b.String(), "links no route crosses: 3 (") {
		t.Errorf("%d links unused (%v), want 3 named:\n%s", s.UnusedCount, s.Unused, b.String())
	}
}
