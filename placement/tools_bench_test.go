package placement

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
	"github.com/latmap/latmap/mapper/topo"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
	"github.com/latmap/latmap/placement/solve"
)

// toolMachine is a synthetic machine of four levels: cores, nodes,
// switches of perSwitch nodes, pods of perPod nodes (round trips 2 us
// inside a node, 20 under a switch, 40 across switches, 80 across pods;
// node links 10 GB/s, a switch's uplinks half its nodes' links, a pod's
// a quarter: 2:1 at both levels).
type toolMachine struct {
	nodes, cores, perSwitch, perPod int
	scope                           string
}

func (tm toolMachine) ranks() int { return tm.nodes * tm.cores }

// survey writes the machine's synthetic survey (with switches.csv,
// nodebw.csv and switchbw.csv as latmap survey writes them) to dir and
// returns it with its hosts in order.
func (tm toolMachine) survey(b testing.TB, dir string) (*survey.Survey, []string) {
	s := synth.New(synth.Spec{Nodes: tm.nodes, Sockets: 1, Cores: tm.cores, NodesPerSwitch: tm.perSwitch, NodesPerPod: tm.perPod, PodRTT: 80,
		RTT: [4]float64{2, 2, 20, 40}, Noise: 0.03, Seed: 42, Scope: tm.scope})
	var of [][]int
	var note string
	if s.Switches, of, note = topo.SwitchGroups(s); len(of) != 2 {
		b.Fatalf("the synthetic survey shows %d switch levels, want 2: %s", len(of), note)
	}
	hosts := make([]string, tm.nodes)
	for h := range hosts {
		hosts[h] = s.Ranks[h*tm.cores].Host
		s.NodeBandwidth = append(s.NodeBandwidth, survey.NodeBandwidth{Host: hosts[h], Peer: s.Ranks[(h+1)%tm.nodes*tm.cores].Host,
			Ranks: tm.cores, Size: 1 << 20, Messages: 16, Seconds: 1, AggregateMBps: 10000, PairMBps: 9000})
	}
	for k, groups := range of {
		per, share := tm.perSwitch, 2.0
		if k == 1 {
			per, share = tm.perPod, 4
		}
		seen := map[int]bool{}
		for _, g := range groups {
			if !seen[g] {
				seen[g] = true
				s.SwitchBandwidth = append(s.SwitchBandwidth, survey.SwitchBandwidth{Level: k + 1, Group: g, PeerGroup: g, Hosts: per, Ranks: per * tm.cores,
					Size: 1 << 20, Messages: 16, Seconds: 1, AggregateMBps: float64(per) * 10000 / share})
			}
		}
	}
	if err := survey.WriteSurvey(dir, s, false); err != nil {
		b.Fatal(err)
	}
	return s, hosts
}

// tleaf is Scotch's target of the machine: pods, switches, nodes, cores,
// a byte across the pods costing twice one across switches, four times
// one under a switch, forty times one inside a node.
func (tm toolMachine) tleaf() string {
	return fmt.Sprintf("tleaf 4 %d 400 %d 200 %d 100 %d 10\n", tm.nodes/tm.perPod, tm.perPod/tm.perSwitch, tm.perSwitch, tm.cores)
}

// hierarchy and distances are KaHIP's process mapping's view of it, from
// the cores up.
func (tm toolMachine) hierarchy() (string, string) {
	return fmt.Sprintf("%d:%d:%d:%d", tm.cores, tm.perSwitch, tm.perPod/tm.perSwitch, tm.nodes/tm.perPod), "1:10:20:40"
}

// sized gives every flow msgs messages of size bytes.
func sized(flows []profile.Flow, msgs int, size float64) []profile.Flow {
	out := append([]profile.Flow(nil), flows...)
	for i := range out {
		out[i].Messages, out[i].Bytes = float64(msgs), float64(msgs)*size
	}
	return out
}

