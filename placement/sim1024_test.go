package placement

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
	"github.com/latmap/latmap/placement/internal/shapes"
)

// fatTree1024 is the simulated three-level fat tree of 64 nodes x 16
// cores with 2:1 uplinks at both switch levels
// (testdata/sim/fattree-1024.xml).
func fatTree1024(t testing.TB) *simCluster {
	c := newSimCluster(t, "fattree-1024.xml", simHosts(64), 16)
	// The all-to-all as MPI_Alltoall in pairwise rounds: its million
	// flows posted at once made SimGrid's max-min solver abort on a
	// rounding residue ("Cannot saturate more a constraint that has no
	// active element"), at precision 1e-5 and at 1e-9.
	c.cfg = []string{"--cfg=smpi/alltoall:pair"}
	return c
}

// fatTree1024Target is Scotch's tleaf of the simulated tree, the levels
// from the top (4 pods of 4 leaves of 4 nodes of 16 cores) with the cost
// of a link at each: a pod's and a leaf's uplinks are 2:1 oversubscribed,
// so a byte across the top costs twice one between leaves of a pod, four
// times one between nodes of a leaf; a node's own memory 1/10 of that.
const fatTree1024Target = "tleaf 4 4 40 4 20 4 10 16 1\n"

// scotchHosts maps flows (n ranks) with scotch_gmap onto the tleaf
// target (terminal k: core k%cores of node k/cores, nodes in the
// platform's order), no imbalance allowed (-b0), and returns each rank's
// host and cpu (none when gmap fails), and gmap's wall time.
func scotchHosts(t testing.TB, hosts []string, cores int, flows []profile.Flow, n int, target string) ([]placefile.RankSlot, float64) {
	t.Helper()
	gmap, err := exec.LookPath("scotch_gmap")
	if err != nil {
		testutil.Missing(t, testutil.NeedScotch, "scotch_gmap not installed (apt-get install scotch)")
	}
	dir := t.TempDir()
	grf, tgt, mp := filepath.Join(dir, "g.grf"), filepath.Join(dir, "t.tgt"), filepath.Join(dir, "g.map")
	// The edge weight is the traffic in bytes (Scotch's communication
	// load); the target's link costs say what a byte costs where.
	if err := writeScotchGraph(grf, shapes.MustTraffic(flows, n), func(msgs, b float64) float64 { return b * 1e-9 }); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tgt, []byte(target), 0o644); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), scotchTimeout)
	defer cancel()
	if out, err := exec.CommandContext(ctx, gmap, "-b0", grf, tgt, mp).CombinedOutput(); err != nil {
		// Debian's scotch_gmap 7.0 crashes, or hangs without using the
		// cpu, on some random sparse graphs of 1,024 ranks and more: no
		// mapping, and the caller says so.
		t.Logf("%s -b0: %v\n%s", gmap, err, out)
		return nil, time.Since(t0).Seconds()
	}
	took := time.Since(t0).Seconds()
	terms, err := testutil.ReadScotchMapping(mp, n)
	if err != nil {
		t.Fatal(err)
	}
	nodeOf := make([]int, n)
	for r, k := range terms {
		nodeOf[r] = k / cores
	}
	slots, moved := fillNodes(nodeOf, hosts, cores)
	if moved > 0 {
		t.Fatalf("scotch_gmap -b0 put more than %d ranks on a node (%d over)", cores, moved)
	}
	return slots, took
}

// fillNodes gives rank r a cpu of node nodeOf[r] (hosts[node], cores
// each), in rank order; a rank whose node is full goes to the first node
// with room, and moved counts them.
func fillNodes(nodeOf []int, hosts []string, cores int) (slots []placefile.RankSlot, moved int) {
	slots = make([]placefile.RankSlot, len(nodeOf))
	used := make([]int, len(hosts))
	var over []int
	for r, node := range nodeOf {
		if used[node] < cores {
			slots[r] = placefile.RankSlot{Host: hosts[node], Group: -1, CPU: used[node]}
			used[node]++
		} else {
			over = append(over, r)
		}
	}
	for _, r := range over {
		for node := range used {
			if used[node] < cores {
				slots[r] = placefile.RankSlot{Host: hosts[node], Group: -1, CPU: used[node]}
				used[node]++
				moved++
				break
			}
		}
	}
	return slots, moved
}

