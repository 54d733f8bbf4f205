package plots

import (
	"fmt"
	"strings"

	"github.com/latmap/latmap/mapper/compare"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// WriteCompareFile draws two surveys' heat maps side by side on one colour
// scale into path (PNG, SVG or PDF by extension), atomically. c is their
// comparison (for the layouts in the panel titles); opt.Style is ignored.
func WriteCompareFile(path string, a, b *survey.Survey, c *compare.Comparison, opt Options) error {
	format, err := Format(path)
	if err != nil {
		return err
	}
	buf, err := RenderCompare(a, b, c, format, opt)
	if err != nil {
		return err
	}
	return writeFile(path, opt.Force, buf)
}

// RenderCompare draws two surveys side by side on one colour scale.
func RenderCompare(a, b *survey.Survey, c *compare.Comparison, format string, opt Options) ([]byte, error) {
	m, err := survey.ParseMetric(c.Metric)
	if err != nil {
		return nil, err
	}
	var grids []*grid
	var titles []string
	var surveys []*survey.Survey
	for i, s := range []*survey.Survey{a, b} {
		side := []compare.Side{c.A, c.B}[i]
		t, err := s.Table(opt.Size)
		if err != nil {
			return nil, err
		}
		perm, err := order(s, opt.Order)
		if err != nil {
			return nil, err
		}
		grids = append(grids, newGrid(t, m, perm))
		titles = append(titles, fmt.Sprintf("%s: %d ranks, %d B\n%s", side.Name, s.N(), t.Size, shortDescription(side.Topology)))
		surveys = append(surveys, s)
	}
	lo, hi, clipped := valueRange(grids...)
	w, h := defaultSize(opt.Width, opt.Height, 13*vg.Inch, 6.5*vg.Inch)
	return renderCanvas(w, h, format, func(dc draw.Canvas) error {
		dc = drawTitle(dc, fmt.Sprintf("%s, one colour scale", metricName(m)))
		maps := make([]*plot.Plot, 2)
		for i := range maps {
			maps[i] = heatmapPlot(surveys[i], grids[i], lo, hi, opt.Order, titles[i])
			maps[i].Title.TextStyle.Font.Size = vg.Points(11)
		}
		heatmapFigure(dc, maps, colourBar(lo, hi, metricLabel(m), clipped))
		return nil
	})
}

// shortDescription is the layout description without the rank lists, to
// fit a panel title.
func shortDescription(t *topo.Topology) string {
	d := t.Description
	if i := strings.Index(d, " ("); i > 0 {
		d = d[:i]
	}
	return d
}
