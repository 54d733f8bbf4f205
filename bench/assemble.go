package bench

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/latmap/latmap/bench/fit"
	"github.com/latmap/latmap/bench/journal"
	"github.com/latmap/latmap/bench/roundtrip"
	"github.com/latmap/latmap/internal/atomicdir"
	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/internal/version"
	"github.com/latmap/latmap/mapper/survey"
)

// pairReport is one pair's result as the lower rank of the pair sends it to
// rank 0.
type pairReport struct {
	B, Size  int
	St       roundtrip.Stats
	Isolated float64
	// MmpiMean and MmpiSEM are the two mmpi log columns (see roundtrip.MmpiStats).
	MmpiMean, MmpiSEM float64
}

// rankReport is what every rank sends to rank 0 at the end: its facts and
// the pairs it led (those with a higher rank), so rank 0 receives data
// proportional to the number of pairs, never more.
type rankReport struct {
	Rank  survey.Rank
	Pairs []pairReport
	// NodeBW are the rank's send times of the node bandwidth phase.
	NodeBW []float64
}

// gather sends this rank's report to rank 0, which gets every rank's.
func (rs *rankSurvey) gather(facts survey.Rank, nodeTimes []float64) ([][]byte, error) {
	rep := summarize(rs.peerAt, rs.opt.Sizes, rs.data.samples, rs.data.isoSamples)
	rep.Rank, rep.NodeBW = facts, nodeTimes
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&rep); err != nil {
		return nil, fmt.Errorf("encoding rank %d's results: %w", rs.rank, err)
	}
	all, err := rs.c.Gather(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("gathering results: %w", err)
	}
	return all, nil
}

// summarize turns the round trips this rank timed (samples[size][i] with
// peer(i), isoSamples[size][b]) into the report of the pairs it led.
func summarize(peer func(i int) int, sizes []int, samples [][][]float64, isoSamples []map[int][]float64) rankReport {
	var rep rankReport
	for si, size := range sizes {
		for i, ts := range samples[si] {
			b := peer(i)
			pr := pairReport{B: b, Size: size, Isolated: math.NaN()}
			pr.MmpiMean, pr.MmpiSEM = roundtrip.MmpiStats(ts)
			pr.St = roundtrip.Summarize(ts)
			if is, ok := isoSamples[si][b]; ok {
				pr.Isolated = stats.Median(is)
			}
			rep.Pairs = append(rep.Pairs, pr)
		}
	}
	return rep
}

// assemble builds the survey (without meta) and the mmpi log of the
// smallest size from every rank's report, and returns every rank's node
// bandwidth times.
//
// sparse tables keep only the measured pairs (the nodes and sample scopes);
// the mmpi log, made only when opt.Mmpi asks for it, records repeats as
// the timed round trips a pair.
func assemble(all [][]byte, opt Options, repeats, n int, sparse bool) (*survey.Survey, *survey.MmpiLog, [][]float64, error) {
	if len(all) != n {
		return nil, nil, nil, fmt.Errorf("rank 0 received %d reports, want %d", len(all), n)
	}
	nodeTimes := make([][]float64, n)
	s := &survey.Survey{Ranks: make([]survey.Rank, n)}
	bySize := map[int]*survey.PairTable{}
	for _, size := range opt.Sizes {
		var t *survey.PairTable
		if sparse {
			t = survey.NewSparsePairTable(n, size)
		} else {
			t = survey.NewPairTable(n, size)
		}
		bySize[size] = t
		s.Tables = append(s.Tables, t)
	}
	var ml *survey.MmpiLog
	if opt.Mmpi != "" {
		ml = &survey.MmpiLog{Names: make([]string, n), Repeats: repeats, MsgLen: opt.Sizes[0] / 4,
			Mean: make([]float64, survey.TriLen(n)), SEM: make([]float64, survey.TriLen(n))}
	}
	for a, b := range all {
		var rep rankReport
		if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&rep); err != nil {
			return nil, nil, nil, fmt.Errorf("decoding rank %d's results: %w", a, err)
		}
		if rep.Rank.Rank != a {
			return nil, nil, nil, fmt.Errorf("report %d is from rank %d", a, rep.Rank.Rank)
		}
		s.Ranks[a], nodeTimes[a] = rep.Rank, rep.NodeBW
		if ml != nil {
			ml.Names[a] = rep.Rank.Host
		}
		for _, p := range rep.Pairs {
			t := bySize[p.Size]
			if t == nil || p.B <= a || p.B >= n {
				return nil, nil, nil, fmt.Errorf("rank %d reported pair (%d, %d) of %d bytes, which was not measured", a, a, p.B, p.Size)
			}
			t.Set(p.St.Pair(a, p.B, p.Size, p.Isolated))
			if ml != nil && p.Size == opt.Sizes[0] {
				i := survey.TriIndex(n, a, p.B)
				ml.Mean[i], ml.SEM[i] = p.MmpiMean, p.MmpiSEM
			}
		}
	}
	return s, ml, nodeTimes, nil
}

