package plots

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"github.com/latmap/latmap/mapper/survey"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// maxMesh caps the vertices per side of the 3-D surface: larger matrices
// are averaged in blocks (a 64 x 64 mesh of quads reads well and draws
// fast in every format).
const maxMesh = 64

func textStyle(size vg.Length, xa text.XAlignment, ya text.YAlignment) text.Style {
	return text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, size), XAlign: xa, YAlign: ya,
		Handler: plot.DefaultTextHandler}
}

// drawTitle writes a title at the top of dc and returns the canvas below.
func drawTitle(dc draw.Canvas, title string) draw.Canvas {
	sty := textStyle(12, draw.XCenter, draw.YTop)
	h := sty.Height(title) + vg.Points(6)
	dc.FillText(sty, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y}, title)
	return draw.Crop(dc, 0, 0, 0, -h)
}

// meshGrid averages the matrix into at most maxMesh vertices per side.
func meshGrid(t *survey.PairTable, m survey.Metric, perm []int) *grid {
	n := t.N
	block := (n + maxMesh - 1) / maxMesh
	// Reuse newGrid's averaging with a coarser block.
	g := newGridBlock(t, m, perm, block)
	return g
}

// drawSurface draws the matrix as a 3-D surface seen from the rank-0
// corner, like the mmpi study's MATLAB surf plots: an isometric projection
// of coloured quads painted back to front, with the colour bar on the
// right.
func drawSurface(dc draw.Canvas, s *survey.Survey, t *survey.PairTable, m survey.Metric, perm []int, title string) {
	dc = drawTitle(dc, title)
	g := meshGrid(t, m, perm)
	lo, hi, clipped := valueRange(g)
	w := dc.Max.X - dc.Min.X
	barW := vg.Inch * 1.2
	bar := colourBar(lo, hi, metricLabel(m), clipped)
	bar.Draw(draw.Crop(dc, w-barW, 0, vg.Inch*0.55, -vg.Inch*0.35))
	area := draw.Crop(dc, vg.Inch*0.6, -barW-vg.Inch*0.2, vg.Inch*0.5, -vg.Inch*0.1)

	z := surfaceHeights(g, lo, hi)
	view := newSurfaceView(area)
	pt := view.pt
	axis := draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(0.7)}
	// Back walls first: the vertical edges at the far corners.
	area.StrokeLines(axis, []vg.Point{pt(0, 1, 0), pt(0, 1, 1)}, []vg.Point{pt(1, 1, 0), pt(1, 1, 1)}, []vg.Point{pt(1, 0, 0), pt(1, 0, 1)})
	area.StrokeLines(axis, []vg.Point{pt(0, 1, 0), pt(1, 1, 0), pt(1, 0, 0)})
	drawSurfaceQuads(area, view, z, g.n)
	// Front edges and labels.
	area.StrokeLines(axis, []vg.Point{pt(0, 1, 0), pt(0, 0, 0), pt(1, 0, 0)})
	drawSurfaceLabels(area, view, g)
	drawSurfaceTicks(area, view, axis, lo, hi)
}

// surfaceHeights are the vertex heights of the surface in [0, 1]: the
// cell values of g between lo and hi, the diagonal and missing cells at
// lo.
func surfaceHeights(g *grid, lo, hi float64) []float64 {
	n := g.n
	z := make([]float64, n*n)
	for i := range z {
		v := float64(g.v[i])
		if math.IsNaN(v) {
			v = lo
		}
		z[i] = (math.Min(v, hi) - lo) / (hi - lo)
	}
	return z
}

// surfaceView projects (x, y, z) in [0,1]^3 seen from in front of the
// rank-0 corner, turned 25 degrees: x (column rank) goes right and back,
// y (row rank) back and a little left, z up. The cube is scaled to fit a
// drawing area, centred across it and resting on its bottom.
type surfaceView struct {
	cp, sp     float64 // cosine and sine of the turn
	sc, ox, oy float64 // scale and origin on the area
}

// newSurfaceView fits the projection of the unit cube in area.
func newSurfaceView(area draw.Canvas) surfaceView {
	const phi = 25 * math.Pi / 180
	sv := surfaceView{cp: math.Cos(phi), sp: math.Sin(phi)}
	umin, umax, vmin, vmax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, c := range [][3]float64{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}} {
		u, v, _ := sv.proj(c[0], c[1], c[2])
		umin, umax, vmin, vmax = math.Min(umin, u), math.Max(umax, u), math.Min(vmin, v), math.Max(vmax, v)
	}
	sx := float64(area.Max.X-area.Min.X) / (umax - umin)
	sy := float64(area.Max.Y-area.Min.Y) / (vmax - vmin)
	sv.sc = math.Min(sx, sy)
	sv.ox = float64(area.Min.X+area.Max.X)/2 - (umin+umax)/2*sv.sc
	sv.oy = float64(area.Min.Y) - vmin*sv.sc
	return sv
}