// kahipHosts maps flows (n ranks) with KaHIP's process mapping (kaffpa
// --enable_mapping, eco, seed 1) onto the machine's hierarchy (its
// counts from the cores up, "16:4:4:4") and distances ("1:10:20:40":
// the tleaf's link costs), edge weights the traffic in KiB, and returns
// each rank's host and cpu (PE p: core p%cores of node p/cores, nodes in
// the platform's order, as Scotch's terminals), kaffpa's wall time, and
// how many ranks a full node could not take (kaffpa's balance lets a PE
// take two vertices: they go to the first nodes with room). Without
// kaffpa on PATH, or when it takes over kahipTimeout, it returns no slots
// (and the seconds it was given).
func kahipHosts(t testing.TB, hosts []string, cores int, flows []profile.Flow, n int, hierarchy, distance string) ([]placefile.RankSlot, float64, int) {
	t.Helper()
	kaffpa, err := exec.LookPath("kaffpa")
	if err != nil {
		return nil, 0, 0
	}
	tr := shapes.MustTraffic(flows, n)
	dir := t.TempDir()
	graph, out := filepath.Join(dir, "g.metis"), filepath.Join(dir, "g.map")
	var b strings.Builder
	fmt.Fprintf(&b, "%d %d 001\n", tr.N, len(tr.Adj)/2)
	for i := 0; i < tr.N; i++ {
		for e := tr.Start[i]; e < tr.Start[i+1]; e++ {
			fmt.Fprintf(&b, " %d %d", tr.Adj[e]+1, max(int64(tr.Bytes[e]/1024+0.5), 1))
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(graph, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), kahipTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, kaffpa, graph, "--k="+strconv.Itoa(n), "--enable_mapping", "--hierarchy_parameter_string="+hierarchy,
		"--distance_parameter_string="+distance, "--preconfiguration=eco", "--seed=1", "--output_filename="+out)
	if o, err := cmd.CombinedOutput(); ctx.Err() != nil {
		return nil, time.Since(t0).Seconds(), 0
	} else if err != nil {
		t.Fatalf("kaffpa: %v\n%s", err, o)
	}
	took := time.Since(t0).Seconds()
	nodeOf, err := testutil.ReadParts(out, n, len(hosts)*cores)
	if err != nil {
		t.Fatalf("kaffpa's mapping: %v", err)
	}
	for r, pe := range nodeOf {
		nodeOf[r] = pe / cores
	}
	slots, moved := fillNodes(nodeOf, hosts, cores)
	return slots, took, moved
}

// scotchTimeout bounds scotch_gmap, which hung on a random sparse graph.
const scotchTimeout = 2 * time.Minute

// kahipTimeout bounds kaffpa --enable_mapping: on the 1,024-rank
// all-to-all (a complete graph) it ran over 10 minutes.
const kahipTimeout = 3 * time.Minute

// predictCurrent is latmap place's predicted run of the placement slots
// (scored as --current) for the replayed matrix mx on survey sv.
func predictCurrent(t testing.TB, sv, mx string, slots []placefile.RankSlot) float64 {
	t.Helper()
	return scoreCurrent(t, sv, mx, slots).Run
}

// scoreCurrent is latmap place's prediction of the placement slots
// (scored as --current) for the matrix mx on survey sv.
func scoreCurrent(t testing.TB, sv, mx string, slots []placefile.RankSlot) placefile.Prediction {
	t.Helper()
	return currentAdvice(t, sv, mx, slots).Predictions[0]
}

// currentAdvice is latmap place's advice for the matrix mx on survey sv
// with the placement slots as --current (its first prediction).
func currentAdvice(t testing.TB, sv, mx string, slots []placefile.RankSlot) placefile.Advice {
	t.Helper()
	file := filepath.Join(t.TempDir(), "current.rankfile")
	lf, err := placefile.Write(placefile.FormatOpenMPI, slots, nil, file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, lf.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	a, _ := placeHosts(t, Options{Survey: sv, Matrix: mx, Current: file})
	if len(a.Predictions) == 0 || a.Predictions[0].Name != "current" {
		t.Fatalf("no prediction of the current placement: %+v", a.Predictions)
	}
	return a
}

// BenchmarkSimFatTree1024 is make bench-sim's large case: a simulated
// 1,024-rank three-level fat tree (64 nodes x 16 cores, 2:1 uplinks at
// both levels), the survey of scope nodes measured inside the simulation
// by latmap's measuring core with its switch phase, and a 16 x 8 x 8
// stencil (1 MiB and 8 KiB messages: the latter is issue 29's case) and
// an all-to-all replayed under block, cyclic, latmap's proposal,
// scotch_gmap's mapping onto a tleaf of the tree's levels and KaHIP's:
// predicted (latmap's model, raw) and simulated runs; then the same
// priced with the network declared (--topology, the platform file).
func BenchmarkSimFatTree1024(b *testing.B) {
	c := fatTree1024(b)
	n := 1024
	for b.Loop() {
		t0 := time.Now()
		sv := c.survey(b, survey.ScopeNodes, []int{64, 1 << 20}, 5)
		fmt.Printf("\nfat tree 1,024 ranks (64 x 16, 2:1 at both levels): survey of scope nodes inside the simulation, 64 B and 1 MiB, %.1f s\n", time.Since(t0).Seconds())
		s, err := survey.ReadSurvey(sv, survey.LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if tp, err := topo.Infer(s, topo.Options{Size: 64}); err == nil {
			for _, l := range tp.Levels {
				fmt.Printf("  topo level %-8s %4d groups, %.3g-%.3g us\n", l.Name, l.Groups, l.RTTMin, l.RTTMax)
			}
		}
		fmt.Printf("  switches.csv: %d rows, switchbw.csv: %d rows\n", len(s.Switches), len(s.SwitchBandwidth))
		apps := []struct {
			name  string
			flows []profile.Flow
			as    string // replay.c's first argument ("": the matrix)
			iter  int
		}{
			{"stencil 16x8x8, 10 x 1 MiB", scaleFlows(first(shapes.Halo3D(16, 8, 8, false)), 10<<20), "", 10},
			{"stencil 16x8x8, 10 x 8 KiB", scaleFlows(first(shapes.Halo3D(16, 8, 8, false)), 10<<13), "", 10},
			{"alltoall-1024, 2 x 16 KiB", scaleFlows(first(shapes.AllToAll(n)), 2<<14), "alltoall:16384", 2},
		}
		for _, declared := range []bool{false, true} {
			// Then the network declared (--topology, the platform file):
			// the routed model prices each link of the three levels.
			c.topology = ""
			layouts := []string{"block", "cyclic", "proposal", "scotch", "kahip"}
			if declared {
				c.topology = c.platform
				layouts = layouts[:3]
			}
			fmt.Printf("network declared: %v\n%-28s %-9s %12s %12s %9s   %s\n", declared, "application", "layout", "predicted s", "simulated s", "pred/sim", "speedup over block: predicted / simulated")
			for _, app := range apps {
				t1 := time.Now()
				sc := placeAndSimulateAs(b, c, sv, app.name, app.flows, app.as, n, app.iter)
				if !declared {
					slots, took := scotchHosts(b, c.hosts, c.cores, app.flows, n, fatTree1024Target)
					if slots == nil {
						b.Fatalf("scotch_gmap failed on %s", app.name)
					}
					hosts := make([]string, n)
					for r, sl := range slots {
						hosts[r] = sl.Host
					}
					sc.simulated["scotch"] = c.replay(b, sc.replayArg, app.iter, hosts)
					sc.predicted["scotch"] = predictCurrent(b, sv, sc.matrix, slots)
					fmt.Printf("  (scotch_gmap %.2f s)\n", took)
					if kslots, ktook, moved := kahipHosts(b, c.hosts, c.cores, app.flows, n, "16:4:4:4", "1:10:20:40"); kslots == nil && ktook > 0 {
						fmt.Printf("  (kaffpa --enable_mapping stopped after %.0f s)\n", ktook)
					} else if kslots == nil {
						fmt.Printf("  (no KaHIP: %s)\n", kahipMissing)
					} else {
						for r, sl := range kslots {
							hosts[r] = sl.Host
						}
						sc.simulated["kahip"] = c.replay(b, sc.replayArg, app.iter, hosts)
						sc.predicted["kahip"] = predictCurrent(b, sv, sc.matrix, kslots)
						fmt.Printf("  (kaffpa --enable_mapping 16:4:4:4 / 1:10:20:40 %.2f s; %d ranks over a full node moved)\n", ktook, moved)
					}
				}
				for _, l := range layouts {
					p, s := sc.predicted[l], sc.simulated[l]
					if s == 0 {
						continue // a tool not installed
					}
					fmt.Printf("%-28s %-9s %12.5f %12.5f %9.2f   %.2fx / %.2fx\n", app.name, l, p, s, p/s, sc.predicted["block"]/p, sc.simulated["block"]/s)
				}
				fmt.Printf("  (the case took %.0f s)\n", time.Since(t1).Seconds())
			}
		}
		c.topology = ""
	}
}

// BenchmarkSimDragonfly1024 is make bench-sim's large dragonfly: 1,024
// simulated ranks on 4 groups of 2 chassis of 4 routers of 2 nodes x 16
// cores (testdata/sim/dragonfly-1024.xml), the survey of scope nodes
// measured inside the simulation, and a 16 x 8 x 8 stencil (1 MiB and 8
// KiB messages) and a random sparse graph replayed under block, cyclic
// and latmap's proposal, priced from the survey alone and with the
// network declared (--topology): predicted (raw) and simulated runs.
func BenchmarkSimDragonfly1024(b *testing.B) {
	c := newSimCluster(b, "dragonfly-1024.xml", simHosts(64), 16)
	n := 1024
	apps := []simApp{
		{"stencil 16x8x8, 10 x 1 MiB", scaleFlows(first(shapes.Halo3D(16, 8, 8, false)), 10<<20)},
		{"stencil 16x8x8, 10 x 8 KiB", scaleFlows(first(shapes.Halo3D(16, 8, 8, false)), 10<<13)},
		{"random-sparse-1024, 10 x 1 MiB", scaleFlows(first(shapes.RandomSparse(n, 4, 1)), 10<<20)},
	}
	for b.Loop() {
		t0 := time.Now()
		sv := c.survey(b, survey.ScopeNodes, []int{64, 1 << 20}, 5)
		fmt.Printf("\ndragonfly 1,024 ranks (64 x 16): survey of scope nodes inside the simulation, 64 B and 1 MiB, %.1f s\n", time.Since(t0).Seconds())
		printSurveyAloneAndDeclared(b, c, sv, apps, n, []string{c.platform})
	}
}

// printSurveyAloneAndDeclared places each application from survey sv
// alone, then with the network files declared (--topology), replays
// block, cyclic and the proposal on c, prints predicted and simulated
// runs, and returns every miss of the simulated checks' bounds
// (simMisses).
func printSurveyAloneAndDeclared(b *testing.B, c *simCluster, sv string, apps []simApp, n int, declared []string) []string {
	return printPricedOn(b, c, sv, apps, n, []pricedOn{{"survey alone", nil}, {"declared", declared}})
}

// pricedOn is a network the simulated checks price on: the files
// declared to latmap place (nil: the survey alone), named.
type pricedOn struct {
	name  string
	files []string
}

// printPricedOn is printSurveyAloneAndDeclared on each of nets in turn:
// each application's predicted and simulated runs, its misses named
// "APP (NAME)".
func printPricedOn(b *testing.B, c *simCluster, sv string, apps []simApp, n int, nets []pricedOn) []string {
	var misses []string
	c.topology = ""
	for _, d := range nets {
		c.declared = d.files
		fmt.Printf("network declared: %v (%s)\n%-34s %-9s %12s %12s %9s   %s\n", d.files != nil, d.name, "application", "layout", "predicted s", "simulated s", "pred/sim", "speedup over block: predicted / simulated")
		for _, app := range apps {
			sc := placeAndSimulate(b, c, sv, app.name+" ("+d.name+")", app.flows, n, app.iters())
			for _, l := range []string{"block", "cyclic", "proposal"} {
				p, s := sc.predicted[l], sc.simulated[l]
				fmt.Printf("%-34s %-9s %12.5f %12.5f %9.2f   %.2fx / %.2fx\n", app.name, l, p, s, p/s, sc.predicted["block"]/p, sc.simulated["block"]/s)
			}
			misses = append(misses, simMisses(sc)...)
		}
	}
	c.declared = nil
	return misses
}
