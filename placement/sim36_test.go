package placement

import (
	"fmt"
	"testing"
	"time"

	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/placement/internal/shapes"
)

// BenchmarkSimDragonfly36: a dragonfly of a shape the model was not
// developed on (testdata/sim/dragonfly-36.xml: 3 groups of 2 chassis of
// 3 routers of 2 nodes, 4 cores a node, 144 ranks), the survey of every
// pair measured inside the simulation, then three applications placed
// from the survey alone (routed over the routers found in its round
// trips) and with the network declared, each layout replayed. It prints
// predicted and simulated runs, which no test asserts.
func BenchmarkSimDragonfly36(b *testing.B) {
	c := newSimCluster(b, "dragonfly-36.xml", simHosts(36), 4)
	apps := []simApp{
		{"halo 6x6x4, 10 x 1 MiB", scaleFlows(first(shapes.Halo3D(6, 6, 4, false)), 10<<20)},
		{"halo 6x6x4 periodic, 10 x 64 KiB", scaleFlows(first(shapes.Halo3D(6, 6, 4, true)), 10<<16)},
		{"random-sparse-144, 10 x 1 MiB", scaleFlows(first(shapes.RandomSparse(144, 4, 1)), 10<<20)},
	}
	for b.Loop() {
		t0 := time.Now()
		sv := c.survey(b, "all", []int{64, 1 << 20}, 10)
		fmt.Printf("\ndragonfly 36 x 4 ranks: survey of every pair inside the simulation, 64 B and 1 MiB, %.1f s\n", time.Since(t0).Seconds())
		printSurveyAloneAndDeclared(b, c, sv, apps, 144, []string{c.platform})
	}
}

// BenchmarkSimDragonfly100: a dragonfly of five groups
// (testdata/sim/dragonfly-100.xml: 5 groups of 2 chassis of 5 routers
// of 2 nodes, 2 cores a node, 200 ranks), made after the survey-found
// routers' minimal routing (fabric.NewRouterNetwork's groups) to judge
// it on a shape it was not made on: the survey of the nodes measured
// inside the simulation, three applications placed from the survey
// alone and with the network declared, each layout replayed. It prints
// predicted and simulated runs, which no test asserts.
func BenchmarkSimDragonfly100(b *testing.B) {
	c := newSimCluster(b, "dragonfly-100.xml", simHosts(100), 2)
	apps := []simApp{
		{"halo 10x5x4, 10 x 1 MiB", scaleFlows(first(shapes.Halo3D(10, 5, 4, false)), 10<<20)},
		{"halo 10x5x4 periodic, 10 x 64 KiB", scaleFlows(first(shapes.Halo3D(10, 5, 4, true)), 10<<16)},
		{"random-sparse-200, 10 x 1 MiB", scaleFlows(first(shapes.RandomSparse(200, 4, 1)), 10<<20)},
	}
	for b.Loop() {
		t0 := time.Now()
		sv := c.survey(b, survey.ScopeNodes, []int{64, 1 << 20}, 5)
		fmt.Printf("\ndragonfly 100 x 2 ranks: survey of scope nodes inside the simulation, 64 B and 1 MiB, %.1f s\n", time.Since(t0).Seconds())
		printSurveyAloneAndDeclared(b, c, sv, apps, 200, []string{c.platform})
	}
}
