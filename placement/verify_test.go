package placement

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/exitcode"
	"github.com/latmap/latmap/internal/launcher"
	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/internal/vcluster"
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/verify"
)

func writeLaunchFixture(t *testing.T, format string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "launch_"+format+"_6ranks_2nodes.golden"))
	if err != nil {
		t.Fatal(err)
	}
	// The golden holds the file, then "---- launch" and the launch line.
	body, _, _ := strings.Cut(string(b), "---- launch")
	p := filepath.Join(t.TempDir(), "placement")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestProposalCommand(t *testing.T) {
	for _, tc := range []struct {
		l      launcher.Launcher
		format string
		cmd    string
		want   string
		env    string
	}{
		{launcher.OpenMPI, "openmpi", "mpirun -np 6 --map-by node --bind-to core ./app -in in.lj",
			"mpirun --mca rmaps_rank_file_physical 1 -rf FILE -np 6 ./app -in in.lj", ""},
		{launcher.OpenMPI, "openmpi", "mpirun -np 6 --map-by=ppr:3:node -npernode 3 --bynode --hostfile h ./app",
			"mpirun --mca rmaps_rank_file_physical 1 -rf FILE -np 6 --hostfile h ./app", ""},
		{launcher.OpenMPI, "openmpi5", "mpirun -np 6 --map-by node --bind-to core ./app -in in.lj",
			"mpirun --map-by rankfile:file=FILE -np 6 ./app -in in.lj", ""},
		{launcher.Hydra, "mpich", "mpiexec -n 6 -ppn 3 -bind-to core -f old.hosts ./app",
			"mpiexec -f FILE -n 6 ./app", ""},
		{launcher.Slurm, "slurm", "srun -n 6 -N 2 --distribution=cyclic --cpu-bind=cores ./app",
			"srun --distribution=arbitrary --cpu-bind=map_cpu:0,3,1 -n 6 ./app", "SLURM_HOSTFILE=FILE"},
	} {
		file := writeLaunchFixture(t, tc.format)
		argv, env, err := verify.ProposalCommand(tc.l, strings.Fields(tc.cmd), file, "")
		if err != nil {
			t.Fatalf("%s: %v", tc.cmd, err)
		}
		got := strings.ReplaceAll(strings.Join(argv, " "), file, "FILE")
		if got != tc.want || strings.ReplaceAll(strings.Join(env, " "), file, "FILE") != tc.env {
			t.Errorf("%s:\n got %s (env %v)\nwant %s (env %s)", tc.cmd, got, env, tc.want, tc.env)
		}
	}
	// A file for another launcher is refused with the format to ask for.
	file := writeLaunchFixture(t, "mpich")
	if _, _, err := verify.ProposalCommand(launcher.OpenMPI, []string{"mpirun", "./app"}, file, ""); err == nil || !strings.Contains(err.Error(), "--format openmpi") {
		t.Errorf("MPICH file with mpirun: %v", err)
	}
	// A hand-made rankfile has no header: refused with the way out, then
	// taken with --format.
	hand := filepath.Join(t.TempDir(), "hand.rankfile")
	if err := os.WriteFile(hand, []byte("rank 0=n1 slot=0\nrank 1=n2 slot=0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := []string{"mpirun", "-np", "2", "--map-by", "node", "./app"}
	if _, _, err := verify.ProposalCommand(launcher.OpenMPI, cmd, hand, ""); err == nil || !strings.Contains(err.Error(), "--format openmpi|openmpi5|mpich|slurm") {
		t.Errorf("hand-made rankfile without --format: %v", err)
	}
	argv, _, err := verify.ProposalCommand(launcher.OpenMPI, cmd, hand, placefile.FormatOpenMPI)
	if want := "mpirun --mca rmaps_rank_file_physical 1 -rf " + hand + " -np 2 ./app"; err != nil || strings.Join(argv, " ") != want {
		t.Errorf("hand-made rankfile with --format openmpi: %q, %v; want %s", argv, err, want)
	}
	if _, _, err := verify.ProposalCommand(launcher.OpenMPI, cmd, hand, placefile.FormatCray); err == nil || !strings.Contains(err.Error(), "--format \"cray\"") {
		t.Errorf("--format cray: %v", err)
	}
}

// TestVerifyOnShapedCluster: on 2 nodes x 2 slots with 400 Mbit/s links,
// pairs of ranks exchanging 1 MiB messages started cyclic (Open MPI's
// --map-by node --bind-to core: every pair split over the link) against
// the placement latmap place proposes (every pair on one node) in an Open
// MPI rankfile: the real launcher both ways, alternating, and the proposal
// must measure faster, with the runs, medians and the predicted speedup
// recorded.
//
// MPICH is verified on one host (TestVerifyCLILocal): Debian's MPICH on
// UCX 1.13 hangs in MPI_Finalize in most runs whose ranks talked over TCP
// (see vcluster.HydraArgs), so across virtual nodes it would test UCX.
func TestVerifyOnShapedCluster(t *testing.T) {
	testutil.RequireMPI(t)
	c := vcluster.StartWith(t, vcluster.Options{Nodes: 2, SlotsPerNode: 2, Rate: "400mbit"})
	sv := fakeSurveyHosts(t, c.Nodes, 2)
	const iter, msg = 40, 1 << 20
	var flows []profile.Flow
	for _, p := range [][2]int{{0, 1}, {1, 0}, {2, 3}, {3, 2}} {
		flows = append(flows, profile.Flow{Src: p[0], Dst: p[1], Bytes: iter * msg, Messages: iter})
	}
	matrix := writeMatrix(t, flows)
	for _, tc := range []struct {
		flavor testutil.Flavor
		format string
		cmd    func() []string
		inFile string // what the proposal command must hold
		gone   []string
	}{
		{testutil.OpenMPI, placefile.FormatOpenMPI, func() []string { return append(c.MpirunArgs(4), "--map-by", "node", "--bind-to", "core") }, "-rf ", []string{"--map-by", "--bind-to"}},
	} {
		t.Run(tc.flavor.Name, func(t *testing.T) {
			dir := t.TempDir()
			prog := tc.flavor.Build(t, dir, "pairs", filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", "pairs.c"))
			file, advice := filepath.Join(dir, "pairs."+tc.format), filepath.Join(dir, "advice.json")
			// The current placement, as --map-by node deals the ranks: 0 and
			// 2 on the first node, 1 and 3 on the second (each pair split).
			// place scores it, so its prediction is against it.
			cur := filepath.Join(dir, "current.rankfile")
			var rf strings.Builder
			for r := 0; r < 4; r++ {
				fmt.Fprintf(&rf, "rank %d=%s slot=%d\n", r, c.Nodes[r%2], r/2)
			}
			if err := os.WriteFile(cur, []byte(rf.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			var adv bytes.Buffer
			if _, err := runJSON(Options{Survey: sv, Matrix: matrix, Current: cur, Output: file, Format: tc.format, Force: true, AlwaysWrite: true, AcceptUnbound: true}, &adv); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(advice, adv.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "verify")
			cmd := append(tc.cmd(), prog, fmt.Sprint(iter), fmt.Sprint(msg))
			var log bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			v, err := verify.Run(ctx, verify.Options{Output: out, File: file, Place: advice, Runs: 3, Command: cmd, Lib: tc.flavor.InterposeLib(t), Out: &log})
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			t.Logf("%s", log.String())
			prop := strings.Join(v.ProposalCommand, " ")
			for _, g := range tc.gone {
				if strings.Contains(prop, g) {
					t.Errorf("proposal command %q keeps %s", prop, g)
				}
			}
			if !strings.Contains(prop, tc.inFile+file) {
				t.Errorf("proposal command %q lacks %s%s", prop, tc.inFile, file)
			}
			got, runs, err := placefile.ReadVerification(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != 6 || got.Speedup != v.Speedup {
				t.Fatalf("%d runs, speedup %v vs %v", len(runs), got.Speedup, v.Speedup)
			}
			for i, r := range runs {
				if want := []string{"current", "proposal"}[i%2]; r.Variant != want || r.Exit != 0 || r.Run != i+1 || !(r.Wall > 0) {
					t.Errorf("run %d: %+v, want variant %s, exit 0", i+1, r, want)
				}
			}
			// 2 x 40 MiB leave each node over a 50 MB/s link when split: 1.7 s
			// at least, against milliseconds through shared memory.
			if !(v.SpeedupCI95[0] > 1.3) || !(v.CurrentMedian > 1.5) {
				t.Errorf("measured speedup %.2f (95%% %v), current median %.2f s: want the proposal clearly faster", v.Speedup, v.SpeedupCI95, v.CurrentMedian)
			}
			// The prediction is against the current placement place scored:
			// advice.json's current run over its proposal's run, as written
			// there (read here, not through verify). Split pairs cross the
			// 13 us link where the proposal's stay at 0.7 us, so the proposal
			// is predicted faster. predicted/measured divides that by the
			// application's measured speedup, the median of runs.csv's
			// current application times over the median of its proposal's
			// (3 each: the middle one), which the launch (the same for both)
			// does not dilute.
			a, err := placefile.ReadAdvice(advice)
			if err != nil {
				t.Fatal(err)
			}
			var curRun, propRun float64
			var curApp, propApp []float64
			for _, p := range a.Predictions {
				switch p.Name {
				case "current":
					curRun = p.Run
				case "proposal":
					propRun = p.Run
				}
			}
			for _, r := range runs {
				if r.Variant == "current" {
					curApp = append(curApp, r.App)
				} else {
					propApp = append(propApp, r.App)
				}
			}
			sort.Float64s(curApp)
			sort.Float64s(propApp)
			wantPred := curRun / propRun
			wantOver := wantPred / (curApp[1] / propApp[1])
			if !(curRun > 0) || !(propRun > 0) || !(wantPred > 1.3) {
				t.Errorf("advice.json: current run %g s, proposal %g s: want the split pairs predicted clearly slower", curRun, propRun)
			}
			if v.PredictedAgainst != "current" || math.Abs(v.PredictedSpeedup-wantPred) > 1e-9*wantPred || v.MeasuredOn != "app" || math.Abs(v.PredictedOver-wantOver) > 1e-9*wantOver {
				t.Errorf("predicted speedup %v against %q (over measured %v, on %q); want %v against current (advice.json's %g / %g s), over measured %v (application medians %v / %v s)",
					v.PredictedSpeedup, v.PredictedAgainst, v.PredictedOver, v.MeasuredOn, wantPred, curRun, propRun, wantOver, curApp[1], propApp[1])
			}
			if !(v.AppSpeedup > v.Speedup) || !(v.LaunchMedian > 0) {
				t.Errorf("application speedup %.2f, whole launches %.2f (launch %.3f s): the launch should dilute the latter", v.AppSpeedup, v.Speedup, v.LaunchMedian)
			}
			testutil.Record(t, "latmap verify on 2 virtual nodes x 2 slots (400 Mbit/s links): pairs split, then on one node", "launcher", tc.flavor.Name, "current median s", v.CurrentMedian, "measured speedup (95%)", fmt.Sprintf("%.2fx (%.2f-%.2f)", v.Speedup, v.SpeedupCI95[0], v.SpeedupCI95[1]), "application speedup", fmt.Sprintf("%.2fx", v.AppSpeedup), "predicted speedup", fmt.Sprintf("%.2fx", v.PredictedSpeedup), "held to", "current median over 1.5 s; the interval's low end and the prediction over 1.3x; the application's speedup over the whole launches'")
		})
	}
}

// TestCurrentRoundTrip: a placement written in every format latmap writes,
// read back with --current, is the same placement (for Cray's rank order,
// the same groups of ranks on nodes), and place scores it as current.
func TestCurrentRoundTrip(t *testing.T) {
	sv := fakeSurveyHosts(t, []string{"n1", "n2", "n3"}, 4)
	var flows []profile.Flow
	for i := 0; i < 12; i++ {
		flows = append(flows, profile.Flow{Src: i, Dst: (i + 5) % 12, Bytes: 1e6, Messages: 10})
	}
	mat := writeMatrix(t, flows)
	for _, format := range []string{placefile.FormatOpenMPI, placefile.FormatMPICH, placefile.FormatSlurm, placefile.FormatCray} {
		t.Run(format, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "p."+format)
			r, err := runReport(Options{Survey: sv, Matrix: mat, Output: file, Format: format}, &bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			ranks, got, err := placefile.Read(file)
			if err != nil || got != format {
				t.Fatalf("read %s: format %q, %v", file, got, err)
			}
			r2, err := runReport(Options{Survey: sv, Matrix: mat, Current: file}, &bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			if r2.Predictions[0].Name != "current" || r2.Current != file {
				t.Fatalf("no current prediction: %+v", r2.Predictions)
			}
			prop := r.Predictions[len(r.Predictions)-1]
			// The file holds the proposal: scored as current, it costs the
			// same (Cray: same groups, so the same cost on alike nodes).
			if !shapes.Near(r2.Predictions[0].Transfer, prop.Transfer) {
				t.Errorf("current from %s costs %g, the proposal written there %g", format, r2.Predictions[0].Transfer, prop.Transfer)
			}
			for i, rp := range r.Placement {
				if format == placefile.FormatCray {
					continue
				}
				if ranks[i].Host != rp.Host || (ranks[i].CPU >= 0 && ranks[i].CPU != rp.CPU) {
					t.Errorf("rank %d read as %s cpu %d, written %s cpu %d", i, ranks[i].Host, ranks[i].CPU, rp.Host, rp.CPU)
				}
			}
		})
	}
	// A rankfile made by hand, dealing ranks round robin over the hosts as
	// mpirun --map-by node does, scores exactly as place's own cyclic.
	var rf strings.Builder
	for r := 0; r < 12; r++ {
		fmt.Fprintf(&rf, "rank %d=n%d slot=%d\n", r, r%3+1, r/3)
	}
	hand := filepath.Join(t.TempDir(), "hand.rankfile")
	os.WriteFile(hand, []byte(rf.String()), 0o644)
	r3, err := runReport(Options{Survey: sv, Matrix: mat, Current: hand}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cur, cyc := r3.Predictions[0], r3.Predictions[2]; cur.Name != "current" || cyc.Name != "cyclic" || !shapes.Near(cur.Transfer, cyc.Transfer) {
		t.Errorf("hand-made cyclic rankfile: %s %g, %s %g: want equal", cur.Name, cur.Transfer, cyc.Name, cyc.Transfer)
	}
	bad := filepath.Join(t.TempDir(), "bad")
	os.WriteFile(bad, []byte("rank 0=n9 slot=0\nrank 1=n1 slot=0\n"), 0o644)
	if _, err := runReport(Options{Survey: sv, Matrix: writeMatrix(t, []profile.Flow{{Src: 0, Dst: 1, Bytes: 1, Messages: 1}}), Current: bad}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "n9, which the survey did not measure") {
		t.Errorf("unknown host: %v", err)
	}
}

// TestVerifyCLILocal runs latmap verify through bin/latmap on this machine
// with each launcher: 2 ranks of a pairwise exchange started with the
// launcher's own binding options, against a rankfile (Open MPI) or a
// machine file (Hydra) for this host. On one host the layouts are alike,
// so it checks what a user sees: both commands printed, the launcher
// taking the file (no "only one policy" refusal), the runs recorded in
// order (runs.csv alternating current and proposal), exit status 0, the
// medians and speedups those runs give, and alike launches measuring
// alike.
func TestVerifyCLILocal(t *testing.T) {
	bin := testutil.LatmapBin(t)
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	sv := fakeSurveyHosts(t, []string{host}, 2)
	matrix := writeMatrix(t, []profile.Flow{{Src: 0, Dst: 1, Bytes: 1 << 20, Messages: 8}, {Src: 1, Dst: 0, Bytes: 1 << 20, Messages: 8}})
	for _, tc := range []struct {
		flavor testutil.Flavor
		format string
		opts   []string
		inFile string
	}{
		{testutil.OpenMPI, placefile.FormatOpenMPI, []string{"--map-by", "core", "--bind-to", "core"}, "-rf "},
		{testutil.MPICH, placefile.FormatMPICH, []string{"-bind-to", "core"}, "-f "},
	} {
		t.Run(tc.flavor.Name, func(t *testing.T) {
			dir := t.TempDir()
			prog := tc.flavor.Build(t, dir, "pairs", filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", "pairs.c"))
			file := filepath.Join(dir, "placement")
			if _, err := runReport(Options{Survey: sv, Matrix: matrix, Output: file, Format: tc.format, Force: true, AlwaysWrite: true, AcceptUnbound: true}, io.Discard); err != nil {
				t.Fatal(err)
			}
			cmd := append(append(tc.flavor.Local(2), tc.opts...), prog, "8", "1048576")
			out := filepath.Join(dir, "verify")
			args := append([]string{bin, "verify", "-o", out, "--rankfile", file, "--runs", "2", "--"}, cmd...)
			// Two placements of one host: the gain is noise, which
			// verify says with status 3.
			o, _ := testutil.MustRunStatus(t, 2*time.Minute, []int{exitcode.NoAdvice}, args...)
			var prop string
			for _, line := range strings.Split(o, "\n") {
				if p, ok := strings.CutPrefix(line, "latmap verify: proposal: "); ok {
					prop = p
				}
			}
			if !strings.Contains(prop, tc.inFile+file) || strings.Contains(prop, "-bind-to") || strings.Contains(prop, "--map-by") {
				t.Errorf("proposal command %q: want %s%s and no binding options\n%s", prop, tc.inFile, file, o)
			}
			v, runs, err := placefile.ReadVerification(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != 4 || v.RunsPerVariant != 2 || strings.Join(v.CurrentCommand, " ") != strings.Join(cmd, " ") {
				t.Fatalf("verification %+v, runs %+v", v, runs)
			}
			// runs.csv in the order run, alternating as documented: current,
			// proposal, current, proposal, numbered 1-4, each exiting 0.
			for i, r := range runs {
				if want := []string{"current", "proposal"}[i%2]; r.Variant != want || r.Run != i+1 || r.Exit != 0 {
					t.Errorf("runs.csv row %d: run %d, %s, exit %d; want run %d, %s, exit 0", i+1, r.Run, r.Variant, r.Exit, i+1, want)
				}
			}
			if !v.AppTimed {
				t.Fatalf("the application's run was not timed: %+v", v.Measured)
			}
			for _, r := range runs {
				if !(r.App > 0 && r.App < r.Wall) {
					t.Errorf("run %d: application %.3f s, wall %.3f s", r.Run, r.App, r.Wall)
				}
			}
			// The medians of 2 runs are their means: runs 1 and 3 are the
			// current ones, 2 and 4 the proposal's. The speedups are their
			// ratios (checked exactly above), and on one host both launches
			// place 2 ranks alike, so the whole launches (about 0.1-0.6 s
			// here, mostly the launcher's own start) take alike times:
			// within 4x of each other. One MPICH launch of 0.3 s among
			// 0.1 s ones doubles a mean of two (2.22x in a CI run,
			// 2026-11-27; 4.30x in another, 2026-11-29), so the check
			// compares each variant's faster run: one slow launch, the
			// machine's noise and not verify's, cannot fail it.
			curW, propW := (runs[0].Wall+runs[2].Wall)/2, (runs[1].Wall+runs[3].Wall)/2
			curApp, propApp := (runs[0].App+runs[2].App)/2, (runs[1].App+runs[3].App)/2
			launch := []float64{runs[0].Wall - runs[0].App, runs[1].Wall - runs[1].App, runs[2].Wall - runs[2].App, runs[3].Wall - runs[3].App}
			sort.Float64s(launch)
			closeTo := func(got, want float64) bool { return math.Abs(got-want) <= 1e-9*math.Abs(want) }
			if !closeTo(v.CurrentMedian, curW) || !closeTo(v.ProposalMedian, propW) || !closeTo(v.Speedup, curW/propW) ||
				!closeTo(v.CurrentAppMedian, curApp) || !closeTo(v.ProposalAppMedian, propApp) || !closeTo(v.AppSpeedup, curApp/propApp) ||
				!closeTo(v.LaunchMedian, (launch[1]+launch[2])/2) {
				t.Errorf("verification %+v: want medians %.4f / %.4f s (speedup %.4f), application %.4f / %.4f s (speedup %.4f), launch %.4f s from runs.csv %+v",
					v.Measured, curW, propW, curW/propW, curApp, propApp, curApp/propApp, (launch[1]+launch[2])/2, runs)
			}
			if fast := math.Min(runs[0].Wall, runs[2].Wall) / math.Min(runs[1].Wall, runs[3].Wall); !(fast > 0.25 && fast < 4) {
				t.Errorf("faster current over faster proposal launch %.2f (speedup of the medians %.2f) of alike launches on one host: want within 4x of 1", fast, v.Speedup)
			}
			t.Logf("%s: current %.3f s, proposal %.3f s, speedup %.2f (95%% %.2f-%.2f); application %.3f / %.3f s, launch %.3f s", tc.flavor.Name, v.CurrentMedian, v.ProposalMedian, v.Speedup, v.SpeedupCI95[0], v.SpeedupCI95[1], v.CurrentAppMedian, v.ProposalAppMedian, v.LaunchMedian)
		})
	}
}

// TestVerifyTimesTheApplication: a program whose rank 0 sleeps 400 ms
// between MPI_Init and MPI_Finalize. verify's application time must be
// those 400 ms (and a barrier), however long the launch takes around
// them; the wall time must be longer by the launch.
func TestVerifyTimesTheApplication(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	sv := fakeSurveyHosts(t, []string{host}, 2)
	matrix := writeMatrix(t, []profile.Flow{{Src: 0, Dst: 1, Bytes: 1 << 20, Messages: 8}, {Src: 1, Dst: 0, Bytes: 1 << 20, Messages: 8}})
	for _, f := range testutil.Flavors() {
		t.Run(f.Name, func(t *testing.T) {
			dir := t.TempDir()
			prog := f.Build(t, dir, "sleeper", filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", "sleeper.c"))
			format := map[string]string{"openmpi": placefile.FormatOpenMPI, "mpich": placefile.FormatMPICH}[f.Name]
			file := filepath.Join(dir, "placement")
			if _, err := runReport(Options{Survey: sv, Matrix: matrix, Output: file, Format: format, Force: true, AlwaysWrite: true, AcceptUnbound: true}, io.Discard); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "verify")
			args := append([]string{f.LatmapBin(t), "verify", "-o", out, "--rankfile", file, "--runs", "2", "--"}, append(f.Local(2), prog, "400")...)
			// Two placements of one host: the gain is noise, which
			// verify says with status 3.
			o, _ := testutil.MustRunStatus(t, 2*time.Minute, []int{exitcode.NoAdvice}, args...)
			v, runs, err := placefile.ReadVerification(out)
			if err != nil {
				t.Fatal(err)
			}
			if !v.AppTimed {
				t.Fatalf("not timed (%s):\n%s", v.AppNote, o)
			}
			for _, r := range runs {
				if r.App < 0.4 || r.App > 0.55 || r.Wall <= r.App {
					t.Errorf("run %d: application %.3f s (slept 0.400 s), wall %.3f s", r.Run, r.App, r.Wall)
				}
			}
			if !strings.Contains(o, "application (MPI_Init to MPI_Finalize, slowest rank)") {
				t.Errorf("verify did not report the application's run:\n%s", o)
			}
			t.Logf("%s: application %.3f s, whole launch %.3f s", f.Name, v.CurrentAppMedian, v.CurrentMedian)
		})
	}
}
