package bench

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/latmap/latmap/internal/atomicdir"
	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/internal/version"
	"github.com/latmap/latmap/mapper/survey"
)

// comm is the part of MPI a survey uses: mpi.go implements it with cgo over
// MPI_COMM_WORLD; the tests implement it with goroutines.
type comm interface {
	Rank() int
	Size() int
	// PingPong does warm untimed round trips of size bytes with peer (this
	// rank sends first when lo), then len(out) round trips timed one by one
	// on the lo side, which stores them in out in microseconds (the hi side
	// only uses len(out)).
	PingPong(peer int, lo bool, size, warm int, out []float64) error
	// Wait is a barrier during which the rank sleeps instead of spinning;
	// a rank that was active in the round may first spin briefly, as its
	// peers are likely to arrive soon.
	Wait(active bool) error
	// Gather collects every rank's bytes at rank 0 (nil elsewhere).
	Gather(b []byte) ([][]byte, error)
	// Bcast returns rank 0's bytes on every rank.
	Bcast(b []byte) ([]byte, error)
	// Abort ends the whole job (MPI_Abort).
	Abort(code int)
}

// rankEnv is what a rank knows about itself and its MPI library.
type rankEnv struct {
	MPIVersion string
	Launcher   string
	Wtick      float64
	// Facts returns where the rank runs now (host, cpu, cpuset, socket...).
	Facts func() survey.Rank
	// CPU returns the CPU the rank runs on now.
	CPU    func() int
	Stderr io.Writer
}

// pairReport is one pair's result as the lower rank of the pair sends it to
// rank 0.
type pairReport struct {
	B, Size  int
	St       Stats
	Isolated float64
	// MmpiMean and MmpiSEM are the two mmpi log columns (see MmpiStats).
	MmpiMean, MmpiSEM float64
}

// rankReport is what every rank sends to rank 0 at the end: its facts and
// the pairs it led (those with a higher rank), so rank 0 receives data
// proportional to the number of pairs, never more.
type rankReport struct {
	Rank  survey.Rank
	Pairs []pairReport
}

// checkOutputs fails when an output exists without force.
func checkOutputs(opt *Options) error {
	if err := atomicdir.CheckDest(opt.Out, opt.Force); err != nil {
		return err
	}
	if opt.Mmpi != "" {
		if err := atomicdir.CheckDest(opt.Mmpi, opt.Force); err != nil {
			return fmt.Errorf("--mmpi: %w", err)
		}
	}
	return nil
}

// agree runs check on rank 0 and tells every rank its outcome, so that all
// ranks stop together. Rank 0 returns check's error; the others return
// errReported.
func agree(c comm, check func() error) error {
	var msg []byte
	var err error
	if c.Rank() == 0 {
		if err = check(); err != nil {
			msg = []byte(err.Error())
		}
	}
	got, berr := c.Bcast(msg)
	if berr != nil {
		return berr
	}
	if len(got) == 0 {
		return nil
	}
	if c.Rank() == 0 {
		return err
	}
	return errReported
}

// errReported is returned on ranks other than 0 when rank 0 reported the
// error for the whole job; Run turns it into nil so only rank 0 prints it.
var errReported = fmt.Errorf("error reported by rank 0")