// toolApps are the applications placed on machine tm: 3-D stencils with
// small (100 x 8 KiB) and large (10 x 1 MiB) messages, periodic and not,
// a random sparse graph, the real 64-rank matrices of testdata at 64
// ranks, and an all-to-all up to 1,024 ranks (at 4,096 it is 16.8
// million rows).
func toolApps(b *testing.B, tm toolMachine) []simApp {
	n := tm.ranks()
	dims := map[int][3]int{64: {4, 4, 4}, 1024: {16, 8, 8}, 4096: {16, 16, 16}, 16384: {32, 32, 16}}[n]
	d := fmt.Sprintf("%dx%dx%d", dims[0], dims[1], dims[2])
	open, _ := shapes.Halo3D(dims[0], dims[1], dims[2], false)
	wrap, _ := shapes.Halo3D(dims[0], dims[1], dims[2], true)
	apps := []simApp{
		{"stencil " + d + ", 100 x 8 KiB", sized(open, 100, 8<<10)},
		{"stencil " + d + ", 10 x 1 MiB", sized(open, 10, 1<<20)},
		{"periodic " + d + ", 100 x 8 KiB", sized(wrap, 100, 8<<10)},
		{"periodic " + d + ", 10 x 1 MiB", sized(wrap, 10, 1<<20)},
		{"random sparse, 10 x 1 MiB", sized(first(shapes.RandomSparse(n, 4, 1)), 10, 1<<20)},
	}
	if n <= 1024 {
		apps = append(apps, simApp{"all-to-all, 10 x 16 KiB", sized(first(shapes.AllToAll(n)), 10, 16<<10)})
	}
	if n == 64 {
		apps = append(apps, simRealApps(b)...)
	}
	return apps
}

// BenchmarkPlaceTools is make bench-place's comparison of latmap place
// with Scotch (scotch_gmap -b0 onto a tleaf of the machine's four
// levels), METIS (gpmetis into one part per node, the parts on the nodes
// in order: no level-by-level assignment) and KaHIP's process mapping
// (kaffpa --enable_mapping onto the same hierarchy, when on PATH), on
// synthetic four-level machines of 64, 1,024, 4,096 and 16,384 ranks
// and the applications of toolApps. Every tool's mapping is scored by
// latmap's model as --current: the predicted run and the summed
// transfer, beside the tool's seconds (latmap's: bin/latmap place end to
// end, survey and matrix read from disk; the others': the tool's own
// run on its input files).
func BenchmarkPlaceTools(b *testing.B) {
	machines := []toolMachine{
		{16, 4, 4, 8, survey.ScopeAll},
		{64, 16, 4, 16, survey.ScopeNodes},
		{64, 64, 4, 16, survey.ScopeNodes},
		{256, 64, 16, 64, survey.ScopeNodes},
	}
	for _, tm := range machines {
		b.Run(strconv.Itoa(tm.ranks()), func(b *testing.B) {
			dir := b.TempDir()
			sv := filepath.Join(dir, "survey")
			_, hosts := tm.survey(b, sv)
			hier, dist := tm.hierarchy()
			for b.Loop() {
				fmt.Printf("\n%d ranks: %d nodes x %d cores, %d nodes a switch, %d a pod (scope %s); Scotch's target %q, KaHIP's hierarchy %s, distances %s\n",
					tm.ranks(), tm.nodes, tm.cores, tm.perSwitch, tm.perPod, tm.scope, strings.TrimSpace(tm.tleaf()), hier, dist)
				fmt.Printf("  %-34s %-8s %9s %14s %13s %9s\n", "application", "tool", "seconds", "predicted run", "transfer (s)", "vs latmap")
				for _, app := range toolApps(b, tm) {
					toolRows(b, tm, sv, hosts, app)
				}
			}
		})
	}
}

