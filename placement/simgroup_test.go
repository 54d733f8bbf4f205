package placement

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkSimAriesGroupProbe: how many steps of flows at once a survey
// needs to find which flows share a link (BenchmarkSimAriesProbe's
// network), by group testing instead of every two flows in turn. On the
// two Aries fragments (16 hosts, 240 flows, 21,840 pairs of flows of
// four distinct hosts), each step moves a random perfect matching of the
// hosts (8 flows at once, each host in one); a flow not slowed past
// shareSlowdown shares no link with the others of its step, so the
// steps clear pairs, and the pairs never cleared are then tried two at a
// time (their answer is the exhaustive probe's, run here as the truth).
// Three rules clear a pair: "both" (neither flow slowed), which held
// here, "one" (either not slowed), which a flow slowed elsewhere fools
// (its share of a common link left to the other), and "sum". Printed for
// each number of random steps: the pairs left to try, the sharing pairs
// lost (cleared wrongly), and the steps in all (alone, random, pairs).
//
// Measured (2026-12-04, 4,000 random steps, 8 flows a step): sharing is
// dense, 1,638 and 1,480 of the 21,840 pairs (7%), so few flows of a
// step go unslowed. The safe rule leaves 5,038 and 5,012 pairs to try,
// 9,278 and 9,252 steps in all against 22,080 one pair at a time: 2.4x
// fewer. The rule "one" leaves 1,052 and 1,281 but loses 908 and 558 of
// the sharing pairs. Rule "sum" (the two flows' rates, each against its
// own alone, summing past sumClears) loses 748 and 444: flows alone run
// at different rates, so a link that halves one alone may carry the
// other at full speed. Steps of 4 flows clear less: 14,531 and 14,341
// in all. Steps grown greedily from the pairs left (by the flows least
// often slowed, 500 a round after 1,000 random) did worse than random
// ones, 7,005 and 7,393 pairs left after 4,000 steps: the flows with
// pairs left are the ones that share. Steps of 8 flows leaving distinct
// routers for distinct routers (each router the source of one and the
// destination of one, as the round trips tell which hosts share a
// router) cleared a little more at first (12,791 and 12,839 left after
// 1,000 steps) but less in the end (7,587 and 7,373 after 4,000): they
// never put together two flows of one router, about 2,800 pairs that
// must then be tried alone. Plain group testing does not make
// the probe scale; a schedule must use what the round trips already
// tell (which hosts hang off one router, which flows surely share) to
// pick its groups.
func BenchmarkSimAriesGroupProbe(b *testing.B) {
	clusters := []*simCluster{ariesCluster(b), ariesOtherCluster(b)}
	for b.Loop() {
		for x, c := range clusters {
			flows, lf, truth := probeEveryPair(b, c)
			valid := 0
			for i := range flows {
				for j := i + 1; j < len(flows); j++ {
					if disjointFlows(flows[i], flows[j]) {
						valid++
					}
				}
			}
			fmt.Printf("\nAries fragment %d: %d flows, %d pairs of four distinct hosts, %d share a link (exhaustive: %d steps)\n", x+1, len(flows), valid, len(truth), len(flows)+valid)
			for _, size := range []int{4, len(c.hosts) / 2} {
				const steps = 4000
				rng := rand.New(rand.NewPCG(uint64(x+1), 69))
				sf, sets := matchingSteps(b, len(c.hosts), size, flows, steps, rng)
				slowed := stepSlowdowns(b, c.run(b, c.hosts, "flows", lf, sf), len(sets))
				fmt.Printf("%d flows a step\n%8s  %-5s %10s %6s %10s\n", size, "random", "rule", "left", "lost", "steps")
				// Each rule's clears, step after step, printed after the
				// first r steps.
				report := map[int]bool{250: true, 500: true, 1000: true, 2000: true, 4000: true}
				for _, rule := range []string{"one", "both", "sum"} {
					cleared := map[[2]int]bool{}
					for k, set := range sets {
						sl := slowed[k]
						for a := range set {
							for d := range set {
								slowA, slowD := sl[a] > shareSlowdown, sl[d] > shareSlowdown
								if a == d || (rule == "one" && slowA) || (rule == "both" && (slowA || slowD)) || (rule == "sum" && 1/sl[a]+1/sl[d] <= sumClears) {
									continue
								}
								cleared[[2]int{min(set[a], set[d]), max(set[a], set[d])}] = true
							}
						}
						if !report[k+1] {
							continue
						}
						lost := 0
						for p := range truth {
							if cleared[p] {
								lost++
							}
						}
						left := valid - len(cleared)
						fmt.Printf("%8d  %-5s %10d %6d %10d\n", k+1, rule, left, lost, len(flows)+k+1+left)
					}
				}
			}
		}
	}
}