// measure measures every pair on c and, on rank 0, writes the outputs.
func measure(ctx context.Context, c comm, opt Options, env rankEnv) error {
	rank, n := c.Rank(), c.Size()
	if err := agree(c, func() error {
		if n < 2 {
			return fmt.Errorf("survey needs at least 2 ranks, got %d; run it under mpirun -np N (N >= 2) or srun -n N", n)
		}
		return checkOutputs(&opt)
	}); err != nil {
		return err
	}
	stderr := env.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	start := time.Now()
	facts := env.Facts()
	facts.Rank = rank

	var plan Plan = CirclePlan{N: n}
	phase := "rounds"
	var iso []Pair
	if opt.Schedule == Sequential {
		plan, phase = SequentialPlan{N: n}, "sequential"
	} else {
		iso = IsolationSample(n, opt.IsolatedFraction)
	}
	isoPlan := ListPlan(iso)

	var prog *Progress
	if rank == 0 && (opt.Progress || IsTerminal(stderr)) {
		per := (opt.Repeats + opt.Burst - 1) / opt.Burst * (plan.Rounds() + isoPlan.Rounds())
		if opt.Warmup > 0 {
			per += plan.Rounds()
		}
		prog = NewProgress(stderr, IsTerminal(stderr), per*len(opt.Sizes), nil)
	}

	// samples[s][b-rank-1][rep]: round trips this rank timed with b > rank.
	samples := make([][][]float64, len(opt.Sizes))
	isoSamples := make([]map[int][]float64, len(opt.Sizes))
	for s := range opt.Sizes {
		samples[s] = make([][]float64, n-1-rank)
		for i := range samples[s] {
			samples[s][i] = make([]float64, opt.Repeats)
		}
		isoSamples[s] = map[int][]float64{}
		for _, p := range iso {
			if p.A == rank {
				isoSamples[s][p.B] = make([]float64, opt.Repeats)
			}
		}
	}

	// runRound measures one round and waits for every rank to finish it:
	// warm untimed round trips, then k timed ones stored from dst(peer)[at].
	scratch := make([]float64, opt.Burst)
	runRound := func(pl Plan, r, size, warm, k int, dst func(peer int) []float64, at int) error {
		if err := ctx.Err(); err != nil {
			c.Abort(130)
			return err
		}
		p := pl.Partner(r, rank)
		if p >= 0 {
			out := scratch[:k]
			if rank < p && k > 0 {
				out = dst(p)[at : at+k]
			}
			if err := c.PingPong(p, rank < p, size, warm, out); err != nil {
				c.Abort(1)
				return fmt.Errorf("ping-pong of ranks %d and %d: %w", rank, p, err)
			}
		}
		return c.Wait(p >= 0)
	}
	// Repetitions are the outer loop, in passes of Burst round trips per
	// pair, so every pair's samples are spread over the whole run. Each pass
	// starts with one untimed round trip: both ranks are then awake and in
	// the ping-pong, whatever the skew of the barrier before it.
	passes := (opt.Repeats + opt.Burst - 1) / opt.Burst
	measurePasses := func(pl Plan, size int, pos Position, dst func(peer int) []float64) error {
		pos.Reps, pos.NumRound = passes, pl.Rounds()
		for ps := 0; ps < passes; ps++ {
			at := ps * opt.Burst
			k := min(opt.Burst, opt.Repeats-at)
			pos.Rep = ps + 1
			for r := 0; r < pl.Rounds(); r++ {
				if err := runRound(pl, r, size, 1, k, dst, at); err != nil {
					return err
				}
				pos.Round = r + 1
				prog.Step(pos)
			}
		}
		return nil
	}

	if err := c.Wait(false); err != nil {
		return err
	}
	measureStart := time.Now()
	var isoTime time.Duration
	for si, size := range opt.Sizes {
		pos := Position{Size: size, SizeIdx: si + 1, Sizes: len(opt.Sizes), NumRound: plan.Rounds()}
		if opt.Warmup > 0 {
			pos.Phase = "warm-up"
			for r := 0; r < plan.Rounds(); r++ {
				if err := runRound(plan, r, size, opt.Warmup, 0, nil, 0); err != nil {
					return err
				}
				pos.Round = r + 1
				prog.Step(pos)
			}
		}
		pos.Phase = phase
		if err := measurePasses(plan, size, pos, func(peer int) []float64 { return samples[si][peer-rank-1] }); err != nil {
			return err
		}
		t0 := time.Now()
		if len(iso) > 0 {
			pos.Phase = "isolation"
			if err := measurePasses(isoPlan, size, pos, func(peer int) []float64 { return isoSamples[si][peer] }); err != nil {
				return err
			}
		}
		isoTime += time.Since(t0)
	}
	measureTime := time.Since(measureStart) - isoTime
	prog.Done()
	facts.CPUEnd = env.CPU()
	facts.Migrated = facts.CPU >= 0 && facts.CPUEnd >= 0 && facts.CPU != facts.CPUEnd

	rep := summarize(rank, opt.Sizes, samples, isoSamples)
	rep.Rank = facts
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&rep); err != nil {
		return fmt.Errorf("encoding rank %d's results: %w", rank, err)
	}
	all, err := c.Gather(buf.Bytes())
	if err != nil {
		return fmt.Errorf("gathering results: %w", err)
	}
	if rank != 0 {
		return nil
	}
	s, ml, err := assemble(all, opt, n)
	if err != nil {
		return err
	}
	s.Meta = survey.SurveyMeta{
		Tool: "latmap", Version: version.Version, Start: start, End: time.Now(),
		CommandLine: opt.CommandLine, MPIVersion: env.MPIVersion, Launcher: env.Launcher,
		Ranks: n, Sizes: opt.Sizes, Repeats: opt.Repeats, Warmup: opt.Warmup,
		Schedule: string(opt.Schedule), Scope: "all", WtickSeconds: env.Wtick,
		MeasureSeconds: measureTime.Seconds(), IsolationSeconds: isoTime.Seconds(),
		IsolatedPairs: len(iso),
	}
	return finish(s, ml, opt, stderr)
}

// summarize turns the round trips this rank timed (samples[size][b-rank-1],
// isoSamples[size][b]) into the report of the pairs it led.
func summarize(rank int, sizes []int, samples [][][]float64, isoSamples []map[int][]float64) rankReport {
	var rep rankReport
	for si, size := range sizes {
		for i, ts := range samples[si] {
			b := rank + 1 + i
			pr := pairReport{B: b, Size: size, Isolated: math.NaN()}
			pr.MmpiMean, pr.MmpiSEM = MmpiStats(ts)
			pr.St = Summarize(ts)
			if is, ok := isoSamples[si][b]; ok {
				pr.Isolated = stats.Median(is)
			}
			rep.Pairs = append(rep.Pairs, pr)
		}
	}
	return rep
}