// toolRows prints one application's row per tool.
func toolRows(b *testing.B, tm toolMachine, sv string, hosts []string, app simApp) {
	n := tm.ranks()
	mx := writeMatrix(b, app.flows)
	secs, _, _, ok := testutil.TimeBinary(b, "place", "--survey", sv, "--matrix", mx, "-o", filepath.Join(b.TempDir(), "out.rankfile"), "--force", "--always-write")
	if !ok {
		testutil.Missing(b, testutil.NeedMPI, "no bin/latmap (make build)")
	}
	// The timed run's proposal (its default seed, 1).
	a, _ := placeHosts(b, Options{Survey: sv, Matrix: mx, Solve: solve.Options{Seed: DefaultSeed}})
	mine := a.ProposalPrediction()
	row := func(tool string, secs float64, p placefile.Prediction, note string) {
		fmt.Printf("  %-34s %-8s %9.3f %14.5g %13.5g %8.2fx  %s\n", app.name, tool, secs, p.Run, p.Transfer, p.Run/mine.Run, note)
	}
	row("latmap", secs, mine, "")
	if blk := a.Predictions[0]; blk.Name == "block" {
		row("block", 0, blk, "")
	}
	if _, err := exec.LookPath("scotch_gmap"); err == nil {
		if slots, took := scotchHosts(b, hosts, tm.cores, app.flows, n, tm.tleaf()); slots != nil {
			row("scotch", took, scoreCurrent(b, sv, mx, slots), "")
		} else {
			fmt.Printf("  %-34s scotch: scotch_gmap -b0 failed after %.2f s (crashed; the benchmark's log says how)\n", app.name, took)
		}
	} else {
		fmt.Printf("  %-34s scotch: not installed (apt-get install scotch)\n", app.name)
	}
	if gpmetis, err := exec.LookPath("gpmetis"); err == nil {
		slots, took, moved := metisHosts(b, gpmetis, hosts, tm.cores, app.flows, n)
		row("metis", took, scoreCurrent(b, sv, mx, slots), fmt.Sprintf("(%d ranks over a full node moved)", moved))
	} else {
		fmt.Printf("  %-34s metis: not installed (apt-get install metis)\n", app.name)
	}
	hier, dist := tm.hierarchy()
	switch slots, took, moved := kahipHosts(b, hosts, tm.cores, app.flows, n, hier, dist); {
	case slots == nil && took > 0:
		fmt.Printf("  %-34s kahip: kaffpa --enable_mapping stopped after %.0f s\n", app.name, took)
	case slots == nil:
		fmt.Printf("  %-34s kahip: %s\n", app.name, kahipMissing)
	default:
		row("kahip", took, scoreCurrent(b, sv, mx, slots), fmt.Sprintf("(%d ranks over a full node moved)", moved))
	}
}

// metisHosts partitions flows (n ranks) into one part per node with
// gpmetis (-ptype=kway -ufactor=1, writeMetisGraph's weights), part p on
// node p, and returns each rank's host and cpu, gpmetis's wall time and
// how many ranks a full node could not take (METIS's imbalance).
func metisHosts(b testing.TB, gpmetis string, hosts []string, cores int, flows []profile.Flow, n int) ([]placefile.RankSlot, float64, int) {
	how, parts, cmd := metisCommand(b, gpmetis, shapes.MustTraffic(flows, n), len(hosts))
	nodeOf, took := partition(b, how, parts, n, len(hosts), cmd)
	slots, moved := fillNodes(nodeOf, hosts, cores)
	return slots, took, moved
}

