package report

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/latmap/latmap/internal/atomicdir"
	"github.com/latmap/latmap/internal/text"
	"github.com/latmap/latmap/internal/version"
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
	"github.com/latmap/latmap/plots"
)

//go:embed html.tmpl
var htmlTemplate string

// HTMLOptions are latmap report --html's settings.
type HTMLOptions struct {
	// Inputs are survey directories or mmpi logs, profile directories,
	// placement advice (the JSON of latmap place --json, saved to a file)
	// and verification directories (latmap verify), in any mix, at most
	// one of each kind.
	Inputs []string
	Output string
	Force  bool
	// Now is the time printed as the report's date (default time.Now).
	Now time.Time
}

// The kinds of input a report takes.
const (
	kindSurvey  = "survey"
	kindProfile = "profile"
	kindAdvice  = "advice"
	kindVerify  = "verification"
)

// inputKind tells what path holds.
func inputKind(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		switch {
		case profile.IsDir(path):
			return kindProfile, nil
		case exists(filepath.Join(path, survey.PairsFile)):
			return kindSurvey, nil
		case exists(filepath.Join(path, verifyRunsFile)):
			return kindVerify, nil
		}
		return "", fmt.Errorf("%s is not a survey, profile or verification directory (no %s, %s or %s)",
			path, survey.PairsFile, profile.FunctionsFile, verifyRunsFile)
	}
	if ok, _ := survey.IsMMPILog(path); ok {
		return kindSurvey, nil
	}
	if strings.HasSuffix(path, ".json") {
		return kindAdvice, nil
	}
	return "", fmt.Errorf("%s is not a survey (directory or mmpi log), a profile directory, "+
		"placement advice (.json from latmap place --json) or a verification directory", path)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// WriteHTML builds the report of the inputs and writes it, atomically.
func WriteHTML(opt HTMLOptions) error {
	if opt.Output == "" {
		return fmt.Errorf("--output is required with --html (the page to write: -o report.html)")
	}
	if err := atomicdir.CheckFile(opt.Output, opt.Force); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := BuildHTML(&b, opt); err != nil {
		return err
	}
	return atomicdir.WriteFile(opt.Output, opt.Force, b.Bytes())
}

// BuildHTML writes the report of opt.Inputs to w: one self-contained page,
// pictures embedded as PNG data, no script, no outside reference.
func BuildHTML(w io.Writer, opt HTMLOptions) error {
	if len(opt.Inputs) == 0 {
		return fmt.Errorf("nothing to report; give survey, profile, advice or verification inputs")
	}
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	r := &htmlReport{Version: version.Version, Date: opt.Now.UTC().Format("2006-01-02 15:04 MST")}
	seen := map[string]string{}
	var prof *profile.Profile
	for _, in := range opt.Inputs {
		kind, err := inputKind(in)
		if err != nil {
			return err
		}
		if prev, dup := seen[kind]; dup {
			return fmt.Errorf("two %s inputs, %s and %s: a report holds one of each", kind, prev, in)
		}
		seen[kind] = in
		r.Inputs = append(r.Inputs, inputLine{Kind: kind, Path: in})
		switch kind {
		case kindSurvey:
			r.Machine, err = machineSection(in)
		case kindProfile:
			prof, err = profile.ReadProfile(in)
			if err == nil {
				r.App, err = appSection(in, prof)
			}
		case kindAdvice:
			r.Advice, err = adviceSection(in)
		case kindVerify:
			r.Verify, err = verifySection(in)
		}
		if err != nil {
			return err
		}
	}
	r.Title = reportTitle(r)
	t, err := template.New("report").Funcs(template.FuncMap{
		"secs": fmtSeconds, "rangeWhy": func() string { return rangeWhy }, "pct": fmtPercent, "pct100": func(v float64) float64 { return 100 * v },
		"bytes": fmtBytes, "ibytes": func(v int64) string { return fmtBytes(float64(v)) },
		"us": func(v float64) string { return fmtFloat(v, 2) },
	}).Parse(htmlTemplate)
	if err != nil {
		return err
	}
	return t.Execute(w, r)
}

// htmlReport is what the template shows; nil sections are left out.
type htmlReport struct {
	Title, Version, Date string
	Inputs               []inputLine
	Machine              *machine
	App                  *app
	Advice               *advice
	Verify               *verification
}

type inputLine struct{ Kind, Path string }

// figure is an embedded picture with its caption.
type figure struct {
	Src     template.URL
	Alt     string
	Caption string
}

