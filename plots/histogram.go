package plots

import (
	"fmt"
	"image/color"
	"math"

	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// levelColours tells levels apart, finest (core) to farthest (network).
var levelColours = []color.RGBA{
	{31, 119, 180, 255}, {44, 160, 44, 255}, {255, 127, 14, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {127, 127, 127, 255},
}

// LevelValues returns the round trips of the pairs of each level of topo:
// pair (a, b) belongs to the first level where a and b share a group.
func LevelValues(t *survey.PairTable, m survey.Metric, topo *topo.Topology) [][]float64 {
	out := make([][]float64, len(topo.Levels))
	vals := t.Values[m]
	n := t.N
	k := 0
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			v := vals[k]
			k++
			if v != v {
				continue
			}
			l := len(topo.Group) - 1
			for i, g := range topo.Group {
				if g[a] == g[b] {
					l = i
					break
				}
			}
			out[l] = append(out[l], float64(v))
		}
	}
	return out
}

// drawHistograms draws one latency histogram per inferred level, stacked,
// on a common axis.
func drawHistograms(dc draw.Canvas, s *survey.Survey, t *survey.PairTable, m survey.Metric, topo *topo.Topology, title string) error {
	dc = drawTitle(dc, title)
	per := LevelValues(t, m, topo)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range per {
		for _, x := range v {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	if math.IsInf(lo, 0) {
		return fmt.Errorf("no measured pairs to draw")
	}
	// Clip the axis at the 99.5th percentile of all pairs, as the heat map.
	g := &grid{v: make([]float32, 0, 1024)}
	for _, v := range per {
		for _, x := range v {
			g.v = append(g.v, float32(x))
		}
	}
	_, top, _ := valueRange(g)
	hi = top
	if hi <= lo {
		hi = lo + 1
	}
	nl := len(per)
	const bins = 60
	width := (hi - lo) / bins
	rows := make([][]*plot.Plot, nl)
	for i, v := range per {
		p := plot.New()
		lv := topo.Levels[i]
		p.Title.Text = fmt.Sprintf("%s: %d pairs, %.2f-%.2f us, median %.2f us", lv.Name, lv.Pairs, lv.RTTMin, lv.RTTMax, lv.RTTMedian)
		p.Title.TextStyle.Font.Size = vg.Points(10)
		p.Y.Label.Text = "pairs"
		if i == nl-1 {
			p.X.Label.Text = metricLabel(m)
		}
		// Bins on the common axis; values above hi go in the last bin.
		h := &plotter.Histogram{Bins: make([]plotter.HistogramBin, bins), Width: width,
			FillColor: levelColours[i%len(levelColours)]}
		for k := range h.Bins {
			h.Bins[k] = plotter.HistogramBin{Min: lo + float64(k)*width, Max: lo + float64(k+1)*width}
		}
		for _, x := range v {
			h.Bins[max(0, min(bins-1, int((x-lo)/width)))].Weight++
		}
		p.Add(plotter.NewGrid(), h)
		p.X.Min, p.X.Max = lo, hi
		rows[i] = []*plot.Plot{p}
	}
	canvases := plot.Align(rows, draw.Tiles{Rows: nl, Cols: 1, PadY: vg.Points(4)}, dc)
	for i := range rows {
		rows[i][0].Draw(canvases[i][0])
	}
	return nil
}
