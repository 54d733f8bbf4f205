package placement

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/bench"
	"github.com/latmap/latmap/bench/bothways"
	"github.com/latmap/latmap/bench/fanout"
	"github.com/latmap/latmap/bench/fit"
	"github.com/latmap/latmap/bench/sizesweep"
	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/sweep"
	"github.com/latmap/latmap/mapper/topo"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
	"github.com/latmap/latmap/placement/solve"
)

// A simulated cluster (SimGrid SMPI): the platform, its hosts and the
// cores per host. Programs built with smpicc run on it as threads of one
// process, in simulated time, with SimGrid's flow-level network model.
type simCluster struct {
	platform string
	hosts    []string
	cores    int
	dir      string   // built programs
	cfg      []string // more of smpirun's --cfg options
	// topology, when set, is given to latmap place as --topology (the
	// platform itself: the network declared), routed as routing says
	// (latmap place --routing).
	topology, routing string
}

// newSimCluster builds the simulated cluster's programs (the survey
// driver around bench/pingpong.c and the matrix replay) for platform
// (under testdata/sim).
func newSimCluster(t testing.TB, platform string, hosts []string, cores int) *simCluster {
	t.Helper()
	for _, tool := range []string{"smpicc", "smpirun"} {
		if _, err := exec.LookPath(tool); err != nil {
			testutil.Missing(t, testutil.NeedSimGrid, "%s not found (apt-get install libsimgrid-dev)", tool)
		}
	}
	root := testutil.RepoRoot(t)
	c := &simCluster{platform: filepath.Join(root, "testdata", "sim", platform), hosts: hosts, cores: cores, dir: t.TempDir()}
	for _, p := range []string{"simsurvey", "replay"} {
		out, err := exec.Command("smpicc", "-O2", "-o", filepath.Join(c.dir, p), filepath.Join(root, "testdata", "sim", p+".c"), "-lm").CombinedOutput()
		if err != nil {
			t.Fatalf("smpicc %s: %v\n%s", p, err, out)
		}
	}
	return c
}

// run runs prog with the ranks on the hosts listed (rank order), without
// benchmarking the computation between MPI calls (simulated time is then
// that of the communication alone, the same every run).
func (c *simCluster) run(t testing.TB, rankHosts []string, prog string, args ...string) string {
	t.Helper()
	return c.runCfg(t, c.cfg, rankHosts, prog, args...)
}

