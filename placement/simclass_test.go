package placement

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/latmap/latmap/bench/probe"
	"github.com/latmap/latmap/mapper/fabric"
)

// probedClusters is the networks the probe benchmarks run on: the two
// Aries fragments and every built network, with their names.
func probedClusters(b *testing.B) ([]*simCluster, []string) {
	clusters := []*simCluster{ariesCluster(b), ariesOtherCluster(b)}
	names := []string{"aries-fragment", "aries-fragment-2"}
	for _, n := range builtNetworks {
		clusters = append(clusters, builtCluster(b, n))
		names = append(names, n.name)
	}
	return clusters, names
}

// BenchmarkSimClassProbe: whether the probe of flows at once
// (BenchmarkSimAriesProbe) may try one pair of flows for a whole class
// of pairs that the round trips tell apart, instead of every pair of
// hosts. Two classes, from what a survey already shows (which hosts hang
// off one switch or router):
//   - "router": a flow is known by the routers of its two hosts, as
//     where the route between two routers is the same for each of
//     their hosts (minimal routing by rule, SimGrid's shortest paths);
//   - "destination": by its source's router and its destination host,
//     as where every switch forwards by destination alone (an
//     InfiniBand subnet manager's tables, which spread one leaf's hosts
//     over the spines).
//
// On each network (both Aries fragments and every one of builtNetworks,
// 16 hosts each), every pair
// of flows of four distinct hosts is tried at once (the truth), and each
// class's pairs are checked to agree: printed for each kind of class,
// how many classes there are (the steps a class probe needs, beside one
// flow alone a class of flows), how many hold pairs that disagree, and
// how many pairs differ from their class's majority (what a probe of
// one pair a class would get wrong). Where hosts share routers, the
// destination classes are then cleared by group testing: 4,000 random
// steps of 8 flows, a pair of classes cleared when a step moved one flow
// of each and neither was slowed; printed after 250 to 4,000 steps, the
// pairs of classes left to try two at a time, the sharing ones cleared
// (lost), and the steps in all (a flow alone a class, the random steps,
// the pairs left).
//
// Measured (2026-12-04, 215 s; go test -run '^$' -bench 'SimClassProbe$'
// -benchtime 1x ./placement/): classes by destination agree on every
// network, classes by routers do not.
//
//	network               hosts/routers  sharing pairs  router classes (disagree, misjudged)  destination classes (disagree)
//	aries-fragment        16 / 8         1,638          1,960 (157, 754)                      7,336 (0)
//	aries-fragment-2      16 / 8         1,480          1,960 (97, 396)                       7,336 (0)
//	psmn-infiniband       16 / 6         219            640 (32, 201)                         4,230 (0)
//	utartu-infiniband     16 / 7         0              1,158 (0, 0)                          5,669 (0)
//	dragonfly-fragment    16 / 8         1,804          1,960 (95, 528)                       7,336 (0)
//
// (The HyperX and the site-wired dragonfly put each host on its own
// router here: 21,840 classes either way, none disagreeing. Tartu's
// hosts' 4xQDR links, 32 Gbit/s of data, are slower than its FDR10
// cables, 39.6: two flows on one cable slow each other 1.6x at most,
// under shareSlowdown, so the probe finds no sharing there at all; a
// survey phase must set its threshold from the links' speeds, not at
// 2x less a margin.) Routes between two routers differ by destination
// host even where every route is minimal, so a probe by routers
// misjudges up to 754 of the 21,840 pairs (1,638 of which share); a
// probe by destination is exact and needs 3x (Aries, 2 hosts a router)
// to 5x (PSMN, up to 3) fewer steps than every pair, and more hosts a
// router save more (k hosts: nearly k^2 x). The
// simulated routes are latmap's own (shortest paths, a tree from each
// destination), so the destination classes' agreement is partly its
// construction; on InfiniBand it is the forwarding tables' (indexed by
// destination LID), except with LMC above 0 or adaptive routing, and
// Aries and Slingshot route adaptively, with no fixed route to probe.
//
// With group testing on the classes by destination, the fewest steps in
// all were 3,317 and 3,288 on the Aries fragments (after 2,000 random
// steps; 22,080 for every pair, 7,336 for every pair of classes: 6.7x
// fewer than every pair), 3,518 on the dragonfly fragment (6.3x), 1,037
// on PSMN (after 500; 21x fewer) and 1,318 on Tartu's fabric, with no
// sharing pair lost but one of 219 on PSMN (a
// pair slowed past shareSlowdown two at a time, neither slowed in a
// step of eight).
func BenchmarkSimClassProbe(b *testing.B) {
	clusters, names := probedClusters(b)
	for b.Loop() {
		for x, c := range clusters {
			f, err := fabric.ReadAll(c.declared)
			if err != nil {
				b.Fatal(err)
			}
			idx := f.HostIndex()
			router := make([]int, len(c.hosts))
			for h, name := range c.hosts {
				router[h] = idx[name] // a router a host: no level of switches
				if len(f.Levels) > 0 {
					router[h] = f.Levels[0].Group[idx[name]]
				}
			}
			flows, lf, truth := probeEveryPair(b, c)
			plan := probe.NewPlan(router)
			fmt.Printf("\n%s: %d hosts on %d routers, %d flows, %d pairs share a link\n", names[x], len(c.hosts), distinct(router), len(flows), len(truth))
			fmt.Printf("%-12s %8s %8s %9s %10s\n", "class", "flows", "classes", "disagree", "misjudged")
			for _, kind := range []string{"router", "destination"} {
				key := func(fl [2]int) [2]int {
					if kind == "router" {
						return [2]int{router[fl[0]], router[fl[1]]}
					}
					return [2]int{plan.Class(probe.Flow{Src: fl[0], Dst: fl[1]}), -1} // bench/probe's classes
				}
				flowClasses := map[[2]int]bool{}
				votes := map[[4]int][2]int{} // [not shared, shared]
				for i := range flows {
					flowClasses[key(flows[i])] = true
					for j := i + 1; j < len(flows); j++ {
						if !disjointFlows(flows[i], flows[j]) {
							continue
						}
						k := classPair(key(flows[i]), key(flows[j]))
						v := votes[k]
						if truth[[2]int{i, j}] {
							v[1]++
						} else {
							v[0]++
						}
						votes[k] = v
					}
				}
				disagree, misjudged := 0, 0
				for _, v := range votes {
					if v[0] > 0 && v[1] > 0 {
						disagree++
						misjudged += min(v[0], v[1])
					}
				}
				fmt.Printf("%-12s %8d %8d %9d %10d\n", kind, len(flowClasses), len(votes), disagree, misjudged)
			}
			if distinct(router) == len(c.hosts) {
				continue
			}
			// Group testing over the destination classes (bench/probe):
			// random steps of 8 flows (a matching of the hosts), a pair
			// of classes cleared when a step moved a flow of each and
			// neither was slowed.
			const steps = 4000
			shares := map[[2]int]bool{} // pairs of classes with a pair of flows that share
			for pr := range truth {
				a, d := plan.Class(probe.Flow{Src: flows[pr[0]][0], Dst: flows[pr[0]][1]}), plan.Class(probe.Flow{Src: flows[pr[1]][0], Dst: flows[pr[1]][1]})
				shares[[2]int{min(a, d), max(a, d)}] = true
			}
			rng := rand.New(rand.NewPCG(uint64(x+1), 69))
			sf, sets := matchingSteps(b, len(c.hosts), len(c.hosts)/2, flows, steps, rng)
			slowed := stepSlowdowns(b, c.run(b, c.hosts, "flows", lf, sf), len(sets))
			cl := plan.NewClearer()
			fmt.Printf("destination classes and random steps of %d flows:\n%8s %10s %6s %10s\n", len(c.hosts)/2, "random", "left", "lost", "steps")
			for k, set := range sets {
				step := make([]probe.Flow, len(set))
				for i, f := range set {
					step[i] = probe.Flow{Src: flows[f][0], Dst: flows[f][1]}
				}
				cl.Step(step, slowed[k], shareSlowdown)
				if n := k + 1; n == 250 || n == 500 || n == 1000 || n == 2000 || n == 4000 {
					lost := 0
					for pr := range shares {
						if cl.Cleared(pr[0], pr[1]) {
							lost++
						}
					}
					left := len(cl.Left())
					fmt.Printf("%8d %10d %6d %10d\n", n, left, lost, plan.Classes()+n+left)
				}
			}
		}
	}
}

// classPair is the pair of two flows' classes, in order.
func classPair(ki, kj [2]int) [4]int {
	if kj[0] < ki[0] || kj[0] == ki[0] && kj[1] < ki[1] {
		ki, kj = kj, ki
	}
	return [4]int{ki[0], ki[1], kj[0], kj[1]}
}

// distinct is how many distinct values xs holds.
func distinct(xs []int) int {
	seen := map[int]bool{}
	for _, x := range xs {
		seen[x] = true
	}
	return len(seen)
}