// pngFigure embeds a PNG.
func pngFigure(png []byte, alt, caption string) figure {
	return figure{Src: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png)), Alt: alt, Caption: caption}
}

type fact struct{ Name, Value string }

// facts keeps the facts that have a value.
func facts(all ...fact) []fact {
	var out []fact
	for _, f := range all {
		if strings.TrimSpace(f.Value) != "" {
			out = append(out, f)
		}
	}
	return out
}

type machine struct {
	Path          string
	Facts         []fact
	Figures       []figure
	Topology      *topo.Topology
	Warnings      []string
	HostsAgree    bool
	Disagreements []string
}

// machineSection reads a survey: its facts, heat map ordered by host,
// histogram per level, and inferred topology.
func machineSection(path string) (*machine, error) {
	m := survey.AutoMetric(path)
	s, err := survey.Load(path, survey.LoadOptions{Metrics: []survey.Metric{m}, SkipFit: true})
	if err != nil {
		return nil, err
	}
	tp, err := topo.Infer(s, topo.Options{Size: -1, Metric: m})
	if err != nil {
		return nil, err
	}
	_, hosts := survey.HostIndex(s.Ranks)
	warnings := append(append([]string(nil), s.Meta.Warnings...), s.Lacks...)
	if note := s.FillNote(); note != "" {
		warnings = append(warnings, note)
	}
	sec := &machine{Path: path, Topology: tp, Warnings: warnings, HostsAgree: tp.HostsAgree, Disagreements: tp.Disagreements}
	sec.Facts = facts(
		fact{"ranks", fmt.Sprintf("%d on %d host%s", s.N(), hosts, map[bool]string{true: "s"}[hosts != 1])},
		fact{"message sizes", fmt.Sprint(s.Sizes())},
		fact{"repeats per pair", fmt.Sprint(s.Meta.Repeats)},
		fact{"schedule", s.Meta.Schedule},
		fact{"MPI", s.Meta.MPIVersion},
	)
	if !s.Meta.Start.IsZero() {
		sec.Facts = append(sec.Facts, fact{"measured", s.Meta.Start.UTC().Format("2006-01-02 15:04 MST")})
	}
	if s.Meta.Interference != nil {
		sec.Facts = append(sec.Facts, fact{"interference", fmtFloat(*s.Meta.Interference, 2) + "x (concurrent / isolated round trips)"})
	}
	opt := plots.DefaultOptions()
	opt.Metric, opt.Order, opt.Width, opt.Height = m, "host", 7.5*vg.Inch, 6*vg.Inch
	heat, err := plots.Render(s, "png", opt)
	if err != nil {
		return nil, err
	}
	sec.Figures = append(sec.Figures, pngFigure(heat, "latency heat map",
		"Round trip of every pair of ranks, ranks grouped by host, then socket and cpu: blue is fast, "+
			"red slow. Blocks along the diagonal are nodes (and sockets inside them); lines separate hosts. A rank "+
			"whose row has another host's colours sits apart from its host's other ranks."))
	opt.Style, opt.Height = plots.StyleHistogram, vg.Length(1.6+1.5*float64(len(tp.Levels)))*vg.Inch
	hist, err := plots.Render(s, "png", opt)
	if err != nil {
		return nil, err
	}
	sec.Figures = append(sec.Figures, pngFigure(hist, "round trips per level",
		"How the round trips of each inferred level spread: one panel per level (core, socket, node, switch, "+
			"network), pairs counted per bin. A level whose bars sit apart from the next is a real boundary; "+
			"a long tail marks slow pairs."))
	return sec, nil
}

type app struct {
	Path      string
	Facts     []fact
	Figures   []figure
	Functions []functionRow
	MPITotal  float64
	Split     *trafficSplit
	// CallSites are the call sites with the most MPI time (a profile
	// taken with --call-sites); Comms the communicators that carried
	// point-to-point traffic, when one besides MPI_COMM_WORLD did.
	CallSites  []callSiteRow
	Comms      []profile.Comm
	Unmeasured []string
	Warnings   []string
	// Nodes is the profile on the machine: the by-node table, the
	// stragglers (Apart, in words) and how unevenly ranks leave the
	// collectives.
	Nodes *profile.Nodes
	Hosts []nodeRow
	Apart []string
}

// nodeRow is one host (or socket) of the by-node table.
type nodeRow struct {
	profile.Group
	RankList string
}

type callSiteRow struct {
	profile.SiteTotal
	Share float64
}

type functionRow struct {
	Name                    string
	Calls                   int64
	Time, Late, Sync, Share float64
}

