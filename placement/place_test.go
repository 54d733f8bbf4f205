package placement

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/sweep"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
)

func TestRunMatrixReportsFilledPairsAndWrites(t *testing.T) {
	// 2 hosts x 2 sockets x 4 cores; pairs with (a+b)%7 == 0 unmeasured.
	drop := func(a, b int) bool { return (a+b)%7 == 0 }
	sv := fakeSurvey(t, 2, 2, 4, shapes.TestRTT, drop)
	filled := 0
	for a := 0; a < 16; a++ {
		for b := a + 1; b < 16; b++ {
			if drop(a, b) {
				filled++
			}
		}
	}
	flows, _ := shapes.ShuffledPairs(16, 5)
	mx := writeMatrix(t, flows)
	out := filepath.Join(t.TempDir(), "app.rankfile")
	var buf bytes.Buffer
	r, err := runReport(Options{Survey: sv, Matrix: mx, Output: out, App: []string{"./app"}}, &buf)
	if err != nil {
		t.Fatal(err)
	}
	if r.FilledPairs != filled {
		t.Errorf("filled %d pairs, want %d", r.FilledPairs, filled)
	}
	if !strings.Contains(buf.String(), itoa(filled)+" of 120 slot pairs not measured") {
		t.Errorf("report does not say how many pairs were filled:\n%s", buf.String())
	}
	// Every pair shares a socket: the optimum.
	prop := r.Predictions[len(r.Predictions)-1]
	want := 0.0
	for _, f := range flows {
		want += (model.LinkCost{Latency: shapes.TestRTT[model.SameSocket] / 2 * 1e-6, InvBandwidth: 1 / (model.DefaultBandwidths().Socket * 1e9)}).Cost(f.Messages, f.Bytes)
	}
	if !shapes.Near32(prop.Transfer, want) {
		t.Errorf("proposal transfer %g, optimum (all pairs on one socket) %g", prop.Transfer, want)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "# latmap") || strings.Count(string(data), "\nrank ") != 16 {
		t.Errorf("rankfile:\n%s", data)
	}
	if !strings.Contains(buf.String(), "launch with:\n  mpirun -np 16 --mca rmaps_rank_file_physical 1 -rf "+out+" ./app") {
		t.Errorf("no launch line:\n%s", buf.String())
	}
	// Without --force the file is not replaced.
	if _, err := runReport(Options{Survey: sv, Matrix: mx, Output: out}, &buf); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("existing output: %v", err)
	}
}

func TestRunJSON(t *testing.T) {
	sv := fakeSurvey(t, 2, 1, 4, shapes.TestRTT, nil)
	flows, _ := shapes.Ring(8)
	var buf bytes.Buffer
	if _, err := runJSON(Options{Survey: sv, Matrix: writeMatrix(t, flows)}, &buf); err != nil {
		t.Fatal(err)
	}
	var r placefile.Advice
	if err := json.Unmarshal(buf.Bytes(), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, buf.String())
	}
	if r.Ranks != 8 || len(r.Placement) != 8 || len(r.Predictions) != 3 || r.Predictions[2].Name != "proposal" || r.Verdict == "" {
		t.Errorf("JSON result incomplete: %+v", r)
	}
}

// splitPairs is a survey of 2 hosts x 4 cpus and a profile's traffic and
// placement in which pairs (0,4), (1,5), (2,6), (3,7) talk and the current
// (block) layout puts every pair across the two hosts.
func splitPairs(t *testing.T) (sv string, flows []profile.Flow, hosts []string, cpus []int) {
	t.Helper()
	for i := 0; i < 4; i++ {
		flows = append(flows, profile.Flow{Src: i, Dst: i + 4, Bytes: 100e6, Messages: 40000}, profile.Flow{Src: i + 4, Dst: i, Bytes: 100e6, Messages: 40000})
	}
	return fakeSurvey(t, 2, 1, 4, shapes.TestRTT, nil), flows,
		[]string{"h0", "h0", "h0", "h0", "h1", "h1", "h1", "h1"}, []int{0, 1, 2, 3, 0, 1, 2, 3}
}

