package placement

import (
	"bufio"
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/fabric"
)

// BenchmarkSimAriesProbe is issue 69's way forward, measured: what a
// survey phase of flows at once would give latmap place on the two Aries
// fragments (ariesCluster, ariesOtherCluster), where the round trips
// cannot tell which way traffic goes. Inside the simulation, every
// ordered pair of hosts moves 4 MiB alone and then beside every other
// pair of four distinct hosts (testdata/sim/flows.c); two flows slowed
// past shareSlowdown share a link the way their bytes go (a shared link
// halves each: 2.0x; a link the other crosses the other way, on its way
// back, slows them 1.2-1.4x in SimGrid). A network is built from that
// alone (probedNetwork: one link for each clique of flows that share,
// between the hosts' own links, as a SimGrid zone of every route) and
// the real matrices and the two shapes are priced on the survey alone,
// on it, and on the list of links the fragment was built from, with
// each one's misses of the simulated checks' bounds.
//
// 2026-12-04 (7 applications): from the survey alone 0 and 10 misses on
// the two fragments, on the probed network 9 and 6, declared 0 and 0.
// Its raw runs are mostly within bounds (0.82-1.36, random-sparse's
// cyclic 0.67), but the proposals searched on it simulate up to 11%
// slower than block (LAMMPS melt and EAM on the first fragment 0.89x,
// peptide 0.91x on the second): a cover of the pairs that share prices
// the layouts it is asked about, not the search's. With a script of the
// same steps, the 14 matrices' block and cyclic runs alone missed 37
// times of 84 from the survey alone, 16 on the probed network, 14
// declared.
func BenchmarkSimAriesProbe(b *testing.B) {
	clusters := []*simCluster{ariesCluster(b), ariesOtherCluster(b)}
	apps := builtApps(b)
	for b.Loop() {
		for x, c := range clusters {
			files := c.declared
			c.declared = nil
			sv := c.survey(b, "all", []int{64, 1 << 20}, 10)
			probed := probedNetwork(b, c)
			fmt.Printf("\nAries-wired dragonfly fragment %d, 64 ranks on 16 hosts: priced on the survey alone, on the network its flows at once show, and declared\n", x+1)
			misses := printPricedOn(b, c, sv, apps, 64, []pricedOn{{"survey alone", nil}, {"flows at once", []string{probed}}, {"declared", files}})
			c.declared = files
			count := map[string]int{}
			for _, m := range misses {
				count[m[strings.Index(m, "(")+1:strings.Index(m, ")")]]++
			}
			fmt.Printf("misses of the simulated checks' bounds: %v\n", count)
		}
	}
}

// shareSlowdown is the slowdown past which two flows at once share a
// link the way their bytes go (between the 1.2-1.4x of a link the other
// crosses on its way back and the 2.0x of one both cross).
const shareSlowdown = 1.7

// probedNetwork runs testdata/sim/flows.c on c, one rank a host, every
// ordered pair of hosts a flow, and writes the network the slowdowns
// show as a SimGrid zone routed Full: each host's own links as the
// platform has them (the node phase measures them), and one link of
// 10 Gbit/s for each clique of flows that share (greedy: a clique grows
// by a flow sharing with all of it), which every flow of the clique
// crosses between its hosts' links.
func probedNetwork(b *testing.B, c *simCluster) string {
	b.Helper()
	flows, lf := buildFlows(b, c)
	cliques := shareCliques(len(flows), sharedFlows(b, c.run(b, c.hosts, "flows", lf)))
	fmt.Printf("flows at once: %d flows, %d links shared\n", len(flows), len(cliques))
	f, err := fabric.Read(c.platform)
	if err != nil {
		b.Fatal(err)
	}
	return writeProbedZone(b, f, c.hosts, flows, cliques)
}

