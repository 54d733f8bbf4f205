package placement

import (
	"bytes"
	"fmt"
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
	"github.com/latmap/latmap/bench/fit"
	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/sweep"
	"github.com/latmap/latmap/mapper/topo"
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
	// (latmap place --routing); declared, when set, instead (the files a
	// site has: a dump and its map of names, a list of links).
	topology, routing string
	declared          []string
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
	if !filepath.IsAbs(platform) {
		platform = filepath.Join(root, "testdata", "sim", platform)
	}
	c := &simCluster{platform: platform, hosts: hosts, cores: cores, dir: t.TempDir()}
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
			c.keptProbe(t, kept)
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
	c.autoProbe(t, s)
	c.sweepPhase(t, s, hosts)
	s.Fits = fit.Survey(s, fit.HostFactors(s))
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
	rows, err := bench.SwitchRows(hosts, steps, all, size, fit.SlowHosts(s))
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

// sweepPhase runs latmap survey's size sweep (bench/sweep.go's pairs
// and sizes) in the simulation, each pair alone in a round of its own,
// and adds its rows to s.
func (c *simCluster) sweepPhase(t testing.TB, s *survey.Survey, hosts []string) {
	t.Helper()
	pairs, sizes := bench.SweepPlan(s)
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
	dir := c.runInto(t, hosts, "simsurvey", true, "pairs", plan, none, strings.Join(sz, ","), strconv.Itoa(bench.SweepMinRepeats), "all")
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
			s.Sweep = append(s.Sweep, sweep.Row{A: p.A, B: p.B, Where: p.Where, Size: tab.Size, Count: bench.SweepMinRepeats, MinUs: mn, MedianUs: med})
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

// fanOutPhase runs latmap survey's node fan-out (bench/fanout.go) in the
// simulation and adds its rows to s's nodebw.csv.
func (c *simCluster) fanOutPhase(t testing.TB, s *survey.Survey, hosts []string) {
	t.Helper()
	steps := bench.FanOutPlan(s, hosts)
	if len(steps) == 0 {
		return
	}
	all := c.exchange(t, hosts, len(steps), func(k, r int) ([]int, []int) { return steps[k].Dst[r], steps[k].Src[r] })
	rows, err := bench.FanOutRows(hosts, steps, all, 0, bench.DefaultNodeBWSize, bench.SwitchMessages)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		t.Logf("simulated survey: fan-out from %s to %s: %.0f MB/s, to the first alone %.0f MB/s (%.2fx)", r.Host, r.Peer, r.AggregateMBps, r.PairMBps, r.AggregateMBps/r.PairMBps)
	}
	s.NodeBandwidth = append(s.NodeBandwidth, rows...)
}

// bothWaysPhase runs latmap survey's both-ways steps (bench/bothways.go)
// in the simulation and adds their row to s's nodebw.csv.
func (c *simCluster) bothWaysPhase(t testing.TB, s *survey.Survey, hosts []string) {
	t.Helper()
	steps := bench.BothWaysPlan(hosts)
	if len(steps) == 0 {
		return
	}
	all := c.exchange(t, hosts, len(steps), func(k, r int) ([]int, []int) { return steps[k].Dst[r], steps[k].Src[r] })
	row, err := bench.BothWaysRow(hosts, steps, all, 0, bench.DefaultNodeBWSize, bench.SwitchMessages)
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

// keptProbe adds to the kept survey in dir the probe of flows at once
// latmap survey's default takes (autoProbe) where it lacks one.
func (c *simCluster) keptProbe(t testing.TB, dir string) {
	t.Helper()
	s, err := survey.ReadSurvey(dir, survey.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !c.autoProbe(t, s) {
		return
	}
	if err := survey.WriteSurvey(dir, s, true); err != nil {
		t.Fatal(err)
	}
	t.Logf("the probe of flows at once added to the kept survey %s", dir)
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
