package links

import (
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
)

// TestFatPipePricesNoSharing: two hosts' flows into a third cross a
// FATPIPE backbone (each flow has its bandwidth to itself) and the
// third's SHARED link: the backbone is priced at no capacity (its
// seconds per byte 0: it never bounds the sum of the flows crossing it),
// the shared links at their declared bandwidth, and the pricing says so.
func TestFatPipePricesNoSharing(t *testing.T) {
	f, err := fabric.Parse([]byte(`<platform version="4.1"><zone id="z" routing="Full">` +
		`<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><host id="c" speed="1Gf"/>` +
		`<link id="la" bandwidth="1GBps" latency="1us"/><link id="lb" bandwidth="1GBps" latency="1us"/>` +
		`<link id="lc" bandwidth="1GBps" latency="1us"/>` +
		`<link id="bb" bandwidth="1GBps" latency="1us" sharing_policy="FATPIPE"/>` +
		`<route src="a" dst="b"><link_ctn id="la"/><link_ctn id="bb"/><link_ctn id="lb"/></route>` +
		`<route src="a" dst="c"><link_ctn id="la"/><link_ctn id="bb"/><link_ctn id="lc"/></route>` +
		`<route src="b" dst="c"><link_ctn id="lb"/><link_ctn id="bb"/><link_ctn id="lc"/></route></zone></platform>`))
	if err != nil {
		t.Fatal(err)
	}
	hosts := []string{"a", "b", "c"}
	rt, _, err := NewRoutes(f, RouteInputs{Hosts: hosts, NodeOut: make([]float64, 3), NodeIn: make([]float64, 3), PairBW: func(a, b int) float64 { return 0 }})
	if err != nil {
		t.Fatal(err)
	}
	for l, link := range f.Links {
		want := 1e-9
		if link.Name == "bb" {
			want = 0
		}
		if got := rt.Inv[l]; got != want {
			t.Errorf("link %s priced at %g s/B, want %g", link.Name, got, want)
		}
	}
	if !strings.Contains(rt.Source, "1 FATPIPE links price no sharing") {
		t.Errorf("the pricing does not say the FATPIPE link prices no sharing: %s", rt.Source)
	}
}
