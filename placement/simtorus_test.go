package placement

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/mapper/fabric"
)

// BenchmarkSimTorus8x4: a torus of a shape the model was not developed
// on (testdata/sim/torus-8x4.xml: 8 x 4 nodes of 2 cores, 64 ranks), the
// survey of every pair measured inside the simulation, then the
// simulation benchmarks' applications placed from the survey alone (the
// torus found in the hosts' order, routed in dimension order), the same
// routed adaptive (every flow spread over its shortest paths, as the
// survey alone was routed before), and with the network declared, each
// layout replayed. It prints predicted and simulated runs, which no
// test asserts.
func BenchmarkSimTorus8x4(b *testing.B) {
	c := newSimCluster(b, "torus-8x4.xml", simHosts(32), 2)
	apps := simBenchApps(b)
	for b.Loop() {
		t0 := time.Now()
		sv := c.survey(b, "all", []int{64, 1 << 20}, 10)
		fmt.Printf("\ntorus 8 x 4 x 2 cores: survey of every pair inside the simulation, 64 B and 1 MiB, %.1f s; the survey alone\n", time.Since(t0).Seconds())
		simTable(b, c, sv, apps)
		c.routing = fabric.RoutingAdaptive
		fmt.Printf("\nthe survey alone, --routing adaptive\n")
		simTable(b, c, sv, apps)
		c.routing, c.topology = "", c.platform
		fmt.Printf("\nthe network declared (--topology %s)\n", "torus-8x4.xml")
		simTable(b, c, sv, apps)
		c.topology = ""
	}
}

// BenchmarkSimTorus4x4x4: a three-dimensional torus the model was not
// developed on (testdata/sim/torus-4x4x4.xml: 4 x 4 x 4 nodes of 2
// cores, 25 Gbit/s links), the 64-rank applications on half its 128
// slots (block on the first 32 nodes, cyclic one rank on each of the
// 64), the survey of every pair measured inside the simulation, then
// placed from the survey alone (the torus found in the hosts' order) and
// with the network declared, each layout replayed. It prints predicted
// and simulated runs, which no test asserts.
func BenchmarkSimTorus4x4x4(b *testing.B) {
	simAloneAndDeclared(b, newSimCluster(b, "torus-4x4x4.xml", simHosts(64), 2), "torus 4 x 4 x 4 x 2 cores, 64 of 128 slots")
}

// BenchmarkSimTorus4x2x2 and BenchmarkSimDragonfly2Global: two more
// networks of 16 nodes x 4 cores the model was not developed on
// (testdata/sim/torus-4x2x2.xml, dragonfly-16x4-2global.xml), each
// surveyed inside the simulation, then placed from the survey alone and
// with the network declared, each layout replayed. They
// print the runs, which no test asserts.
func BenchmarkSimTorus4x2x2(b *testing.B) {
	simAloneAndDeclared(b, sim16x4(b, "torus-4x2x2.xml"), "torus 4 x 2 x 2 x 4 cores")
}

func BenchmarkSimDragonfly2Global(b *testing.B) {
	simAloneAndDeclared(b, sim16x4(b, "dragonfly-16x4-2global.xml"), "dragonfly 2 groups x 2 chassis x 4 routers x 1 node x 4 cores, two global links")
}

// BenchmarkSimDragonfly4Groups: a dragonfly of 4 groups of 2 chassis
// of 4 routers, a node each (testdata/sim/dragonfly-32x2-4groups.xml:
// 32 nodes x 2 cores, 64 ranks), made after the model was developed on
// the other dragonflies; surveyed inside the simulation, then placed
// from the survey alone (the routers' network found in the round
// trips, chassis 1's green links among them: network.FindDirect's
// shortcuts) and with the network declared, each layout replayed.
// It prints the runs, which no test asserts.
func BenchmarkSimDragonfly4Groups(b *testing.B) {
	simAloneAndDeclared(b, newSimCluster(b, "dragonfly-32x2-4groups.xml", simHosts(32), 2), "dragonfly 4 groups x 2 chassis x 4 routers x 1 node x 2 cores")
}

// BenchmarkSimMoreShapes: eleven more networks of 64 ranks the model was
// not developed on (testdata/sim: dragonfly-16x4-2nodes.xml, 2 nodes a
// router; dragonfly-16x4-4groups.xml, 4 groups of one chassis;
// dragonfly-32x2-4chassis.xml, 4 chassis a group; fattree-16x4-3levels.xml,
// 2:1 at two levels; and, made 2026-11-29, dragonfly-32x2-4nodes.xml, 4
// nodes a router; torus-2x2x8.xml; fattree-16x4-8leaves.xml, 4:1; and,
// made later that day, dragonfly-64x1-2global.xml, one rank a node, 2
// global links between two groups; and, later still, one rank a node on
// each of torus-2x2x2x2x4.xml, five dimensions, dragonfly-64x1-8routers.xml,
// 8 routers a chassis, and fattree-64x1-4to1.xml; and, made in session
// 31, dragonfly-64x1-8chassis.xml and dragonfly-64x1-4x4x4.xml, whose
// routers no graph found), each as simAloneAndDeclared,
// printing the runs, which no test asserts.
func BenchmarkSimMoreShapes(b *testing.B) {
	for _, p := range []struct {
		platform string
		nodes    int
	}{{"dragonfly-16x4-2nodes.xml", 16}, {"dragonfly-16x4-4groups.xml", 16}, {"dragonfly-32x2-4chassis.xml", 32}, {"fattree-16x4-3levels.xml", 16},
		{"dragonfly-32x2-4nodes.xml", 32}, {"torus-2x2x8.xml", 32}, {"fattree-16x4-8leaves.xml", 16},
		{"dragonfly-64x1-2global.xml", 64}, {"torus-2x2x2x2x4.xml", 64}, {"dragonfly-64x1-8routers.xml", 64}, {"fattree-64x1-4to1.xml", 64},
		{"dragonfly-64x1-8chassis.xml", 64}, {"dragonfly-64x1-4x4x4.xml", 64}} {
		b.Run(strings.TrimSuffix(p.platform, ".xml"), func(b *testing.B) {
			simAloneAndDeclared(b, newSimCluster(b, p.platform, simHosts(p.nodes), 64/p.nodes), p.platform)
		})
	}
}

// simAloneAndDeclared surveys every pair of c inside the simulation and
// prints simTable of the simulation benchmarks' applications placed from
// the survey alone, then with c's platform declared.
func simAloneAndDeclared(b *testing.B, c *simCluster, what string) {
	apps := simBenchApps(b)
	for b.Loop() {
		t0 := time.Now()
		sv := c.survey(b, "all", []int{64, 1 << 20}, 10)
		fmt.Printf("\n%s: survey of every pair inside the simulation, 64 B and 1 MiB, %.1f s; the survey alone\n", what, time.Since(t0).Seconds())
		simTable(b, c, sv, apps)
		c.topology = c.platform
		fmt.Printf("\nthe network declared (--topology %s)\n", filepath.Base(c.platform))
		simTable(b, c, sv, apps)
		c.topology = ""
	}
}
