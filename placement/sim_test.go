package placement

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/bench"
	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/network"
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
	"github.com/latmap/latmap/placement/solve"
)

// simCase is one application on the simulated cluster: latmap place's
// predictions for block, cyclic and its proposal, and their simulated runs.
type simCase struct {
	name                 string
	predicted, simulated map[string]float64
	// ranges are the predictions' ranges over the networks the round
	// trips allow (Prediction.Low, High), where place gave them.
	ranges map[string][2]float64
	// matrix is the replayed matrix as place read it; replayArg what
	// replay.c was given (the matrix, or alltoall:BYTES).
	matrix, replayArg string
}

// placeHosts runs latmap place with opt (and --json, --format slurm) and
// returns its advice and the proposal's host of each rank.
func placeHosts(t testing.TB, opt Options) (placefile.Advice, []string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "proposal.hosts")
	var adv bytes.Buffer
	opt.Output, opt.Format, opt.Force, opt.AlwaysWrite = file, placefile.FormatSlurm, true, true
	if _, err := runJSON(opt, &adv); err != nil {
		t.Fatal(err)
	}
	var a placefile.Advice
	if err := json.Unmarshal(adv.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	ranks, _, err := placefile.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]string, len(ranks))
	for r, rs := range ranks {
		hosts[r] = rs.Host
	}
	return a, hosts
}

// placeAndSimulate proposes a placement of the replayed matrix on the
// survey, and simulates block, cyclic and the proposal.
func placeAndSimulate(t testing.TB, c *simCluster, sv, name string, flows []profile.Flow, n, iter int) simCase {
	t.Helper()
	return placeAndSimulateAs(t, c, sv, name, flows, "", n, iter)
}

// placeAndSimulateAs is placeAndSimulate with replay.c's first argument
// given (as alltoall:BYTES; "": the matrix of flows).
func placeAndSimulateAs(t testing.TB, c *simCluster, sv, name string, flows []profile.Flow, as string, n, iter int) simCase {
	t.Helper()
	mx := replayMatrix(t, flows, iter)
	// The solver's seed is latmap place's default: what a user gets. With
	// seed 0 on a tapered dragonfly (green links doubled, declared),
	// GROMACS's proposal stopped at 0.07001 s (block 0.07471) where seed
	// 1's reached 0.06117, and simulated 4.9% slower than block.
	declared := paths(c.topology)
	if c.declared != nil {
		declared = c.declared
	}
	a, prop := placeHosts(t, Options{Survey: sv, Matrix: mx, Topology: declared, Model: model.ModelOptions{Routing: c.routing}, Solve: solve.Options{Seed: DefaultSeed}})
	if n := a.Network; n != nil {
		t.Logf("%s: network priced as %s", name, n.Capacity)
	}
	if as == "" {
		as = mx
	}
	sc := simCase{name: name, predicted: map[string]float64{}, simulated: map[string]float64{}, matrix: mx, replayArg: as}
	for _, p := range a.Predictions {
		sc.predicted[p.Name] = p.Run
		if p.High > 0 {
			if sc.ranges == nil {
				sc.ranges = map[string][2]float64{}
			}
			sc.ranges[p.Name] = [2]float64{p.Low, p.High}
		}
	}
	for layout, hosts := range map[string][]string{"block": c.block(n), "cyclic": c.cyclic(n), "proposal": prop} {
		sc.simulated[layout] = c.replay(t, as, iter, hosts)
	}
	return sc
}

// fatTree16x4 is the simulated 16 x 4 two-level fat tree with 2:1
// uplinks.
func fatTree16x4(t testing.TB) *simCluster { return sim16x4(t, "fattree-16x4.xml") }

// sim16x4 is a simulated cluster of 16 nodes (node0 ... node15) of 4
// cores on platform.
func sim16x4(t testing.TB, platform string) *simCluster {
	return newSimCluster(t, platform, simHosts(16), 4)
}

// simHosts are the platforms' host names node0 ... node(n-1).
func simHosts(n int) []string {
	hosts := make([]string, n)
	for h := range hosts {
		hosts[h] = fmt.Sprintf("node%d", h)
	}
	return hosts
}

