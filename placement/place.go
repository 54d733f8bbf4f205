package placement

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/latmap/latmap/internal/atomicdir"
	"github.com/latmap/latmap/internal/launcher"
	"github.com/latmap/latmap/internal/version"
	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/network"
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/placement/model"
	"github.com/latmap/latmap/placement/model/rounds"
	"github.com/latmap/latmap/placement/solve"
)

// FormatAuto is the --format that writes Open MPI 5's rankfile when the
// mpirun on PATH is Open MPI 5, and Open MPI 4's otherwise.
const FormatAuto = "auto"

// DefaultSeed is latmap place's seed of the solver's randomised trials
// (--seed): Options.Solve.Seed's zero value is a seed like any other, so
// callers that mean to do what the command does set this one.
const DefaultSeed = 1

// Options are the inputs of latmap place.
type Options struct {
	// Survey is a survey directory, or an mmpi log file.
	Survey string
	// HostPattern extracts node names from an mmpi log's processor names
	// (see survey.CompileHostPattern).
	HostPattern string
	// Profile is a profile directory (traffic, per-rank times, current
	// placement).
	Profile string
	// Matrix is a plain communication matrix (src,dst,bytes,messages); it
	// replaces the profile's matrix when both are given.
	Matrix string
	// Topology is a network description (a SimGrid platform, Slurm's
	// topology.conf, or latmap's plain torus/dragonfly description):
	// flows are routed over its links and priced link by link.
	Topology []string
	// WhatIf are network changes to predict the run on
	// ("[CLASS:]bw=F[,lat=F]", see docs/place.md).
	WhatIf []string
	// Current is a placement file (any format latmap writes) scored as the
	// current placement, instead of where the profile's ranks ran.
	Current string
	// SameSlots proposes over the current placement's own slots only: a
	// renumbering of the job's processes where they are (what latmap
	// profile --reorder applies inside the job). Needs the current
	// placement. Renumber, when set, is the file the renumbering is
	// written to (placefile.WriteRenumbering; needs SameSlots).
	SameSlots bool
	Renumber  string
	// Reruns is a latmap verify directory whose "current" runs were the
	// profiled placement: their application times judge the prediction of
	// that placement out of sample, and "Can't tell" weighs the gain
	// against that error too (needs Profile).
	Reruns string
	// Ranks states the number of ranks for --matrix (default: largest
	// rank named + 1, or the profile's ranks).
	Ranks int
	// Output is the launcher file to write ("" = none); Format its format
	// (a placefile format; "" is openmpi, FormatAuto asks the mpirun on
	// PATH).
	Output string
	Format string
	// Force replaces an existing Output; AlwaysWrite writes it even when
	// the verdict does not advise the proposal.
	Force, AlwaysWrite bool
	// AcceptUnbound takes an unbound profile's starting cpus as the
	// placement it ran under (they may have moved).
	AcceptUnbound bool
	// App is the program and arguments for the printed launch line.
	App []string

	Select model.SelectOptions
	Costs  model.SurveyCostOptions
	Model  model.ModelOptions
	Solve  solve.Options
	// Notes receives what the survey lacks against its meta.json
	// (survey.Lacks, also among the advice's warnings) as every reader
	// of a survey says it (nil: nowhere).
	Notes io.Writer
}

