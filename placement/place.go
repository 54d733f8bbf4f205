package placement

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/latmap/latmap/internal/atomicdir"
	"github.com/latmap/latmap/internal/text"
	"github.com/latmap/latmap/internal/version"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
)

// Options are the inputs of latmap place.
type Options struct {
	// Survey is a survey directory, or an mmpi log file.
	Survey string
	// HostPattern extracts node names from an mmpi log's processor names
	// (see survey.HostPattern).
	HostPattern string
	// Profile is a profile directory (traffic, per-rank times, current
	// placement).
	Profile string
	// Matrix is a plain communication matrix (src,dst,bytes,messages); it
	// replaces the profile's matrix when both are given.
	Matrix string
	// Current is a placement file (any format latmap writes) scored as the
	// current placement, instead of where the profile's ranks ran.
	Current string
	// Ranks states the number of ranks for --matrix (default: largest
	// rank named + 1, or the profile's ranks).
	Ranks int
	// Output is the launcher file to write ("" = none); Format its format.
	Output string
	Format string
	Force  bool
	// App is the program and arguments for the printed launch line.
	App []string
	// JSON prints the whole result as JSON instead of the report.
	JSON bool
	// QAPLIB, when set, solves that QAPLIB instance file with the general
	// QAP local search instead (QAP holds its options) and prints the cost
	// and permutation.
	QAPLIB string
	QAP    QAPOptions

	Select SelectOptions
	Costs  SurveyCostOptions
	Model  ModelOptions
	Solve  SolveOptions

	// Out receives the report (default os.Stdout).
	Out io.Writer
}

// LevelInfo describes one hierarchy level of the machine.
type LevelInfo struct {
	Name          string  `json:"name"`
	LatencyUs     float64 `json:"latency_us"`
	BandwidthGBps float64 `json:"bandwidth_GBps"`
	Pairs         int     `json:"pairs"`
	Measured      int     `json:"measured"`
}

// RankPlace is where one rank goes in the proposal (and ran before).
type RankPlace struct {
	Rank        int     `json:"rank"`
	Host        string  `json:"host"`
	CPU         int     `json:"cpu"`
	CurrentHost string  `json:"current_host,omitempty"`
	CurrentCPU  *int    `json:"current_cpu,omitempty"`
	PredictedS  float64 `json:"predicted_s"`
}

// SolverInfo says how the proposal was found.
type SolverInfo struct {
	Seed       uint64      `json:"seed"`
	Seconds    float64     `json:"seconds"`
	Winner     string      `json:"winner"`
	FellBack   bool        `json:"fell_back"`
	Candidates []Candidate `json:"candidates"`
}

// Result is everything latmap place found; --json prints it.
type Result struct {
	Tool    string `json:"tool"`
	Version string `json:"version"`
	Survey  string `json:"survey"`
	Profile string `json:"profile,omitempty"`
	// Current is the placement file scored as the current placement
	// (--current), when one was given.
	Current string `json:"current,omitempty"`
	Matrix  string `json:"matrix,omitempty"`

	Ranks       int         `json:"ranks"`
	Slots       int         `json:"slots"`
	Hosts       int         `json:"hosts"`
	HostsUsed   int         `json:"hosts_used"`
	Levels      []LevelInfo `json:"levels"`
	FilledPairs int         `json:"filled_pairs"`
	// LeaderFilledPairs are the pairs a nodes or sample survey filled from
	// its node leaders (counted as measured).
	LeaderFilledPairs int    `json:"leader_filled_pairs,omitempty"`
	SurveyPairs       int    `json:"survey_pairs"`
	Bandwidth         string `json:"bandwidth_source"`
	// NodeBandwidth says where the contention model's node bandwidth came
	// from (nodebw.csv, the pairwise fit, given, none).
	NodeBandwidth string  `json:"node_bandwidth_source"`
	TrafficPairs  int     `json:"traffic_pairs"`
	Messages      float64 `json:"messages"`
	Bytes         float64 `json:"bytes"`
	SelfFlows     int     `json:"self_flows_ignored"`

	// Predictions: current (when known), block, cyclic, proposal (last).
	Predictions []Prediction `json:"predictions"`
	PerfectRun  float64      `json:"perfect_interconnect_run_s"`
	// Calibration checks the model against the run the profile measured
	// (nil without a profile taken on surveyed slots).
	Calibration *Calibration `json:"calibration,omitempty"`
	Shares      *Shares      `json:"shares,omitempty"`
	Verdict     string       `json:"verdict"`
	Solver      SolverInfo   `json:"solver"`
	Placement   []RankPlace  `json:"placement"`

	Output string `json:"output,omitempty"`
	// NotWritten says why -o's file was not written (the predicted gain is
	// under 2% or under the model's measured error; --force writes it).
	NotWritten string   `json:"not_written,omitempty"`
	Format     string   `json:"format,omitempty"`
	Launch     []string `json:"launch,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`

	worth bool // the verdict advises the proposal
}