// TestPlaceAgainstScotchFourLevels: on the synthetic four-level machine
// of 64 ranks (16 nodes x 4 cores, 4 nodes a switch, 8 a pod, 2:1 at
// both levels), for the real application matrices of testdata, latmap's
// proposal is predicted at or below block and at or below Scotch's
// mapping onto the machine's tleaf (scored as --current), with at most
// 1.02x Scotch's summed transfer, or a shorter predicted run (the run is
// the objective; the transfer its tie-break). Refining only the best
// starts, GROMACS's proposal was predicted at 0.0996 s (seed 0) or
// 0.0863 s (seed 1, the CLI's), and KaHIP's process mapping (kaffpa
// --enable_mapping 4:4:2:2, 1:10:20:40; make bench-place, KaHIP is not in
// CI) at 0.0834 s: the test holds GROMACS's proposal at or below that.
// Every start refined, 0.0816 s (seed 1).
func TestPlaceAgainstScotchFourLevels(t *testing.T) {
	t.Parallel() // a synthetic survey, no timing: beside the simulations
	if _, err := exec.LookPath("scotch_gmap"); err != nil {
		testutil.Missing(t, testutil.NeedScotch, "scotch_gmap not installed (apt-get install scotch)")
	}
	tm := toolMachine{16, 4, 4, 8, survey.ScopeAll}
	sv := filepath.Join(t.TempDir(), "survey")
	_, hosts := tm.survey(t, sv)
	for _, app := range simRealApps(t) {
		mx := writeMatrix(t, app.flows)
		a, _ := placeHosts(t, Options{Survey: sv, Matrix: mx, Solve: solve.Options{Seed: DefaultSeed}})
		mine, blk := a.ProposalPrediction(), a.Predictions[0]
		slots, _ := scotchHosts(t, hosts, tm.cores, app.flows, tm.ranks(), tm.tleaf())
		if slots == nil {
			t.Fatalf("%s: scotch_gmap failed", app.name)
		}
		sc := scoreCurrent(t, sv, mx, slots)
		t.Logf("%s: latmap %.5g s (transfer %.4g s), Scotch %.5g s (%.4g s), block %.5g s", app.name, mine.Run, mine.Transfer, sc.Run, sc.Transfer, blk.Run)
		if mine.Run > blk.Run*(1+1e-9) || mine.Run > sc.Run*(1+1e-9) {
			t.Errorf("%s: latmap's proposal predicted %.5g s, block %.5g s, Scotch's mapping %.5g s", app.name, mine.Run, blk.Run, sc.Run)
		}
		if kahip := 0.083423; app.name == "gromacs-water-64" && mine.Run > kahip {
			t.Errorf("%s: latmap's proposal predicted %.5g s, KaHIP's process mapping %.5g s", app.name, mine.Run, kahip)
		}
		if mine.Transfer > 1.02*sc.Transfer && mine.Run >= sc.Run*(1-1e-9) {
			t.Errorf("%s: summed transfer %.4g s against Scotch's %.4g s at no shorter run", app.name, mine.Transfer, sc.Transfer)
		}
		testutil.Record(t, "predicted runs on a four-level machine (16 nodes x 4 cores, 2:1 at both switch levels): latmap's proposal against block and Scotch's mapping", "application", app.name, "latmap s", mine.Run, "block s", blk.Run, "Scotch s", sc.Run, "Scotch over latmap", sc.Run/mine.Run, "held to", "latmap at or below block and Scotch (and GROMACS below KaHIP's 0.08342 s)")
	}
}

// metisDmodkGap is how far above METIS's node partition latmap's
// proposal for the periodic 16x8x8 grid with 1 MiB messages may be
// predicted on the d-mod-k routed tree: a gap left (1.5%).
const metisDmodkGap = 0.02