// runCfg is run with cfg as the more --cfg options.
func (c *simCluster) runCfg(t testing.TB, cfg, rankHosts []string, prog string, args ...string) string {
	t.Helper()
	hf := filepath.Join(t.TempDir(), "hostfile")
	if err := os.WriteFile(hf, []byte(strings.Join(rankHosts, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Open MPI's choice of collective algorithms: SMPI's default ones
	// are the naive ones (an allgather of 1,024 ranks posts a million
	// requests and waits on them one by one: minutes of wall time).
	argv := append([]string{"-platform", c.platform, "-hostfile", hf, "-np", strconv.Itoa(len(rankHosts)),
		"--cfg=smpi/simulate-computation:no", "--cfg=smpi/coll-selector:ompi", "--log=root.thres:warning"}, cfg...)
	argv = append(append(argv, filepath.Join(c.dir, prog)), args...)
	out, err := testutil.Run(t, 10*time.Minute, nil, append([]string{"smpirun"}, argv...)...)
	if err != nil {
		t.Fatalf("smpirun %s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return out
}

// runInto runs prog with its results written to a file, or a directory
// (dir), given as its first argument before args, and returns that
// file's path. The run is memoised for the test process (simMemo) by
// args' contents: a survey's phases that do not depend on the declared
// network are simulated once for the survey alone and the declared one.
func (c *simCluster) runInto(t testing.TB, rankHosts []string, prog string, dir bool, args ...string) string {
	t.Helper()
	key := simKey(append(append([]string{"into", c.platform, prog, strings.Join(rankHosts, ",")}, args...), c.cfg...)...)
	return memoSim(key, func() string {
		out := filepath.Join(simProcessDir(t), key)
		if err := os.RemoveAll(out); err != nil { // a failed run's
			t.Fatal(err)
		}
		if dir {
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		c.run(t, rankHosts, prog, append([]string{out}, args...)...)
		return out
	})
}

// block and cyclic are the launchers' default layouts of n ranks.
func (c *simCluster) block(n int) []string {
	var out []string
	for r := 0; r < n; r++ {
		out = append(out, c.hosts[r/c.cores])
	}
	return out
}

func (c *simCluster) cyclic(n int) []string {
	var out []string
	for r := 0; r < n; r++ {
		out = append(out, c.hosts[r%len(c.hosts)])
	}
	return out
}

// survey measures a survey inside the simulation (every rank of every
// host, block) with latmap's measuring core, in the concurrent rounds
// latmap survey runs for the scope (all or nodes), fits it as latmap
// survey does, and runs the switch bandwidth phase on the switch levels
// latmap finds in it. With LATMAP_SIM_KEEP=DIR set (for work on the
// model), the survey is kept in DIR, and one kept there for the same
// platform, scope and declared network is read instead of measured.
func (c *simCluster) survey(t testing.TB, scope string, sizes []int, repeats int) string {
	t.Helper()
	kept := ""
	if keep := os.Getenv("LATMAP_SIM_KEEP"); keep != "" {
		kept = filepath.Join(keep, fmt.Sprintf("%s-%s-%s", strings.TrimSuffix(filepath.Base(c.platform), ".xml"), scope, filepath.Base(c.topology)))
		if _, err := os.Stat(filepath.Join(kept, survey.MetaFile)); err == nil {
			t.Logf("the survey kept in %s, not measured again", kept)
			c.keptSweep(t, kept)
			c.keptBothWays(t, kept)
			return kept
		}
	}
	s := c.measureSurvey(t, scope, sizes, repeats)
	out := filepath.Join(t.TempDir(), "fitted")
	for _, dir := range []string{out, kept} {
		if dir == "" {
			continue
		}
		if err := survey.WriteSurvey(dir, s, false); err != nil {
			t.Fatal(err)
		}
	}
	if kept != "" {
		t.Logf("survey kept in %s", kept)
	}
	return out
}

// measureSurvey measures and fits the survey of survey() in the
// simulation.
func (c *simCluster) measureSurvey(t testing.TB, scope string, sizes []int, repeats int) *survey.Survey {
	t.Helper()
	var sz []string
	for _, s := range sizes {
		sz = append(sz, strconv.Itoa(s))
	}
	hosts := c.block(len(c.hosts) * c.cores)
	rounds, err := bench.RoundsOf(hosts, scope)
	if err != nil {
		t.Fatal(err)
	}
	plan := writeTable(t, len(hosts), len(rounds), func(r, k int) int { return rounds[k][r] })
	iso, err := bench.IsolationOf(hosts, scope, bench.DefaultIsolatedFraction)
	if err != nil {
		t.Fatal(err)
	}
	isoPlan := writeTable(t, len(hosts), len(iso), func(r, k int) int { return iso[k].Other(r) })
	dir := c.runInto(t, hosts, "simsurvey", true, "pairs", plan, isoPlan, strings.Join(sz, ","), strconv.Itoa(repeats), scope)
	s, err := survey.ReadSurvey(dir, survey.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.switchPhase(t, s, hosts)
	c.fanOutPhase(t, s, hosts)
	c.bothWaysPhase(t, s, hosts)
	c.sweepPhase(t, s, hosts)
	s.Fits = fit.Survey(s)
	s.Meta.FitFactors = fit.ConcurrencyFactors(s)
	return s
}

// switchPhase runs latmap survey's switch bandwidth phase in the
// simulation on the switch levels latmap finds in s, or those of the
// declared network (latmap survey --topology) when c has one, and adds
// its files to s.
func (c *simCluster) switchPhase(t testing.TB, s *survey.Survey, hosts []string) {
	t.Helper()
	var declared *fabric.Fabric
	if c.topology != "" {
		var err error
		if declared, err = fabric.Read(c.topology); err != nil {
			t.Fatal(err)
		}
	}
	groups, of, note := topo.PlanSwitchGroups(s, declared)
	if len(groups) == 0 {
		t.Logf("simulated survey: no switch phase: %s", note)
		return
	}
	steps := bench.SwitchPhase(hosts, of)
	size := bench.DefaultNodeBWSize
	all := c.exchange(t, hosts, len(steps), func(k, r int) ([]int, []int) { return bench.Partner(steps[k].Dst[r]), bench.Partner(steps[k].Src[r]) })
	rows, err := bench.SwitchRows(hosts, steps, all, size)
	if err != nil {
		t.Fatal(err)
	}
	s.Switches, s.SwitchBandwidth = groups, rows
	planned := "latencies"
	if declared != nil && note == "" {
		planned = c.topology
	}
	s.Meta.SwitchBandwidth = &survey.SwitchBandwidthMeta{Levels: len(of), SizeBytes: size, Steps: len(steps), Planned: planned}
}

// sweepPhase runs latmap survey's size sweep (bench/sizesweep's pairs
// and sizes) in the simulation, each pair alone in a round of its own,
// and adds its rows to s.
func (c *simCluster) sweepPhase(t testing.TB, s *survey.Survey, hosts []string) {
	t.Helper()
	pairs, sizes := sizesweep.Plan(s)
	plan := writeTable(t, len(hosts), len(pairs), func(r, k int) int {
		switch r {
		case pairs[k].A:
			return pairs[k].B
		case pairs[k].B:
			return pairs[k].A
		}
		return -1
	})
	none := writeTable(t, len(hosts), 0, nil)
	var sz []string
	for _, v := range sizes {
		sz = append(sz, strconv.Itoa(v))
	}
	dir := c.runInto(t, hosts, "simsurvey", true, "pairs", plan, none, strings.Join(sz, ","), strconv.Itoa(sizesweep.MinRepeats), "all")
	sw, err := survey.ReadSurvey(dir, survey.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Sweep = nil
	for _, p := range pairs {
		for _, tab := range sw.Tables {
			mn, med := tab.At(survey.Min, p.A, p.B), tab.At(survey.Median, p.A, p.B)
			if math.IsNaN(med) {
				t.Fatalf("size sweep: pair (%d, %d) at %d bytes not measured", p.A, p.B, tab.Size)
			}
			s.Sweep = append(s.Sweep, sweep.Row{A: p.A, B: p.B, Where: p.Where, Size: tab.Size, Count: sizesweep.MinRepeats, MinUs: mn, MedianUs: med})
		}
	}
}

// keptSweep adds the size sweep to a kept survey that has none (kept
// before the sweep existed).
func (c *simCluster) keptSweep(t testing.TB, dir string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, sweep.File)); err == nil {
		return
	}
	s, err := survey.ReadSurvey(dir, survey.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.sweepPhase(t, s, c.block(len(c.hosts)*c.cores))
	if err := survey.WriteSurvey(dir, s, true); err != nil {
		t.Fatal(err)
	}
	t.Logf("size sweep added to the kept survey %s", dir)
}

// exchange runs n steps of simultaneous exchanges (latmap survey's switch
// and fan-out phases) in the simulation, rank r's partners in step k
// being at(k, r) (destinations, sources; nil: none), at the node phase's
// size, and returns every rank's step times.
func (c *simCluster) exchange(t testing.TB, hosts []string, n int, at func(k, r int) ([]int, []int)) [][]float64 {
	t.Helper()
	p := 1 // the most partners a rank has in a step, each way
	for k := range n {
		for r := range hosts {
			dst, src := at(k, r)
			p = max(p, len(dst), len(src))
		}
	}
	file := writeTable(t, len(hosts), 2*p*n, func(r, col int) int {
		dst, src := at(col/(2*p), r)
		i := col % (2 * p)
		if i >= p {
			dst, i = src, i-p
		}
		if i < len(dst) {
			return dst[i]
		}
		return -1
	})
	times := c.runInto(t, hosts, "simsurvey", false, "exchange", file, strconv.Itoa(bench.DefaultNodeBWSize), strconv.Itoa(bench.SwitchMessages), strconv.Itoa(bench.SwitchWindow), strconv.Itoa(p))
	b, err := os.ReadFile(times)
	if err != nil {
		t.Fatal(err)
	}
	var all [][]float64
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var row []float64
		for _, f := range strings.Fields(line) {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("exchange times: %v", err)
			}
			row = append(row, v)
		}
		all = append(all, row)
	}
	return all
}

// fanOutPhase runs latmap survey's node fan-out (bench/fanout) in the
// simulation and adds its rows to s's nodebw.csv.
func (c *simCluster) fanOutPhase(t testing.TB, s *survey.Survey, hosts []string) {
	t.Helper()
	steps := fanout.Plan(s, hosts)
	if len(steps) == 0 {
		return
	}
	all := c.exchange(t, hosts, len(steps), func(k, r int) ([]int, []int) { return steps[k].Dst[r], steps[k].Src[r] })
	rows, err := fanout.Rows(hosts, steps, all, 0, bench.DefaultNodeBWSize, bench.SwitchMessages)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		t.Logf("simulated survey: fan-out from %s to %s: %.0f MB/s, to the first alone %.0f MB/s (%.2fx)", r.Host, r.Peer, r.AggregateMBps, r.PairMBps, r.AggregateMBps/r.PairMBps)
	}
	s.NodeBandwidth = append(s.NodeBandwidth, rows...)
}

// bothWaysPhase runs latmap survey's both-ways steps (bench/bothways)
// in the simulation and adds their row to s's nodebw.csv.
func (c *simCluster) bothWaysPhase(t testing.TB, s *survey.Survey, hosts []string) {
	t.Helper()
	steps := bothways.Plan(hosts)
	if len(steps) == 0 {
		return
	}
	all := c.exchange(t, hosts, len(steps), func(k, r int) ([]int, []int) { return steps[k].Dst[r], steps[k].Src[r] })
	row, err := bothways.Row(hosts, steps, all, 0, bench.DefaultNodeBWSize, bench.SwitchMessages)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("simulated survey: %s <-> %s: %.0f MB/s each way, one way alone %.0f MB/s", row.Host, strings.TrimPrefix(row.Peer, survey.BothWaysPeer), row.AggregateMBps, row.PairMBps)
	s.NodeBandwidth = append(s.NodeBandwidth, *row)
}

// keptBothWays adds the both-ways row to a kept survey that has none
// (kept before the survey measured it).
func (c *simCluster) keptBothWays(t testing.TB, dir string) {
	t.Helper()
	s, err := survey.ReadSurvey(dir, survey.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.NodeBandwidth {
		if strings.HasPrefix(r.Peer, survey.BothWaysPeer) {
			return
		}
	}
	c.bothWaysPhase(t, s, c.block(len(c.hosts)*c.cores))
	if err := survey.WriteSurvey(dir, s, true); err != nil {
		t.Fatal(err)
	}
	t.Logf("both-ways row added to the kept survey %s", dir)
}

// writeTable writes n lines of k numbers at(line, column) after the
// count k, as simsurvey reads its schedules, and returns the file.
func writeTable(t testing.TB, n, k int, at func(r, c int) int) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", k)
	for r := 0; r < n; r++ {
		for col := 0; col < k; col++ {
			if col > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.Itoa(at(r, col)))
		}
		b.WriteByte('\n')
	}
	p := filepath.Join(t.TempDir(), "table")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// replay simulates the matrix's replay in iter iterations with the ranks
// on rankHosts and returns the simulated run (s).
func (c *simCluster) replay(t testing.TB, matrix string, iter int, rankHosts []string) float64 {
	t.Helper()
	cfg := c.cfg
	if len(rankHosts) <= fullOptimRanks && matrixLines(t, matrix) >= fullOptimFlows {
		cfg = append(slices.Clone(cfg), "--cfg=network/optim:Full")
	}
	key := simKey(append([]string{"replay", c.platform, matrix, strconv.Itoa(iter), strings.Join(rankHosts, ",")}, cfg...)...)
	return appSeconds(t, memoSim(key, func() string { return c.runCfg(t, cfg, rankHosts, "replay", matrix, strconv.Itoa(iter)) }))
}

// A replay of fullOptimRanks ranks or fewer with fullOptimFlows flows or
// more has SimGrid solve its max-min sharing in full at every event
// (network/optim:Full) rather than lazily: thousands of flows in flight
// at once. The same simulated runs (LAMMPS peptide's 1,919 flows on the
// 16 x 4 fat tree: 0.08273548 s lazily, 0.08273573 s in full;
// alltoall-64's 4,032 flows 0.2256248 s both ways) in 0.65 and 0.61 of the time (12.6 s and 41.8 s
// lazily); LAMMPS eam's 384 flows took 1.5x as long in full (0.41 s).
const (
	fullOptimRanks = 64
	fullOptimFlows = 1000
)

// matrixLines is how many flows a replay's matrix file has (0 for
// alltoall:BYTES, not a file).
func matrixLines(t testing.TB, matrix string) int {
	t.Helper()
	if strings.HasPrefix(matrix, "alltoall:") {
		return 0
	}
	b, err := os.ReadFile(matrix)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n")) - 1
}

// replayMatrix writes flows as the replay sends them in iter iterations:
// each flow's bytes in iter messages, one per iteration.
func replayMatrix(t testing.TB, flows []profile.Flow, iter int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "matrix.csv")
	writeFlows(t, p, flows, iter, false)
	return p
}

// writeFlows writes flows to path as the replay sends them in iter
// iterations (src,dst,bytes,messages); asProfile adds a profile's
// matrix.csv columns time_s and late_s (0: the replay does not time
// pairs).
func writeFlows(t testing.TB, path string, flows []profile.Flow, iter int, asProfile bool) {
	t.Helper()
	header, tail := "src,dst,bytes,messages\n", "\n"
	if asProfile {
		header, tail = "src,dst,bytes,messages,time_s,late_s\n", ",0,0\n"
	}
	var b strings.Builder
	b.WriteString(header)
	for _, f := range flows {
		if f.Src != f.Dst && f.Bytes > 0 {
			fmt.Fprintf(&b, "%d,%d,%.0f,%d%s", f.Src, f.Dst, f.Bytes, iter, tail)
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// simCase is one application on the simulated cluster: latmap place's
// predictions for block, cyclic and its proposal, and their simulated runs.
type simCase struct {
	name                 string
	predicted, simulated map[string]float64
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
	opt.Output, opt.Format, opt.Force, opt.JSON, opt.Out = file, placefile.FormatSlurm, true, true, &adv
	if _, err := runReport(opt); err != nil {
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
	a, prop := placeHosts(t, Options{Survey: sv, Matrix: mx, Topology: c.topology, Model: model.ModelOptions{Routing: c.routing}, Solve: solve.Options{Seed: DefaultSeed}})
	if n := a.Network; n != nil {
		t.Logf("%s: network priced as %s", name, n.Capacity)
	}
	if as == "" {
		as = mx
	}
	sc := simCase{name: name, predicted: map[string]float64{}, simulated: map[string]float64{}, matrix: mx, replayArg: as}
	for _, p := range a.Predictions {
		sc.predicted[p.Name] = p.Run
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
// block layout is predicted at 0.62 of its simulated run.
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
	layouts := []string{"block", "cyclic", "proposal"}
	for _, x := range layouts {
		for _, y := range layouts {
			sim, pred := sc.simulated[x]/sc.simulated[y], sc.predicted[x]/sc.predicted[y]
			if sim > 1.05 && (pred/sim < simBounds[0] || pred/sim > simBounds[1]) {
				t.Errorf("%s: %s over %s predicted %.2fx, simulated %.2fx", sc.name, y, x, pred, sim)
			}
		}
	}
	for _, l := range layouts {
		p, s := sc.predicted[l], sc.simulated[l]
		if s > 0.01 && (p/s < 0.75 || p/s > 1.33) {
			t.Errorf("%s: %s predicted %.4f s, simulated %.4f s: %.2fx", sc.name, l, p, s, p/s)
		}
	}
	if p := sc.simulated["proposal"]; p > sc.simulated["block"]*(1+1e-6) || p > sc.simulated["cyclic"]*(1+1e-6) {
		t.Errorf("%s: the proposal simulates %.5f s, block %.5f s, cyclic %.5f s", sc.name, p, sc.simulated["block"], sc.simulated["cyclic"])
	}
	t.Logf("%s: predicted block %.4f cyclic %.4f proposal %.4f s; simulated %.4f %.4f %.4f s", sc.name,
		sc.predicted["block"], sc.predicted["cyclic"], sc.predicted["proposal"], sc.simulated["block"], sc.simulated["cyclic"], sc.simulated["proposal"])
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
// its shape (fabric.FitDragonfly), as the two-link one's do: from the
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
	}
}

// simRealApps are the real 64-rank application matrices of testdata
// (Open MPI's PML monitoring; testdata/README.md says how each was made).
func simRealApps(t testing.TB) []simApp {
	var apps []simApp
	for _, name := range []string{"lammps-melt-64", "lammps-eam-64", "lammps-chain-64", "lammps-peptide-64", "gromacs-water-64"} {
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
// direct network (topo.FindDirect) whose links are exactly the
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
// three shapes are held to checkSimCase's bounds.
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
// at once (fanout.OneRankPeers), which measures 4 links' worth, so place
// routes the torus the round trips show, in dimension order; raw
// predictions and speedups within the bounds. Before, the
// fan-out needed two ranks on a node, a node of one rank was priced as
// one link to a router, and every run was predicted 2.4-3.3x too slow
// and random sparse's 1.88x proposal not found.
func TestSimTorusOneRankANode(t *testing.T) {
	t.Parallel() // simulated time: see simMemo
	c := newSimCluster(t, "torus-4x4x2x2.xml", simHosts(64), 1)
	sv := c.survey(t, "all", []int{64, 1 << 20}, 10)
	s := readSurveyT(t, sv)
	checkFanOut(t, s, fanout.OneRankPeers)
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
	d, why := topo.FindDirect(len(m.Hosts), func(a, b int) float64 { return m.Link(first[a], first[b]).Latency })
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
		a, _ := placeHosts(t, Options{Survey: sv, Matrix: mx, Topology: c.topology, WhatIf: []string{"up-1:bw=0.5"}, Model: model.ModelOptions{Routing: fabric.RoutingAdaptive}})
		if len(a.WhatIf) != 1 || a.WhatIf[0].LinksChanged != 8 {
			t.Fatalf("%s: what-if %+v, want one change of the 4 leaves' 8 uplink directions", app.name, a.WhatIf)
		}
		w := a.WhatIf[0]
		simBlock := half.replay(t, mx, app.iters(), half.block(64))
		if r := w.Today.Run / simBlock; r < 0.8 || r > 1.25 {
			t.Errorf("%s: block on the halved uplinks predicted %.4f s, simulated on the 4:1 tree %.4f s (%.2fx)", app.name, w.Today.Run, simBlock, r)
		}
		t.Logf("%s: block now %.4f s; uplinks halved: predicted %.4f s, simulated %.4f s; placement for it predicted %.4f s", app.name, w.TodayNowS, w.Today.Run, simBlock, w.Proposal.Run)
	}
}