// TestRunProfileVerdicts: a profile where late-sender and collective wait
// dominate gets "will not help much" when the predicted gain is small, and
// the gain with the waiting named when it is not; one where transfer
// dominates gets "use the proposal"; the current placement comes from its
// ranks.csv.
func TestRunProfileVerdicts(t *testing.T) {
	sv, flows, hosts, cpus := splitPairs(t)
	for _, c := range []struct {
		name                    string
		comput, mpi, late, sync float64
		want                    string
		current                 bool
	}{
		// Waiting dominates but the proposal still gains 4.1%: say both,
		// never "will not help" beside a worthwhile predicted gain. (The
		// profile's 0.3 s of transfer per rank is what the model predicts
		// for its split pairs, the busier direction between nodes: 40,000
		// x 6.5 us + 100 MB / 3 GB/s; on one socket both directions:
		// 80,000 x 0.25 us + 200 MB / 10 GB/s = 0.04 s.)
		{"wait dominates, gain", 1, 0.3, 3, 2, "Use the proposal: predicted run 6.04 s against 6.3 s current, 4.1% faster (slowest rank's communication 0.04 s instead of 0.3 s). A perfect interconnect would give 6 s. Beyond that, 94.3% of the time in MPI is waiting", true},
		{"wait dominates, no gain", 1, 0.1, 30, 20, "will not help much: 99.8% of the time in MPI is waiting", true},
		{"little communication", 100, 0.5, 0, 0, "communication is only 0.5% of the run", true},
		{"worth it", 0.1, 0.5, 0, 0, "Use the proposal", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			prof := fakeProfile(t, hosts, cpus, c.comput, c.mpi, c.late, c.sync, flows)
			var buf bytes.Buffer
			r, err := runReport(Options{Survey: sv, Profile: prof}, &buf)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(r.Verdict, c.want) {
				t.Errorf("verdict %q, want it to contain %q", r.Verdict, c.want)
			}
			if r.Predictions[0].Name != "current" {
				t.Fatalf("no current placement: %+v (warnings %v)", r.Predictions[0], r.Warnings)
			}
			// Current = block here; per-rank prediction adds comput+sync+late.
			cur := r.Predictions[0]
			if !shapes.Near(cur.Transfer, r.Predictions[1].Transfer) {
				t.Errorf("current transfer %g, block %g: should match (profile ranks ran block)", cur.Transfer, r.Predictions[1].Transfer)
			}
			if want := c.comput + c.late + c.sync; !shapes.Near(r.PerfectRun, want) {
				t.Errorf("perfect interconnect run %g, want %g", r.PerfectRun, want)
			}
			// A proposal less than GainWorthIt faster is the current
			// placement.
			prop := r.Predictions[len(r.Predictions)-1]
			if use := r.VerdictKind == placefile.VerdictUse; (use && prop.Run >= cur.Run*(1-GainWorthIt)) || (!use && prop.Run != cur.Run) {
				t.Errorf("verdict %s: proposal %g, current %g", r.VerdictKind, prop.Run, cur.Run)
			}
		})
	}
	// A profile whose ranks ran where the survey did not look: no current.
	prof := fakeProfile(t, []string{"x0", "x0", "x0", "x0", "x1", "x1", "x1", "x1"}, cpus, 1, 1, 0, 0, flows)
	r, err := runReport(Options{Survey: sv, Profile: prof}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Predictions[0].Name == "current" || !strings.Contains(strings.Join(r.Warnings, "\n"), "profile rank 0 ran on x0 cpu 0, which the survey did not measure") {
		t.Errorf("unmatched profile: predictions %v warnings %v", r.Predictions[0].Name, r.Warnings)
	}
}

