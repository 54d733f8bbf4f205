package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	_ "gonum.org/v1/plot/vg/vgimg" // png
	_ "gonum.org/v1/plot/vg/vgpdf" // pdf
	_ "gonum.org/v1/plot/vg/vgsvg" // svg

	"github.com/latmap/latmap/internal/atomicdir"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
)

// Plot styles.
const (
	StyleHeatmap   = "heatmap"
	StyleSurface   = "surface"
	StyleHistogram = "histogram"
)

// Options say what to draw.
type Options struct {
	// Metric to draw; < 0 picks the median when the survey has it, else
	// the mean (mmpi logs only have means).
	Metric survey.Metric
	// Size is the message size; < 0 is the smallest measured.
	Size int
	// Order is "rank" (default) or "host" (ranks grouped by host, socket,
	// cpu, with lines between hosts).
	Order string
	// Style is heatmap (default), surface (a 3-D view of the matrix) or
	// histogram (the round trips of each inferred topology level).
	Style string
	// Width and Height of the picture; 0 picks a size that reads well.
	Width, Height vg.Length
	// Force replaces an existing output file.
	Force bool
}

// DefaultOptions returns the defaults: automatic metric, smallest size,
// rank order, heat map.
func DefaultOptions() Options {
	return Options{Metric: -1, Size: -1, Order: "rank", Style: StyleHeatmap}
}

// Format returns the picture format of an output path from its extension:
// png (also for no extension), svg or pdf.
func Format(path string) (string, error) {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	switch ext {
	case "", "png":
		return "png", nil
	case "svg", "pdf":
		return ext, nil
	}
	return "", fmt.Errorf("cannot write %q pictures; use a .png, .svg or .pdf file name", ext)
}

// WriteFile renders s as opt says into path (PNG, SVG or PDF by
// extension), atomically.
func WriteFile(path string, s *survey.Survey, opt Options) error {
	format, err := Format(path)
	if err != nil {
		return err
	}
	b, err := Render(s, format, opt)
	if err != nil {
		return err
	}
	return writeFile(path, opt.Force, b)
}

// writeFile writes a picture atomically; an existing file is replaced only
// with force.
func writeFile(path string, force bool, b []byte) error {
	if err := atomicdir.WriteFile(path, force, b); err != nil {
		return err
	}
	return nil
}

// Render draws s as opt says in the given format (png, svg, pdf).
//
// A sparse survey (one too large to fill, see survey.Sparse) is drawn at
// node level: its node leaders, one rank per node, whose pairs it
// measured.
func Render(s *survey.Survey, format string, opt Options) ([]byte, error) {
	if s.Sparse() {
		var err error
		if s, err = s.NodeLeaders(); err != nil {
			return nil, err
		}
	}
	t, err := s.Table(opt.Size)
	if err != nil {
		return nil, err
	}
	m, err := topo.ChooseMetric(t, opt.Metric)
	if err != nil {
		return nil, err
	}
	perm, err := order(s, opt.Order)
	if err != nil {
		return nil, err
	}
	var fn func(dc draw.Canvas) error
	w, h := opt.Width, opt.Height
	switch opt.Style {
	case "", StyleHeatmap:
		w, h = defaultSize(w, h, 8.5*vg.Inch, 7*vg.Inch)
		fn = func(dc draw.Canvas) error {
			g := newGrid(t, m, perm)
			lo, hi, clipped := valueRange(g)
			p := heatmapPlot(s, g, lo, hi, opt.Order, Title(s, t.Size, metricName(m)))
			heatmapFigure(dc, []*plot.Plot{p}, colourBar(lo, hi, metricLabel(m), clipped))
			return nil
		}
	case StyleSurface:
		w, h = defaultSize(w, h, 8.5*vg.Inch, 7*vg.Inch)
		fn = func(dc draw.Canvas) error {
			drawSurface(dc, s, t, m, perm, Title(s, t.Size, metricName(m)))
			return nil
		}
	case StyleHistogram:
		topo, err := topo.Infer(s, topo.Options{Size: t.Size, Metric: m})
		if err != nil {
			return nil, err
		}
		w, h = defaultSize(w, h, 7*vg.Inch, vg.Length(1.6+1.5*float64(len(topo.Levels)))*vg.Inch)
		fn = func(dc draw.Canvas) error {
			return drawHistograms(dc, s, t, m, topo, Title(s, t.Size, metricName(m)+" per inferred level"))
		}
	default:
		return nil, fmt.Errorf("unknown style %q (want heatmap, surface or histogram)", opt.Style)
	}
	return renderCanvas(w, h, format, fn)
}

func defaultSize(w, h, dw, dh vg.Length) (vg.Length, vg.Length) {
	if w <= 0 {
		w = dw
	}
	if h <= 0 {
		h = dh
	}
	return w, h
}

// renderCanvas makes a canvas of the format, lets fn draw on it (with a
// white background) and returns the encoded picture.
func renderCanvas(w, h vg.Length, format string, fn func(draw.Canvas) error) ([]byte, error) {
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return nil, err
	}
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	if err := fn(draw.Crop(dc, vg.Inch/8, -vg.Inch/8, vg.Inch/8, -vg.Inch/8)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("writing %s: %w", format, err)
	}
	return buf.Bytes(), nil
}

func metricName(m survey.Metric) string {
	if m == survey.Std {
		return "round-trip std dev"
	}
	return m.String() + " round trip"
}
