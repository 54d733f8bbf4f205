package placement

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/latmap/latmap/bench"
	"github.com/latmap/latmap/bench/probe"
	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
	"github.com/latmap/latmap/placement/internal/shapes"
)

// BenchmarkSimProbePlace: what the routes chosen by the probe of flows
// at once (topo.FitProbe) do to place's predictions, on the built
// networks whose graph of routers place finds in the survey (the 4 x 4
// HyperX, the site-wired dragonfly and the dragonfly fragment): the
// survey measured inside the simulation, priced alone and again with a
// probe of every pair of flows of four distinct hosts moved two at a
// time inside the same simulation (probeEveryPair's, judged at
// bench.ProbeSlowed, each host its own router: the most a probe tells)
// and again with the probe latmap survey --probe on runs (probeSurvey),
// every application replayed under block, cyclic and the proposal.
// Prints predicted and simulated runs and the misses of the simulated
// checks' bounds of each. The applications' traffic is not the probe's
// (many ranks a node, many flows at once): the probe is judged out of
// sample. Run it with go test -run '^$' -bench SimProbePlace -benchtime
// 1x ./placement/ (209 s on 2026-12-04).
//
// That run (before topo.NearestInside, which now makes every host of
// the HyperX and the site-wired dragonfly its own router for the probe:
// BenchmarkSimProbeDeclared): no miss of the bounds on any of the
// three, priced any of the three ways. latmap's probe took 502 steps on
// the HyperX (its
// switch levels group its routers by rows: 64 classes, 109 pairs judged,
// 9 shared), 934 on the site-wired dragonfly (478 judged, 72 shared),
// 5,551 on the fragment (128 classes, 4,172 judged, 611 shared). The
// HyperX's predictions did not change either way; the site-wired
// dragonfly's only with every pair, and only the random sparse graph's
// (block 0.98 -> 1.05 of its simulated run, cyclic 0.95 -> 1.03). On the
// dragonfly fragment both probes gave the same proposals, which gained,
// predicted / simulated over block, from the survey alone -> with a
// probe: GROMACS 1.00x / 1.00x -> 1.22x / 1.34x, LAMMPS chain 1.08x /
// 1.02x -> 1.11x / 1.27x, melt 1.00x / 1.00x -> 1.07x / 1.17x, peptide
// 1.00x / 1.00x -> 1.05x / 1.10x, eam 1.11x / 1.17x -> 1.12x / 1.21x,
// the random sparse graph 1.59x / 1.47x -> 1.58x / 1.67x, the ring
// 1.17x / 1.17x either way; its proposals' runs 0.78-0.98 of their
// simulation from the survey alone, 0.94-1.09 with a probe
// (TestSimProbeFragment asserts it).
func BenchmarkSimProbePlace(b *testing.B) {
	var nets []builtNetwork
	for _, n := range builtNetworks {
		if n.name == "hyperx-4x4" || n.name == "dragonfly-site-wired" || n.name == "dragonfly-fragment" {
			nets = append(nets, n)
		}
	}
	for b.Loop() {
		for _, n := range nets {
			c := builtCluster(b, n)
			c.declared = nil
			sv := c.survey(b, "all", []int{64, 1 << 20}, 10)
			flows, lf := buildFlows(b, c)
			every := withProbe(b, sv, c.hosts, flows, pairSlowdowns(b, c.run(b, c.hosts, "flows", lf)))
			latmaps := c.probeSurvey(b, sv)
			apps := builtApps(b)
			fmt.Printf("\n%s\n", n.name)
			printEachSurvey(b, c, apps, 64, nil, n.name+", ", surveyed{"survey alone", sv}, surveyed{"survey and every pair", every},
				surveyed{"survey and latmap's probe", latmaps})
		}
	}
}

