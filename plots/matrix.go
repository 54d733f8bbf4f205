package plots

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/latmap/latmap/internal/text"
	"github.com/latmap/latmap/mapper/survey"
)

// maxPixels caps the cells of a drawn matrix per side: larger surveys are
// averaged into blocks of ranks so that a 4096-rank survey is one
// 1024 x 1024 raster, not 16 million polygons.
const maxPixels = 1024

// grid is a (possibly block-averaged) latency matrix in drawing order:
// cell (i, j) is row i (y, from the bottom) and column j (x).
type grid struct {
	n     int       // cells per side
	ranks int       // ranks per side
	block int       // ranks per cell
	v     []float32 // n*n, NaN for no data and the diagonal of single ranks
	// perm[p] is the rank drawn at position p; pos is its inverse.
	perm, pos []int
}

// order returns the drawing order of the ranks: by rank, or grouped by
// host (hosts in order of their lowest rank), then socket, cpu and rank.
func order(s *survey.Survey, by string) ([]int, error) {
	n := s.N()
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	switch by {
	case "", "rank":
		return perm, nil
	case "host":
		first := map[string]int{}
		for _, r := range s.Ranks {
			if _, ok := first[r.Host]; !ok {
				first[r.Host] = r.Rank
			}
		}
		rk := s.Ranks
		sort.SliceStable(perm, func(i, j int) bool {
			a, b := rk[perm[i]], rk[perm[j]]
			if fa, fb := first[a.Host], first[b.Host]; fa != fb {
				return fa < fb
			}
			if a.Socket != b.Socket {
				return a.Socket < b.Socket
			}
			if a.CPU != b.CPU {
				return a.CPU < b.CPU
			}
			return a.Rank < b.Rank
		})
		return perm, nil
	}
	return nil, fmt.Errorf("unknown order %q (want rank or host)", by)
}

// newGrid averages metric m of t into at most maxPixels cells per side, in
// the given rank order.
func newGrid(t *survey.PairTable, m survey.Metric, perm []int) *grid {
	return newGridBlock(t, m, perm, (t.N+maxPixels-1)/maxPixels)
}

// newGridBlock averages blocks of block x block ranks into cells.
func newGridBlock(t *survey.PairTable, m survey.Metric, perm []int, block int) *grid {
	n := t.N
	cells := (n + block - 1) / block
	g := &grid{n: cells, ranks: n, block: block, perm: perm, pos: make([]int, n)}
	for p, r := range perm {
		g.pos[r] = p
	}
	sum := make([]float32, cells*cells)
	cnt := make([]int32, cells*cells)
	vals := t.Values[m]
	// Each visits a sparse table's stored pairs (a survey of scope nodes
	// holds 1% of the triangle), a dense one's measured pairs.
	t.Each(func(a, b, k int) {
		v := vals[k]
		if v != v { // NaN
			return
		}
		ca, cb := g.pos[a]/block, g.pos[b]/block
		i1, i2 := ca*cells+cb, cb*cells+ca
		sum[i1] += v
		cnt[i1]++
		if i2 != i1 {
			sum[i2] += v
			cnt[i2]++
		}
	})
	g.v = sum
	nan := float32(math.NaN())
	for i := range sum {
		if cnt[i] == 0 {
			g.v[i] = nan
		} else {
			g.v[i] = sum[i] / float32(cnt[i])
		}
	}
	return g
}

// valueRange returns the colour scale of a set of grids: from the smallest
// value to the largest, or to the 99.5th percentile when the largest is
// more than 1.25 times that (a few slow outliers would otherwise wash out
// the structure), and whether values were clipped.
func valueRange(gs ...*grid) (lo, hi float64, clipped bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	total := 0
	for _, g := range gs {
		for _, v := range g.v {
			if v == v {
				lo = math.Min(lo, float64(v))
				hi = math.Max(hi, float64(v))
				total++
			}
		}
	}
	if total == 0 {
		return 0, 1, false
	}
	if hi <= lo {
		return lo - 0.5, hi + 0.5, false
	}
	const bins = 4096
	hist := make([]int, bins)
	w := (hi - lo) / bins
	for _, g := range gs {
		for _, v := range g.v {
			if v == v {
				hist[min(bins-1, int((float64(v)-lo)/w))]++
			}
		}
	}
	want := int(math.Ceil(0.995 * float64(total)))
	acc := 0
	for i, c := range hist {
		acc += c
		if acc >= want {
			p := lo + float64(i+1)*w
			if hi > 1.25*p {
				return lo, p, true
			}
			break
		}
	}
	return lo, hi, false
}

