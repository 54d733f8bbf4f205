package plots

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/latmap/latmap/internal/text"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
)

// Profile plot styles.
const (
	StyleRanks     = "ranks"     // per-rank stacked bars: computation, MPI, send-late, collective wait
	StyleFunctions = "functions" // time per MPI function summed over ranks, largest first
	StyleMatrix    = "matrix"    // the rank x rank transfer matrix
	StyleSizes     = "sizes"     // the message-size histogram
)

// ProfileStyles lists the profile styles, the default first.
func ProfileStyles() []string {
	return []string{StyleRanks, StyleFunctions, StyleMatrix, StyleSizes}
}

// ProfileOptions say how to draw a profile.
type ProfileOptions struct {
	Style string // one of ProfileStyles ("" is ranks)
	// Metric of the matrix style: bytes (default), messages or time.
	Metric string
	// Comm draws one communicator's matrix (its MPI_Comm_set_name name or
	// its key in comms.csv, w.1 say) instead of the whole one.
	Comm string
	// Name names the profile in titles (its directory, say).
	Name string
	// Width and Height of the picture; 0 picks a size that reads well.
	Width, Height vg.Length
	Force         bool
}

// The colours of the time categories, shared by the pictures and the
// report's tables.
var (
	colourComput = color.RGBA{R: 0x4c, G: 0x78, B: 0xa8, A: 0xff} // blue
	colourMPI    = color.RGBA{R: 0xf5, G: 0x85, B: 0x18, A: 0xff} // orange
	colourLate   = color.RGBA{R: 0xe4, G: 0x57, B: 0x56, A: 0xff} // red
	colourSync   = color.RGBA{R: 0x72, G: 0xb7, B: 0xb2, A: 0xff} // teal
)

// WriteProfileFile draws p as opt says into path (PNG, SVG or PDF by
// extension), atomically.
func WriteProfileFile(path string, p *profile.Profile, opt ProfileOptions) error {
	format, err := Format(path)
	if err != nil {
		return err
	}
	b, err := RenderProfile(p, format, opt)
	if err != nil {
		return err
	}
	return writeFile(path, opt.Force, b)
}

// RenderProfile draws p in the given format (png, svg, pdf).
func RenderProfile(p *profile.Profile, format string, opt ProfileOptions) ([]byte, error) {
	n := len(p.Ranks)
	if n == 0 {
		return nil, fmt.Errorf("the profile has no ranks")
	}
	w, h := opt.Width, opt.Height
	var pl *plot.Plot
	var err error
	switch opt.Style {
	case "", StyleRanks:
		w, h = defaultSize(w, h, vg.Length(math.Min(14, 6+0.12*float64(n)))*vg.Inch, 5*vg.Inch)
		pl, err = ranksPlot(p, opt.Name)
	case StyleFunctions:
		k := len(p.OrderedFunctions((*profile.Function).TotalTime))
		w, h = defaultSize(w, h, 7.5*vg.Inch, vg.Length(1.6+0.3*float64(min(k, maxFunctionBars)))*vg.Inch)
		pl, err = functionsPlot(p, opt.Name)
	case StyleMatrix:
		w, h = defaultSize(w, h, 8.5*vg.Inch, 7*vg.Inch)
		return renderCanvas(w, h, format, func(dc draw.Canvas) error { return drawMatrix(dc, p, opt) })
	case StyleSizes:
		w, h = defaultSize(w, h, 7.5*vg.Inch, 6*vg.Inch)
		return renderCanvas(w, h, format, func(dc draw.Canvas) error { return drawSizes(dc, p, opt.Name) })
	default:
		return nil, fmt.Errorf("unknown profile style %q (want ranks, functions, matrix or sizes)", opt.Style)
	}
	if err != nil {
		return nil, err
	}
	return renderCanvas(w, h, format, func(dc draw.Canvas) error {
		pl.Draw(dc)
		return nil
	})
}

// ProfileTitle says what a profile picture shows, on two lines: the
// profile, then its ranks and hosts and what is drawn.
func ProfileTitle(p *profile.Profile, name, what string) string {
	if name == "" {
		name = "profile"
	}
	ranks := make([]survey.Rank, len(p.Ranks))
	for i, r := range p.Ranks {
		ranks[i] = r.Rank
	}
	_, hosts := survey.HostIndex(ranks)
	return fmt.Sprintf("%s\n%d ranks on %s, %s", name, len(p.Ranks), text.Count(hosts, "host"), what)
}

// RankTimes are the four parts of each rank's elapsed time the ranks
// picture stacks: computation, time in MPI transferring, send-late and
// collective wait (seconds, by rank).
func RankTimes(p *profile.Profile) (comput, mpi, late, sync []float64) {
	comput = make([]float64, len(p.Ranks))
	for i, r := range p.Ranks {
		comput[i] = r.Comput
	}
	rs := p.RankSums()
	return comput, rs.MPI, rs.Late, rs.Sync
}

