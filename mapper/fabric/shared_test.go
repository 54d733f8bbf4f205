package fabric

import (
	"strings"
	"testing"
)

// TestNewShared: a flow between hosts of two routers crosses its source's
// node link, the shared links its class names in order, and its
// destination's; on one router its node links alone. A class naming a
// link past the count, or a host on a router past nr, is an error.
func TestNewShared(t *testing.T) {
	hosts := []string{"h0", "h1", "h2"}
	cross := func(r int32, b int) []int32 {
		if r == 0 && b == 2 {
			return []int32{1, 0}
		}
		return nil
	}
	f, err := NewShared(hosts, []int32{0, 0, 1}, 2, 2, cross, 1e9, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	name := func(a, b int) string {
		var n []string
		for _, l := range f.Path(a, b) {
			n = append(n, f.Links[l].Name)
		}
		return strings.Join(n, " ")
	}
	if got := name(1, 2); got != "node_h1_UP shared1 shared0 node_h2_DOWN" {
		t.Errorf("h1 -> h2: %s", got)
	}
	if got := name(0, 1); got != "node_h0_UP node_h1_DOWN" {
		t.Errorf("h0 -> h1 on one router: %s", got)
	}
	if got := name(2, 0); got != "node_h2_UP node_h0_DOWN" {
		t.Errorf("h2 -> h0, a class that shares nothing: %s", got)
	}
	if l := f.Links[f.Path(1, 2)[1]]; l.Class != ClassShared || l.Bandwidth != 1e9 {
		t.Errorf("shared link %+v", l)
	}
	for _, c := range []struct {
		router []int32
		nl     int
		want   string
	}{{[]int32{0, 0, 1}, 1, "crosses shared link 1 of 1"}, {[]int32{0, 0, 2}, 2, "on router 2 of 2"}} {
		if _, err := NewShared(hosts, c.router, 2, c.nl, cross, 1e9, 0); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("routers %v, %d links: %v, want %q", c.router, c.nl, err, c.want)
		}
	}
}