// write is rank 0's end of the survey: it assembles every rank's report
// (all) into the survey, with its meta.json (spec's repeats, env's MPI,
// the times took), the node bandwidth phase, the sample's check and the
// time budget's record, writes the outputs and removes the journals.
func (rs *rankSurvey) write(as assembled, spec runSpec, env rankEnv, took phaseTimes, nb nodePhase, sw *switchPhase, stderr io.Writer) error {
	opt, n, s := rs.opt, rs.n, as.s
	s.Meta = survey.SurveyMeta{
		Tool: "latmap", Version: version.Version, Start: took.start, End: time.Now(),
		CommandLine: opt.CommandLine, MPIVersion: env.MPIVersion, Launcher: env.Launcher,
		Ranks: n, Sizes: s.Sizes(), Repeats: spec.repeats, Warmup: opt.Warmup,
		Schedule: string(opt.Schedule), Scope: rs.scope.name, WtickSeconds: env.Wtick,
		MeasureSeconds: took.measure.Seconds(), IsolationSeconds: took.isolation.Seconds(),
		IsolatedPairs: len(rs.sched.iso),
	}
	if rs.resumed != nil {
		s.Meta.Warnings = append(s.Meta.Warnings, rs.resumed.note(opt.Sizes))
	}
	if s.Meta.Stopped = rs.stopped; rs.stopped != "" {
		s.Meta.Warnings = append(s.Meta.Warnings, "the survey was "+rs.stopped+
			": pairs.csv's samples are the round trips each pair had, and what came after was not measured")
	}
	if err := addNodeBandwidth(s, opt, nb.layout, nb.steps, as.nodeTimes, took.node); err != nil {
		return err
	}
	addSwitchBandwidth(s, opt, sw)
	if sw != nil {
		addProbe(s, opt, sw.probe)
	}
	if rs.scope.splan != nil {
		checkSample(s, rs.scope.splan.sample)
	}
	if rs.budget != nil {
		rs.budget.report(s, stderr)
	}
	if err := finish(s, as.ml, opt, stderr); err != nil {
		return err
	}
	return os.RemoveAll(journal.Dir(opt.Out))
}

// finish adds the interference, the warnings and the fits to s and writes
// the outputs (rank 0).
func finish(s *survey.Survey, ml *survey.MmpiLog, opt Options, stderr io.Writer) error {
	if x, ok := fit.Interference(s.Tables); ok {
		s.Meta.Interference = &x
		if x > InterferenceWarn {
			s.Meta.Warnings = append(s.Meta.Warnings, interferenceWarning(opt.Schedule, x))
		}
	}
	if moved := survey.Migrated(s.Ranks); moved != "" {
		s.Meta.Warnings = append(s.Meta.Warnings, fmt.Sprintf(
			"ranks %s moved to another CPU during the survey; "+
				"bind ranks to cores (mpirun --bind-to core, mpiexec -bind-to core with MPICH, srun --cpu-bind=cores) for stable results", moved))
	}
	s.Meta.Warnings = append(s.Meta.Warnings, survey.BindingWarnings(s.Ranks)...)
	slow := fit.HostFactors(s)
	s.Fits = fit.Survey(s, slow)
	if len(s.Fits) > 0 {
		s.Meta.FitFactors = fit.ConcurrencyFactors(s)
		if w := fit.SlowHostsWarning(s, slow); w != "" {
			s.Meta.Warnings = append(s.Meta.Warnings, w)
		}
	}
	for _, w := range s.Meta.Warnings {
		fmt.Fprintf(stderr, "latmap: warning: %s\n", w)
	}
	if err := survey.WriteSurvey(opt.Out, s, opt.Force); err != nil {
		return err
	}
	if opt.Mmpi != "" {
		ml.Host = s.Ranks[0].Host
		var b bytes.Buffer
		if err := survey.WriteMmpi(&b, ml); err != nil {
			return err
		}
		if err := atomicdir.WriteFile(opt.Mmpi, opt.Force, b.Bytes()); err != nil {
			return fmt.Errorf("--mmpi: %w", err)
		}
	}
	return nil
}

// interferenceWarning says what an interference above InterferenceWarn
// means for the schedule and what to do about it.
func interferenceWarning(sched Schedule, x float64) string {
	if sched == Sequential {
		return fmt.Sprintf("interference %.2f: pairs measured in turn were %.0f%% slower than with the other ranks asleep (median); "+
			"the ranks waiting for their turn took the cpus or the links from the pair that measured: run fewer ranks than cpus per node, bound to cores",
			x, 100*(x-1))
	}
	return fmt.Sprintf("interference %.2f: pairs measured at the same time were %.0f%% slower than alone (median); "+
		"the concurrent rounds distorted the latencies, rerun with --schedule sequential",
		x, 100*(x-1))
}