// ranksPlot is MPInside's first table as a picture: one stacked bar per
// rank, ranks grouped by host (then rank) with lines between the hosts.
func ranksPlot(p *profile.Profile, name string) (*plot.Plot, error) {
	comput, mpi, late, sync := RankTimes(p)
	hb := profileHosts(p)
	for _, v := range [][]float64{comput, mpi, late, sync} {
		copy(v, hb.permute(v))
	}
	pl := plot.New()
	what := "time per rank"
	if hb.grouped {
		what += ", grouped by host"
	}
	pl.Title.Text = ProfileTitle(p, name, what)
	pl.X.Label.Text, pl.Y.Label.Text = "rank", "seconds"
	width := vg.Length(math.Max(1, math.Min(18, 500/float64(len(p.Ranks)))))
	if err := addStacked(pl, width, false, []stackPart{
		{"computation", comput, colourComput}, {"MPI", mpi, colourMPI}, {"send-late", late, colourLate}, {"collective wait", sync, colourSync}}); err != nil {
		return nil, err
	}
	pl.Legend.Top, pl.Legend.Left = true, false
	hb.axis(&pl.X, "ranks by host, then rank")
	if len(hb.bounds) > 0 && len(hb.bounds) < 256 {
		pl.Add(&hostLines{bounds: hb.bounds, n: float64(len(p.Ranks)), onlyX: true})
	}
	pl.X.Min, pl.X.Max = -0.5, float64(len(p.Ranks))-0.5
	top := 0.0
	for i := range comput {
		top = math.Max(top, comput[i]+mpi[i]+late[i]+sync[i])
	}
	// Room above the tallest bar for the legend.
	pl.Y.Min, pl.Y.Max = 0, top*1.3
	return pl, nil
}

// hostBlocksOf is a profile's drawing order of the ranks (grouped by
// host, then rank) and its host blocks.
type hostBlocksOf struct {
	order, pos []int
	grouped    bool // the order is not rank order
	bounds     []int
	names      []string
	centres    []float64
}

func profileHosts(p *profile.Profile) *hostBlocksOf {
	hb := &hostBlocksOf{pos: make([]int, len(p.Ranks))}
	hb.order, hb.grouped = p.HostOrder()
	for i, r := range hb.order {
		hb.pos[r] = i
	}
	hb.bounds, hb.names, hb.centres = hostBlocks(hb.order, func(r int) string { return p.Ranks[r].Host })
	return hb
}

// permute returns v (by rank) in drawing order.
func (hb *hostBlocksOf) permute(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, r := range hb.order {
		out[i] = v[r]
	}
	return out
}

// axis labels an axis of ranks: by rank in rank order, else by host
// (names at the blocks' centres when there are few enough to read).
func (hb *hostBlocksOf) axis(a *plot.Axis, grouped string) {
	if !hb.grouped {
		a.Tick.Marker = rankTicks{}
		return
	}
	a.Label.Text = grouped
	if len(hb.names) > 16 {
		a.Tick.Marker = hostTicks(nil, nil, hb.bounds)
		return
	}
	// Each host's name, and its ranks beneath when they are few enough
	// to read.
	ticks := hostTicks(hb.names, hb.centres, hb.bounds)
	start := 0
	for i := range hb.names {
		end := len(hb.order)
		if i < len(hb.bounds) {
			end = hb.bounds[i]
		}
		// A host's ranks are ascending in the order.
		if l := topo.FormatRanks(hb.order[start:end]); len(l) <= 12 {
			ticks[i].Label += "\n" + l
		}
		start = end
	}
	a.Tick.Marker = ticks
}

// stackPart is one part of a stacked bar chart.
type stackPart struct {
	name string
	v    []float64
	c    color.Color
}

// addStacked draws the parts as bars stacked on one another, in order,
// each in the legend.
func addStacked(pl *plot.Plot, width vg.Length, horizontal bool, parts []stackPart) error {
	var below *plotter.BarChart
	for _, part := range parts {
		bc, err := plotter.NewBarChart(plotter.Values(part.v), width)
		if err != nil {
			return err
		}
		bc.Horizontal = horizontal
		bc.Color, bc.LineStyle.Width = part.c, 0
		if below != nil {
			bc.StackOn(below)
		}
		below = bc
		pl.Add(bc)
		pl.Legend.Add(part.name, bc)
	}
	return nil
}

// maxFunctionBars bounds the functions picture; the rest are summed into
// one "others" bar.
const maxFunctionBars = 20