// finish adds the interference, the warnings and the fits to s and writes
// the outputs (rank 0).
func finish(s *survey.Survey, ml *MmpiLog, opt Options, stderr io.Writer) error {
	if x, ok := Interference(s.Tables); ok && opt.Schedule == Rounds {
		s.Meta.Interference = &x
		if x > InterferenceWarn {
			s.Meta.Warnings = append(s.Meta.Warnings, fmt.Sprintf(
				"interference %.2f: pairs measured at the same time were %.0f%% slower than alone (median); the concurrent rounds distorted the latencies, rerun with --schedule sequential",
				x, 100*(x-1)))
		}
	}
	if moved := migrated(s.Ranks); moved != "" {
		s.Meta.Warnings = append(s.Meta.Warnings, fmt.Sprintf(
			"ranks %s moved to another CPU during the survey; bind ranks to cores (mpirun --bind-to core, mpiexec -bind-to core with MPICH, srun --cpu-bind=cores) for stable results", moved))
	}
	s.Fits = FitSurvey(s)
	for _, w := range s.Meta.Warnings {
		fmt.Fprintf(stderr, "latmap: warning: %s\n", w)
	}
	if err := survey.WriteSurvey(opt.Out, s, opt.Force); err != nil {
		return err
	}
	if opt.Mmpi != "" {
		ml.Host = s.Ranks[0].Host
		var b bytes.Buffer
		if err := WriteMmpi(&b, ml); err != nil {
			return err
		}
		if err := atomicdir.WriteFile(opt.Mmpi, opt.Force, b.Bytes()); err != nil {
			return fmt.Errorf("--mmpi: %w", err)
		}
	}
	return nil
}

// assemble builds the survey (without meta) and the mmpi log of the
// smallest size from every rank's report.
func assemble(all [][]byte, opt Options, n int) (*survey.Survey, *MmpiLog, error) {
	if len(all) != n {
		return nil, nil, fmt.Errorf("rank 0 received %d reports, want %d", len(all), n)
	}
	s := &survey.Survey{Ranks: make([]survey.Rank, n)}
	bySize := map[int]*survey.PairTable{}
	for _, size := range opt.Sizes {
		t := survey.NewPairTable(n, size)
		bySize[size] = t
		s.Tables = append(s.Tables, t)
	}
	ml := &MmpiLog{Names: make([]string, n), Repeats: opt.Repeats, MsgLen: opt.Sizes[0] / 4,
		Mean: make([]float64, survey.TriLen(n)), SEM: make([]float64, survey.TriLen(n))}
	for a, b := range all {
		var rep rankReport
		if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&rep); err != nil {
			return nil, nil, fmt.Errorf("decoding rank %d's results: %w", a, err)
		}
		if rep.Rank.Rank != a {
			return nil, nil, fmt.Errorf("report %d is from rank %d", a, rep.Rank.Rank)
		}
		s.Ranks[a] = rep.Rank
		ml.Names[a] = rep.Rank.Host
		for _, p := range rep.Pairs {
			t := bySize[p.Size]
			if t == nil || p.B <= a || p.B >= n {
				return nil, nil, fmt.Errorf("rank %d reported pair (%d, %d) of %d bytes, which was not measured", a, a, p.B, p.Size)
			}
			t.Set(&survey.PairStats{A: a, B: p.B, Size: p.Size, Samples: p.St.Samples,
				Mean: p.St.Mean, Std: p.St.Std, Min: p.St.Min, Median: p.St.Median, P99: p.St.P99,
				Isolated: p.Isolated})
			if p.Size == opt.Sizes[0] {
				i := survey.TriIndex(n, a, p.B)
				ml.Mean[i], ml.SEM[i] = p.MmpiMean, p.MmpiSEM
			}
		}
	}
	return s, ml, nil
}

// Interference is the median, over every pair and size re-measured in
// isolation, of the ratio of its median round trip measured concurrently
// to the one measured alone. ok is false when no pair was re-measured.
func Interference(tables []*survey.PairTable) (x float64, ok bool) {
	var ratios []float64
	for _, t := range tables {
		for a := 0; a < t.N; a++ {
			for b := a + 1; b < t.N; b++ {
				iso, med := t.At(survey.Isolated, a, b), t.At(survey.Median, a, b)
				if iso > 0 && !math.IsNaN(med) {
					ratios = append(ratios, med/iso)
				}
			}
		}
	}
	if len(ratios) == 0 {
		return 0, false
	}
	return stats.Median(ratios), true
}

func migrated(ranks []survey.Rank) string {
	var moved []string
	for _, r := range ranks {
		if r.Migrated {
			moved = append(moved, strconv.Itoa(r.Rank))
		}
	}
	return strings.Join(moved, ", ")
}
