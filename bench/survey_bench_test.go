package bench_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/internal/vcluster"
	"github.com/latmap/latmap/mapper/survey"
)

// BenchmarkSurveyVirtualCluster is make bench-survey: on a virtual cluster
// of 4 nodes x 2 ranks it prints
//   - the wall time of the measurement phase of the rounds schedule over
//     that of the sequential one (same ranks, size and repeats, same run),
//     target <= 0.5;
//   - the median round trip latmap reports for a pair over the one a
//     minimal C ping-pong (testdata/mpi/pingpong.c) reports for the same
//     pair in the same run, for a same-node and a cross-node pair, target
//     within 5%.
//
// Runs alternate between the two sides and the figures are medians over
// the rounds, because the machine is shared and noisy.
func BenchmarkSurveyVirtualCluster(b *testing.B) {
	testutil.RequireMPI(b)
	bin := testutil.LatmapBin(b)
	c := vcluster.Start(b, 4, 2)
	dir := b.TempDir()
	pp := testutil.BuildMPIProgram(b, dir, "pingpong", filepath.Join(testutil.RepoRoot(b), "testdata", "mpi", "pingpong.c"))
	const trials, overheadTrials = 3, 11
	repeats := "200"

	run := func(args ...string) string {
		b.Helper()
		o, err := mpirun(b, 5*time.Minute, nil, args...)
		if err != nil {
			b.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, o)
		}
		return o
	}
	n := 0
	surveyOn := func(np int, extra []string, schedule, reps string) *survey.Survey {
		n++
		out := filepath.Join(dir, fmt.Sprintf("s%d", n))
		return runSurvey(b, append(c.MpirunArgs(np), extra...), bin, out, "--schedule", schedule, "--repeats", reps)
	}

	// 1. Rounds against sequential, 8 ranks.
	var rounds, roundsIso, seq []float64
	var interference []float64
	for i := 0; i < trials; i++ {
		s := surveyOn(8, nil, "sequential", repeats)
		seq = append(seq, s.Meta.MeasureSeconds)
		r := surveyOn(8, nil, "rounds", repeats)
		rounds = append(rounds, r.Meta.MeasureSeconds)
		roundsIso = append(roundsIso, r.Meta.MeasureSeconds+r.Meta.IsolationSeconds)
		if r.Meta.Interference != nil {
			interference = append(interference, *r.Meta.Interference)
		}
	}
	ratio := stats.Median(rounds) / stats.Median(seq)
	fmt.Printf("survey 8 ranks (4 nodes x 2), 64 B, %s repeats, %d trials: measurement phase rounds %.3f s, sequential %.3f s (medians)\n",
		repeats, trials, stats.Median(rounds), stats.Median(seq))
	fmt.Printf("  rounds/sequential wall time: %.3f (target <= 0.5); with the isolation re-measurement: %.3f; interference %.2f\n",
		ratio, stats.Median(roundsIso)/stats.Median(seq), stats.Median(interference))
	b.ReportMetric(ratio, "rounds/sequential")
	b.ReportMetric(stats.Median(roundsIso)/stats.Median(seq), "rounds+iso/sequential")

	// 2. Overhead against a bare C ping-pong, the same pair in 2-rank jobs:
	// by-slot mapping puts both ranks on node 1 (bound to cores 0 and 1),
	// by-node on nodes 1 and 2. Each node's daemon binds its first rank to
	// core 0, so the cross-node pair is left unbound: otherwise both "nodes"
	// would share one core, which no real pair of nodes does.
	medRe := regexp.MustCompile(`median_us ([0-9.]+)`)
	for _, pl := range []struct {
		name  string
		extra []string
	}{{"same-node", nil}, {"cross-node", []string{"--map-by", "node", "--bind-to", "none"}}} {
		var cMed, lMed, ratios []float64
		for i := 0; i < overheadTrials; i++ {
			args := append(c.MpirunArgs(2), pl.extra...)
			o := run(append(args, pp, "1000", "64", "10")...)
			m := medRe.FindStringSubmatch(o)
			if m == nil {
				b.Fatalf("pingpong printed no median:\n%s", o)
			}
			v, _ := strconv.ParseFloat(m[1], 64)
			cMed = append(cMed, v)
			s := surveyOn(2, pl.extra, "sequential", "1000")
			lMed = append(lMed, s.Tables[0].At(survey.Median, 0, 1))
			ratios = append(ratios, lMed[i]/cMed[i])
		}
		// The figure is the median of the per-trial ratios: each trial runs
		// the two programs back to back, so a change of the machine's load
		// (it is shared) between trials cancels out.
		over := stats.Median(ratios) - 1
		fmt.Printf("  %s pair, 64 B, 1000 round trips, %d trials: overhead %+.1f%% (median of per-trial latmap/C ratios; target within 5%%); medians latmap %.3f us, bare C ping-pong %.3f us; per trial latmap %s, C %s\n",
			pl.name, overheadTrials, 100*over, stats.Median(lMed), stats.Median(cMed), fmtList(lMed), fmtList(cMed))
		b.ReportMetric(100*over, pl.name+"-overhead-%")
	}
}

func fmtList(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strings.Join(s, " ")
}