// proj is the projection of (x, y, zz) before scaling, and its depth
// (larger is farther).
func (sv surfaceView) proj(x, y, zz float64) (u, v, depth float64) {
	const zs = 0.85
	depth = x*sv.sp + y*sv.cp
	return x*sv.cp - y*sv.sp, depth*0.5 + zz*zs, depth
}

// pt is the point of the area where (x, y, zz) is drawn.
func (sv surfaceView) pt(x, y, zz float64) vg.Point {
	u, v, _ := sv.proj(x, y, zz)
	return vg.Point{X: vg.Length(sv.ox + u*sv.sc), Y: vg.Length(sv.oy + v*sv.sc)}
}

// drawSurfaceQuads paints the quads between vertex (i, j) and (i+1, j+1)
// of the n x n heights z, vertex k at (k+0.5)/n, far to near, coloured by
// their mean height and, up to 40 vertices a side, edged.
func drawSurfaceQuads(area draw.Canvas, view surfaceView, z []float64, n int) {
	type quad struct {
		i, j  int
		depth float64
	}
	quads := make([]quad, 0, (n-1)*(n-1))
	for i := 0; i+1 < n; i++ {
		for j := 0; j+1 < n; j++ {
			_, _, d := view.proj((float64(j)+1)/float64(n), (float64(i)+1)/float64(n), 0)
			quads = append(quads, quad{i, j, d})
		}
	}
	sort.Slice(quads, func(a, b int) bool { return quads[a].depth > quads[b].depth })
	edge := draw.LineStyle{Color: color.RGBA{40, 40, 40, 255}, Width: vg.Points(0.2)}
	drawEdges := n <= 40
	pt := view.pt
	for _, q := range quads {
		i, j := q.i, q.j
		x0, x1 := (float64(j)+0.5)/float64(n), (float64(j)+1.5)/float64(n)
		y0, y1 := (float64(i)+0.5)/float64(n), (float64(i)+1.5)/float64(n)
		z00, z01, z10, z11 := z[i*n+j], z[i*n+j+1], z[(i+1)*n+j], z[(i+1)*n+j+1]
		poly := []vg.Point{pt(x0, y0, z00), pt(x1, y0, z01), pt(x1, y1, z11), pt(x0, y1, z10)}
		area.FillPolygon(jet((z00+z01+z10+z11)/4), poly)
		if drawEdges {
			area.StrokeLines(edge, append(poly, poly[0]))
		}
	}
}

// drawSurfaceLabels writes the first, middle and last rank (or position,
// in host order) along the front edges of the floor, and the axes' names.
func drawSurfaceLabels(area draw.Canvas, view surfaceView, g *grid) {
	pt := view.pt
	lab := textStyle(10, draw.XCenter, draw.YTop)
	ranks := g.ranks
	xname, yname := "rank", "rank"
	if g.perm != nil && !isIdentity(g.perm) {
		xname, yname = "position (by host)", "position (by host)"
	}
	for _, f := range []float64{0, 0.5, 1} {
		label := fmt.Sprint(int(math.Round(f * float64(ranks-1))))
		p := pt(f, 0, 0)
		area.FillText(lab, vg.Point{X: p.X, Y: p.Y - 3}, label)
		p = pt(0, f, 0)
		area.FillText(textStyle(10, draw.XRight, draw.YTop), vg.Point{X: p.X - 5, Y: p.Y - 6}, label)
	}
	mid := pt(0.5, 0, 0)
	area.FillText(textStyle(11, draw.XCenter, draw.YTop), vg.Point{X: mid.X, Y: mid.Y - 16}, xname+" →")
	mid = pt(0, 0.5, 0)
	area.FillText(textStyle(11, draw.XRight, draw.YTop), vg.Point{X: mid.X - 16, Y: mid.Y - 4}, "↑ "+yname)
}

// drawSurfaceTicks draws the value ticks between lo and hi on the left
// back edge.
func drawSurfaceTicks(area draw.Canvas, view surfaceView, axis draw.LineStyle, lo, hi float64) {
	zl := textStyle(9, draw.XRight, draw.YCenter)
	for _, tk := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if tk.Label == "" {
			continue
		}
		p := view.pt(0, 1, (tk.Value-lo)/(hi-lo))
		area.StrokeLine2(axis, p.X-3, p.Y, p.X, p.Y)
		area.FillText(zl, vg.Point{X: p.X - 5, Y: p.Y}, tk.Label)
	}
}

func isIdentity(p []int) bool {
	for i, v := range p {
		if i != v {
			return false
		}
	}
	return true
}