// trafficSplit is how much point-to-point traffic stays inside a host.
type trafficSplit struct {
	IntraBytes, InterBytes float64
	IntraShare             float64
}

// appSection draws the profile's four pictures and tables.
func appSection(path string, p *profile.Profile) (*app, error) {
	name := filepath.Base(filepath.Clean(path)) + "/"
	sec := &app{Path: path, Unmeasured: p.Meta.Unmeasured, Warnings: p.Meta.Warnings}
	sec.Facts = facts(
		fact{"command", strings.Join(p.Meta.Command, " ")},
		fact{"ranks", fmt.Sprint(len(p.Ranks))},
		fact{"modes", strings.Join(p.Meta.Modes, ", ")},
		fact{"wall time", fmtSeconds(p.Meta.WallSeconds)},
		fact{"MPI", p.Meta.MPIVersion},
	)
	for _, r := range p.Meta.Reorders {
		sec.Facts = append(sec.Facts, facts(fact{"renumbered", renumbered(r)})...)
	}
	captions := map[string]string{
		plots.StyleRanks: "Each rank's elapsed time, ranks grouped by host (then rank), stacked: " +
			"computation (outside MPI), time in MPI moving data, send-late time (receives waiting for a sender that " +
			"was late) and collective wait (time in the barrier latmap put before collectives). Send-late and " +
			"collective wait come from load imbalance: no placement removes them.",
		plots.StyleFunctions: "Time in each MPI function summed over ranks, largest first, split into transfer, send-late and collective wait.",
		plots.StyleMatrix: "Bytes sent from each rank (row) to each rank (column), point to point, " +
			"on a log colour scale; grey is no traffic. Ranks are grouped by host (then rank), " +
			"with lines between the hosts. Bands parallel to the diagonal are neighbour exchanges " +
			"(a 3-D halo shows six).",
		plots.StyleSizes: "How many calls (top) and how much time (bottom) fell in each message-size bin, over all ranks and functions.",
	}
	for _, style := range plots.ProfileStyles() {
		b, err := plots.RenderProfile(p, "png", plots.ProfileOptions{Style: style, Name: name, Width: 7.5 * vg.Inch, Height: 5 * vg.Inch})
		if err != nil {
			// A profile without traffic or sizes has nothing to draw in
			// that picture: say so instead.
			sec.Warnings = append(sec.Warnings, fmt.Sprintf("no %s picture: %v", style, err))
			continue
		}
		sec.Figures = append(sec.Figures, pngFigure(b, style, captions[style]))
	}
	totals := map[string]*functionRow{}
	for _, f := range p.Functions {
		r := totals[f.Function]
		if r == nil {
			r = &functionRow{Name: f.Function}
			totals[f.Function] = r
		}
		r.Calls += f.Calls
		r.Time += f.Time
		r.Late += f.Late
		r.Sync += f.Sync
		sec.MPITotal += f.TotalTime()
	}
	for _, name := range p.OrderedFunctions((*profile.Function).TotalTime) {
		r := totals[name]
		if sec.MPITotal > 0 {
			r.Share = (r.Time + r.Late + r.Sync) / sec.MPITotal
		}
		sec.Functions = append(sec.Functions, *r)
		if len(sec.Functions) == 10 {
			break
		}
	}
	sec.Split = splitTraffic(p)
	appSitesAndComms(sec, p)
	appNodes(sec, p)
	return sec, nil
}

// appSitesAndComms fills the call-site and communicator tables.
func appSitesAndComms(sec *app, p *profile.Profile) {
	for _, s := range p.TopCallSites(10) {
		r := callSiteRow{SiteTotal: s}
		if sec.MPITotal > 0 {
			r.Share = s.MPITime / sec.MPITotal
		}
		sec.CallSites = append(sec.CallSites, r)
	}
	sec.Comms = p.TrafficComms()
}

// appNodes fills the by-node table and names the stragglers.
func appNodes(sec *app, p *profile.Profile) {
	sec.Nodes = p.Nodes()
	for _, gs := range [][]profile.Group{sec.Nodes.Hosts, sec.Nodes.Sockets} {
		for _, g := range gs {
			sec.Hosts = append(sec.Hosts, nodeRow{Group: g, RankList: topo.FormatRanks(g.Ranks)})
		}
	}
	for i := range sec.Nodes.Stragglers {
		sec.Apart = append(sec.Apart, StragglerLine(&sec.Nodes.Stragglers[i]))
	}
}

