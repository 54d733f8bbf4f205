package fabric

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
)

// TestSimGridZones: zones routed Full, Floyd, Dijkstra and Cluster
// (testdata/simgrid) route as SimGrid 3.32 routes them (its route_to,
// printed by testdata/sim/routes.cpp after sealing the platform; the
// want strings below are its output, TestRoutesAsSimGrid runs it where
// SimGrid is installed).
func TestSimGridZones(t *testing.T) {
	for _, c := range []struct {
		file, routing string
		want          []string // "src dst links..." as SimGrid prints them
	}{
		{"zone-full.xml", RoutesDeclared, []string{"a b la_UP lb", "b a lb la_DOWN", "b c lb lc", "c b lc", "c a lc la_DOWN"}},
		{"zone-floyd.xml", RoutesShortest, []string{"a b la lb", "a d la l12_UP ld1 ld2", "d a ld2 ld1 l12_DOWN la", "c d lc ld1 ld2"}},
		{"zone-dijkstra.xml", RoutesShortest, []string{"a d la l12_UP ld2 ld1", "d a ld1 ld2 l12_DOWN la"}},
		{"zone-cluster.xml", RoutesShortest, []string{"n0 n1 l0_UP bb l1_DOWN", "n2 n0 l2_UP bb l0_DOWN"}},
	} {
		f, err := Read(filepath.Join("testdata", "simgrid", c.file))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if f.Kind != KindGraph || f.Routing != c.routing || f.Reverse != CrossTraffic {
			t.Errorf("%s: kind %s, routing %q, cross traffic %g", c.file, f.Kind, f.Routing, f.Reverse)
		}
		idx := f.HostIndex()
		for _, w := range c.want {
			x := strings.Fields(w)
			if got := strings.Join(linkNames(f, f.Path(idx[x[0]], idx[x[1]])), " "); got != strings.Join(x[2:], " ") {
				t.Errorf("%s: %s -> %s over %s, want %s", c.file, x[0], x[1], got, strings.Join(x[2:], " "))
			}
		}
	}
	f, err := Read(filepath.Join("testdata", "simgrid", "zone-floyd.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if l := linkByName(t, f, "l12_UP"); l.Bandwidth != 4e9 || l.Latency != 2e-6 {
		t.Errorf("l12_UP: %+v, want 4 GB/s and 2 us", l)
	}
}

// TestSimGridZoneErrors: zones latmap does not read, and zones whose
// routes are incomplete or wrong, are errors that say why.
func TestSimGridZoneErrors(t *testing.T) {
	const hosts = `<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><link id="l" bandwidth="1GBps" latency="1us"/>`
	for _, c := range []struct{ zone, want string }{
		{`<zone id="z" routing="Full">` + hosts + `</zone>`, "lists no route from a to b"},
		{`<zone id="z" routing="Full">` + hosts + `<route src="a" dst="b"><link_ctn id="m"/></route></zone>`, `link_ctn "m": no such link`},
		{`<zone id="z" routing="Full">` + hosts + `<route src="a" dst="b"><link_ctn id="l"/></route><route src="b" dst="a"><link_ctn id="l"/></route></zone>`, "a second route from b to a"},
		{`<zone id="z" routing="Floyd">` + hosts + `</zone>`, "do not join"},
		{`<zone id="z" routing="Vivaldi">` + hosts + `</zone>`, `routing "Vivaldi" is not read`},
		{`<zone id="z" routing="Full"><zone id="y" routing="Full">` + hosts + `</zone></zone>`, "latmap reads one zone"},
		{`<zone id="z" routing="Full">` + hosts + `<link id="f" bandwidth="1GBps" sharing_policy="WIFI"/></zone>`, "WIFI is not modelled"},
		{`<zone id="z" routing="Cluster">` + hosts + `</zone>`, "host a has no host_link"},
	} {
		_, err := Parse([]byte(`<platform version="4.1">` + c.zone + `</platform>`))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.zone, err, c.want)
		}
	}
}

// TestSimGridFatPipe: a FATPIPE link (a backbone each flow has whole, a
// host's loopback) is read as one link of its latency, class
// ClassFatPipe and no bandwidth (it prices no sharing), the others as
// declared; and a platform latmap wrote (WriteSimGrid: each host's
// loopback is FATPIPE) reads back with the same routes. Both were
// refused: "sharing_policy FATPIPE is not modelled".
func TestSimGridFatPipe(t *testing.T) {
	f, err := Parse([]byte(`<platform version="4.1"><zone id="z" routing="Full">` +
		`<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>` +
		`<link id="la" bandwidth="1GBps" latency="1us"/><link id="lb" bandwidth="1GBps" latency="1us"/>` +
		`<link id="bb" bandwidth="10GBps" latency="3us" sharing_policy="FATPIPE"/>` +
		`<route src="a" dst="b"><link_ctn id="la"/><link_ctn id="bb"/><link_ctn id="lb"/></route></zone></platform>`))
	if err != nil {
		t.Fatal(err)
	}
	if l := linkByName(t, f, "bb"); l.Bandwidth != 0 || l.Latency != 3e-6 || l.Class != ClassFatPipe {
		t.Errorf("FATPIPE link bb read as %+v, want no bandwidth, 3 us, class %s", l, ClassFatPipe)
	}
	if l := linkByName(t, f, "la"); l.Bandwidth != 1e9 || l.Class == ClassFatPipe {
		t.Errorf("SHARED link la read as %+v, want 1 GB/s", l)
	}
	idx := f.HostIndex()
	if got := strings.Join(linkNames(f, f.Path(idx["b"], idx["a"])), " "); got != "lb bb la" {
		t.Errorf("b -> a over %s, want lb bb la", got)
	}
	src, err := Read(filepath.Join(testutil.RepoRoot(t), "testdata", "sim", "fattree-16x4.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var hosts []SimGridHost
	for i := 0; i < len(src.Hosts); i += 3 {
		hosts = append(hosts, SimGridHost{Index: i, Name: src.Hosts[i], Cores: 4})
	}
	var b strings.Builder
	if err := src.WriteSimGrid(&b, hosts, 1.25e9, 1e-6, 12.5e9, 1e-7); err != nil {
		t.Fatal(err)
	}
	back, err := Parse([]byte(b.String()))
	if err != nil {
		t.Fatalf("latmap's own platform: %v", err)
	}
	bi := back.HostIndex()
	for _, x := range hosts {
		for _, y := range hosts {
			if x == y {
				continue
			}
			var want []string
			for _, l := range src.Path(x.Index, y.Index) {
				want = append(want, fmt.Sprintf("l%d", l))
			}
			if got := linkNames(back, back.Path(bi[x.Name], bi[y.Name])); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("read back, %s -> %s over %v, written over %v", x.Name, y.Name, got, want)
			}
		}
	}
}
