package plots

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"github.com/latmap/latmap/mapper/survey"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// heatmapPlot draws one grid as a colour map with rank 0 at the lower left.
func heatmapPlot(s *survey.Survey, g *grid, lo, hi float64, orderBy, title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	// Rank r's cell spans r-0.5 .. r+0.5, so integer ticks sit on cells.
	n := float64(g.ranks)
	img := g.image(lo, hi, g.upscale())
	p.Add(plotter.NewImage(img, -0.5, -0.5, n-0.5, n-0.5))
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -0.5, n-0.5, -0.5, n-0.5
	p.X.Label.Text, p.Y.Label.Text = "rank", "rank"
	if orderBy == "host" {
		bounds, names, centres := hostBounds(s, g.perm)
		p.X.Label.Text, p.Y.Label.Text = "ranks by host, socket, cpu", "ranks by host, socket, cpu"
		if len(bounds) > 0 && len(bounds) < 256 {
			p.Add(&hostLines{bounds: bounds, n: n})
		}
		if len(names) <= 16 {
			ticks := hostTicks(names, centres, bounds)
			p.X.Tick.Marker, p.Y.Tick.Marker = ticks, ticks
		}
	} else {
		p.X.Tick.Marker, p.Y.Tick.Marker = rankTicks{}, rankTicks{}
	}
	return p
}

// rankTicks puts integer rank ticks on an axis, labelled at a step of 1,
// 2 or 5 times a power of ten that gives 4 to 10 labels (every rank up to
// 10 ranks, every 500th at 4096), with unlabelled minor ticks between.
type rankTicks struct{}

func (rankTicks) Ticks(lo, hi float64) []plot.Tick {
	lo, hi = math.Max(0, math.Ceil(lo)), math.Floor(hi)
	if hi < lo {
		return nil
	}
	step := RankStep(int(hi - lo + 1))
	// Minor ticks: fifths of 1 x 10^k and 5 x 10^k, halves of 2 x 10^k.
	minor := max(1, step/5)
	if step%5 != 0 {
		minor = max(1, step/2)
	}
	var out []plot.Tick
	for r := int(lo) / minor * minor; float64(r) <= hi; r += minor {
		if float64(r) < lo {
			continue
		}
		t := plot.Tick{Value: float64(r)}
		if r%step == 0 {
			t.Label = fmt.Sprint(r)
		}
		out = append(out, t)
	}
	return out
}

// RankStep is the labelled tick step for an axis of n ranks: the smallest
// of 1, 2, 5, 10, 20, 50, ... that gives at most 10 labels.
func RankStep(n int) int {
	for p := 1; ; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if (n+m*p-1)/(m*p) <= 10 {
				return m * p
			}
		}
	}
}

// hostTicks labels host blocks at their centres (short names) with minor
// ticks at the boundaries.
func hostTicks(names []string, centres []float64, bounds []int) plot.ConstantTicks {
	var t plot.ConstantTicks
	for i, name := range names {
		t = append(t, plot.Tick{Value: centres[i] - 0.5, Label: shortHost(name, len(names))})
	}
	for _, b := range bounds {
		t = append(t, plot.Tick{Value: float64(b) - 0.5})
	}
	return t
}

// shortHost cuts a host name at its first dot, and long names further
// when there are many hosts.
func shortHost(h string, hosts int) string {
	for i := 0; i < len(h); i++ {
		if h[i] == '.' {
			h = h[:i]
			break
		}
	}
	limit := 24
	if hosts > 4 {
		limit = 12
	}
	if len(h) > limit {
		h = h[:limit-1] + "…"
	}
	return h
}

// hostLines draws thin lines between the host blocks.
type hostLines struct {
	bounds []int
	n      float64
	// onlyX draws the vertical lines only (a bar chart's).
	onlyX bool
}

func (h *hostLines) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := draw.LineStyle{Color: color.Black, Width: vg.Points(0.6)}
	if len(h.bounds) > 32 {
		sty.Width = vg.Points(0.25)
	}
	for _, b := range h.bounds {
		x := trX(float64(b) - 0.5)
		y := trY(float64(b) - 0.5)
		if h.onlyX {
			c.StrokeLine2(sty, x, c.Min.Y, x, c.Max.Y)
			continue
		}
		c.StrokeLine2(sty, x, trY(-0.5), x, trY(h.n-0.5))
		c.StrokeLine2(sty, trX(-0.5), y, trX(h.n-0.5), y)
	}
}

// colourBar is a vertical colour scale from lo to hi.
func colourBar(lo, hi float64, label string, clipped bool) *plot.Plot {
	p := plot.New()
	const steps = 256
	img := image.NewRGBA(image.Rect(0, 0, 1, steps))
	for i := 0; i < steps; i++ {
		img.SetRGBA(0, steps-1-i, jet((float64(i)+0.5)/steps))
	}
	p.Add(plotter.NewImage(img, 0, lo, 1, hi))
	p.HideX()
	p.X.Min, p.X.Max = 0, 1
	p.Y.Min, p.Y.Max = lo, hi
	if clipped {
		label += ", top clipped at p99.5"
	}
	p.Y.Label.Text = label
	return p
}

// heatmapFigure lays out one or more heat maps side by side with one
// colour bar on the right.
func heatmapFigure(dc draw.Canvas, maps []*plot.Plot, bar *plot.Plot) {
	w := dc.Max.X - dc.Min.X
	barW := vg.Inch * 1.2
	if w < 5*vg.Inch {
		barW = w / 5
	}
	gap := vg.Inch / 5
	each := (w - barW - gap) / vg.Length(len(maps))
	for i, p := range maps {
		p.Draw(draw.Crop(dc, vg.Length(i)*each, vg.Length(i+1)*each-w, 0, 0))
	}
	bc := draw.Crop(dc, w-barW, 0, vg.Inch*0.55, -vg.Inch*0.35)
	bar.Draw(bc)
}