// splitTraffic sums the matrix's bytes inside and between hosts, from
// where the profile's ranks ran.
func splitTraffic(p *profile.Profile) *trafficSplit {
	var s trafficSplit
	for _, t := range p.Matrix {
		if t.Src < 0 || t.Src >= len(p.Ranks) || t.Dst < 0 || t.Dst >= len(p.Ranks) {
			continue
		}
		if p.Ranks[t.Src].Host == p.Ranks[t.Dst].Host {
			s.IntraBytes += float64(t.Bytes)
		} else {
			s.InterBytes += float64(t.Bytes)
		}
	}
	if tot := s.IntraBytes + s.InterBytes; tot > 0 {
		s.IntraShare = s.IntraBytes / tot
		return &s
	}
	return nil
}

type advice struct {
	Path        string
	Result      placefile.Advice
	Reference   string
	Nodes       []nodeBox
	Launch      string
	BestRun     float64
	CurrentRun  float64
	PerfectRun  float64
	Predictions []predictionRow
	Ranged      bool // placefile.Predicted.Ranged
}

type predictionRow struct {
	placefile.Prediction
	Speedup float64 // reference run / this run
}

type nodeBox struct {
	Host  string
	Ranks string
	Count int
}

// adviceSection reads latmap place --json's output.
func adviceSection(path string) (*advice, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sec := &advice{Path: path}
	if err := json.Unmarshal(b, &sec.Result); err != nil {
		return nil, fmt.Errorf("%s: not the JSON of latmap place --json: %w", path, err)
	}
	r := &sec.Result
	if len(r.Predictions) == 0 || len(r.Placement) == 0 {
		return nil, fmt.Errorf("%s: no predictions or placement; is it the output of latmap place --json?", path)
	}
	ref := r.Predictions[0]
	sec.Reference = ref.Name
	for _, p := range r.Predictions {
		row := predictionRow{Prediction: p}
		if p.Run > 0 {
			row.Speedup = ref.Run / p.Run
		}
		sec.Predictions = append(sec.Predictions, row)
	}
	sec.Ranged = r.Ranged()
	sec.PerfectRun = r.PerfectRun
	sec.Launch = text.ShellJoin(r.Launch)
	byHost := map[string][]int{}
	var hosts []string
	for _, rp := range r.Placement {
		if _, ok := byHost[rp.Host]; !ok {
			hosts = append(hosts, rp.Host)
		}
		byHost[rp.Host] = append(byHost[rp.Host], rp.Rank)
	}
	for _, h := range hosts {
		rk := byHost[h]
		sort.Ints(rk)
		sec.Nodes = append(sec.Nodes, nodeBox{Host: h, Ranks: topo.FormatRanks(rk), Count: len(rk)})
	}
	return sec, nil
}

// verifyRunsFile is the runs table of a verification directory.
const verifyRunsFile = placefile.VerifyRunsFile

type verification struct {
	Path string
	Meta *placefile.Verification
	Runs []placefile.VerifyRun
}

// verifySection reads a verification directory (latmap verify).
func verifySection(path string) (*verification, error) {
	v, runs, err := placefile.ReadVerification(path)
	if err != nil {
		return nil, err
	}
	return &verification{Path: path, Meta: v, Runs: runs}, nil
}

// reportTitle names the report after what it holds.
func reportTitle(r *htmlReport) string {
	var parts []string
	if r.App != nil {
		parts = append(parts, filepath.Base(filepath.Clean(r.App.Path)))
	}
	if r.Machine != nil {
		parts = append(parts, filepath.Base(filepath.Clean(r.Machine.Path)))
	}
	if len(parts) == 0 {
		return "latmap report"
	}
	return "latmap report: " + strings.Join(parts, ", ")
}

func fmtFloat(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// fmtSeconds prints seconds with 3 significant digits and a unit.
func fmtSeconds(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case v == 0:
		return "0 s"
	case math.Abs(v) < 1e-3:
		return strconv.FormatFloat(v*1e6, 'g', 3, 64) + " us"
	case math.Abs(v) < 1:
		return strconv.FormatFloat(v*1e3, 'g', 3, 64) + " ms"
	}
	return strconv.FormatFloat(v, 'g', 4, 64) + " s"
}

func fmtPercent(v float64) string { return fmtFloat(100*v, 1) + "%" }

func fmtBytes(v float64) string {
	for _, u := range []struct {
		d    float64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if v >= u.d {
			return fmtFloat(v/u.d, 1) + " " + u.name
		}
	}
	return fmtFloat(v, 0) + " B"
}