// TestSimFatTreeRatios: on the simulated 16 x 4 fat tree with 2:1
// uplinks, the survey measured inside the simulation by latmap's own
// measuring core and schedules (64 B and 1 MiB, the applications'
// message size; the switch phase) shows the platform's three levels
// (node, leaf switch, across the top) and its leaves' uplinks; and for
// five real application matrices (Open MPI's PML monitoring of LAMMPS and
// GROMACS runs) and two shapes replayed under block, cyclic and the
// proposal, every predicted speedup between two layouts whose simulated
// speedup is above 1.05x is within 0.8-1.25 of the simulated one, each
// layout's predicted run (raw: the model is not calibrated here, a matrix
// and no profile, so every prediction is out of sample) is within
// 0.75-1.33x of the simulated one where that is over 10 ms, and the
// proposal never simulates slower than block or cyclic. The random sparse
// case loads the leaves' uplinks: priced at the node links alone its
// block layout is predicted at 0.62 of its simulated run. make
// test-sim-built runs it (make test leaves it: SIM_BUILT_ONLY).
func TestSimFatTreeRatios(t *testing.T) {
	t.Parallel() // simulated time: see simMemo
	c := fatTree16x4(t)
	sv := c.survey(t, "all", []int{64, 1 << 20}, 10)
	s, err := survey.ReadSurvey(sv, survey.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tp, err := topo.Infer(s, topo.Options{Size: 64})
	if err != nil {
		t.Fatal(err)
	}
	var groups []int
	for _, l := range tp.Levels {
		groups = append(groups, l.Groups)
	}
	if !slices.Equal(groups, []int{16, 4, 1}) || !tp.HostsAgree {
		t.Errorf("topology of the simulated fat tree: levels %+v (hosts agree %v), want 16 nodes, 4 leaf switches, 1 top", tp.Levels, tp.HostsAgree)
	}
	// 2 uplinks of 10 Gbit/s a leaf (1.25 GB/s each, SMPI moving about
	// 0.9 of it): the switch phase sees about 2.2 GB/s out of a leaf.
	if len(s.SwitchBandwidth) == 0 {
		t.Fatalf("the simulated survey has no switch phase")
	}
	for _, r := range s.SwitchBandwidth {
		if r.AggregateMBps < 2000 || r.AggregateMBps > 2500 {
			t.Errorf("switchbw.csv row %+v: want 2000-2500 MB/s out of a leaf of 2 uplinks", r)
		}
		testutil.Record(t, "the switch phase: out of a leaf of two 10 Gbit/s uplinks", "leaf", r.Group, "to", r.PeerGroup, "MB/s", r.AggregateMBps, "held to", "2000-2500")
	}
	apps := append(simRealApps(t),
		simApp{"halo3d-4x4x4", scaleFlows(first(shapes.Halo3D(4, 4, 4, false)), 10<<20)},
		simApp{"random-sparse-64", scaleFlows(first(shapes.RandomSparse(64, 4, 1)), 10<<20)})
	for _, app := range apps {
		checkSimCase(t, placeAndSimulate(t, c, sv, app.name, app.flows, 64, app.iters()))
	}
}

// simBounds are the bounds of a predicted speedup over the simulated
// one.
var simBounds = [2]float64{0.8, 1.25}

// checkSimCase holds one application's predictions to the simulation:
// every predicted speedup between two layouts whose simulated speedup is
// above 1.05x within 0.8-1.25 of the simulated one, each layout's raw
// predicted run within 0.75-1.33x of the simulated one where that is
// over 10 ms, and the proposal never simulated slower than block or
// cyclic.
func checkSimCase(t *testing.T, sc simCase) {
	t.Helper()
	for _, m := range simMisses(sc) {
		t.Error(m)
	}
	t.Logf("%s: predicted block %.4f cyclic %.4f proposal %.4f s; simulated %.4f %.4f %.4f s", sc.name,
		sc.predicted["block"], sc.predicted["cyclic"], sc.predicted["proposal"], sc.simulated["block"], sc.simulated["cyclic"], sc.simulated["proposal"])
	testutil.Record(t, "predicted / simulated runs (s)", "application", sc.name, "block", fmt.Sprintf("%.4g / %.4g (%.2f)", sc.predicted["block"], sc.simulated["block"], sc.predicted["block"]/sc.simulated["block"]), "cyclic", fmt.Sprintf("%.4g / %.4g (%.2f)", sc.predicted["cyclic"], sc.simulated["cyclic"], sc.predicted["cyclic"]/sc.simulated["cyclic"]), "proposal", fmt.Sprintf("%.4g / %.4g (%.2f)", sc.predicted["proposal"], sc.simulated["proposal"], sc.predicted["proposal"]/sc.simulated["proposal"]), "proposal over block, predicted / simulated", fmt.Sprintf("%.2fx / %.2fx", sc.predicted["block"]/sc.predicted["proposal"], sc.simulated["block"]/sc.simulated["proposal"]), "held to", "each run within 0.75-1.33 of its simulation where that is over 10 ms; every speedup between two layouts whose simulated one is over 1.05x within 0.8-1.25 of it; the proposal simulated no slower than block or cyclic")
}

// simMisses are the ways sc misses checkSimCase's bounds, in words.
func simMisses(sc simCase) []string {
	var out []string
	layouts := []string{"block", "cyclic", "proposal"}
	for _, x := range layouts {
		for _, y := range layouts {
			sim, pred := sc.simulated[x]/sc.simulated[y], sc.predicted[x]/sc.predicted[y]
			if sim > 1.05 && (pred/sim < simBounds[0] || pred/sim > simBounds[1]) {
				out = append(out, fmt.Sprintf("%s: %s over %s predicted %.2fx, simulated %.2fx", sc.name, y, x, pred, sim))
			}
		}
	}
	for _, l := range layouts {
		p, s := sc.predicted[l], sc.simulated[l]
		if s > 0.01 && (p/s < 0.75 || p/s > 1.33) {
			out = append(out, fmt.Sprintf("%s: %s predicted %.4f s, simulated %.4f s: %.2fx", sc.name, l, p, s, p/s))
		}
	}
	if p := sc.simulated["proposal"]; p > sc.simulated["block"]*(1+1e-6) || p > sc.simulated["cyclic"]*(1+1e-6) {
		out = append(out, fmt.Sprintf("%s: the proposal simulates %.5f s, block %.5f s, cyclic %.5f s", sc.name, p, sc.simulated["block"], sc.simulated["cyclic"]))
	}
	return out
}

// TestSimRoutedNetworks: on a simulated 4 x 4 torus, a dragonfly of two
// groups and a fat tree whose leaves have two parallel cables to each of
// two top switches, routed d-mod-k (16 nodes x 4 cores each), the
// network declared with
// --topology (the platform file itself) and the survey measured inside
// the simulation, the real application matrices and two shapes are held
// to checkSimCase's bounds. Priced by the node links alone (no
// --topology), before the survey's fan-out, the torus's raw predictions
// were 1.4-4x the simulated runs and one proposal simulated 1.6x slower
// than block (make bench-sim; with the fan-out: TestSimTorusSurveyAlone).
func TestSimRoutedNetworks(t *testing.T) {
	t.Parallel() // simulated time: see simMemo
	for _, platform := range []string{"torus-4x4.xml", "dragonfly-16x4.xml", "fattree-16x4-dmodk.xml"} {
		t.Run(platform, func(t *testing.T) {
			t.Parallel()
			c := sim16x4(t, platform)
			c.topology = c.platform
			sv := c.survey(t, "all", []int{64, 1 << 20}, 10)
			// The d-mod-k tree's leaves have 4 uplinks for 4 node links:
			// to the rest its switch phase is bound by the nodes' own
			// links, like the torus's (no groups), but its pair step (a
			// leaf to one leaf) by the 2 of the 4 cables d-mod-k routes
			// one leaf's 4 hosts over; the dragonfly's by its global
			// links.
			checkSimShares(t, sv, c.platform, platform != "torus-4x4.xml")
			apps := append(simRealApps(t),
				simApp{"ring-64", scaleFlows(first(shapes.Ring(64)), 10*4<<20)},
				simApp{"random-sparse-64", scaleFlows(first(shapes.RandomSparse(64, 4, 1)), 10<<20)})
			// The torus ring's block was held to 0.75-1.25 over cyclic
			// (3.08x predicted, 3.96x simulated) while a rank's on-node
			// and off-node parts were added; they overlap (Overlap).
			for _, app := range apps {
				checkSimCase(t, placeAndSimulate(t, c, sv, app.name, app.flows, 64, app.iters()))
			}
		})
	}
}

// TestSimDragonflySurveyAlone: on the simulated dragonfly of two
// groups joined by two global links, with nothing declared
// (the survey alone: its node and group levels, the groups' global links
// measured by the switch phase), no proposal simulates slower than block
// or cyclic, and a proposal's speedup over block is predicted within
// 0.8-1.25 of the simulated one wherever either is above 1.05x. Before
// the solver's kicks, GROMACS's refinement stopped at a proposal
// predicted 1.09x faster than block that simulated 0.97x. While the
// groups' uplinks were routed as a fat tree's parallel uplinks (by
// destination; SimGrid makes the two global links one link between two
// routers), on the two-link dragonfly LAMMPS peptide's proposal was
// predicted 1.04x faster than block (advised) and simulated 0.94x, and
// halo3d's 1.10x for 1.58x (outerSpread). Found as routers (since
// 2026-11-29, session 30), LAMMPS peptide's proposal on the two-link one
// was predicted 1.05x faster and simulated 0.94x, until it was held to
// the spread routing too (keepOnEitherRouting). LAMMPS melt and chain,
// block on both from the survey alone and declared, are left to make
// bench-sim, to keep make test under 15 minutes (15m13s with them:
// place on a found routed network costs what a declared one does). So
// is the one-link dragonfly since session 31, whose round trips now fit
// its shape (network.FitDragonfly), as the two-link one's do: from the
// survey alone it is priced as TestSimRoutedNetworks declares it
// (BenchmarkSimDragonfly has both; make test took 15m59s with it).
func TestSimDragonflySurveyAlone(t *testing.T) {
	t.Parallel() // simulated time: see simMemo
	for _, platform := range []string{"dragonfly-16x4-2global.xml"} {
		t.Run(platform, func(t *testing.T) {
			t.Parallel()
			c := sim16x4(t, platform)
			sv := c.survey(t, "all", []int{64, 1 << 20}, 10)
			real := slices.DeleteFunc(simRealApps(t), func(a simApp) bool { return a.name == "lammps-melt-64" || a.name == "lammps-chain-64" })
			apps := append(real,
				simApp{"halo3d 4x4x4, 10 x 1 MiB", scaleFlows(first(shapes.Halo3D(4, 4, 4, false)), 10<<20)},
				simApp{"random-sparse-64, 10 x 1 MiB", scaleFlows(first(shapes.RandomSparse(64, 4, 1)), 10<<20)})
			for _, app := range apps {
				checkProposalOverBlock(t, placeAndSimulate(t, c, sv, app.name, app.flows, 64, app.iters()))
			}
		})
	}
}

// checkProposalOverBlock: the proposal simulates no slower than block or
// cyclic (by more than the 0.02% they differ by when the model rates
// them equal: the halo), and its speedup over block is predicted within
// 0.8-1.25 of the simulated one wherever either is above 1.05x.
func checkProposalOverBlock(t *testing.T, sc simCase) {
	t.Helper()
	sim, pred := sc.simulated["block"]/sc.simulated["proposal"], sc.predicted["block"]/sc.predicted["proposal"]
	if p := sc.simulated["proposal"]; p > sc.simulated["block"]*1.005 || p > sc.simulated["cyclic"]*1.005 {
		t.Errorf("%s: the proposal (predicted %.2fx block) simulates %.5f s, block %.5f s, cyclic %.5f s", sc.name, pred, p, sc.simulated["block"], sc.simulated["cyclic"])
	}
	if (sim > 1.05 || pred > 1.05) && (pred/sim < 0.8 || pred/sim > 1.25) {
		t.Errorf("%s: proposal over block predicted %.2fx, simulated %.2fx", sc.name, pred, sim)
	}
	t.Logf("%s: proposal over block predicted %.2fx, simulated %.2fx", sc.name, pred, sim)
	testutil.Record(t, "the proposal over block", "application", sc.name, "simulated s: block, cyclic, proposal", fmt.Sprintf("%.4g, %.4g, %.4g", sc.simulated["block"], sc.simulated["cyclic"], sc.simulated["proposal"]), "proposal over block, predicted / simulated", fmt.Sprintf("%.2fx / %.2fx", pred, sim), "held to", "the proposal simulated at most 0.5% slower than block or cyclic; its speedup over block within 0.8-1.25 of the simulated one where either is over 1.05x")
}

// checkSimShares: the switch phase, planned on the declared network's
// levels inside the simulation, measured each class of links it binds
// at 0.8-1.25 of what the routed model allows it (SMPI's bandwidth
// factors and TCP-like protocol take some); want says there are such
// classes (a dragonfly's global links), or none (a torus has no groups).
func checkSimShares(t *testing.T, sv, platform string, want bool) {
	t.Helper()
	s := readSurveyT(t, sv)
	f, err := fabric.Read(platform)
	if err != nil {
		t.Fatal(err)
	}
	shares := topo.SwitchShares(s, f)
	if (len(shares) > 0) != want {
		t.Errorf("%s: switch phase shares %+v (planned on %+v); want some: %v", platform, shares, s.Meta.SwitchBandwidth, want)
	}
	for _, sh := range shares {
		t.Logf("%s: the switch phase measured %s links at %.2f of what the routed model allows (%.0f of %.0f MB/s)", platform, sh.Class, sh.Share, sh.MeasuredMBps, sh.RoutedMBps)
		if sh.Share < 0.8 || sh.Share > 1.25 {
			t.Errorf("%s: %s links measured at %.2f of the routed model's, want 0.8-1.25", platform, sh.Class, sh.Share)
		}
		testutil.Record(t, "the switch phase against the declared links", "links", sh.Class, "measured MB/s", sh.MeasuredMBps, "the routed model allows MB/s", sh.RoutedMBps, "share", sh.Share, "held to", "0.8-1.25")
	}
}

// simRealApps are the real 64-rank application matrices of testdata
// (Open MPI's PML monitoring; testdata/README.md says how each was made).
func simRealApps(t testing.TB) []simApp {
	return matrixApps(t, "lammps-melt-64", "lammps-eam-64", "lammps-chain-64", "lammps-peptide-64", "gromacs-water-64")
}

// matrixApps are testdata/matrix's names, read.
func matrixApps(t testing.TB, names ...string) []simApp {
	var apps []simApp
	for _, name := range names {
		flows, _, err := profile.ReadMatrixFile(filepath.Join(testutil.RepoRoot(t), "testdata", "matrix", name+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		apps = append(apps, simApp{name, flows})
	}
	return apps
}

// TestSimTorusSurveyAlone: on the simulated 4 x 4 torus with nothing
// declared, the survey's fan-out measures a node's four links (3.5-4.5x
// what it moves to one node), and the round trips between nodes show a
// direct network (network.FindDirect) whose links are exactly the
// platform's torus neighbours, and a 4 x 4 torus in the hosts' order
// (fabric.TorusInOrder); place routes every flow over it in dimension
// order, as the platform does. Before, with every node one link: raw
// predictions 1.6-4.0x the simulated runs, and halo3d's proposal
// predicted 1.32x faster than block for 1.00x; with a node's traffic to
// its nearest nodes spread over its links and farther traffic over one
// link (no routes), GROMACS's and LAMMPS peptide's raw predictions and
// GROMACS's cyclic-to-block gain missed; with every flow spread evenly
// over its shortest paths (the links' dimensions unknown), random
// sparse traffic was predicted at 0.62-0.67 of its runs; with a rank's
// on-node and off-node parts added, not overlapped, the ring's block
// over cyclic at 0.78 of the simulated ratio. The real matrices and
// three shapes are held to checkSimCase's bounds. make test-sim-built
// runs it (make test leaves it: SIM_BUILT_ONLY).
func TestSimTorusSurveyAlone(t *testing.T) {
	t.Parallel() // simulated time: see simMemo
	c := sim16x4(t, "torus-4x4.xml")
	sv := c.survey(t, "all", []int{64, 1 << 20}, 10)
	s := readSurveyT(t, sv)
	checkFanOut(t, s, 4)
	checkDirectIsTorus(t, s, c.platform, []int{4, 4})
	apps := append(simRealApps(t),
		simApp{"halo3d 4x4x4, 10 x 1 MiB", scaleFlows(first(shapes.Halo3D(4, 4, 4, false)), 10<<20)},
		simApp{"ring-64", scaleFlows(first(shapes.Ring(64)), 10*4<<20)},
		simApp{"random-sparse-64", scaleFlows(first(shapes.RandomSparse(64, 4, 1)), 10<<20)})
	for _, app := range apps {
		checkSimCase(t, placeAndSimulate(t, c, sv, app.name, app.flows, 64, app.iters()))
	}
}

// TestSimTorusOneRankANode: on a simulated 4 x 4 x 2 x 2 torus of 64
// nodes with one rank each (a job of MPI and OpenMP, one rank a node),
// the survey's fan-out has each sampled node's one rank send to 4 nodes
// at once (bench.FanOutOneRankPeers), which measures 4 links' worth, so place
// routes the torus the round trips show, in dimension order; raw
// predictions and speedups within the bounds. Before, the
// fan-out needed two ranks on a node, a node of one rank was priced as
// one link to a router, and every run was predicted 2.4-3.3x too slow
// and random sparse's 1.88x proposal not found.
// make test-sim-built runs it (make test leaves it: SIM_BUILT_ONLY).
func TestSimTorusOneRankANode(t *testing.T) {
	t.Parallel() // simulated time: see simMemo
	c := newSimCluster(t, "torus-4x4x2x2.xml", simHosts(64), 1)
	sv := c.survey(t, "all", []int{64, 1 << 20}, 10)
	s := readSurveyT(t, sv)
	checkFanOut(t, s, bench.FanOutOneRankPeers)
	checkDirectIsTorus(t, s, c.platform, []int{4, 4, 2, 2})
	// GROMACS (its runs over 10 ms) and random sparse, whose proposal
	// the network decides (LAMMPS peptide's dense matrix took 15 s more).
	apps := append(simRealApps(t)[4:], simApp{"random-sparse-64", scaleFlows(first(shapes.RandomSparse(64, 4, 1)), 10<<20)})
	for _, app := range apps {
		sc := placeAndSimulate(t, c, sv, app.name, app.flows, 64, app.iters())
		checkSimCase(t, sc)
		if app.name == "random-sparse-64" && sc.predicted["block"] < 1.5*sc.predicted["proposal"] {
			t.Errorf("random sparse: proposal %.4g s against block %.4g s predicted, want a proposal 1.5x faster (simulated %.4g s against %.4g s)", sc.predicted["proposal"], sc.predicted["block"], sc.simulated["proposal"], sc.simulated["block"])
		}
	}
}

// checkFanOut: survey s has fan-out rows, each a node's rate to its
// nearest nodes at once at links (within 0.5) times its rate to one.
func checkFanOut(t *testing.T, s *survey.Survey, links float64) {
	t.Helper()
	fans := 0
	for _, r := range s.NodeBandwidth {
		if strings.Contains(r.Peer, survey.FanOutPeers) {
			fans++
			if x := r.AggregateMBps / r.PairMBps; x < links-0.5 || x > links+0.5 {
				t.Errorf("fan-out %+v: %.2fx one node's rate, want the torus node's %g links", r, x, links)
			}
			testutil.Record(t, "the survey's fan-out: a node to its nearest nodes at once", "from", r.Host, "to", r.Peer, "MB/s", r.AggregateMBps, "times one node's rate", r.AggregateMBps/r.PairMBps, "held to", fmt.Sprintf("%g-%g (the torus node's %g links)", links-0.5, links+0.5, links))
		}
	}
	if fans == 0 {
		t.Fatal("the simulated survey has no fan-out rows")
	}
}

// checkDirectIsTorus: the direct network FindDirect finds in survey s's
// round trips between nodes joins exactly the hosts the torus of the
// platform file joins, and its links in the hosts' order are a torus of
// dims.
func checkDirectIsTorus(t *testing.T, s *survey.Survey, platform string, dims []int) {
	t.Helper()
	m, err := model.MachineFromSurvey(s, model.SurveyCostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first := m.FirstSlots()
	d, why := network.FindDirect(len(m.Hosts), func(a, b int) float64 { return m.Link(first[a], first[b]).Latency })
	if d == nil {
		t.Fatalf("no direct network in the torus's round trips: %s", why)
	}
	f, err := fabric.Read(platform)
	if err != nil {
		t.Fatal(err)
	}
	idx := f.HostIndex()
	want := map[[2]string]bool{}
	for a, ha := range f.Hosts {
		for b, hb := range f.Hosts {
			if a < b && len(f.Path(a, b)) == 1 {
				want[[2]string{ha, hb}] = true
			}
		}
	}
	got := map[[2]string]bool{}
	for _, l := range d.Links {
		ha, hb := m.Hosts[l[0]], m.Hosts[l[1]]
		if idx[ha] > idx[hb] {
			ha, hb = hb, ha
		}
		got[[2]string{ha, hb}] = true
	}
	if !maps.Equal(got, want) {
		t.Errorf("direct network of %d links %v, the platform's %d %v", len(got), got, len(want), want)
	}
	if got := fabric.TorusInOrder(len(m.Hosts), d.Links); !slices.Equal(got, dims) {
		t.Errorf("the direct network's links in the hosts' order are a torus of %v, want %v", got, dims)
	}
	t.Logf("direct network: %d links, %d hops across, %.3g us + %.3g us a hop (within %.2f of a hop)", len(d.Links), d.Diameter, d.Base*1e6, d.PerHop*1e6, d.Residual)
}

// TestSimTorusTieKeepsBlock: on the simulated 4 x 4 torus a ring of 64
// ranks has no better placement than block in the model (every layout
// that keeps each node's four ranks consecutive has the same slowest
// rank), and one of them was 0.09% below block's summed transfer and
// simulated 2x slower, over torus links the model does not price. A
// proposal that ties on the run and is within TieMargin on the transfer
// is block itself, and simulates as block does.
// make test-sim-built runs it (make test leaves it: SIM_BUILT_ONLY).
func TestSimTorusTieKeepsBlock(t *testing.T) {
	t.Parallel() // simulated time: see simMemo
	c := sim16x4(t, "torus-4x4.xml")
	sv := c.survey(t, "all", []int{64, 1 << 20}, 10)
	sc := placeAndSimulate(t, c, sv, "ring-64", scaleFlows(first(shapes.Ring(64)), 10*4<<20), 64, 10)
	if sc.predicted["proposal"] != sc.predicted["block"] {
		t.Fatalf("ring on the torus: proposal predicted %.5f s, block %.5f s: the tie this test is about did not happen", sc.predicted["proposal"], sc.predicted["block"])
	}
	if p, b := sc.simulated["proposal"], sc.simulated["block"]; math.Abs(p/b-1) > 1e-6 {
		t.Errorf("ring on the torus: the proposal simulates %.5f s, block %.5f s: a tie must keep block", p, b)
	}
	testutil.Record(t, "a tie keeps block", "application", sc.name, "predicted s: block, proposal", fmt.Sprintf("%.5g, %.5g", sc.predicted["block"], sc.predicted["proposal"]), "simulated s: block, proposal", fmt.Sprintf("%.5g, %.5g", sc.simulated["block"], sc.simulated["proposal"]), "held to", "the proposal is block: simulated the same to 1e-6")
}

// BenchmarkSimFatTree is make bench-sim's table: on the simulated 16 x 4
// two-level fat tree with 2:1 uplinks (testdata/sim/fattree-16x4.xml), a
// survey measured inside the simulation by latmap's measuring core, and
// application matrices replayed for 10 iterations under block, cyclic and
// latmap's proposal: the predicted and the simulated runs and speedups.
func BenchmarkSimFatTree(b *testing.B) {
	c := fatTree16x4(b)
	apps := simBenchApps(b)
	for b.Loop() {
		// latmap survey's default sizes, then a bandwidth size as large as
		// the applications' messages.
		for _, sizes := range [][]int{{64, 64 << 10}, {64, 1 << 20}} {
			t0 := time.Now()
			sv := c.survey(b, "all", sizes, 10)
			fmt.Printf("\nsurvey inside the simulation: 64 ranks, all pairs, sizes %v, %.1f s\n", sizes, time.Since(t0).Seconds())
			simTable(b, c, sv, apps)
		}
		sv := c.survey(b, "all", []int{64, 1 << 20}, 10)
		c.topology = c.platform
		fmt.Printf("\nthe same (sizes 64 B and 1 MiB), the network declared (--topology %s)\n", filepath.Base(c.platform))
		simTable(b, c, sv, apps)
		c.topology = ""
	}
}

// BenchmarkSimTorus is make bench-sim's third shape: the same
// applications on a simulated 4 x 4 torus of 16 nodes x 4 cores
// (testdata/sim/torus-4x4.xml), where a message between distant nodes
// crosses, and shares, the links of the nodes between; latmap's model
// prices the nodes' own links only.
func BenchmarkSimTorus(b *testing.B) {
	simAloneAndDeclared(b, sim16x4(b, "torus-4x4.xml"), "torus 4 x 4 x 4 cores, 64 ranks")
}

// BenchmarkSimDragonfly is make bench-sim's fourth shape: the same
// applications on a simulated dragonfly of two groups of 16 nodes x 4
// cores (testdata/sim/dragonfly-16x4.xml), priced from the survey alone
// and with the network declared.
func BenchmarkSimDragonfly(b *testing.B) {
	c := sim16x4(b, "dragonfly-16x4.xml")
	apps := simBenchApps(b)
	for b.Loop() {
		sv := c.survey(b, "all", []int{64, 1 << 20}, 10)
		fmt.Printf("\ndragonfly 2 groups x 2 chassis x 4 routers x 1 node x 4 cores, the survey alone\n")
		simTable(b, c, sv, apps)
		c.topology = c.platform
		fmt.Printf("\nthe same, the network declared (--topology %s)\n", filepath.Base(c.platform))
		simTable(b, c, sv, apps)
		c.topology = ""
	}
}

// simBenchApps are the applications of the simulation benchmarks: the
// real matrices and five shapes.
func simBenchApps(b testing.TB) []simApp {
	return append(simRealApps(b),
		simApp{"halo3d 4x4x4, 10 x 1 MiB", scaleFlows(first(shapes.Halo3D(4, 4, 4, false)), 10<<20)},
		simApp{"halo3d-periodic 4x4x4, 10 x 256K", scaleFlows(first(shapes.Halo3D(4, 4, 4, true)), 10<<18)},
		simApp{"ring-64, 10 x 4 MiB", scaleFlows(first(shapes.Ring(64)), 10*4<<20)},
		simApp{"random-sparse-64, 10 x 1 MiB", scaleFlows(first(shapes.RandomSparse(64, 4, 1)), 10<<20)},
		simApp{"alltoall-64, 10 x 64 KiB", scaleFlows(first(shapes.AllToAll(64)), 10<<16)})
}

// simApp is an application matrix to replay.
type simApp struct {
	name  string
	flows []profile.Flow
}

// denseApp is the real matrix replayed in 2 iterations, not 10: its
// 1,919 flows, all in flight at once, take SMPI's max-min sharing about
// a second of wall time an iteration (18 replays of it in 10 were half
// of make test's simulated time).
const denseApp = "lammps-peptide-64"

// iters is how many iterations the application is replayed in: the
// run's traffic in that many equal exchanges, each of every flow.
func (a simApp) iters() int {
	if a.name == denseApp {
		return 2
	}
	return 10
}

// simTable prints the predicted and simulated runs of each application
// under block, cyclic and the proposal on survey sv.
func simTable(b testing.TB, c *simCluster, sv string, apps []simApp) {
	fmt.Printf("%-32s %-9s %12s %12s %9s   %s\n", "application", "layout", "predicted s", "simulated s", "pred/sim", "speedup over block: predicted / simulated")
	for _, app := range apps {
		sc := placeAndSimulate(b, c, sv, app.name, app.flows, 64, app.iters())
		for _, l := range []string{"block", "cyclic", "proposal"} {
			p, s := sc.predicted[l], sc.simulated[l]
			fmt.Printf("%-32s %-9s %12.5f %12.5f %9.2f   %.2fx / %.2fx\n", app.name, l, p, s, p/s, sc.predicted["block"]/p, sc.simulated["block"]/s)
		}
	}
}

// scaleFlows sets every flow's bytes to bytes (a shape's pattern with a
// chosen volume; the replay sends a tenth of it in each of 10 iterations).
func scaleFlows(flows []profile.Flow, bytes float64) []profile.Flow {
	out := append([]profile.Flow(nil), flows...)
	for i := range out {
		out[i].Bytes = bytes
	}
	return out
}

// TestSimWhatIfUplinksHalved: latmap place --what-if up-1:bw=0.5 on the
// simulated 2:1 fat tree (survey and network of that tree) predicts
// each application's run on the same tree with half its leaf uplinks;
// a simulation of that 4:1 tree (fattree-16x4-4to1.xml) is the truth:
// block's predicted run within 0.8-1.25 of the simulated one, and the
// placement made for the 4:1 tree never simulated slower than block
// there.
func TestSimWhatIfUplinksHalved(t *testing.T) {
	t.Parallel() // simulated time: see simMemo
	c := fatTree16x4(t)
	c.topology = c.platform
	sv := c.survey(t, "all", []int{64, 1 << 20}, 10)
	half := sim16x4(t, "fattree-16x4-4to1.xml")
	apps := append(simRealApps(t)[3:], simApp{"random-sparse-64", scaleFlows(first(shapes.RandomSparse(64, 4, 1)), 10<<20)})
	for _, app := range apps {
		mx := replayMatrix(t, app.flows, app.iters())
		// Routed adaptive, a leaf's two uplinks are one link of their
		// summed bandwidth, which halved is the 4:1 tree's one uplink;
		// routed d-mod-k, each of the two is halved and traffic still
		// splits between them by destination, a different machine
		// (predicted 1.06-1.23x the 4:1 tree's simulated runs).
		a, _ := placeHosts(t, Options{Survey: sv, Matrix: mx, Topology: paths(c.topology), WhatIf: []string{"up-1:bw=0.5"}, Model: model.ModelOptions{Routing: fabric.RoutingAdaptive}})
		if len(a.WhatIf) != 1 || a.WhatIf[0].LinksChanged != 8 {
			t.Fatalf("%s: what-if %+v, want one change of the 4 leaves' 8 uplink directions", app.name, a.WhatIf)
		}
		w := a.WhatIf[0]
		simBlock := half.replay(t, mx, app.iters(), half.block(64))
		if r := w.Today.Run / simBlock; r < 0.8 || r > 1.25 {
			t.Errorf("%s: block on the halved uplinks predicted %.4f s, simulated on the 4:1 tree %.4f s (%.2fx)", app.name, w.Today.Run, simBlock, r)
		}
		testutil.Record(t, "--what-if up-1:bw=0.5 on the 2:1 tree against the 4:1 tree simulated", "application", app.name, "predicted, uplinks halved s", w.Today.Run, "simulated on the 4:1 tree s", simBlock, "predicted / simulated", w.Today.Run/simBlock, "held to", "0.8-1.25")
		t.Logf("%s: block now %.4f s; uplinks halved: predicted %.4f s, simulated %.4f s; placement for it predicted %.4f s", app.name, w.TodayNowS, w.Today.Run, simBlock, w.Proposal.Run)
	}
}