// TestPlaceAgainstMETISStencils: on make bench-place's 1,024-rank
// four-level machine (64 nodes x 16 cores, 4 nodes a switch, 16 a pod),
// latmap's proposal for 16x8x8 stencils, periodic and not, with 8 KiB
// and 1 MiB messages, is predicted at or below METIS's node partition
// (gpmetis, parts on the nodes in order, scored as --current). Both cut
// 960 of the open grid's edges between nodes, in 4x2x2 or 2x2x4 boxes,
// but only the second tiling has every box touch the grid's edge: its
// busiest node sends and receives 72 flows off the node against 80.
// Coarsened with ties to the first neighbour only, latmap's proposal for
// the open grid with 1 MiB messages was predicted 9% slower than
// METIS's (0.0504 s against 0.0462 s). Since the survey's switch levels
// are routed as the fat tree they describe (d-mod-k in the hosts'
// order), the periodic grid with 1 MiB messages is the one case where
// METIS's parts on the nodes in order load the uplinks more evenly than
// latmap's proposal: 0.07353 s against 0.07461 s (seed 1; searched with
// the uplinks as one, as above 256 ranks, and priced routed; searched
// routed, 0.07483 s; with the uplinks as one, --routing adaptive, both
// 0.0588 s). The test holds it within metisDmodkGap of METIS's.
func TestPlaceAgainstMETISStencils(t *testing.T) {
	t.Parallel() // a synthetic survey, no timing: beside the simulations
	gpmetis, err := exec.LookPath("gpmetis")
	if err != nil {
		testutil.Missing(t, testutil.NeedMetis, "gpmetis not installed (apt-get install metis)")
	}
	tm := toolMachine{64, 16, 4, 16, survey.ScopeNodes}
	sv := filepath.Join(t.TempDir(), "survey")
	_, hosts := tm.survey(t, sv)
	for _, periodic := range []bool{false, true} {
		grid, _ := shapes.Halo3D(16, 8, 8, periodic)
		for _, size := range []float64{8 << 10, 1 << 20} {
			flows := sized(grid, 10, size)
			mx := writeMatrix(t, flows)
			a, _ := placeHosts(t, Options{Survey: sv, Matrix: mx, Solve: solve.Options{Seed: DefaultSeed}})
			slots, _, _ := metisHosts(t, gpmetis, hosts, tm.cores, flows, tm.ranks())
			mine, metis := a.ProposalPrediction(), scoreCurrent(t, sv, mx, slots)
			t.Logf("periodic %v, %.0f KiB: latmap %.5g s, METIS %.5g s", periodic, size/1024, mine.Run, metis.Run)
			if gap := map[bool]float64{true: metisDmodkGap, false: 1e-4}[periodic && size > 8<<10]; mine.Run > metis.Run*(1+gap) {
				t.Errorf("periodic %v, %.0f KiB messages: latmap's proposal predicted %.5g s, METIS's node partition %.5g s",
					periodic, size/1024, mine.Run, metis.Run)
			}
			testutil.Record(t, "predicted runs of 16x8x8 stencils on 64 nodes x 16 cores (4 nodes a switch, 16 a pod): latmap's proposal against METIS's node partition", "periodic", periodic, "message KiB", size/1024, "latmap s", mine.Run, "METIS s", metis.Run, "latmap over METIS", mine.Run/metis.Run, "held to", fmt.Sprintf("at most %g", 1+map[bool]float64{true: metisDmodkGap, false: 1e-4}[periodic && size > 8<<10]))
		}
	}
}

// BenchmarkPlaceRouted is make bench-place's time of latmap place on a
// fat tree found in the survey alone (routed d-mod-k, every layout priced
// flow by flow) against --routing adaptive (the uplinks as one): 4,096
// ranks on a synthetic tree of 256 nodes x 16 cores, 4 nodes a switch,
// 16 a pod, 2:1 at both levels, the periodic 16x16x16 grid with 10 x 1
// MiB messages; bin/latmap end to end, medians of 3 alternating runs
// (wall seconds and max RSS).
func BenchmarkPlaceRouted(b *testing.B) {
	tm := toolMachine{256, 16, 4, 16, survey.ScopeNodes}
	sv := filepath.Join(b.TempDir(), "survey")
	tm.survey(b, sv)
	wrap, _ := shapes.Halo3D(16, 16, 16, true)
	mx := writeMatrix(b, sized(wrap, 10, 1<<20))
	for b.Loop() {
		secs, rss := map[string][]float64{}, map[string][]float64{}
		for range benchRepeats {
			for _, routing := range []string{"", "adaptive"} {
				args := []string{"place", "--survey", sv, "--matrix", mx, "-o", filepath.Join(b.TempDir(), "out.rankfile")}
				if routing != "" {
					args = append(args, "--routing", routing)
				}
				s, _, r, ok := testutil.TimeBinary(b, args...)
				if !ok {
					testutil.Missing(b, testutil.NeedMPI, "no bin/latmap (make build)")
				}
				secs[routing], rss[routing] = append(secs[routing], s), append(rss[routing], r)
			}
		}
		routed, adaptive := stats.Median(secs[""]), stats.Median(secs["adaptive"])
		fmt.Printf("\nplace, 4,096 ranks on a 256 x 16 tree found in the survey (periodic 16x16x16, 1 MiB): routed d-mod-k %.2f s %.0f MiB, --routing adaptive %.2f s %.0f MiB (medians of %d)\n",
			routed, stats.Median(rss[""]), adaptive, stats.Median(rss["adaptive"]), benchRepeats)
		b.ReportMetric(routed, "routed_s")
		b.ReportMetric(adaptive, "adaptive_s")
	}
}