// functionsPlot draws the time in each MPI function summed over ranks,
// largest first, split into transfer, send-late and collective wait.
func functionsPlot(p *profile.Profile, name string) (*plot.Plot, error) {
	names := p.OrderedFunctions((*profile.Function).TotalTime)
	if len(names) == 0 {
		return nil, fmt.Errorf("the profile has no time in MPI functions to draw")
	}
	idx := map[string]int{}
	k := min(len(names), maxFunctionBars)
	labels := append([]string(nil), names[:k]...)
	if len(names) > k {
		labels = append(labels, fmt.Sprintf("%d others", len(names)-k))
	}
	for i, n := range names {
		idx[n] = min(i, k)
	}
	parts := [3][]float64{make([]float64, len(labels)), make([]float64, len(labels)), make([]float64, len(labels))}
	for _, f := range p.Functions {
		i, ok := idx[f.Function]
		if !ok {
			continue
		}
		parts[0][i] += f.Time
		parts[1][i] += f.Late
		parts[2][i] += f.Sync
	}
	// Largest at the top: bars are drawn from the bottom.
	rev := func(v []float64) []float64 {
		out := make([]float64, len(v))
		for i := range v {
			out[len(v)-1-i] = v[i]
		}
		return out
	}
	pl := plot.New()
	pl.Title.Text = ProfileTitle(p, name, "time per MPI function, summed over ranks")
	pl.X.Label.Text = "seconds"
	if err := addStacked(pl, vg.Points(12), true, []stackPart{
		{"transfer", rev(parts[0]), colourMPI}, {"send-late", rev(parts[1]), colourLate}, {"collective wait", rev(parts[2]), colourSync}}); err != nil {
		return nil, err
	}
	rl := make([]string, len(labels))
	for i := range labels {
		rl[len(labels)-1-i] = labels[i]
	}
	pl.NominalY(rl...)
	pl.Legend.Top = true
	right := 0.0
	for i := range labels {
		right = math.Max(right, parts[0][i]+parts[1][i]+parts[2][i])
	}
	// Room right of the longest bar for the legend.
	pl.X.Min, pl.X.Max = 0, right*1.35
	return pl, nil
}

// matrixValue is the quantity the matrix style draws for a transfer.
func matrixValue(metric string) (func(t profile.Transfer) float64, string, error) {
	switch metric {
	case "", "bytes":
		return func(t profile.Transfer) float64 { return float64(t.Bytes) }, "bytes", nil
	case "messages":
		return func(t profile.Transfer) float64 { return float64(t.Messages) }, "messages", nil
	case "time":
		return func(t profile.Transfer) float64 { return t.Time }, "seconds", nil
	}
	return nil, "", fmt.Errorf("unknown matrix metric %q (want bytes, messages or time)", metric)
}

// MatrixGrid is the transfer matrix as drawn, ranks grouped by host then
// rank (profile.HostOrder; g.pos[rank] is a rank's position): cell
// (src, dst) holds
// log10 of the value summed over blocks of ranks (at most maxPixels cells
// a side), NaN where nothing was sent. Row = sender, column = receiver.
// With comm, the communicator's matrix (profile.FindComm).
func MatrixGrid(p *profile.Profile, metric, comm string) (*grid, string, error) {
	return matrixGrid(p, metric, comm, profileHosts(p))
}

// matrixGrid is MatrixGrid in the drawing order hb.
func matrixGrid(p *profile.Profile, metric, comm string, hb *hostBlocksOf) (*grid, string, error) {
	val, unit, err := matrixValue(metric)
	if err != nil {
		return nil, "", err
	}
	rows := p.Matrix
	if comm != "" {
		c, err := p.FindComm(comm)
		if err != nil {
			return nil, "", err
		}
		rows = p.CommTransfers(c.Comm)
	}
	n := len(p.Ranks)
	block := (n + maxPixels - 1) / maxPixels
	cells := (n + block - 1) / block
	g := &grid{n: cells, ranks: n, block: block, perm: hb.order, pos: hb.pos, v: make([]float32, cells*cells)}
	sum := make([]float64, cells*cells)
	for _, t := range rows {
		if t.Src < 0 || t.Src >= n || t.Dst < 0 || t.Dst >= n {
			continue
		}
		sum[g.pos[t.Src]/block*cells+g.pos[t.Dst]/block] += val(t)
	}
	for i, v := range sum {
		g.v[i] = float32(math.NaN())
		if v > 0 {
			g.v[i] = float32(math.Log10(v))
		}
	}
	return g, unit, nil
}