// Run reads the inputs, proposes a placement and writes the launcher
// file when the proposal is worth it (or with --force), and returns the
// advice, whose report (plots/report.Place) the caller writes.
func Run(opt Options) (*placefile.Advice, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	in, err := loadInputs(opt)
	if err != nil {
		return nil, err
	}
	a, place, err := propose(opt, in)
	if err != nil {
		return nil, err
	}
	worth := a.VerdictKind == placefile.VerdictUse
	if opt.Output != "" {
		if err := writeLaunchFile(a, opt, in.m, place, worth); err != nil {
			return nil, err
		}
	}
	if opt.Renumber != "" {
		if err := writeRenumbering(a, opt.Renumber); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// writeRenumbering writes the proposal as a renumbering of the current
// placement's processes (--renumber; replaced when it exists: it is an
// input of the job, rewritten each time).
func writeRenumbering(a *placefile.Advice, path string) error {
	r, err := placefile.RenumberingOf(a)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := placefile.WriteRenumbering(&b, r); err != nil {
		return err
	}
	return atomicdir.WriteFile(path, true, b.Bytes())
}

// propose calibrates the model on the profile's own run, solves, and
// predicts the current, block, cyclic and proposed placements.
func propose(opt Options, in *inputs) (*placefile.Advice, []int32, error) {
	a := newAdvice(opt, in)
	slots, usable, err := selectSlots(opt, in)
	if err != nil {
		return nil, nil, err
	}
	a.HostsUsed = hostsUsed(in.m, slots)
	if in.prof != nil {
		sh := model.SharesOf(in.rt)
		a.Shares = &sh
		if in.currentErr != nil {
			a.Warnings = append(a.Warnings, in.currentErr.Error())
		}
		if in.profilePlace != nil && sh.SlowestElapsed > 0 {
			a.Calibration = model.Calibrate(in.md, in.t, in.profilePlace, in.rt, sh.SlowestElapsed)
			in.calibrated()
		}
	}
	t0 := time.Now()
	starts := []solve.Start{}
	if cyc := in.m.Cyclic(usable, in.t.N); !slices.Equal(cyc, in.m.Cyclic(slots, in.t.N)) {
		starts = append(starts, solve.Start{Name: "cyclic (all nodes)", Place: cyc})
	}
	if in.current != nil {
		starts = append(starts, solve.Start{Name: solve.CurrentStart, Place: in.current})
	}
	if in.rt != nil && slices.ContainsFunc(in.rt.Rounds[:], func(c []float64) bool { return slices.ContainsFunc(c, func(x float64) bool { return x > 0 }) }) {
		// Small collectives: the candidates are compared with them.
		opt.Solve.Collectives = func(place []int32) []float64 {
			return rounds.Add(make([]float64, in.t.N), &in.rt.Rounds, func(k int) float64 { return in.md.CollectiveLatency(k, place) })
		}
	}
	solveOn := func(md *model.Model) (*solve.Solution, error) {
		return solve.Solve(md, in.t, model.BaseTimes(in.rt, in.t.N), slots, starts, opt.Solve)
	}
	sol, err := solveOn(cmp.Or(in.search, in.md))
	if err == nil && in.hedge != nil && in.tree == nil {
		err = hedgeFar(sol, in, slots, solveOn)
	}
	if err != nil {
		return nil, nil, err
	}
	a.Solver = placefile.SolverInfo{Seed: opt.Solve.Seed, Seconds: time.Since(t0).Seconds(), Winner: sol.Winner,
		FellBack: sol.FellBack, Candidates: sol.Candidates, Note: sol.Note}
	predict(a, in, slots, usable, sol.Place)
	if (in.search != nil && keepRouted(a, sol, in, slots)) || keepOnEitherRouting(a, sol, in, slots, usable) {
		a.Predictions, a.Placement = nil, nil
		predict(a, in, slots, usable, sol.Place)
	}
	a.Network = networkInfo(in.md)
	if err := predictWhatIfs(a, opt, in, slots); err != nil {
		return nil, nil, err
	}
	if err := judgeOnReruns(a, in.reruns, opt.Reruns); err != nil {
		return nil, nil, err
	}
	a.VerdictKind, _ = decide(a)
	return a, sol.Place, nil
}

// keepRouted holds a proposal searched on another model than in.md's
// (in.search) to solve.Solve's rule, by a's predictions on in.md: one
// not predicted solve.WorthIt faster than the current placement (else
// block) is that placement. It reports whether it changed the proposal.
func keepRouted(a *placefile.Advice, sol *solve.Solution, in *inputs, slots []int32) bool {
	keep, name := keptPlace(in, slots)
	kept, ok := a.Named(name)
	if !ok || slices.Equal(sol.Place, keep) || a.ProposalPrediction().Run <= (1-solve.WorthIt)*kept.Run {
		return false
	}
	searched := "with each group's uplinks as one was not predicted faster routed"
	if in.found != nil && in.found.Kind == network.KindRouters {
		searched = "with every flow routed minimally was not predicted faster with the flows the round trips show through " +
			"a third group spread"
	}
	sol.Place, a.Solver.Winner = keep, name
	a.Solver.Note = strings.TrimPrefix(a.Solver.Note+"; ", "; ") + "the proposal searched " + searched + ": " + name + " kept"
	return true
}

// keptPlace is what runs today: the current placement, else block.
func keptPlace(in *inputs, slots []int32) ([]int32, string) {
	if in.current != nil {
		return in.current, solve.CurrentStart
	}
	return model.Block(slots, in.t.N), "block"
}

// keepOnEitherRouting holds a proposal on a network found in the survey,
// whose routing is a guess (in.spread), to what runs today (keptPlace)
// unless every flow spread over its shortest paths instead also
// predicts it solve.WorthIt faster than that: a gain only one guess
// gives is not advised. On the simulated dragonfly of two global links,
// found in the round trips, LAMMPS peptide's proposal was predicted 4.9%
// faster than block routed in dimension order, 3.0% slower spread, and
// simulated 6% slower; the periodic halo's 3.2% faster, 1.2% spread,
// and simulated 0.2% slower. A proposal held back gives way to cyclic
// over the usable nodes where that is predicted solve.WorthIt faster
// than what runs today on both (the same rule, for the one other layout
// place always prices): on the site-wired dragonfly of 4 x 4 routers,
// from the survey alone, NPB MG's proposal was held to block while
// cyclic was predicted 4.4% faster on the rule's routes, and simulated
// 4.4% faster than block. It reports whether it changed the proposal.
func keepOnEitherRouting(a *placefile.Advice, sol *solve.Solution, in *inputs, slots, usable []int32) bool {
	keep, name := keptPlace(in, slots)
	if in.spread == nil || slices.Equal(sol.Place, keep) {
		return false
	}
	spread := func(place []int32) float64 { return model.Predict("", in.spread, in.t, place, in.rt).Run }
	p, k := spread(sol.Place), spread(keep)
	if p <= (1-solve.WorthIt)*k {
		return false
	}
	how := fmt.Sprintf("%.1f%% slower than %s", 100*(p/k-1), name)
	if p <= k {
		how = fmt.Sprintf("only %.1f%% faster than %s", 100*(1-p/k), name)
	}
	note := fmt.Sprintf("the proposal was predicted %s %s: %s kept", how, in.spreadIs, name)
	if cyc, ok := cyclicOnBoth(a, in, usable, keep, name, k); ok {
		keep, name = cyc, "cyclic"
		note = strings.TrimSuffix(note, " kept") + " would be kept, but cyclic is predicted faster than it on both: cyclic"
	}
	sol.Place, a.Solver.Winner = keep, name
	a.Solver.Note = strings.TrimPrefix(a.Solver.Note+"; ", "; ") + note
	return true
}

// cyclicOnBoth is cyclic over the usable nodes, and whether it is
// predicted solve.WorthIt faster than keep (named name; kSpread its run
// on in.spread) both as a's predictions price them and on in.spread.
func cyclicOnBoth(a *placefile.Advice, in *inputs, usable, keep []int32, name string, kSpread float64) ([]int32, bool) {
	cyc := in.md.Cyclic(usable, in.t.N)
	c, okC := a.Named("cyclic")
	k, okK := a.Named(name)
	if slices.Equal(cyc, keep) || !okC || !okK || c.Run > (1-solve.WorthIt)*k.Run {
		return nil, false
	}
	return cyc, model.Predict("", in.spread, in.t, cyc, in.rt).Run <= (1-solve.WorthIt)*kSpread
}

// selectSlots picks the slots to propose over, and the usable slots
// cyclic deals over as mpirun --map-by node does (every usable node, not
// only those the proposal fills); with SameSlots both are the current
// placement's slots.
func selectSlots(opt Options, in *inputs) (slots, usable []int32, err error) {
	if opt.SameSlots {
		if in.current == nil {
			why := "give --current FILE, or a --profile taken with ranks bound to surveyed cpus"
			if in.currentErr != nil {
				why += " (" + in.currentErr.Error() + ")"
			}
			return nil, nil, fmt.Errorf("--same-slots needs the current placement: %s", why)
		}
		slots = slices.Clone(in.current)
		slices.Sort(slots)
		return slots, slots, nil
	}
	if slots, err = in.m.SelectSlots(in.t.N, opt.Select); err != nil {
		return nil, nil, err
	}
	usable, err = in.m.UsableSlots(opt.Select)
	return slots, usable, err
}

// judgeOnReruns compares the predicted run of the profiled placement
// with the median application run latmap verify measured of it (v, the
// --reruns directory dir; nil does nothing): other runs than the
// profile's, so an out-of-sample error.
func judgeOnReruns(a *placefile.Advice, v *placefile.Verification, dir string) error {
	if v == nil {
		return nil
	}
	c := a.Calibration
	if c == nil {
		return fmt.Errorf("--reruns %s: the profile's placement is not known (its ranks were not bound to surveyed cpus), "+
			"so there is no prediction of it to judge", dir)
	}
	c.Reruns = &placefile.Reruns{Dir: dir, Runs: v.RunsPerVariant, MeasuredS: v.CurrentAppMedian, Error: math.Abs(c.PredictedS/v.CurrentAppMedian - 1)}
	return nil
}

// check validates the options before anything is read.
func (opt *Options) check() error {
	if opt.Survey == "" {
		return fmt.Errorf("--survey is required (a directory written by latmap survey or latmap import)")
	}
	if opt.Profile == "" && opt.Matrix == "" {
		return fmt.Errorf("give --profile DIR (from latmap profile) or --matrix FILE (src,dst,bytes,messages)")
	}
	if opt.Renumber != "" && !opt.SameSlots {
		return fmt.Errorf("--renumber needs --same-slots: a renumbering keeps every process where it is, so the proposal must use the current placement's slots")
	}
	switch {
	case opt.Select.RanksPerNode < 0:
		return fmt.Errorf("--ranks-per-node %d: give a positive number of ranks, or 0 for no limit", opt.Select.RanksPerNode)
	case opt.Solve.Trials < 0 || opt.Solve.Trials > 1000:
		return fmt.Errorf("--trials %d: give 1 to 1000 multilevel trials (0: the default, 3)", opt.Solve.Trials)
	case opt.Ranks < 0:
		return fmt.Errorf("--ranks %d: give a positive number of ranks, or 0 to take it from --matrix", opt.Ranks)
	}
	if err := opt.checkBandwidths(); err != nil {
		return err
	}
	switch opt.Model.Routing {
	case "", fabric.RoutingStatic, fabric.RoutingAdaptive:
	default:
		return fmt.Errorf("--routing %q: want %s or %s", opt.Model.Routing, fabric.RoutingStatic, fabric.RoutingAdaptive)
	}
	if opt.Reruns != "" && opt.Profile == "" {
		return fmt.Errorf("--reruns judges the prediction of the profiled placement: give --profile DIR too")
	}
	switch opt.Format {
	case "":
		opt.Format = placefile.FormatOpenMPI
	case FormatAuto:
		// Open MPI 5 reads rankfiles otherwise than 4 (logical cores).
		opt.Format = placefile.FormatOpenMPI
		if launcher.OpenMPIMajor(context.Background(), "mpirun") >= 5 {
			opt.Format = placefile.FormatOpenMPI5
		}
	}
	if !slices.Contains(placefile.Formats(), opt.Format) {
		return fmt.Errorf("unknown --format %q (want one of %s)", opt.Format, strings.Join(placefile.Formats(), ", "))
	}
	if opt.Output != "" {
		if err := atomicdir.CheckFile(opt.Output, opt.Force); err != nil {
			return err
		}
	}
	return nil
}

// newAdvice fills what the inputs alone say: sizes, levels, traffic.
func newAdvice(opt Options, in *inputs) *placefile.Advice {
	m, t := in.m, in.t
	a := &placefile.Advice{
		Inputs: placefile.Inputs{Tool: "latmap", Version: version.Version, Survey: opt.Survey, Profile: opt.Profile, Current: opt.Current, Matrix: opt.Matrix},
		MachineSummary: placefile.MachineSummary{Ranks: t.N, Slots: len(m.Slots), Hosts: len(m.Hosts), FilledPairs: m.Filled, LeaderFilledPairs: m.LeaderFilled,
			SurveyPairs: survey.TriLen(len(m.Slots)), Bandwidth: m.Bandwidth, NodeBandwidth: in.md.NodeSource, SwitchBandwidth: in.md.SwitchSource,
			MessageSizes: m.SizeSource()},
		TrafficSummary: placefile.TrafficSummary{TrafficPairs: t.Pairs(), SelfFlows: t.SelfFlows},
		Warnings:       append(append([]string(nil), in.warnings...), m.Notes...),
	}
	a.Messages, a.Bytes = t.Totals()
	for l := model.Level(0); l < model.Level(m.NumLevels()); l++ {
		if m.LevelPairs[l] == 0 {
			continue
		}
		c := m.Levels[l]
		li := placefile.LevelInfo{Name: m.LevelName(l), LatencyUs: c.Latency * 1e6, Pairs: m.LevelPairs[l], Measured: m.LevelMeasured[l]}
		if c.InvBandwidth > 0 {
			li.BandwidthGBps = 1 / c.InvBandwidth / 1e9
		}
		a.Levels = append(a.Levels, li)
	}
	return a
}

// hostsUsed counts the nodes the selected slots are on.
func hostsUsed(m *model.Machine, slots []int32) int {
	used := map[int]bool{}
	for _, sl := range slots {
		used[m.Slots[sl].Node] = true
	}
	return len(used)
}

// predict fills the predictions (current when known, block on the
// selected slots, cyclic over every usable node, the proposal) and the
// per-rank placement table.
func predict(a *placefile.Advice, in *inputs, slots, usable, proposal []int32) {
	md, t := in.md, in.t
	names, places := []string{"block", "cyclic", "proposal"}, [][]int32{model.Block(slots, t.N), md.Cyclic(usable, t.N), proposal}
	if in.current != nil {
		names, places = append([]string{"current"}, names...), append([][]int32{in.current}, places...)
	}
	// Side by side: on a routed network each is a flow-by-flow
	// simulation of its links (a second of place's 7 at 64 ranks).
	preds := make([]model.Prediction, len(places))
	others := spreadModels(in)
	var wg sync.WaitGroup
	for i := range places {
		wg.Add(1)
		go func() {
			defer wg.Done()
			preds[i] = model.Predict(names[i], md, t, places[i], in.rt)
			if len(others) > 0 {
				p := &preds[i].Prediction
				p.Low, p.High = p.Run, p.Run
				for _, o := range others {
					r := model.Predict(names[i], o, t, places[i], in.rt).Run
					p.Low, p.High = min(p.Low, r), max(p.High, r)
				}
			}
		}()
	}
	wg.Wait()
	for _, p := range preds {
		a.Predictions = append(a.Predictions, p.Prediction)
	}
	prop := preds[len(preds)-1]
	a.PerfectRun = model.PerfectRun(in.rt)
	m := in.m
	for i, sl := range proposal {
		rp := placefile.RankPlace{Rank: i, Host: m.Slots[sl].Host, CPU: m.Slots[sl].CPU, PredictedS: prop.PerRank[i]}
		if in.current != nil {
			cpu := m.Slots[in.current[i]].CPU
			rp.CurrentHost, rp.CurrentCPU = m.Slots[in.current[i]].Host, &cpu
		}
		a.Placement = append(a.Placement, rp)
	}
}

// spreadModels are the networks besides in.md that the survey's round
// trips allow where they cannot tell which way traffic goes between the
// job's routers (in.hedge, where they are far apart or links fit them;
// in.spread, where links fit them), each calibrated as in.md is
// (calibrated): predict prices
// every placement on them too (Prediction.Low, High), as hedgeFar
// searches on them. On the two simulated fragments of a dragonfly wired
// as Cray XC's rows and columns, from the survey alone, the switch
// levels predicted the block, cyclic and proposal runs of 14
// applications at 0.74-1.56 of their simulated time (13 of 84 outside
// 0.75-1.33); 65 of the 84 simulated inside the range, and all 84
// within 0.75-1.33 of it (TestSimBuiltAries). The switch levels' run
// stays the prediction: the range's geometric middle instead, with the
// routers alone pricing a rank's flows to other nodes as at once (the
// longest, as a routed model does, which brought GROMACS's block run on
// the second fragment from 0.0601 s to 0.0419 s, simulated 0.0442 s),
// missed the checks' bounds 37 times against 29 (make test-sim-built,
// 2026-12-04): 15 against 19 on the second fragment, 22 against 10 on
// the first, whose stencils simulate at or above the switch levels'
// run. Which end is true is what the round trips cannot tell.
func spreadModels(in *inputs) []*model.Model {
	if in.hedge == nil {
		return nil
	}
	var out []*model.Model
	for _, m := range []*model.Model{in.hedge, in.spread, in.tree} {
		if m != nil && m != in.md {
			out = append(out, m)
		}
	}
	return out
}

// calibrated gives the models made from md before the profile calibrated
// it (in.search, in.hedge, in.spread: md priced otherwise) md's factors:
// a proposal searched, hedged or kept on one of them is then judged by
// the run the profile measured, as md judges it. Each was copied from md
// before Calibrate set md.Scale, and with a profile the hedge's worst
// ratios mixed a calibrated model with uncalibrated ones.
func (in *inputs) calibrated() {
	for _, m := range []*model.Model{in.search, in.hedge, in.spread, in.tree} {
		if m != nil {
			m.Scale = in.md.Scale
		}
	}
}

// writeLaunchFile writes the proposal as opt.Format to opt.Output when
// the verdict advises it (worth) or with --always-write; otherwise it
// says why not.
func writeLaunchFile(a *placefile.Advice, opt Options, m *model.Machine, place []int32, worth bool) error {
	if !worth && !opt.AlwaysWrite {
		a.NotWritten = fmt.Sprintf("%s not written: the predicted gain does not justify changing the placement (the verdict says why); "+
			"--always-write writes it anyway", opt.Output)
		return nil
	}
	lf, err := placefile.Write(opt.Format, m.RankSlots(place), a.LaunchHeader(), opt.Output, opt.App)
	if err != nil {
		return err
	}
	if err := atomicdir.WriteFile(opt.Output, opt.Force, lf.Data); err != nil {
		return err
	}
	a.Output, a.Format, a.Launch = opt.Output, opt.Format, lf.Launch
	a.Warnings = append(a.Warnings, lf.Warnings...)
	return nil
}

// networkInfo describes the declared network the model routes over (nil
// without one).
func networkInfo(md *model.Model) *placefile.Network {
	rt := md.Routes
	if rt == nil {
		return nil
	}
	f := rt.Fabric
	origin := "found in the survey's round trips"
	if f.Declared() {
		origin = "declared in " + f.Source
	}
	return &placefile.Network{Source: f.Source, Kind: f.Kind, Shape: f.Shape, Origin: origin, Routing: f.Routing, Links: len(f.Links),
		Classes: f.Classes(), Derate: rt.Derate, Capacity: rt.Source}
}

// checkBandwidths refuses a bandwidth given negative, NaN or infinite
// (--node-link and --memory-bandwidth take 0: measured).
func (opt *Options) checkBandwidths() error {
	for _, b := range []struct {
		flag string
		v    float64
	}{{"--node-link", opt.Model.NodeGBps}, {"--memory-bandwidth", opt.Model.MemoryGBps},
		{"--bandwidth-socket", opt.Costs.Bandwidth.Socket}, {"--bandwidth-node", opt.Costs.Bandwidth.Node}, {"--bandwidth-net", opt.Costs.Bandwidth.Network}} {
		if b.v < 0 || math.IsNaN(b.v) || math.IsInf(b.v, 0) {
			return fmt.Errorf("%s %g: want GB/s above 0, a finite number", b.flag, b.v)
		}
	}
	return nil
}