// probeEveryPair runs flows.c on c for every pair of flows of four
// distinct hosts (buildFlows's flows, one rank a host): the flows, their
// list's path, and the pairs that share a link (the truth the probes
// by groups and by classes are held to).
func probeEveryPair(b *testing.B, c *simCluster) ([][2]int, string, map[[2]int]bool) {
	b.Helper()
	flows, lf := buildFlows(b, c)
	truth := map[[2]int]bool{}
	for _, p := range sharedFlows(b, c.run(b, c.hosts, "flows", lf)) {
		truth[p] = true
	}
	return flows, lf, truth
}

// disjointFlows reports whether two flows have four distinct hosts.
func disjointFlows(f, g [2]int) bool {
	return f[0] != g[0] && f[0] != g[1] && f[1] != g[0] && f[1] != g[1]
}

// matchingSteps writes n steps for flows.c, each size flows of a random
// matching of the hosts (host 2i to 2i+1 of a shuffle), and returns the
// file and each step's flows.
func matchingSteps(b *testing.B, hosts, size int, flows [][2]int, n int, rng *rand.Rand) (string, [][]int) {
	b.Helper()
	index := map[[2]int]int{}
	for i, f := range flows {
		index[f] = i
	}
	var w strings.Builder
	sets := make([][]int, n)
	for k := range sets {
		p := rng.Perm(hosts)
		fmt.Fprintf(&w, "%d", size)
		for i := 0; i+1 < 2*size; i += 2 {
			f := index[[2]int{p[i], p[i+1]}]
			sets[k] = append(sets[k], f)
			fmt.Fprintf(&w, " %d", f)
		}
		w.WriteString("\n")
	}
	path := filepath.Join(b.TempDir(), "steps.txt")
	if err := os.WriteFile(path, []byte(w.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return path, sets
}

// sumClears: two flows of a step whose rates (each against its rate
// alone) sum past it cannot share a link that halves each of them alone
// (rule "sum": a flow not slowed clears one slowed elsewhere, as long
// as the two could not both fit in one such link).
const sumClears = 1.1

// stepSlowdowns reads flows.c's steps: for each, each of its flows'
// time against its time alone.
func stepSlowdowns(b *testing.B, out string, n int) [][]float64 {
	b.Helper()
	alone := map[int]float64{}
	slowed := make([][]float64, n)
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var i int
		var t float64
		if k, _ := fmt.Sscanf(sc.Text(), "alone %d %g", &i, &t); k == 2 {
			alone[i] = t
			continue
		}
		w := strings.Fields(sc.Text())
		if len(w) < 2 || w[0] != "step" {
			continue
		}
		var k int
		fmt.Sscan(w[1], &k)
		for j := 2; j+1 < len(w); j += 2 {
			var f int
			fmt.Sscan(w[j], &f)
			fmt.Sscan(w[j+1], &t)
			if alone[f] <= 0 {
				b.Fatalf("flow %d: no time alone", f)
			}
			slowed[k] = append(slowed[k], t/alone[f])
		}
	}
	for k, s := range slowed {
		if s == nil {
			b.Fatalf("flows.c printed no times for step %d:\n%.2000s", k, out)
		}
	}
	return slowed
}