// BenchmarkPlaceTorus is make bench-place's time of latmap place on a
// declared torus (latmap's plain description, dimension-order routes,
// every flow routed and priced link by link): 4,096 ranks on an 8x8x4
// torus of 16-core nodes (the periodic 16x16x16 grid) and 16,384 on a
// 16x8x8 one (the periodic 32x32x16 grid), 10 x 1 MiB messages, over
// the synthetic machine's survey of its nodes; bin/latmap end to end,
// medians of 3 (wall seconds and max RSS); with LATMAP_BENCH_BASE=BIN,
// alternated with that build in the same run.
func BenchmarkPlaceTorus(b *testing.B) {
	// The last: 4,096 nodes of 4 cores, whose route table (about 230
	// million entries) was refused before routes were computed as used.
	for _, c := range []struct {
		dims, grid [3]int
		cores      int
	}{{[3]int{8, 8, 4}, [3]int{16, 16, 16}, 16}, {[3]int{16, 8, 8}, [3]int{32, 32, 16}, 16}, {[3]int{16, 16, 16}, [3]int{32, 32, 16}, 4}} {
		nodes := c.dims[0] * c.dims[1] * c.dims[2]
		b.Run(fmt.Sprintf("%dx%d", nodes, c.cores), func(b *testing.B) {
			header := fmt.Sprintf("torus %dx%dx%d bw=12.5GBps lat=0.5us", c.dims[0], c.dims[1], c.dims[2])
			benchDeclared(b, nodes, c.cores, header, c.grid, fmt.Sprintf("%dx%dx%d torus of %d-core nodes (", c.dims[0], c.dims[1], c.dims[2], c.cores), func(h int) string {
				return fmt.Sprintf("%d %d %d", h%c.dims[0], h/c.dims[0]%c.dims[1], h/(c.dims[0]*c.dims[1]))
			})
		})
	}
}

// BenchmarkPlaceDragonfly is make bench-place's time of latmap place on
// declared dragonflies (latmap's plain description, a node a router
// port, minimal routes), over the synthetic machine's survey of its
// nodes, 10 x 1 MiB messages of a periodic 3-D grid: issue 72's 16,384
// ranks as 256 nodes x 64 cores (4 groups of 4 chassis of 16 routers) and
// as 4,096 nodes x 4 (16 groups of 4 chassis of 16 routers of 4 nodes),
// and its largest, 102,400 ranks on 1,600 nodes x 64 (16 groups of 4
// chassis of 25 routers); bin/latmap end to end, medians of 3 (wall
// seconds and max RSS); with LATMAP_BENCH_BASE=BIN, alternated with that
// build in the same run.
func BenchmarkPlaceDragonfly(b *testing.B) {
	for _, c := range []struct {
		groups, chassis, routers, nodes, cores int
		grid                                   [3]int
	}{{4, 4, 16, 1, 64, [3]int{32, 32, 16}}, {16, 4, 16, 4, 4, [3]int{32, 32, 16}}, {16, 4, 25, 1, 64, [3]int{64, 40, 40}}} {
		hostN := c.groups * c.chassis * c.routers * c.nodes
		b.Run(fmt.Sprintf("%dx%d", hostN, c.cores), func(b *testing.B) {
			header := fmt.Sprintf("dragonfly groups=%d,1 chassis=%d,1 routers=%d,1 nodes=%d bw=12.5GBps lat=0.5us", c.groups, c.chassis, c.routers, c.nodes)
			what := fmt.Sprintf("dragonfly of %d nodes x %d cores (%d groups x %d chassis x %d routers x %d nodes; ", hostN, c.cores, c.groups, c.chassis, c.routers, c.nodes)
			perGroup := c.chassis * c.routers * c.nodes
			benchDeclared(b, hostN, c.cores, header, c.grid, what, func(h int) string {
				return fmt.Sprintf("%d %d %d %d", h/perGroup, h/(c.routers*c.nodes)%c.chassis, h/c.nodes%c.routers, h%c.nodes)
			})
		})
	}
}