// buildFlows builds testdata/sim/flows.c for c and writes its list of
// flows, every ordered pair of c's hosts (one rank a host); it returns
// the flows and the list's path.
func buildFlows(b testing.TB, c *simCluster) ([][2]int, string) {
	b.Helper()
	root := testutil.RepoRoot(b)
	if out, err := exec.Command("smpicc", "-O2", "-o", filepath.Join(c.dir, "flows"), filepath.Join(root, "testdata", "sim", "flows.c")).CombinedOutput(); err != nil {
		b.Fatalf("smpicc flows.c: %v\n%s", err, out)
	}
	var flows [][2]int
	var list strings.Builder
	for i := range c.hosts {
		for j := range c.hosts {
			if i != j {
				flows = append(flows, [2]int{i, j})
				fmt.Fprintf(&list, "%d %d\n", i, j)
			}
		}
	}
	lf := filepath.Join(b.TempDir(), "flows.txt")
	if err := os.WriteFile(lf, []byte(list.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return flows, lf
}

// sharedFlows reads flows.c's output: the pairs of flows slowed past
// shareSlowdown moving at once.
func sharedFlows(b *testing.B, out string) [][2]int {
	b.Helper()
	var shared [][2]int
	for p, s := range pairSlowdowns(b, out) {
		if s > shareSlowdown {
			shared = append(shared, p)
		}
	}
	slices.SortFunc(shared, func(x, y [2]int) int { return cmp.Or(x[0]-y[0], x[1]-y[1]) })
	return shared
}

// pairSlowdowns reads flows.c's output: each pair of flows moved at once
// (by index, the first below the second) and the more slowed one's time
// against its time alone.
func pairSlowdowns(b testing.TB, out string) map[[2]int]float64 {
	b.Helper()
	alone := map[int]float64{}
	slow := map[[2]int]float64{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var i, j int
		var ti, tj float64
		if n, _ := fmt.Sscanf(sc.Text(), "alone %d %g", &i, &ti); n == 2 {
			alone[i] = ti
		} else if n, _ := fmt.Sscanf(sc.Text(), "both %d %d %g %g", &i, &j, &ti, &tj); n == 4 && alone[i] > 0 && alone[j] > 0 {
			slow[[2]int{i, j}] = max(ti/alone[i], tj/alone[j])
		}
	}
	if len(alone) == 0 {
		b.Fatalf("flows.c printed no times:\n%s", out)
	}
	return slow
}

// shareCliques covers the pairs of flows that share (of n flows) with
// cliques, greedily: from the first pair not yet covered, each flow that
// shares with every flow of the clique joins it.
func shareCliques(n int, shared [][2]int) [][]int {
	adj := make([]map[int]bool, n)
	for i := range adj {
		adj[i] = map[int]bool{}
	}
	for _, p := range shared {
		adj[p[0]][p[1]], adj[p[1]][p[0]] = true, true
	}
	covered := map[[2]int]bool{}
	var cliques [][]int
	for _, p := range shared {
		if covered[p] {
			continue
		}
		cl := []int{p[0], p[1]}
		for k := 0; k < n; k++ {
			in := k != p[0] && k != p[1]
			for _, x := range cl {
				in = in && adj[k][x]
			}
			if in {
				cl = append(cl, k)
			}
		}
		for _, x := range cl {
			for _, y := range cl {
				covered[[2]int{x, y}] = true
			}
		}
		cliques = append(cliques, cl)
	}
	return cliques
}

// writeProbedZone writes the probed network (see probedNetwork): every
// route between hosts crosses the first and last links of f's route
// between them and the links of the cliques its flow is in.
func writeProbedZone(b *testing.B, f *fabric.Fabric, hosts []string, flows [][2]int, cliques [][]int) string {
	b.Helper()
	idx := f.HostIndex()
	in := make(map[[2]int][]int)
	for k, cl := range cliques {
		for _, x := range cl {
			in[flows[x]] = append(in[flows[x]], k)
		}
	}
	var w strings.Builder
	w.WriteString("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n  <zone id=\"probed\" routing=\"Full\">\n")
	for _, h := range hosts {
		fmt.Fprintf(&w, "    <host id=%q speed=\"1Gf\"/>\n", h)
	}
	own := map[int32]bool{}
	var routes strings.Builder
	for x, fl := range flows {
		path := f.Path(idx[hosts[fl[0]]], idx[hosts[fl[1]]])
		first, last := path[0], path[len(path)-1]
		own[first], own[last] = true, true
		fmt.Fprintf(&routes, "    <route src=%q dst=%q symmetrical=\"NO\"><link_ctn id=\"n%d\"/>", hosts[fl[0]], hosts[fl[1]], first)
		for _, k := range in[flows[x]] {
			fmt.Fprintf(&routes, "<link_ctn id=\"c%d\"/>", k)
		}
		fmt.Fprintf(&routes, "<link_ctn id=\"n%d\"/></route>\n", last)
	}
	for l := range own {
		fmt.Fprintf(&w, "    <link id=\"n%d\" bandwidth=\"%.0fBps\" latency=\"%gs\"/>\n", l, f.Links[l].Bandwidth, f.Links[l].Latency)
	}
	for k := range cliques {
		fmt.Fprintf(&w, "    <link id=\"c%d\" bandwidth=\"1250000000Bps\" latency=\"5e-07s\"/>\n", k)
	}
	w.WriteString(routes.String() + "  </zone>\n</platform>\n")
	p := filepath.Join(b.TempDir(), "probed.xml")
	if err := os.WriteFile(p, []byte(w.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}