func TestRunErrors(t *testing.T) {
	sv := fakeSurvey(t, 2, 1, 2, shapes.TestRTT, nil) // 4 slots
	ring4, _ := shapes.Ring(4)
	ring6, _ := shapes.Ring(6)
	cpus := []int{0, 1, 0, 1}
	hosts := []string{"h0", "h0", "h1", "h1"}
	prof4 := fakeProfile(t, hosts, cpus, 1, 1, 0, 0, ring4)
	write := func(name, text string) string {
		p := filepath.Join(t.TempDir(), name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	emptySurvey := filepath.Join(t.TempDir(), "empty")
	os.MkdirAll(emptySurvey, 0o755)
	os.WriteFile(filepath.Join(emptySurvey, survey.MetaFile), []byte(`{"tool":"latmap"}`), 0o644)
	os.WriteFile(filepath.Join(emptySurvey, survey.RanksFile), []byte("rank,host,cpu,cpu_end,cpuset,socket,numa,l3,migrated\n"), 0o644)
	os.WriteFile(filepath.Join(emptySurvey, survey.PairsFile), []byte(strings.Join(survey.PairsHeader(), ",")+"\n"), 0o644)
	noPairs := fakeSurvey(t, 1, 1, 2, shapes.TestRTT, func(a, b int) bool { return true })
	for _, c := range []struct {
		name string
		opt  Options
		want string
	}{
		{"no survey", Options{Matrix: writeMatrix(t, ring4)}, "--survey is required"},
		{"no traffic", Options{Survey: sv}, "give --profile DIR"},
		{"bad format", Options{Survey: sv, Matrix: writeMatrix(t, ring4), Format: "lsf"}, "unknown --format"},
		{"more ranks than slots", Options{Survey: sv, Matrix: writeMatrix(t, ring6)}, "6 ranks need 6 slots but the survey offers 4"},
		{"matrix names a rank beyond N", Options{Survey: sv, Matrix: writeMatrix(t, ring6), Ranks: 4}, "names rank 5 but --ranks has 4 ranks"},
		{"matrix beyond profile", Options{Survey: sv, Profile: prof4, Matrix: writeMatrix(t, ring6)}, "names rank 5 but the profile has 4 ranks"},
		{"mismatched --ranks and profile", Options{Survey: sv, Profile: prof4, Ranks: 3}, "--ranks 3 but profile"},
		{"negative value", Options{Survey: sv, Matrix: write("neg.csv", "src,dst,bytes,messages\n0,1,-5,1\n")}, "line 2: bytes: negative value"},
		{"non-numeric", Options{Survey: sv, Matrix: write("nan.csv", "src,dst,bytes,messages\n0,1,five,1\n")}, `line 2: bytes: "five" is not a number`},
		{"empty matrix", Options{Survey: sv, Matrix: write("e.csv", "")}, "empty matrix"},
		{"one-rank matrix", Options{Survey: sv, Matrix: write("one.csv", "src,dst,bytes,messages\n0,0,1,1\n")}, "placement needs at least 2"},
		{"empty survey", Options{Survey: emptySurvey, Matrix: writeMatrix(t, ring4)}, "ranks.csv has no rows"},
		{"survey without pairs", Options{Survey: noPairs, Matrix: write("two.csv", "src,dst,bytes,messages\n0,1,1,1\n")}, "no measured pairs"},
		{"missing survey", Options{Survey: "/nonexistent/survey", Matrix: writeMatrix(t, ring4)}, "no such file"},
		{"survey is neither dir nor mmpi log", Options{Survey: writeMatrix(t, ring4), Matrix: writeMatrix(t, ring4)}, "neither a survey directory nor an mmpi log"},
		{"exclude unknown host", Options{Survey: sv, Matrix: writeMatrix(t, ring4), Select: model.SelectOptions{Exclude: []string{"zz"}}}, "--exclude zz: no such host"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := runReport(c.opt, &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// TestRunMmpiLog: a real mmpi log (Stampede, 2 nodes x 16 ranks) is read as
// the survey; a ring of 32 ranks then has 2 hosts of 16 slots, every slot
// pair measured. The proposal is predicted at or below block, and keeps
// most ring edges inside a node: block crosses between the 2 nodes twice
// (the fewest possible), and the proposal, refined from every start,
// crosses 6 times over the slot pairs whose measured round trips are
// shortest, which lowers the slowest rank by 10% in the model (1,000
// messages of 1 KiB a neighbour: latency-bound, the node link idle).
func TestRunMmpiLog(t *testing.T) {
	log := filepath.Join(testutil.RepoRoot(t), "testdata", "mmpi", "stampede_2x16_ammpi_32_64_100.dat")
	flows, _ := shapes.Ring(32)
	r, err := runReport(Options{Survey: log, Matrix: writeMatrix(t, flows)}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Slots != 32 || r.Hosts != 2 || r.FilledPairs != 0 {
		t.Fatalf("slots %d hosts %d filled %d, want 32, 2, 0", r.Slots, r.Hosts, r.FilledPairs)
	}
	host := map[int]string{}
	for _, p := range r.Placement {
		host[p.Rank] = p.Host
	}
	cross := 0
	for i := 0; i < 32; i++ {
		if host[i] != host[(i+1)%32] {
			cross++
		}
	}
	if cross < 2 || cross%2 != 0 || cross > 8 {
		t.Errorf("proposal cuts %d ring edges between nodes, want 2 to 8", cross)
	}
	if p, b := r.ProposalPrediction(), r.Predictions[0]; b.Name != "block" || p.Run > b.Run {
		t.Errorf("proposal predicted %.6g s, block %.6g s", p.Run, b.Run)
	}
}

// TestCyclicSpreadsLikeMapByNode: 2 ranks on a survey of 4 nodes x 2:
// cyclic deals them over nodes as mpirun --map-by node does (ranks 0 and 1
// on different nodes), while block keeps them on one node.
func TestCyclicSpreadsLikeMapByNode(t *testing.T) {
	sv := fakeSurveyHosts(t, []string{"n1", "n2", "n3", "n4"}, 2)
	r, err := runReport(Options{Survey: sv, Matrix: writeMatrix(t, []profile.Flow{{Src: 0, Dst: 1, Bytes: 1e6, Messages: 100}})}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var block, cyclic placefile.Prediction
	for _, p := range r.Predictions {
		switch p.Name {
		case "block":
			block = p
		case "cyclic":
			cyclic = p
		}
	}
	// Block keeps the pair on a node (0.7 us round trips), cyclic splits
	// it over two (13 us): cyclic's transfer must be the larger.
	if !(cyclic.Transfer > block.Transfer) {
		t.Errorf("cyclic transfer %g, block %g: cyclic did not spread the 2 ranks over nodes", cyclic.Transfer, block.Transfer)
	}
}

// TestUnboundProfileRefused: a profile whose ranks were not bound to one
// cpu is not scored as the current placement without --accept-unbound or
// --current; with --accept-unbound it is, and the warning is kept.
func TestUnboundProfileRefused(t *testing.T) {
	sv := fakeSurveyHosts(t, []string{"h0", "h1"}, 2)
	flows := []profile.Flow{{Src: 0, Dst: 3, Bytes: 1e6, Messages: 100}, {Src: 3, Dst: 0, Bytes: 1e6, Messages: 100}}
	prof := fakeProfile(t, []string{"h0", "h0", "h1", "h1"}, []int{0, 1, 0, 1}, 1, 1, 0, 0, flows)
	rf := filepath.Join(prof, "ranks.csv")
	b, err := os.ReadFile(rf)
	if err != nil {
		t.Fatal(err)
	}
	// Every rank's cpuset becomes both cpus of its host: unbound.
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := 1; i < len(lines); i++ {
		f := strings.Split(lines[i], ",")
		f[4] = `"0-1"`
		lines[i] = strings.Join(f, ",")
	}
	os.WriteFile(rf, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	_, err = runReport(Options{Survey: sv, Profile: prof}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "ranks 0-3 are not bound") || !strings.Contains(err.Error(), "--accept-unbound") || !strings.Contains(err.Error(), "--bind-to core") {
		t.Fatalf("unbound profile: %v, want a refusal naming the ranks and --accept-unbound", err)
	}
	r, err := runReport(Options{Survey: sv, Profile: prof, AcceptUnbound: true}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Predictions[0].Name != "current" || !strings.Contains(strings.Join(r.Warnings, "\n"), "profile: ranks 0-3 are not bound") {
		t.Errorf("with --force: predictions %v, warnings %q", r.Predictions[0].Name, r.Warnings)
	}
}

// TestCalibration: the model's prediction for the placement the profile
// ran under is compared with what the profile measured. When the model is
// off by more than the gain it predicts, place says it can't tell.
func TestCalibration(t *testing.T) {
	sv, flows, hosts, cpus := splitPairs(t)
	// The model's time for each split pair's rank, the busier direction
	// between nodes: 40,000 x 6.5 us + 100 MB / 3 GB/s = 0.2933 s, all
	// off-node; with 0.1 s of computation the raw predicted run is 0.3933 s.
	const modelled = 40000*6.5e-6 + 100e6/3e9
	for _, c := range []struct {
		name        string
		comput, mpi float64
		want        string
		// Hand-computed: whether the factors fold, the off-node factor
		// (on-node stays 1: no pair shares a node), the predicted run
		// and its error against comput + mpi.
		folded         bool
		off, pred, err float64
	}{
		// The profile measured 0.6 s a rank; the model's current run is
		// near it: the proposal is advised. Every rank measured 0.5 s of
		// MPI against 0.2933 s modelled: one factor 0.5 / 0.2933 = 1.7045
		// explains them all, is folded, and predicts 0.1 + 0.5 = 0.6 s.
		{"model close", 0.1, 0.5, "Use the proposal", true, 0.5 / modelled, 0.6, 0},
		// The profile measured 20.1 s, ten times what the model predicts
		// for the same placement: its predicted gain cannot be trusted.
		// The factor 20 / 0.2933 = 68 is beyond MaxFactor (3): not
		// folded, the factors stay 1 and the prediction raw, 0.3933 s,
		// 0.3933 / 20.1 - 1 = -98% off.
		{"model far off", 0.1, 20, "Can't tell", false, 1, 0.1 + modelled, (0.1+modelled)/20.1 - 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			prof := fakeProfile(t, hosts, cpus, c.comput, c.mpi, 0, 0, flows)
			r, err := runReport(Options{Survey: sv, Profile: prof}, &bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			cal := r.Calibration
			if cal == nil || !shapes.Near(cal.MeasuredS, c.comput+c.mpi) || cal.Folded != c.folded || cal.OnNode != 1 || math.Abs(cal.OffNode-c.off) > 1e-6*c.off ||
				math.Abs(cal.PredictedS-c.pred) > 1e-6 || math.Abs(cal.Error-c.err) > 1e-6 || math.Abs(cal.RawPredictedS-(0.1+modelled)) > 1e-6 ||
				math.Abs(r.Predictions[0].Run-c.pred) > 1e-6 {
				t.Fatalf("calibration %+v (current predicted %g s): want folded %v, factors 1 and %.4f, predicted %.4f s against the measured %g, error %.4f",
					cal, r.Predictions[0].Run, c.folded, c.off, c.pred, c.comput+c.mpi, c.err)
			}
			if !strings.HasPrefix(r.Verdict, c.want) {
				t.Errorf("verdict %q, want %q", r.Verdict, c.want)
			}
		})
	}
}

// TestCalibrationFolds: a profile whose every rank measured 1.5x the
// modelled off-node time gets that factor folded into the model (and the
// current placement's prediction then matches the run); one whose ranks
// disagree (0.1 s and 0.9 s against the same model) is not folded, and
// the error stays in the verdict.
func TestCalibrationFolds(t *testing.T) {
	sv, flows, hosts, cpus := splitPairs(t)
	// Each split pair: 40,000 messages x 6.5 us + 100 MB / 3 GB/s.
	model := 40000*6.5e-6 + 100e6/3e9
	prof := fakeProfile(t, hosts, cpus, 0.1, 1.5*model, 0, 0, flows)
	var rep bytes.Buffer
	r, err := runReport(Options{Survey: sv, Profile: prof}, &rep)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Calibration
	if c == nil || !c.Folded || math.Abs(c.OffNode-1.5) > 1e-3 || c.OnNode != 1 || math.Abs(c.Error) > 1e-3 || math.Abs(c.RawError-(0.1+model)/(0.1+1.5*model)+1) > 1e-3 {
		t.Fatalf("calibration %+v: want folded, off-node factor 1.5, no error left, raw error %.3f", c, (0.1+model)/(0.1+1.5*model)-1)
	}
	if !strings.Contains(rep.String(), "calibration: measured communication is 1x the model's on-node and 1.5x off-node") {
		t.Errorf("report does not give the factors:\n%s", rep.String())
	}
	// Ranks 0-3 measured 0.1 s, ranks 4-7 0.9 s: no one factor fits.
	fn := filepath.Join(prof, "functions.csv")
	var b strings.Builder
	b.WriteString("rank,function,calls,time_s,late_s,sync_s,bytes_sent,bytes_recv,reqs_sent,reqs_recv\n")
	for i := 0; i < 8; i++ {
		fmt.Fprintf(&b, "%d,MPI_Sendrecv,100,%g,0,0,1000,1000,100,100\n", i, []float64{0.1, 0.9}[i/4])
	}
	os.WriteFile(fn, []byte(b.String()), 0o644)
	r, err = runReport(Options{Survey: sv, Profile: prof}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if c := r.Calibration; c == nil || c.Folded || !strings.Contains(c.Note, "not one consistent factor") || c.Error != c.RawError {
		t.Errorf("inconsistent ranks: calibration %+v, want not folded", c)
	}
}

// TestCantTellWeighsHeldOutError: a gain of 20% with an in-sample error
// of 1% is worth using, unless the model calibrated on half of the ranks
// misses the run by more than the gain (held-out error 30%).
func TestCantTellWeighsHeldOutError(t *testing.T) {
	for _, tc := range []struct {
		heldOut float64
		want    string
	}{{0.05, placefile.VerdictUse}, {0.3, placefile.VerdictCantTell}} {
		a := &placefile.Advice{}
		a.Shares = &placefile.Shares{CommShare: 0.5, WaitShare: 0.1}
		a.Calibration = &placefile.Calibration{Error: 0.01, HeldOutError: tc.heldOut, Folded: true}
		a.Predictions = []placefile.Prediction{{Name: "current", Run: 10}, {Name: "block", Run: 10}, {Name: "cyclic", Run: 12}, {Name: "proposal", Run: 8}}
		if got, _ := decide(a); got != tc.want {
			t.Errorf("held-out error %.2f, gain %.2f: verdict %s, want %s", tc.heldOut, a.Gain(), got, tc.want)
		}
	}
}

// TestBandwidthSizeNote: a survey whose bandwidth came from 64 KiB
// messages is flagged for an application of 1 MiB messages, with the size
// to survey at; not for 64 KiB messages, nor when the bandwidths are not
// measured (the caution says that) or nothing was sent.
func TestBandwidthSizeNote(t *testing.T) {
	m := model.NewLevelMachine(2, 1, 2, shapes.WorkedLevels)
	m.Bandwidth = placefile.BandwidthFit
	sizes := []int{64, 64 << 10}
	big := shapes.MustTraffic(shapes.Pairs(10, 1<<20), 4)
	note := bandwidthSizeNote(m, sizes, big)
	if !strings.Contains(note, "up to 64K bytes") || !strings.Contains(note, "average 1M") || !strings.Contains(note, "--sizes 64,1M") {
		t.Errorf("1 MiB messages on a 64 KiB fit: %q", note)
	}
	if note := bandwidthSizeNote(m, sizes, shapes.MustTraffic(shapes.Pairs(10, 64<<10), 4)); note != "" {
		t.Errorf("64 KiB messages on a 64 KiB fit: %q, want none", note)
	}
	if note := bandwidthSizeNote(m, []int{64, 1 << 20}, big); note != "" {
		t.Errorf("1 MiB messages on a 1 MiB fit: %q, want none", note)
	}
	m.Bandwidth = placefile.BandwidthDefaults
	if note := bandwidthSizeNote(m, sizes, big); note != "" {
		t.Errorf("default bandwidths: %q, want none (the verdict's caution covers it)", note)
	}
}

// TestMeasuredSizes: a survey at 64 B and 64 KiB whose size sweep went
// to 1 MiB has measured 1 MiB messages when the machine prices with the
// sweep, and only its own sizes when it does not.
func TestMeasuredSizes(t *testing.T) {
	s := &survey.Survey{}
	for i := range 4 {
		s.Ranks = append(s.Ranks, survey.Rank{Rank: i, Host: []string{"h0", "h1"}[i/2], CPU: i % 2})
	}
	for _, size := range []int{64, 64 << 10} {
		tab := survey.NewPairTable(4, size, survey.Median)
		for a := range 4 {
			for b := a + 1; b < 4; b++ {
				tab.Set(&survey.PairStats{A: a, B: b, Size: size, Samples: 5, Median: 10 + float64(size)/100})
			}
		}
		s.Tables = append(s.Tables, tab)
	}
	m, err := model.MachineFromSurvey(s, model.SurveyCostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := measuredSizes(s, m); !slices.Equal(got, []int{64, 64 << 10}) {
		t.Errorf("no sweep: %v", got)
	}
	for _, size := range sweep.Sizes(s.Sizes()) {
		rtt := 2 * (10 + float64(size)/100)
		s.Sweep = append(s.Sweep, sweep.Row{A: 0, B: 2, Where: sweep.Network, Size: size, Count: 3, MinUs: rtt, MedianUs: rtt})
	}
	if m, err = model.MachineFromSurvey(s, model.SurveyCostOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := measuredSizes(s, m); got[0] != 64 || got[len(got)-1] != 1<<20 || len(got) != 15 {
		t.Errorf("with the sweep: %v, want 64 B-1 MiB doubling", got)
	}
}

// TestPlaceRefusesBadNumbers: negative or absurd numbers are one clear
// error each, before anything is read (no survey is given here).
func TestPlaceRefusesBadNumbers(t *testing.T) {
	for _, c := range []struct {
		name string
		opt  func(*Options)
		want string
	}{
		{"ranks-per-node", func(o *Options) { o.Select.RanksPerNode = -3 }, "--ranks-per-node -3"},
		{"trials", func(o *Options) { o.Solve.Trials = -1 }, "--trials -1"},
		{"ranks", func(o *Options) { o.Ranks = -2 }, "--ranks -2"},
		{"node-link", func(o *Options) { o.Model.NodeGBps = -1 }, "--node-link -1: want GB/s above 0"},
	} {
		opt := Options{Survey: "no-such-survey", Matrix: "no-such-matrix"}
		c.opt(&opt)
		if _, err := runReport(opt, io.Discard); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
}

// TestRerunsMedianZero: a --reruns directory whose median application
// run is 0 cannot judge a prediction: an error, not a division by it.
func TestRerunsMedianZero(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "verify")
	v := &placefile.Verification{Tool: "latmap", RunsPerVariant: 1, Measured: placefile.Measured{CurrentMedian: 1, ProposalMedian: 1, Speedup: 1, AppTimed: true}}
	if err := placefile.WriteVerification(dir, false, v, []placefile.VerifyRun{{Run: 1, Variant: "current", Wall: 1}, {Run: 2, Variant: "proposal", Wall: 1}}); err != nil {
		t.Fatal(err)
	}
	_, err := runReport(Options{Survey: "no-such-survey", Profile: "no-such-profile", Reruns: dir}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "median application run is 0") {
		t.Errorf("error %v, want one about the median of 0", err)
	}
}

// TestPlaceNegativeFitLatencySurveyDir: a survey directory whose fit.csv
// has the bandwidth-bound fits (-283 us latency, 49.8 MB/s between
// the two nodes) is read by place; the pair split over the nodes is priced
// at 49.8 MB/s (not the 3 GB/s default), with half the 64 B round trip as
// latency, and the report says how many fits that was.
func TestPlaceNegativeFitLatencySurveyDir(t *testing.T) {
	dir := fakeSurveyHosts(t, []string{"a", "b"}, 1)
	s := readSurveyT(t, dir)
	s.Fits = []survey.Fit{{A: 0, B: 1, Latency: -283, Bandwidth: 49.8}}
	fixture := filepath.Join(t.TempDir(), "survey")
	if err := survey.WriteSurvey(fixture, s, false); err != nil {
		t.Fatal(err)
	}
	const iter, size = 20, 1 << 20
	var rep bytes.Buffer
	r, err := runReport(Options{Survey: fixture, Matrix: writeMatrix(t, []profile.Flow{{Src: 0, Dst: 1, Bytes: iter * size, Messages: iter}, {Src: 1, Dst: 0, Bytes: iter * size, Messages: iter}})}, &rep)
	if err != nil {
		t.Fatal(err)
	}
	if r.Bandwidth != "fit.csv" || len(r.Levels) != 1 || math.Abs(r.Levels[0].BandwidthGBps-0.0498) > 1e-9 {
		t.Errorf("bandwidth from %s, levels %+v: want fit.csv's 0.0498 GB/s", r.Bandwidth, r.Levels)
	}
	// Both slots are on different nodes, so every placement splits the
	// pair, priced on one direction (both move at once): 20 messages x
	// 6.5 us + 20 MiB / 49.8 MB/s (the node links carry the same each way,
	// each alone on its node).
	want := iter*6.5e-6 + iter*size/49.8e6
	for _, p := range r.Predictions {
		if !shapes.Near32(p.Run, want) {
			t.Errorf("%s: predicted %.6g s, want %.6g", p.Name, p.Run, want)
		}
	}
	if !strings.Contains(rep.String(), "1 pairs' fit in fit.csv gave no positive latency") {
		t.Errorf("report does not say the fit's latency was replaced:\n%s", rep.String())
	}
}
