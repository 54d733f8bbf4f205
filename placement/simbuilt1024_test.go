package placement

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/placement/internal/shapes"
)

// siteDragonfly is a list of links (fabric's "a b bw lat") of a
// dragonfly of 8 groups of 8 routers, each router linked to every other
// of its group, each pair of groups by two global links cabled as a site
// spreads them (group g's links to group h on its routers (g+h) mod 8
// and (g+h+4) mod 8), 4 hosts a router (256 hosts, dfG.R.H), every link
// 10 Gbit/s and 0.5 us.
func siteDragonfly() string {
	return cabledDragonfly("df", 8, 8, func(g, h int) [][2]int {
		return [][2]int{{(g + h) % 8, (g + h) % 8}, {(g + h + 4) % 8, (g + h + 4) % 8}}
	})
}

// cabledDragonfly is a list of links of a dragonfly of groups x routers,
// each router linked to every other of its group and serving 4 hosts
// (prefixG.R.H), groups g < h joined by a global link between their
// routers r (of g) and s (of h) for each {r, s} of cables(g, h); every
// link 10 Gbit/s and 0.5 us.
func cabledDragonfly(prefix string, groups, routers int, cables func(g, h int) [][2]int) string {
	var b strings.Builder
	for g := 0; g < groups; g++ {
		for r := 0; r < routers; r++ {
			for h := 0; h < 4; h++ {
				fmt.Fprintf(&b, "%s%d.%d.%d g%dr%d 10Gbps 0.5us\n", prefix, g, r, h, g, r)
			}
			for s := r + 1; s < routers; s++ {
				fmt.Fprintf(&b, "g%dr%d g%dr%d 10Gbps 0.5us\n", g, r, g, s)
			}
		}
		for h := g + 1; h < groups; h++ {
			for _, c := range cables(g, h) {
				fmt.Fprintf(&b, "g%dr%d g%dr%d 10Gbps 0.5us\n", g, c[0], h, c[1])
			}
		}
	}
	return b.String()
}

// fragmented picks 64 of the site dragonfly's 256 hosts as a busy
// machine's scheduler leaves them: hosts of five of the eight groups,
// on some of their routers each, one to four hosts a router, in the
// fabric's host order.
func fragmented(f *fabric.Fabric) []int {
	var pick []int
	for i, name := range f.Hosts {
		var g, r, h int
		if _, err := fmt.Sscanf(name, "df%d.%d.%d", &g, &r, &h); err != nil {
			continue
		}
		if !slices.Contains([]int{0, 2, 3, 5, 6}, g) || (g*5+r*3)%8 >= 6 {
			continue
		}
		if h < 1+(g+r)%4 && len(pick) < 64 {
			pick = append(pick, i)
		}
	}
	return pick
}

// BenchmarkSimBuiltDragonfly1024: 1,024 ranks (64 hosts of 16 cores) on
// a fragmented allocation (fragmented) of a dragonfly wired as a site
// cables it (siteDragonfly, routed by shortest paths), the survey of
// scope nodes measured inside the simulation, a 16 x 8 x 8 stencil and
// a random sparse graph replayed under block, cyclic and the proposal,
// priced from the survey alone and with the list of links declared:
// predicted and simulated runs, and each miss of the simulated checks'
// bounds (make bench-sim-built).
func BenchmarkSimBuiltDragonfly1024(b *testing.B) {
	c := builtClusterOf(b, "dragonfly-site-1024", writeLinks(b, siteDragonfly()), 16, fragmented)
	if len(c.hosts) != 64 {
		b.Fatalf("%d hosts picked, want 64", len(c.hosts))
	}
	files := c.declared
	n := 1024
	apps := []simApp{
		{"stencil 16x8x8, 10 x 1 MiB", scaleFlows(first(shapes.Halo3D(16, 8, 8, false)), 10<<20)},
		{"random-sparse-1024, 10 x 1 MiB", scaleFlows(first(shapes.RandomSparse(n, 4, 1)), 10<<20)},
	}
	for b.Loop() {
		t0 := time.Now()
		c.declared = nil
		sv := c.survey(b, survey.ScopeNodes, []int{64, 1 << 20}, 5)
		fmt.Printf("\nsite-wired dragonfly, 1,024 ranks on 64 hosts of 5 groups: survey of scope nodes inside the simulation, %.1f s\n", time.Since(t0).Seconds())
		misses := printSurveyAloneAndDeclared(b, c, sv, apps, n, files)
		fmt.Printf("misses of the simulated checks' bounds: %d\n", len(misses))
		for _, m := range misses {
			fmt.Println("  " + m)
		}
	}
}