// benchDeclared times latmap place (timeBins) on a network declared in
// latmap's plain description (header, then each host's coordinates,
// coords(h)) over the synthetic machine's survey of its nodes x cores,
// the periodic grid with 10 x 1 MiB messages, and prints the figures of
// a declared what (the network, up to its parenthesis's grid).
func benchDeclared(b *testing.B, nodes, cores int, header string, grid [3]int, what string, coords func(h int) string) {
	dir := b.TempDir()
	sv, topology := filepath.Join(dir, "survey"), filepath.Join(dir, "network.txt")
	_, hosts := toolMachine{nodes, cores, 4, 16, survey.ScopeNodes}.survey(b, sv)
	desc := header + "\n"
	for h, name := range hosts {
		desc += name + " " + coords(h) + "\n"
	}
	if err := os.WriteFile(topology, []byte(desc), 0o644); err != nil {
		b.Fatal(err)
	}
	wrap, _ := shapes.Halo3D(grid[0], grid[1], grid[2], true)
	mx := writeMatrix(b, sized(wrap, 10, 1<<20))
	bins := benchBins(b)
	for b.Loop() {
		secs, rss := timeBins(b, bins, "place", "--survey", sv, "--topology", topology, "--matrix", mx, "--force", "-o", filepath.Join(dir, "out.rankfile"))
		fmt.Printf("\nplace, %d ranks on a declared %speriodic %dx%dx%d, 1 MiB): %.2f s %.0f MiB%s (medians of %d)\n",
			nodes*cores, what, grid[0], grid[1], grid[2], stats.Median(secs["this"]), stats.Median(rss["this"]), baseLine(secs), benchRepeats)
		b.ReportMetric(stats.Median(secs["this"]), "place_s")
	}
}

// benchBins are the builds a benchmark times: bin/latmap ("this") and,
// with LATMAP_BENCH_BASE=BIN, another build ("base"), timed in the same
// run.
func benchBins(b *testing.B) map[string]string {
	bins := map[string]string{"this": filepath.Join(testutil.RepoRoot(b), "bin", "latmap")}
	if base := os.Getenv("LATMAP_BENCH_BASE"); base != "" {
		bins["base"] = base
	}
	return bins
}

// timeBins runs latmap with args benchRepeats times under each of bins,
// alternating them: each one's wall seconds and peak RSS (MiB).
func timeBins(b *testing.B, bins map[string]string, args ...string) (secs, rss map[string][]float64) {
	secs, rss = map[string][]float64{}, map[string][]float64{}
	for range benchRepeats {
		for _, which := range []string{"this", "base"} {
			if bins[which] == "" {
				continue
			}
			b.Setenv("LATMAP_BIN", bins[which])
			s, _, r, ok := testutil.TimeBinary(b, args...)
			if !ok {
				testutil.Missing(b, testutil.NeedMPI, "no bin/latmap (make build)")
			}
			secs[which], rss[which] = append(secs[which], s), append(rss[which], r)
		}
	}
	return secs, rss
}

// baseLine is what a line of timeBins' figures adds for a base build:
// its median and how many times this one's.
func baseLine(secs map[string][]float64) string {
	if len(secs["base"]) == 0 {
		return ""
	}
	return fmt.Sprintf(", LATMAP_BENCH_BASE %.2f s (%.2fx)", stats.Median(secs["base"]), stats.Median(secs["base"])/stats.Median(secs["this"]))
}

