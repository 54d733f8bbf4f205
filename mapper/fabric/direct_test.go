package fabric

import (
	"fmt"
	"math"
	"testing"
)

// TestDirectRoutes: on a direct network of a 4 x 3 torus (x first),
// Route's path from every host to every other is as many links as the
// hops between them, each leaving the host the one before reached; and
// RouteShares moves the whole message out of the source and into the
// destination, its shares summing to the hops (every byte crosses that
// many links). Links that leave a host alone are an error.
func TestDirectRoutes(t *testing.T) {
	const x, y = 4, 3
	hosts := make([]string, x*y)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("n%d", i)
	}
	var links [][2]int32
	for p := 0; p < x*y; p++ {
		for _, q := range []int{p/x*x + (p%x+1)%x, (p + x) % (x * y)} {
			links = append(links, [2]int32{int32(min(p, q)), int32(max(p, q))})
		}
	}
	f, err := NewDirect(hosts, links, 1e9, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	// Each link's ends, from its name's order of creation: link 2i is
	// links[i] a -> b, 2i+1 b -> a.
	end := func(l int32) (from, to int) {
		p := links[l/2]
		if l%2 == 0 {
			return int(p[0]), int(p[1])
		}
		return int(p[1]), int(p[0])
	}
	hops := func(a, b int) int {
		dx, dy := (a%x-b%x+x)%x, (a/x-b/x+y)%y
		return min(dx, x-dx) + min(dy, y-dy)
	}
	for a := range hosts {
		for b := range hosts {
			path := f.Path(a, b)
			if len(path) != hops(a, b) {
				t.Fatalf("%d -> %d: %d links, want %d hops", a, b, len(path), hops(a, b))
			}
			at := a
			for _, l := range path {
				from, to := end(l)
				if from != at {
					t.Fatalf("%d -> %d: link %s leaves %d, the path is at %d", a, b, f.Links[l].Name, from, at)
				}
				at = to
			}
			var out, in, sum float64
			f.RouteShares(a, b, func(l int32, share float64) {
				from, to := end(l)
				if from == a {
					out += share
				}
				if to == b {
					in += share
				}
				sum += share
			})
			if a != b && (math.Abs(out-1) > 1e-12 || math.Abs(in-1) > 1e-12 || math.Abs(sum-float64(hops(a, b))) > 1e-9) {
				t.Errorf("%d -> %d: %.3g leaves, %.3g arrives, %.3g crossed; want 1, 1, %d", a, b, out, in, sum, hops(a, b))
			}
		}
	}
	if _, err := NewDirect(hosts[:3], [][2]int32{{0, 1}}, 1e9, 0); err == nil {
		t.Error("host 2 joined by no link: no error")
	}
}