// withProbe is a copy of the survey sv with a probe of every pair of
// flows between hosts (by index, slow: each pair's slowdown) in its
// shares.csv and meta.json, each host its own router.
func withProbe(b testing.TB, sv string, hosts []string, flows [][2]int, slow map[[2]int]float64) string {
	b.Helper()
	s, err := survey.ReadSurvey(sv, survey.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	m := &survey.ProbeMeta{Routers: map[string]int{}, Planned: "hosts", Classes: len(flows), Threshold: bench.ProbeSlowed}
	for i, h := range hosts {
		m.Routers[h] = i
	}
	s.Shares = nil
	for i, x := range flows {
		for j := i + 1; j < len(flows); j++ {
			y := flows[j]
			if !disjointFlows(x, y) {
				continue
			}
			d := slow[[2]int{i, j}]
			r := survey.Share{SrcA: hosts[x[0]], DstA: hosts[x[1]], SrcB: hosts[y[0]], DstB: hosts[y[1]], SlowdownA: d, SlowdownB: d, Shared: d > bench.ProbeSlowed}
			s.Shares = append(s.Shares, r)
			m.Judged++
			if r.Shared {
				m.Shared++
			}
		}
	}
	s.Meta.Probe = m
	dir := filepath.Join(b.TempDir(), "probed")
	if err := survey.WriteSurvey(dir, s, false); err != nil {
		b.Fatal(err)
	}
	return dir
}

// TestSimProbeFragment: on the dragonfly fragment (builtNetworks), the
// survey measured inside the simulation with the probe of flows at once
// latmap survey --probe on runs, its steps moved inside the simulation
// as the Prober chooses them (probeSurvey), every application priced
// from them is held to checkSimCase's bounds, and the proposals'
// simulated gains over block are, over the applications (geometric
// mean), at least 5% above those priced from the survey alone: the
// routes the probe chose (topo.FitProbe) are where the gains come from.
// make test-sim-built runs it (make test leaves it: SIM_BUILT_ONLY).
func TestSimProbeFragment(t *testing.T) {
	t.Parallel() // simulated time: see simMemo
	n := builtNetworkNamed("dragonfly-fragment")
	c := builtCluster(t, n)
	c.declared = nil
	sv := c.survey(t, "all", []int{64, 1 << 20}, 10)
	probed := c.probeSurvey(t, sv)
	apps := builtApps(t)
	var logGain [2]float64 // without the probe, with it
	for _, app := range apps {
		for k, s := range []string{sv, probed} {
			sc := placeAndSimulate(t, c, s, n.name+" "+app.name+[]string{" (survey alone)", " (survey and probe)"}[k], app.flows, 64, app.iters())
			if k == 1 {
				checkSimCase(t, sc)
			}
			logGain[k] += math.Log(sc.simulated["block"] / sc.simulated["proposal"])
		}
	}
	without, with := math.Exp(logGain[0]/float64(len(apps))), math.Exp(logGain[1]/float64(len(apps)))
	t.Logf("proposals' simulated gain over block, geometric mean of %d applications: %.3fx from the survey alone, %.3fx with the probe", len(apps), without, with)
	if with < 1.05*without {
		t.Errorf("with the probe the proposals gain %.3fx over block in the simulation (geometric mean), not 5%% above the survey alone's %.3fx", with, without)
	}
}

// probeSurvey is a copy of the survey sv with the probe of flows at
// once latmap survey --probe on runs (bench/probe's Prober, on the
// routers the switch phase plans from the round trips, the survey's
// threshold and bounds), its steps moved inside the simulation as it
// chooses them: probesteps.c reads each step from a FIFO and prints its
// flows' times, one rank on each host. Flows of 4 MiB, 8 messages.
func (c *simCluster) probeSurvey(t testing.TB, sv string) string {
	t.Helper()
	s, err := survey.ReadSurvey(sv, survey.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.probePhase(t, s)
	dir := filepath.Join(t.TempDir(), "probed")
	if err := survey.WriteSurvey(dir, s, false); err != nil {
		t.Fatal(err)
	}
	return dir
}

// autoProbe is the probe of flows at once where latmap survey's default
// (--probe auto) probes (bench.ProbeWanted): probePhase on s, with the
// warning the survey writes; false where it does not.
func (c *simCluster) autoProbe(t testing.TB, s *survey.Survey) bool {
	t.Helper()
	why := bench.ProbeWanted(s, s.Switches, len(c.hosts))
	if why == "" || s.Meta.Probe != nil {
		return false
	}
	c.probePhase(t, s)
	s.Meta.Warnings = append(s.Meta.Warnings, "--probe auto: flows at once probed, as "+why)
	return true
}

// probePhase sets on s the probe of flows at once of probeSurvey.
func (c *simCluster) probePhase(t testing.TB, s *survey.Survey) {
	t.Helper()
	_, of, _ := topo.PlanSwitchGroups(s, nil)
	router, planned := bench.ProbeRouters(s, of, "latencies", len(c.hosts))
	pr := probe.NewProber(probe.NewPlan(router), bench.ProbeSlowed, 1)
	pr.Max.Pairs = bench.MaxProbePairs
	const size = 512 << 10
	start := time.Now()
	c.runSteps(t, size, func(times []float64) []probe.Flow {
		if times != nil {
			pr.Record(times)
		}
		return pr.Next()
	})
	s.Meta.Probe, s.Shares = bench.ProbeResult(pr, c.hosts, router, planned, size, time.Since(start))
	t.Logf("probe inside the simulation: %d classes, steps %d alone, %d random, %d two at a time; %d pairs of classes judged, %d shared, %d cleared, %d unjudged",
		s.Meta.Probe.Classes, pr.Steps[0], pr.Steps[1], pr.Steps[2], s.Meta.Probe.Judged, s.Meta.Probe.Shared, s.Meta.Probe.Cleared, s.Meta.Probe.Unjudged)
}

// runSteps runs probesteps.c, one rank on each host, moving flows of
// size bytes (bench.ProbeMessages of them): next gets each step's times
// (nil first) and gives the step after it, nil when done.
func (c *simCluster) runSteps(t testing.TB, size int, next func(times []float64) []probe.Flow) {
	t.Helper()
	prog := filepath.Join(c.dir, "probesteps")
	if out, err := exec.Command("smpicc", "-O2", "-o", prog, filepath.Join(testutil.RepoRoot(t), "testdata", "sim", "probesteps.c")).CombinedOutput(); err != nil {
		t.Fatalf("smpicc probesteps.c: %v\n%s", err, out)
	}
	dir := t.TempDir()
	fifo, hf := filepath.Join(dir, "steps"), filepath.Join(dir, "hostfile")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hf, []byte(strings.Join(c.hosts, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Opened both ways, the FIFO does not wait for the reader.
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cmd := exec.Command("smpirun", "-platform", c.platform, "-hostfile", hf, "-np", strconv.Itoa(len(c.hosts)),
		"--cfg=smpi/simulate-computation:no", "--cfg=smpi/coll-selector:ompi", "--log=root.thres:warning",
		prog, fifo, strconv.Itoa(size), strconv.Itoa(bench.ProbeMessages))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	var times []float64
	for {
		flows := next(times)
		var step strings.Builder
		fmt.Fprintf(&step, "%d", len(flows))
		for _, f := range flows {
			fmt.Fprintf(&step, " %d %d", f.Src, f.Dst)
		}
		if _, err := fmt.Fprintln(w, step.String()); err != nil {
			t.Fatal(err)
		}
		if len(flows) == 0 {
			break
		}
		times = times[:0]
		for len(times) == 0 && lines.Scan() {
			if f := strings.Fields(lines.Text()); len(f) == len(flows)+1 && f[0] == "times" {
				for _, x := range f[1:] {
					v, err := strconv.ParseFloat(x, 64)
					if err != nil {
						t.Fatalf("probesteps: %q: %v", lines.Text(), err)
					}
					times = append(times, v)
				}
			}
		}
		if len(times) != len(flows) {
			cmd.Process.Kill()
			t.Fatalf("probesteps stopped before step %v's times: %v\n%s", flows, lines.Err(), stderr.String())
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("probesteps: %v\n%s", err, stderr.String())
	}
}

// BenchmarkSimProbeDeclared: a list of links declared as the site wired
// it, routed otherwise than latmap guesses. latmap routes a list of
// links by one shortest path a pair (fabric.RoutesShortest: the
// destination's number modulo the ties), a guess; the simulated machine
// here takes, for each source leaf switch and destination host, one of
// its shortest paths drawn at random (machineRoutes), as a subnet
// manager's tables route it whichever way they were computed. On the site-wired dragonfly, the
// HyperX and the dragonfly fragment, the survey is measured inside the
// simulation, and each application is priced with the list declared
// from the survey alone and with latmap's probe of flows at once
// (probeSurvey), which chooses among the shortest paths
// (topo.FitProbe); each prints predicted and simulated runs and the
// misses of the simulated checks' bounds. Run it with go test -run
// '^$' -bench SimProbeDeclared -benchtime 1x ./placement/ (172 s on
// 2026-12-04).
//
// That run: the HyperX's and the site-wired dragonfly's routers are one
// host each (topo.NearestInside turns down the rows and the groups the
// switch levels show as routers): 240 classes, 9,029 and 16,200 steps;
// the probe moved 77 and 13 classes, whose routes then judged none of
// 21,840 pairs of flows otherwise (316 and 507 before), and neither
// missed the bounds either way. The fragment (2 hosts a router, 128
// classes, 6,119 steps) moved 13 classes (1,056 pairs judged otherwise
// before, none after); priced on the guess it missed 8 bounds (LAMMPS
// chain's block predicted at 0.59 of its simulated run, melt's at 0.75,
// GROMACS's proposal simulated slower than block, four speedups), with
// the probe none: block 0.82-1.00 of its simulated runs, the proposals'
// gains over block predicted / simulated 1.77x / 1.94x (chain), 1.52x /
// 1.47x (eam), 1.28x / 1.43x (melt), 1.12x / 1.11x (GROMACS).
func BenchmarkSimProbeDeclared(b *testing.B) {
	for b.Loop() {
		for _, n := range builtNetworks[2:5] { // the lists of links
			files := n.files(b)
			f, err := fabric.ReadAll(files)
			if err != nil {
				b.Fatal(err)
			}
			pick := n.pick
			if pick == nil {
				pick = func(f *fabric.Fabric) []int { return []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15} }
			}
			c := builtClusterRouted(b, n.name+"-machine-routed", machineRoutes(f, 1), files, 4, pick)
			c.declared = nil
			sv := c.survey(b, "all", []int{64, 1 << 20}, 10)
			probed := c.probeSurvey(b, sv)
			apps := builtApps(b)
			fmt.Printf("\n%s, routed by the machine otherwise than latmap's guess\n", n.name)
			printProbeLines(b, probed, files, len(c.hosts)*c.cores)
			printEachSurvey(b, c, apps, 64, files, n.name+", ", surveyed{"declared, survey alone", sv}, surveyed{"declared, survey and probe", probed})
		}
	}
}

// machineRoutes is f with each class of flows (its source's leaf
// switch, f.Levels[0], or its source where f has none; its destination
// host) on one of its shortest paths (fabric.Candidates) drawn at
// random from seed, as switches that forward by destination route it:
// a machine that routes otherwise than latmap guesses.
func machineRoutes(f *fabric.Fabric, seed uint64) *fabric.Fabric {
	rng := rand.New(rand.NewPCG(seed, 2))
	pick := map[[2]int]int{}
	return f.Pinned(func(a, b int) []int32 {
		c := f.Candidates(a, b, 16)
		k := [2]int{a, b}
		if len(f.Levels) > 0 {
			k[0] = -1 - f.Levels[0].Group[a]
		}
		if _, ok := pick[k]; !ok {
			pick[k] = rng.IntN(len(c))
		}
		return c[min(pick[k], len(c)-1)]
	})
}

// TestSimProbeDeclared: the dragonfly fragment's list of links declared
// as wired, the simulated machine routing each class of flows (a leaf
// switch to a host) by one of its shortest paths drawn at random
// (machineRoutes), not as latmap guesses (BenchmarkSimProbeDeclared).
// Priced on the guess from the survey alone, the applications miss the
// simulated checks' bounds (8 misses on 2026-12-04: LAMMPS chain's
// block predicted at 0.59 of its simulated run, GROMACS's proposal
// simulated slower than block); with latmap's probe of flows at once
// (probeSurvey), which chooses among the shortest paths, every one is
// within them. make test-sim-built runs it (make test leaves it:
// SIM_BUILT_ONLY).
func TestSimProbeDeclared(t *testing.T) {
	t.Parallel() // simulated time: see simMemo
	n := builtNetworkNamed("dragonfly-fragment")
	files := n.files(t)
	f, err := fabric.ReadAll(files)
	if err != nil {
		t.Fatal(err)
	}
	c := builtClusterRouted(t, n.name+"-machine-routed", machineRoutes(f, 1), files, 4, n.pick)
	c.declared = nil
	sv := c.survey(t, "all", []int{64, 1 << 20}, 10)
	probed := c.probeSurvey(t, sv)
	c.declared = files
	alone := 0
	for _, app := range builtApps(t) {
		alone += len(simMisses(placeAndSimulate(t, c, sv, n.name+" "+app.name+" (declared, survey alone)", app.flows, 64, app.iters())))
		checkSimCase(t, placeAndSimulate(t, c, probed, n.name+" "+app.name+" (declared, survey and probe)", app.flows, 64, app.iters()))
	}
	t.Logf("priced on latmap's guess of the routes from the survey alone: %d misses of the bounds", alone)
	if alone == 0 {
		t.Errorf("priced on latmap's guess of the routes, no run missed the bounds: the machine's routes are no test of the probe")
	}
}

// BenchmarkSimProbe64: TestSimProbeDeclared's machine at 64 hosts of
// one rank: every host of 16 of fragmentDragonfly's 24 routers
// (pickWhole: router r of group g where g + r is not a multiple of 3),
// the machine routing each class of flows (a router to a host) by one
// of its shortest paths drawn at random (machineRoutes): 1,024 classes
// (the fit took 32 hosts at most before 2026-12-05; now
// topo.MaxFitClasses). Prints the probe's steps, place's lines on it
// and the predicted and simulated runs, with the list of links declared
// and with the network found in the survey, from the survey alone and
// with the probe. Run it with go test -run '^$' -bench SimProbe64
// -benchtime 1x ./placement/ (5 minutes; LATMAP_KEEP_PROBED=DIR keeps
// the survey with its probe in DIR).
//
// That run (2026-12-05): the probe took 263 s inside the simulation,
// 2,048 steps alone, 4,096 random (its cap) clearing 83,277 of the
// 523,776 pairs of classes, 20,000 pairs moved two at a time (967
// shared), and left 412,819 unjudged: no route is chosen from it.
// Declared, no run missed the simulated checks' bounds (LAMMPS eam's
// block 0.0255 s predicted, 0.0258 s simulated). Found in the survey,
// 18 misses either way: block predicted at 1.35-1.42x its simulated run
// (eam 0.0356 s, peptide, GROMACS), the proposals' gains over block
// 1.49-2.05x predicted for 1.07-1.52x simulated. The survey's outermost
// switch level had put router 1 of group 0 in group 2, and the routers
// outside the job found for those groups merged two groups' gateways.
// With the groups mended (network.regroup; run again the same day, the
// probe 226 s, the same counts), 4 misses, all random sparse: block
// 0.217 s predicted for 0.149 s simulated, routed minimally in two
// groups where the machine takes any shortest path (eam's block 0.0253
// s predicted).
func BenchmarkSimProbe64(b *testing.B) {
	c, files := fragment64(b)
	apps := builtApps(b)
	for b.Loop() {
		c.declared = nil
		sv := c.survey(b, "all", []int{64, 1 << 20}, 10)
		t0 := time.Now()
		probed := c.probeSurvey(b, sv)
		fmt.Printf("\ndragonfly fragment, 64 hosts of 16 routers, routed by the machine otherwise than latmap's guess: the probe took %.0f s\n",
			time.Since(t0).Seconds())
		if keep := os.Getenv("LATMAP_KEEP_PROBED"); keep != "" { // to time latmap place on it through the CLI
			if err := os.CopyFS(keep, os.DirFS(probed)); err != nil {
				b.Fatal(err)
			}
		}
		for _, files := range [][]string{files, nil} {
			name := map[bool]string{true: "declared", false: "found"}[files != nil]
			printProbeLines(b, probed, files, 64)
			printEachSurvey(b, c, apps, 64, files, name+", ", surveyed{"survey alone", sv}, surveyed{"survey and probe", probed})
		}
	}
}

// TestSimFragment64 holds BenchmarkSimProbe64's job (64 hosts of one
// rank on 16 routers of fragmentDragonfly, the machine routing each
// class by one of its shortest paths drawn at random), surveyed inside
// the simulation and priced from the survey alone, to the simulated
// checks' bounds, the random sparse graph's speedups aside (its gain
// over block predicted 1.98x for 1.47x simulated: which of its shortest
// paths the machine takes is not in the round trips). Its block run was
// priced at 0.217 s for 0.149 s simulated with the flows that the round
// trips show through a third group routed minimally in their two
// groups; priced as measured (Fabric.Measured), 0.198 s. The proposal
// is searched routed minimally: LAMMPS eam's must simulate 1.4x faster
// than block (1.51x; searched on the spread, 1.31x). The survey's outermost switch level puts a
// router of group 0 in group 2; before network.regroup mended that,
// 18 runs missed (LAMMPS eam's block priced at 0.0356 s for 0.0258 s).
// make test-sim-built runs it (make test leaves it: SIM_BUILT_ONLY).
func TestSimFragment64(t *testing.T) {
	t.Parallel() // simulated time: see simMemo
	c, _ := fragment64(t)
	c.declared = nil
	sv := c.survey(t, "all", []int{64, 1 << 20}, 10)
	for _, app := range builtApps(t) {
		sc := placeAndSimulate(t, c, sv, "fragment-64 "+app.name+" (survey alone)", app.flows, 64, app.iters())
		for _, m := range simMisses(sc) {
			if app.name == "random-sparse-64" && strings.Contains(m, "x, simulated") {
				t.Logf("not held to the bounds: %s", m)
				continue
			}
			t.Error(m)
		}
		// Searched with the flows through a third group spread, eam's
		// proposal simulated 1.31x faster than block, searched minimal
		// 1.51x (CHANGELOG, 2026-12-05).
		if gain := sc.simulated["block"] / sc.simulated["proposal"]; app.name == "lammps-eam-64" && gain < 1.4 {
			t.Errorf("%s: the proposal simulates %.2fx faster than block, want 1.4x or more", app.name, gain)
		}
	}
}

// fragment64 is BenchmarkSimProbe64's job as a simulated cluster (64
// hosts of one rank, pickWhole, on fragmentDragonfly routed by
// machineRoutes' first draw), with the links file that declares it.
func fragment64(t testing.TB) (*simCluster, []string) {
	files := writeLinks(t, fragmentDragonfly())
	f, err := fabric.ReadAll(files)
	if err != nil {
		t.Fatal(err)
	}
	return builtClusterRouted(t, "dragonfly-fragment-64-machine-routed", machineRoutes(f, 1), files, 1, pickWhole), files
}

// pickWhole is every host of fragmentDragonfly's router r of group g
// where g + r is not a multiple of 3: 16 of its 24 routers, 64 hosts.
func pickWhole(f *fabric.Fabric) []int {
	var pick []int
	for i, name := range f.Hosts {
		var g, r, h int
		if _, err := fmt.Sscanf(name, "f%d.%d.%d", &g, &r, &h); err == nil && (g+r)%3 != 0 {
			pick = append(pick, i)
		}
	}
	return pick
}

// builtNetworkNamed is the one of builtNetworks named name.
func builtNetworkNamed(name string) builtNetwork {
	for _, n := range builtNetworks {
		if n.name == name {
			return n
		}
	}
	panic("no built network " + name)
}

// BenchmarkSimProbe1024: BenchmarkSimBuiltDragonfly1024's 1,024 ranks on
// a fragmented allocation of a site-cabled dragonfly (64 hosts of 16
// cores over routers of five groups), priced from the survey alone and
// with latmap's probe of flows at once (probeSurvey: one rank a host),
// the network found in the survey either way; prints the probe's steps,
// place's lines on it, predicted and simulated runs and the misses of
// the simulated checks' bounds. Run it with go test -run '^$' -bench
// SimProbe1024 -benchtime 1x ./placement/ (21 minutes on 2026-12-04).
//
// That run: 1,594 classes (64 hosts on their routers); the probe took
// 29,788 steps (3,188 alone, 6,376 random, the cap, clearing 413,280
// pairs of classes; 20,224 two at a time, the bound of 20,000 pairs
// judged, 224 shared), 282 s, and left 795,454 pairs unjudged. Fitted
// to its judged pairs alone (before topo.FitSurveyProbe refused a
// partial probe), 48 classes moved and the priced runs went wrong: the
// stencil's block predicted at 1.33x its simulated run, its proposal's
// gain over block 2.64x for 1.85x simulated (3 misses; none from the
// survey alone). The pairs a partial probe judged are those its random
// steps could not clear, mostly sharing: a choice fitted to them crowds
// the flows together. A partial probe now chooses no route.
func BenchmarkSimProbe1024(b *testing.B) {
	c := builtClusterOf(b, "dragonfly-site-1024", writeLinks(b, siteDragonfly()), 16, fragmented)
	n := 1024
	apps := []simApp{
		{"stencil 16x8x8, 10 x 1 MiB", scaleFlows(first(shapes.Halo3D(16, 8, 8, false)), 10<<20)},
		{"random-sparse-1024, 10 x 1 MiB", scaleFlows(first(shapes.RandomSparse(n, 4, 1)), 10<<20)},
	}
	for b.Loop() {
		c.declared = nil
		sv := c.survey(b, survey.ScopeNodes, []int{64, 1 << 20}, 5)
		t0 := time.Now()
		probed := c.probeSurvey(b, sv)
		fmt.Printf("\nsite-wired dragonfly, 1,024 ranks on 64 hosts of 5 groups: the probe inside the simulation took %.0f s\n", time.Since(t0).Seconds())
		printProbeLines(b, probed, nil, n)
		printEachSurvey(b, c, apps, n, nil, "", surveyed{"survey alone", sv}, surveyed{"survey and probe", probed})
	}
}

// surveyed is a survey a simulated check prices, named.
type surveyed struct{ name, sv string }

// printEachSurvey is printPricedOn for each survey in turn, on the
// network files declared (nil: found in the survey), then how many of
// the simulated checks' bounds each missed and which, each count's line
// begun with prefix.
func printEachSurvey(b *testing.B, c *simCluster, apps []simApp, n int, files []string, prefix string, svs ...surveyed) {
	for _, p := range svs {
		misses := printPricedOn(b, c, p.sv, apps, n, []pricedOn{{p.name, files}})
		fmt.Printf("%s%s: misses of the simulated checks' bounds: %d\n", prefix, p.name, len(misses))
		for _, m := range misses {
			fmt.Printf("  %s\n", m)
		}
	}
}

// printProbeLines prints what latmap place says of the probe of flows
// at once in the survey sv (its fit, its check), the network files
// declared (nil: found), for ranks ranks.
func printProbeLines(b *testing.B, sv string, files []string, ranks int) {
	in, err := loadInputs(Options{Survey: sv, Topology: files, Matrix: writeMatrix(b, []profile.Flow{{Src: 0, Dst: 1, Bytes: 1e6, Messages: 1}}), Ranks: ranks})
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range in.warnings {
		if strings.Contains(w, "probe of flows") {
			fmt.Printf("  place: %s\n", w)
		}
	}
}