// jet maps x in [0, 1] to the blue-cyan-yellow-red scale of the mmpi
// plots (MATLAB's jet): fast is blue, slow is red.
func jet(x float64) color.RGBA {
	x = math.Max(0, math.Min(1, x))
	stops := [...][3]float64{{0, 0, 0.5}, {0, 0, 1}, {0, 1, 1}, {1, 1, 0}, {1, 0, 0}, {0.5, 0, 0}}
	seg := []float64{0, 0.11, 0.36, 0.64, 0.89, 1}
	i := 0
	for i < len(seg)-2 && x > seg[i+1] {
		i++
	}
	f := (x - seg[i]) / (seg[i+1] - seg[i])
	c := func(k int) uint8 { return uint8(math.Round(255 * (stops[i][k] + f*(stops[i+1][k]-stops[i][k])))) }
	return color.RGBA{c(0), c(1), c(2), 255}
}

var noData = color.RGBA{235, 235, 235, 255}

// image renders the grid, row 0 at the bottom, each cell scale x scale
// pixels.
func (g *grid) image(lo, hi float64, scale int) *image.RGBA {
	side := g.n * scale
	img := image.NewRGBA(image.Rect(0, 0, side, side))
	inv := 1 / (hi - lo)
	for i := 0; i < g.n; i++ {
		for j := 0; j < g.n; j++ {
			v := g.v[i*g.n+j]
			c := noData
			if v == v {
				c = jet((float64(v) - lo) * inv)
			}
			y0 := (g.n - 1 - i) * scale
			for dy := 0; dy < scale; dy++ {
				row := img.Pix[(y0+dy)*img.Stride+j*scale*4:]
				for dx := 0; dx < scale; dx++ {
					row[dx*4], row[dx*4+1], row[dx*4+2], row[dx*4+3] = c.R, c.G, c.B, c.A
				}
			}
		}
	}
	return img
}

// upscale is how many pixels a cell gets so that the raster is about 800
// pixels wide and cells stay sharp.
func (g *grid) upscale() int { return max(1, 800/g.n) }

// hostBounds returns the positions where the host changes in the drawing
// order, and each host block's name and centre.
func hostBounds(s *survey.Survey, perm []int) (bounds []int, names []string, centres []float64) {
	return hostBlocks(perm, func(r int) string { return s.Ranks[r].Host })
}

// hostBlocks is hostBounds for ranks whose host is host(rank).
func hostBlocks(perm []int, host func(int) string) (bounds []int, names []string, centres []float64) {
	start := 0
	for p := 1; p <= len(perm); p++ {
		if p == len(perm) || host(perm[p]) != host(perm[p-1]) {
			names = append(names, host(perm[start]))
			centres = append(centres, float64(start+p)/2)
			if p < len(perm) {
				bounds = append(bounds, p)
			}
			start = p
		}
	}
	return bounds, names, centres
}

// Title says what a survey plot shows, on two lines: the machine, then
// ranks, size, repeats and metric.
func Title(s *survey.Survey, size int, what string) string {
	name := s.Meta.Machine
	if src := strings.TrimPrefix(s.Meta.Source, "mmpi:"); src != "" && src != s.Meta.Source {
		if name != "" {
			name = src + " (" + name + ")"
		} else {
			name = src
		}
	}
	if name == "" && s.Path != "" {
		name = filepath.Base(filepath.Clean(s.Path)) + "/"
	}
	if name == "" {
		name = "survey"
	}
	reps := ""
	if s.Meta.Repeats > 0 {
		reps = fmt.Sprintf(", %d repeats", s.Meta.Repeats)
	}
	_, hosts := survey.HostIndex(s.Ranks)
	return fmt.Sprintf("%s\n%d ranks on %s, %d B%s, %s", name, s.N(), text.Count(hosts, "host"), size, reps, what)
}

func metricLabel(m survey.Metric) string {
	switch m {
	case survey.Std:
		return "round-trip std dev (us)"
	case survey.Min:
		return "min round trip (us)"
	case survey.Median:
		return "median round trip (us)"
	case survey.P99:
		return "p99 round trip (us)"
	case survey.Isolated:
		return "isolated round trip (us)"
	}
	return "mean round trip (us)"
}