// TestOuterSpread: on the synthetic four-level tree (its two pods meet
// at one round trip, 3% noise) outerSpread is under MaxSwitchSpread, so
// its switch levels stay a fat tree's; with the round trips between the
// pods spread 1-2.2x (a dragonfly's groups, which meet over links at
// particular routers, a few hops apart) it is over.
func TestOuterSpread(t *testing.T) {
	tm := toolMachine{16, 4, 4, 8, survey.ScopeAll}
	s, _ := tm.survey(t, filepath.Join(t.TempDir(), "survey"))
	spread := func() float64 {
		m, err := model.MachineFromSurvey(s, model.SurveyCostOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return outerSpread(m)
	}
	if sp := spread(); sp > topo.MaxSwitchSpread {
		t.Errorf("the tree's pods: outerSpread %.2f, want under %.2g", sp, topo.MaxSwitchSpread)
	}
	node := func(r int) int { return r / tm.cores }
	for _, tab := range s.Tables {
		tab.Each(func(a, b, i int) {
			if node(a)/tm.perPod != node(b)/tm.perPod {
				f := float32(1 + 0.6*float64((node(a)+node(b))%3))
				for _, v := range tab.Values {
					if v != nil {
						v[i] *= f
					}
				}
			}
		})
	}
	if sp := spread(); sp <= topo.MaxSwitchSpread {
		t.Errorf("the pods' round trips spread 1-2.2x: outerSpread %.2f, want over %.2g", sp, topo.MaxSwitchSpread)
	}
}

// BenchmarkPlaceSmallRouted is make bench-place's time of latmap place
// where the solver's kicks are most of it: 64 ranks, one a node, on a
// declared 4x4x4 torus and a declared dragonfly of 4 groups x 4 chassis
// x 4 routers (latmap's plain descriptions over the synthetic machine's
// survey), with testdata's LAMMPS peptide and GROMACS matrices; bin/latmap
// end to end, medians of 3. With LATMAP_BENCH_BASE=BIN (another build of
// latmap) it alternates the two binaries and prints their ratio, measured
// in the same run.
func BenchmarkPlaceSmallRouted(b *testing.B) {
	dir := b.TempDir()
	sv := filepath.Join(dir, "survey")
	_, hosts := toolMachine{64, 1, 4, 16, survey.ScopeAll}.survey(b, sv)
	torus, dfly := "torus 4x4x4 bw=12.5GBps lat=0.5us\n", "dragonfly groups=4,1 chassis=4,1 routers=4,1 nodes=1 bw=12.5GBps lat=0.5us\n"
	for h, name := range hosts {
		torus += fmt.Sprintf("%s %d %d %d\n", name, h%4, h/4%4, h/16)
		dfly += fmt.Sprintf("%s %d %d %d 0\n", name, h/16, h/4%4, h%4)
	}
	bins := benchBins(b)
	for b.Loop() {
		for _, network := range []struct{ name, desc string }{{"torus", torus}, {"dragonfly", dfly}} {
			topology := filepath.Join(dir, network.name+".txt")
			if err := os.WriteFile(topology, []byte(network.desc), 0o644); err != nil {
				b.Fatal(err)
			}
			for _, app := range []string{"lammps-peptide-64", "gromacs-water-64"} {
				mx := filepath.Join(testutil.RepoRoot(b), "testdata", "matrix", app+".csv")
				secs, _ := timeBins(b, bins, "place", "--survey", sv, "--topology", topology, "--matrix", mx, "--force", "--always-write", "-o", filepath.Join(dir, "out.rankfile"))
				fmt.Printf("\nplace, 64 ranks on a declared %s, %s: %.2f s%s (medians of %d)\n", network.name, app, stats.Median(secs["this"]), baseLine(secs), benchRepeats)
				b.ReportMetric(stats.Median(secs["this"]), network.name+"_"+app[:6]+"_s")
			}
		}
	}
}