// reference is what the proposal is compared with: the current placement
// when known, else the better of block and cyclic.
func (r *Result) reference() Prediction {
	if r.Predictions[0].Name == "current" {
		return r.Predictions[0]
	}
	b, c := r.Predictions[0], r.Predictions[1]
	if c.Run < b.Run || (c.Run == b.Run && c.Transfer < b.Transfer) {
		return c
	}
	return b
}

// loadSurvey reads a survey directory or an mmpi log (survey.LoadWith),
// keeping only the metrics the cost model uses.
func loadSurvey(path, hostPattern string) (*survey.Survey, error) {
	mm, err := survey.HostPattern(hostPattern)
	if err != nil {
		return nil, err
	}
	s, err := survey.LoadWith(path, survey.LoadOptions{Metrics: []survey.Metric{survey.Mean, survey.Median}}, mm)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Run reads the inputs, proposes a placement, prints the report (or
// JSON) and writes the launcher file when the proposal is worth it (or
// with --force).
func Run(opt Options) (*Result, error) {
	if opt.Out == nil {
		opt.Out = os.Stdout
	}
	if opt.QAPLIB != "" {
		return nil, runQAPLIB(opt)
	}
	if err := opt.check(); err != nil {
		return nil, err
	}
	in, err := loadInputs(opt)
	if err != nil {
		return nil, err
	}
	r, place, err := propose(opt, in)
	if err != nil {
		return nil, err
	}
	if opt.Output != "" {
		if err := r.writeLaunchFile(opt, in.m, place); err != nil {
			return nil, err
		}
	}
	if opt.JSON {
		enc := json.NewEncoder(opt.Out)
		enc.SetIndent("", "  ")
		return r, enc.Encode(r)
	}
	r.WriteReport(opt.Out)
	return r, nil
}

// propose calibrates the model on the profile's own run, solves, and
// predicts the current, block, cyclic and proposed placements.
func propose(opt Options, in *inputs) (*Result, []int32, error) {
	r := newResult(opt, in)
	slots, err := in.m.SelectSlots(in.t.N, opt.Select)
	if err != nil {
		return nil, nil, err
	}
	// Cyclic as mpirun --map-by node deals it: over every usable node,
	// not only the nodes the proposal fills.
	usable, err := in.m.UsableSlots(opt.Select)
	if err != nil {
		return nil, nil, err
	}
	r.HostsUsed = hostsUsed(in.m, slots)
	if in.prof != nil {
		sh := shares(in.rt)
		r.Shares = &sh
		if in.currentErr != nil {
			r.Warnings = append(r.Warnings, in.currentErr.Error())
		}
		if in.profilePlace != nil && sh.SlowestElapsed > 0 {
			r.Calibration = calibrate(in.md, in.t, in.profilePlace, in.rt, sh.SlowestElapsed)
		}
	}
	t0 := time.Now()
	starts := []Start{}
	if cyc := in.m.Cyclic(usable, in.t.N); !equalPlace(cyc, in.m.Cyclic(slots, in.t.N)) {
		starts = append(starts, Start{"cyclic (all nodes)", cyc})
	}
	if in.current != nil {
		starts = append(starts, Start{"current", in.current})
	}
	sol, err := in.md.Solve(in.t, baseTimes(in.rt, in.t.N), slots, starts, opt.Solve)
	if err != nil {
		return nil, nil, err
	}
	r.Solver = SolverInfo{Seed: opt.Solve.Seed, Seconds: time.Since(t0).Seconds(), Winner: sol.Winner, FellBack: sol.FellBack, Candidates: sol.Candidates}
	r.predict(in, slots, usable, sol.Place)
	r.Verdict, r.worth = verdict(r)
	return r, sol.Place, nil
}

func equalPlace(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// check validates the options before anything is read.
func (opt *Options) check() error {
	if opt.Survey == "" {
		return fmt.Errorf("--survey is required (a directory written by latmap survey or latmap import)")
	}
	if opt.Profile == "" && opt.Matrix == "" {
		return fmt.Errorf("give --profile DIR (from latmap profile) or --matrix FILE (src,dst,bytes,messages)")
	}
	if opt.Format == "" {
		opt.Format = FormatOpenMPI
	}
	if !contains(Formats, opt.Format) {
		return fmt.Errorf("unknown --format %q (want one of %s)", opt.Format, strings.Join(Formats, ", "))
	}
	if opt.Output != "" && !opt.Force {
		if _, err := os.Stat(opt.Output); err == nil {
			return fmt.Errorf("output %s exists; use --force to replace it or choose another -o", opt.Output)
		}
	}
	return nil
}

// inputs is what place reads: the machine from the survey, the traffic,
// and with a profile its per-rank times and the placement it ran under.
type inputs struct {
	m  *Machine
	md *Model
	// profilePlace is where the profile's own ranks ran (nil when not on
	// surveyed slots, or unbound): the profile measured a run of it.
	profilePlace []int32
	warnings     []string // the survey's and the profile's, for the report
	t            *Traffic
	prof         *profile.Profile
	rt           *RankTimes
	current      []int32 // --current's placement, else profilePlace; nil when unknown
	currentErr   error   // why the current placement is unknown
}

func loadInputs(opt Options) (*inputs, error) {
	s, err := loadSurvey(opt.Survey, opt.HostPattern)
	if err != nil {
		return nil, err
	}
	in := &inputs{}
	if in.m, err = MachineFromSurvey(s, opt.Costs); err != nil {
		return nil, fmt.Errorf("survey %s: %w", opt.Survey, err)
	}
	for _, w := range s.Meta.Warnings {
		in.warnings = append(in.warnings, "survey: "+w)
	}
	if note := s.FillNote(); note != "" {
		in.warnings = append(in.warnings, note)
	}
	var notes []string
	in.md, notes = NewModel(in.m, s.NodeBandwidth, opt.Model)
	in.warnings = append(in.warnings, notes...)
	if opt.Profile != "" {
		if in.prof, err = profile.ReadProfile(opt.Profile); err != nil {
			return nil, err
		}
	}
	if in.t, err = loadTraffic(opt, in.prof); err != nil {
		return nil, err
	}
	if in.prof != nil {
		in.rt = TimesFromProfile(in.prof)
		in.current, in.currentErr = currentPlacement(in.m, in.prof, in.t.N)
		bound, err := in.checkProfileBinding(opt)
		if err != nil {
			return nil, err
		}
		if bound || opt.Force {
			in.profilePlace = in.current
		}
	}
	if opt.Current != "" {
		// A placement file the user runs today, or another tool made,
		// scored as the current placement.
		ranks, _, err := ReadPlacementFile(opt.Current)
		if err != nil {
			return nil, err
		}
		if in.current, err = in.m.slotsOf(ranks, in.t.N); err != nil {
			return nil, err
		}
		in.currentErr = nil
	}
	return in, nil
}

// checkProfileBinding refuses to take unbound profile ranks' cpus as the
// current placement (they may have moved; two may have started on one
// cpu) unless --force or --current says where they run. bound is false
// when some ranks were not bound.
func (in *inputs) checkProfileBinding(opt Options) (bound bool, err error) {
	ranks := make([]survey.Rank, len(in.prof.Ranks))
	for i, r := range in.prof.Ranks {
		ranks[i] = r.Rank
	}
	bound = true
	for _, w := range survey.BindingWarnings(ranks) {
		if !strings.Contains(w, "not bound") {
			in.warnings = append(in.warnings, "profile: "+w)
			continue
		}
		bound = false
		if opt.Current == "" && !opt.Force && in.current != nil {
			return false, fmt.Errorf("profile %s: %s; so where they ran is not a placement to score: rerun the profile with ranks bound (mpirun --bind-to core), give the layout with --current FILE, or --force to take the cpus they started on", opt.Profile, w)
		}
		in.warnings = append(in.warnings, "profile: "+w)
	}
	return bound, nil
}

// newResult fills what the inputs alone say: sizes, levels, traffic.
func newResult(opt Options, in *inputs) *Result {
	m, t := in.m, in.t
	r := &Result{Tool: "latmap", Version: version.Version, Survey: opt.Survey, Profile: opt.Profile, Current: opt.Current, Matrix: opt.Matrix,
		Ranks: t.N, Slots: len(m.Slots), Hosts: len(m.Hosts), FilledPairs: m.Filled, LeaderFilledPairs: m.LeaderFilled, SurveyPairs: survey.TriLen(len(m.Slots)),
		Bandwidth: m.Bandwidth, NodeBandwidth: in.md.NodeSource, TrafficPairs: t.Pairs(), SelfFlows: t.SelfFlows, Warnings: append(append([]string(nil), in.warnings...), m.Notes...)}
	r.Messages, r.Bytes = t.Totals()
	for l := Level(0); l < numLevels; l++ {
		if m.LevelPairs[l] == 0 {
			continue
		}
		c := m.Levels[l]
		li := LevelInfo{Name: l.String(), LatencyUs: c.Latency * 1e6, Pairs: m.LevelPairs[l], Measured: m.LevelMeasured[l]}
		if c.InvBandwidth > 0 {
			li.BandwidthGBps = 1 / c.InvBandwidth / 1e9
		}
		r.Levels = append(r.Levels, li)
	}
	return r
}

// hostsUsed counts the nodes the selected slots are on.
func hostsUsed(m *Machine, slots []int32) int {
	used := map[int]bool{}
	for _, sl := range slots {
		used[m.Slots[sl].Node] = true
	}
	return len(used)
}

// predict fills the predictions (current when known, block on the
// selected slots, cyclic over every usable node, the proposal) and the
// per-rank placement table.
func (r *Result) predict(in *inputs, slots, usable, proposal []int32) {
	md, t := in.md, in.t
	if in.current != nil {
		r.Predictions = append(r.Predictions, Predict("current", md, t, in.current, in.rt))
	}
	r.Predictions = append(r.Predictions,
		Predict("block", md, t, Block(slots, t.N), in.rt),
		Predict("cyclic", md, t, md.Cyclic(usable, t.N), in.rt))
	prop := Predict("proposal", md, t, proposal, in.rt)
	r.Predictions = append(r.Predictions, prop)
	r.PerfectRun = PerfectRun(in.rt)
	m := in.m
	for i, sl := range proposal {
		rp := RankPlace{Rank: i, Host: m.Slots[sl].Host, CPU: m.Slots[sl].CPU, PredictedS: prop.perRank[i]}
		if in.current != nil {
			cpu := m.Slots[in.current[i]].CPU
			rp.CurrentHost, rp.CurrentCPU = m.Slots[in.current[i]].Host, &cpu
		}
		r.Placement = append(r.Placement, rp)
	}
}

// writeLaunchFile writes the proposal as opt.Format to opt.Output when
// the verdict advises it or with --force; otherwise it says why not.
func (r *Result) writeLaunchFile(opt Options, m *Machine, place []int32) error {
	if !r.worth && !opt.Force {
		r.NotWritten = fmt.Sprintf("%s not written: the predicted gain does not justify changing the placement (see above); --force writes it anyway", opt.Output)
		return nil
	}
	lf, err := WriteLaunchFile(opt.Format, m, place, r.header(), opt.Output, opt.App)
	if err != nil {
		return err
	}
	if err := atomicdir.WriteFile(opt.Output, opt.Force, lf.Data); err != nil {
		return err
	}
	r.Output, r.Format, r.Launch = opt.Output, opt.Format, lf.Launch
	r.Warnings = append(r.Warnings, lf.Warnings...)
	return nil
}

func runQAPLIB(opt Options) error {
	r, err := SolveQAPLIBFile(opt.QAPLIB, opt.QAP)
	if err != nil {
		return err
	}
	if opt.JSON {
		enc := json.NewEncoder(opt.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	perm := make([]string, len(r.Permutation))
	for i, x := range r.Permutation {
		perm[i] = fmt.Sprint(x)
	}
	fmt.Fprintf(opt.Out, "%s: n=%d cost %g (best of %d restarts, seed %d, %.2f s)\n%s\n", r.File, r.N, r.Cost, opt.QAP.Restarts, opt.QAP.Seed, r.Seconds, strings.Join(perm, " "))
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// loadTraffic reads the matrix (or the profile's) and checks rank counts.
func loadTraffic(opt Options, prof *profile.Profile) (*Traffic, error) {
	if opt.Matrix == "" {
		if opt.Ranks > 0 && opt.Ranks != len(prof.Ranks) {
			return nil, fmt.Errorf("--ranks %d but profile %s has %d ranks", opt.Ranks, opt.Profile, len(prof.Ranks))
		}
		t, err := TrafficFromProfile(prof)
		if err != nil {
			return nil, fmt.Errorf("profile %s: %w", opt.Profile, err)
		}
		return t, nil
	}
	flows, n, err := ReadMatrixFile(opt.Matrix)
	if err != nil {
		return nil, err
	}
	want, from := opt.Ranks, "--ranks"
	if prof != nil {
		if want > 0 && want != len(prof.Ranks) {
			return nil, fmt.Errorf("--ranks %d but profile %s has %d ranks", want, opt.Profile, len(prof.Ranks))
		}
		want, from = len(prof.Ranks), "the profile"
	}
	if want > 0 {
		if n > want {
			return nil, fmt.Errorf("matrix %s names rank %d but %s has %d ranks (0..%d)", opt.Matrix, n-1, from, want, want-1)
		}
		n = want
	}
	if n < 2 {
		return nil, fmt.Errorf("matrix %s has %d rank; placement needs at least 2", opt.Matrix, n)
	}
	t, err := NewTraffic(n, flows)
	if err != nil {
		return nil, fmt.Errorf("matrix %s: %w", opt.Matrix, err)
	}
	return t, nil
}

// currentPlacement matches the profile's ranks (host + cpu) to the
// survey's slots.
func currentPlacement(m *Machine, prof *profile.Profile, n int) ([]int32, error) {
	idx := map[string]int32{}
	for i, s := range m.Slots {
		idx[fmt.Sprintf("%s\x00%d", s.Host, s.CPU)] = int32(i)
	}
	cur := make([]int32, n)
	for i := 0; i < n; i++ {
		if i >= len(prof.Ranks) {
			return nil, fmt.Errorf("current placement unknown: the profile has %d ranks, the traffic %d", len(prof.Ranks), n)
		}
		pr := prof.Ranks[i].Rank
		s, ok := idx[fmt.Sprintf("%s\x00%d", pr.Host, pr.CPU)]
		if !ok {
			return nil, fmt.Errorf("current placement unknown: profile rank %d ran on %s cpu %d, which the survey did not measure (survey the same nodes with ranks bound to cores)", i, pr.Host, pr.CPU)
		}
		cur[i] = s
	}
	return cur, nil
}

// header is the comment block of launcher files.
func (r *Result) header() []string {
	h := []string{"latmap " + r.Version + " place: rank placement proposal"}
	h = append(h, "survey: "+r.Survey)
	if r.Profile != "" {
		h = append(h, "profile: "+r.Profile)
	}
	if r.Matrix != "" {
		h = append(h, "matrix: "+r.Matrix)
	}
	prop := r.Predictions[len(r.Predictions)-1]
	ref := r.reference()
	h = append(h, fmt.Sprintf("%d ranks on %d of %s; modelled transfer %.4g s (%s %.4g s)", r.Ranks, r.HostsUsed, text.Count(r.Hosts, "host"), prop.Transfer, ref.Name, ref.Transfer))
	if r.Shares != nil && ref.Run > 0 {
		h = append(h, fmt.Sprintf("predicted run %.4g s vs %s %.4g s (gain %s; perfect interconnect %.4g s)", prop.Run, ref.Name, ref.Run, pct((ref.Run-prop.Run)/ref.Run), r.PerfectRun))
	}
	return h
}

// WriteReport prints the human-readable report.
func (r *Result) WriteReport(w io.Writer) {
	fmt.Fprintf(w, "latmap place: %d ranks on %d slots of %s (%s used)\n", r.Ranks, r.Slots, text.Count(r.Hosts, "host"), text.Count(r.HostsUsed, "host"))
	leaders := ""
	if r.LeaderFilledPairs > 0 {
		leaders = fmt.Sprintf("%d of %d slot pairs filled from their nodes' leader pair (the survey's scope) and ", r.LeaderFilledPairs, r.SurveyPairs)
	}
	fmt.Fprintf(w, "survey %s: %s%d of %d slot pairs not measured, filled with their level's median; bandwidth from %s; node bandwidth from %s\n", r.Survey, leaders, r.FilledPairs, r.SurveyPairs, r.Bandwidth, r.NodeBandwidth)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "level\tpairs\tmeasured\tlatency (us)\tbandwidth (GB/s)\t")
	for _, l := range r.Levels {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%.2f\t\n", l.Name, l.Pairs, l.Measured, l.LatencyUs, l.BandwidthGBps)
	}
	tw.Flush()
	src := r.Matrix
	if src == "" {
		src = r.Profile
	}
	fmt.Fprintf(w, "traffic %s: %d communicating pairs, %.4g messages, %.4g bytes", src, r.TrafficPairs, r.Messages, r.Bytes)
	if r.SelfFlows > 0 {
		fmt.Fprintf(w, " (%d self-traffic rows ignored)", r.SelfFlows)
	}
	fmt.Fprintln(w)
	if r.Shares != nil {
		s := r.Shares
		fmt.Fprintf(w, "profile: MPI %.4g s of %.4g s elapsed (%s, summed over ranks); late senders %.4g s, collective wait %.4g s (%s of MPI); slowest rank took %.4g s\n",
			s.MPI, s.Elapsed, pct(s.CommShare), s.Late, s.Sync, pct(s.WaitShare), s.SlowestElapsed)
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "placement\tpredicted run (s)\tslowest rank\tmax rank comm (s)\tnode-bound ranks\ttransfer (s)\t")
	for _, p := range r.Predictions {
		fmt.Fprintf(tw, "%s\t%.4g\t%d\t%.4g\t%d\t%.4g\t\n", p.Name, p.Run, p.SlowestRank, p.MaxRankTransfer, p.NodeBound, p.Transfer)
	}
	if r.Shares != nil {
		fmt.Fprintf(tw, "perfect interconnect\t%.4g\t\t0\t\t0\t\n", r.PerfectRun)
	}
	tw.Flush()
	fmt.Fprintf(w, "solver: %s won in %.2f s (seed %d)", r.Solver.Winner, r.Solver.Seconds, r.Solver.Seed)
	if r.Solver.FellBack {
		fmt.Fprint(w, "; no candidate beat it, so the proposal is that baseline")
	}
	fmt.Fprintln(w)
	if c := r.Calibration; c != nil {
		fmt.Fprintf(w, "model check: predicted %.4g s for the placement the profile ran under, which measured %.4g s (slowest rank): %+.0f%%\n", c.RawPredictedS, c.MeasuredS, 100*c.RawError)
		fmt.Fprintf(w, "  communication summed over ranks: modelled %.4g s, measured %.4g s (MPI time minus waits); median rank off by %s\n", c.PredictedCommS, c.MeasuredCommS, pct(c.RankError))
		fmt.Fprintf(w, "  calibration: %s", c.Note)
		if c.Folded {
			fmt.Fprintf(w, "; with them the placement the profile ran under is predicted at %.4g s (%+.0f%%), the median rank off by %s", c.PredictedS, 100*c.Error, pct(c.FoldedRankError))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, r.Verdict)
	for _, x := range r.Warnings {
		fmt.Fprintln(w, "warning:", x)
	}
	if r.NotWritten != "" {
		fmt.Fprintf(w, "\n%s\n", r.NotWritten)
	}
	if r.Output != "" {
		fmt.Fprintf(w, "\nwrote %s (%s); launch with:\n  %s\n", r.Output, r.Format, shellJoin(r.Launch))
		if r.Format == FormatOpenMPI {
			fmt.Fprintf(w, "  (Open MPI v5: mpirun -np %d --map-by rankfile:FILE=%s ...)\n", r.Ranks, r.Output)
		}
	}
}

// shellJoin quotes arguments that need it.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"$&;|<>()*?[]#~`\\") {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			out[i] = a
		}
	}
	return strings.Join(out, " ")
}