// drawMatrix draws the transfer matrix with its colour bar, ranks grouped
// by host with lines between the hosts.
func drawMatrix(dc draw.Canvas, p *profile.Profile, opt ProfileOptions) error {
	hb := profileHosts(p)
	g, unit, err := matrixGrid(p, opt.Metric, opt.Comm, hb)
	if err != nil {
		return err
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range g.v {
		if v == v {
			lo, hi = math.Min(lo, float64(v)), math.Max(hi, float64(v))
		}
	}
	what := unit + " sent, row = sender, column = receiver"
	if opt.Comm != "" {
		what = fmt.Sprintf("communicator %s: %s", opt.Comm, what)
	}
	if math.IsInf(lo, 1) {
		if opt.Comm != "" {
			return fmt.Errorf("communicator %s carried no point-to-point traffic to draw", opt.Comm)
		}
		return fmt.Errorf("the profile's matrix.csv has no point-to-point traffic to draw")
	}
	if hi-lo < 1e-9 {
		lo, hi = lo-0.5, hi+0.5
	}
	n := float64(g.ranks)
	pl := plot.New()
	pl.Title.Text = ProfileTitle(p, opt.Name, what)
	pl.Add(plotter.NewImage(g.image(lo, hi, g.upscale()), -0.5, -0.5, n-0.5, n-0.5))
	pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = -0.5, n-0.5, -0.5, n-0.5
	pl.X.Label.Text, pl.Y.Label.Text = "receiver rank", "sender rank"
	hb.axis(&pl.X, "receiver, ranks by host, then rank")
	hb.axis(&pl.Y, "sender, ranks by host, then rank")
	if len(hb.bounds) > 0 && len(hb.bounds) < 256 {
		pl.Add(&hostLines{bounds: hb.bounds, n: n})
	}
	heatmapFigure(dc, []*plot.Plot{pl}, colourBar(lo, hi, "log10 "+unit, false))
	return nil
}

// SizeTotals sums sizes.csv over ranks and functions: calls and seconds per
// size bin, bins in increasing order.
func SizeTotals(p *profile.Profile) (labels []string, calls, secs []float64) {
	type key struct{ lo, hi int64 }
	sum := map[key][2]float64{}
	for _, b := range p.Sizes {
		k := key{b.Low, b.High}
		v := sum[k]
		v[0] += float64(b.Calls)
		v[1] += b.Time
		sum[k] = v
	}
	keys := make([]key, 0, len(sum))
	for k := range sum {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].lo < keys[j].lo })
	for _, k := range keys {
		labels = append(labels, binLabel(k.lo, k.hi))
		calls = append(calls, sum[k][0])
		secs = append(secs, sum[k][1])
	}
	return labels, calls, secs
}

// binLabel names a size bin: "<128", "128-255", ">=64K".
func binLabel(lo, hi int64) string {
	switch {
	case hi < 0:
		return ">=" + sizeString(lo)
	case lo == 0:
		return "<" + sizeString(hi)
	}
	return sizeString(lo) + "-" + sizeString(hi-1)
}

func sizeString(b int64) string {
	switch {
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%dM", b>>20)
	case b >= 1<<10 && b%(1<<10) == 0:
		return fmt.Sprintf("%dK", b>>10)
	}
	return fmt.Sprint(b)
}

// drawSizes draws the message-size histogram: calls per size bin above,
// seconds per size bin below.
func drawSizes(dc draw.Canvas, p *profile.Profile, name string) error {
	labels, calls, secs := SizeTotals(p)
	if len(labels) == 0 {
		return fmt.Errorf("the profile has no message sizes (sizes.csv) to draw")
	}
	var plots [2]*plot.Plot
	for i, part := range []struct {
		v     []float64
		label string
		c     color.Color
	}{{calls, "calls", colourComput}, {secs, "seconds", colourMPI}} {
		pl := plot.New()
		if i == 0 {
			pl.Title.Text = ProfileTitle(p, name, "message sizes (all ranks and functions)")
		}
		bc, err := plotter.NewBarChart(plotter.Values(part.v), vg.Points(math.Max(4, math.Min(24, 300/float64(len(labels))))))
		if err != nil {
			return err
		}
		bc.Color, bc.LineStyle.Width = part.c, 0
		pl.Add(bc)
		pl.NominalX(labels...)
		pl.X.Tick.Label.Rotation = math.Pi / 4
		pl.X.Tick.Label.XAlign, pl.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
		pl.Y.Label.Text = part.label
		pl.X.Label.Text = "message size (bytes)"
		pl.Y.Min = 0
		plots[i] = pl
	}
	top, bottom := dc, dc
	top.Min.Y = dc.Min.Y + (dc.Max.Y-dc.Min.Y)/2
	bottom.Max.Y = top.Min.Y
	plots[0].Draw(top)
	plots[1].Draw(bottom)
	return nil
}
