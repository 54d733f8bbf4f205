package plots

import (
	"bytes"
	"flag"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/compare"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
	"github.com/latmap/latmap/mapper/topo"
	"gonum.org/v1/plot/vg"
)

var update = flag.Bool("update", false, "rewrite the golden images in testdata/")

// Golden images match when at most goldenPixels of their pixels differ by
// more than goldenDelta in a channel: that absorbs rasteriser noise
// (anti-aliasing, font hinting) between machines, while a changed colour
// scale, layout or label moves more pixels. The goldens match this
// machine's rendering to the pixel (0.000%); one letter changed in an
// axis label ("rank" to "ranc" on a heatmap) moves 0.042% of a 576x480
// image (116 pixels), "pairs" to "pears" on the histogram 0.229%. The
// earlier 0.3% (829 pixels) let both through; 0.02% (55 pixels) does not.
const (
	goldenDelta  = 48
	goldenPixels = 0.0002
)

// similar decodes two PNGs and compares them with the tolerance above.
func similar(a, b []byte) (bool, string, error) {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return false, "", err
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return false, "", err
	}
	if ia.Bounds() != ib.Bounds() {
		return false, "sizes " + ia.Bounds().String() + " and " + ib.Bounds().String(), nil
	}
	r := ia.Bounds()
	diff := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if pixelDiff(ia, ib, x, y) > goldenDelta {
				diff++
			}
		}
	}
	frac := float64(diff) / float64(r.Dx()*r.Dy())
	return frac <= goldenPixels, strconv.FormatFloat(100*frac, 'f', 3, 64) + "% of pixels differ", nil
}

func pixelDiff(a, b image.Image, x, y int) int {
	r1, g1, b1, _ := a.At(x, y).RGBA()
	r2, g2, b2, _ := b.At(x, y).RGBA()
	d := 0
	for _, p := range [][2]uint32{{r1, r2}, {g1, g2}, {b1, b2}} {
		v := int(p[0]>>8) - int(p[1]>>8)
		if v < 0 {
			v = -v
		}
		d = max(d, v)
	}
	return d
}

func synthetic(layout string, seed uint64) *survey.Survey {
	return synth.New(synth.Spec{Nodes: 3, Sockets: 2, Cores: 4, NodesPerSwitch: 2, Layout: layout,
		RTT: [4]float64{0.6, 1.0, 4, 7}, Noise: 0.08, Seed: seed})
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+"_golden.png")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./plots -update to make it)", err)
	}
	ok, why, err := similar(got, want)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		failed := filepath.Join(t.TempDir(), name+".png")
		os.WriteFile(failed, got, 0o644)
		t.Errorf("%s differs from %s (%s); got %s", name, path, why, failed)
	}
}

func TestGolden(t *testing.T) {
	small := func(o Options) Options {
		o.Width, o.Height = 6*vg.Inch, 5*vg.Inch
		return o
	}
	block := synthetic(topo.LayoutBlock, 1)
	cyclic := synthetic(topo.LayoutCyclic, 2)
	tests := []struct {
		name string
		s    *survey.Survey
		opt  func(Options) Options
	}{
		{"heatmap_block", block, func(o Options) Options { return o }},
		{"heatmap_cyclic_host", cyclic, func(o Options) Options { o.Order = "host"; return o }},
		{"heatmap_std", block, func(o Options) Options { o.Metric = survey.Std; return o }},
		{"surface_block", block, func(o Options) Options { o.Style = StyleSurface; return o }},
		{"histogram_block", block, func(o Options) Options { o.Style = StyleHistogram; o.Height = 6 * vg.Inch; return o }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Render(tc.s, "png", tc.opt(small(DefaultOptions())))
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.name, b)
		})
	}
	t.Run("compare_block_cyclic", func(t *testing.T) {
		c, err := compare.Compare(block, cyclic, "block", "cyclic", topo.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		o := DefaultOptions()
		o.Width, o.Height = 10*vg.Inch, 5*vg.Inch
		b, err := RenderCompare(block, cyclic, c, "png", o)
		if err != nil {
			t.Fatal(err)
		}
		checkGolden(t, "compare_block_cyclic", b)
	})
}

// TestHeatmapOrientation checks rank 0 is at the lower left and that slow
// is red and fast blue.
func TestHeatmapOrientation(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 1, Sockets: 1, Cores: 4, RTT: [4]float64{1, 1, 1, 1}, Seed: 1})
	tab := s.Tables[0]
	// Pair (0, 3) is slow, the rest fast.
	tab.Values[survey.Mean][survey.TriIndex(4, 0, 3)] = 10
	g := newGrid(tab, survey.Mean, []int{0, 1, 2, 3})
	lo, hi, _ := valueRange(g)
	img := g.image(lo, hi, 1)
	// Row 0 (rank 0) is the bottom pixel row; column 3 is x = 3.
	slow := img.RGBAAt(3, 3)
	fast := img.RGBAAt(1, 3)
	diag := img.RGBAAt(0, 3)
	if !(slow.R > 100 && slow.B < 50) {
		t.Errorf("slow pair (0,3) at the bottom right is %v, want red", slow)
	}
	if !(fast.B > 100 && fast.R < 50) {
		t.Errorf("fast pair (0,1) is %v, want blue", fast)
	}
	if diag != noData {
		t.Errorf("diagonal is %v, want the no-data grey", diag)
	}
	// Symmetric: (3, 0) is the top-left pixel.
	if img.RGBAAt(0, 0) != slow {
		t.Errorf("matrix not symmetric: %v vs %v", img.RGBAAt(0, 0), slow)
	}
}

func TestGridDownsample(t *testing.T) {
	n := 2*maxPixels + 3
	s := synth.New(synth.Spec{Nodes: 1, Sockets: 1, Cores: n, RTT: [4]float64{2, 2, 2, 2}, Seed: 1})
	g := newGrid(s.Tables[0], survey.Mean, identity(n))
	// 2051 ranks in blocks of 3: 684 cells, every one the average of 2 us.
	if g.block != 3 || g.n != 684 {
		t.Fatalf("block %d cells %d, want 3 and 684", g.block, g.n)
	}
	for i, v := range g.v {
		if math.Abs(float64(v)-2) > 1e-5 {
			t.Fatalf("cell %d = %v, want 2", i, v)
		}
	}
}

func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

func TestFormats(t *testing.T) {
	s := synthetic(topo.LayoutBlock, 3)
	dir := t.TempDir()
	for _, tc := range []struct{ file, magic string }{{"a.png", "\x89PNG"}, {"a.svg", "<?xml"}, {"a.pdf", "%PDF"}, {"a", "\x89PNG"}} {
		path := filepath.Join(dir, tc.file)
		if err := WriteFile(path, s, DefaultOptions()); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		if !bytes.HasPrefix(b, []byte(tc.magic)) {
			t.Errorf("%s starts with %q, want %q", tc.file, b[:min(8, len(b))], tc.magic)
		}
	}
	if err := WriteFile(filepath.Join(dir, "a.png"), s, DefaultOptions()); err == nil {
		t.Error("overwriting without force succeeded")
	}
	if err := WriteFile(filepath.Join(dir, "a.gif"), s, DefaultOptions()); err == nil || !strings.Contains(err.Error(), ".png, .svg or .pdf") {
		t.Errorf("gif: %v", err)
	}
	bad := DefaultOptions()
	bad.Style = "pie"
	if _, err := Render(s, "png", bad); err == nil {
		t.Error("unknown style accepted")
	}
}

// TestSizes draws 2 and 2000 ranks with default options: the picture has
// the default size whatever N.
func TestSizes(t *testing.T) {
	for _, n := range []int{2, 2000} {
		s := synth.New(synth.Spec{Nodes: 1, Sockets: 1, Cores: n, RTT: [4]float64{1, 1, 1, 1}, Noise: 0.1, Seed: 1})
		for _, style := range []string{StyleHeatmap, StyleSurface} {
			o := DefaultOptions()
			o.Style = style
			b, err := Render(s, "png", o)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			// 8.5 x 7 inches at 96 dpi.
			if r := img.Bounds(); r.Dx() != 816 || r.Dy() != 672 {
				t.Errorf("N=%d %s: %v, want 816 x 672", n, style, r)
			}
		}
	}
}

// TestRankTicks: every rank labelled on small axes, 4 to 10 labels on
// every axis from 2 to 4096 ranks, all on integer ranks.
func TestRankTicks(t *testing.T) {
	for _, n := range []int{2, 3, 8, 10, 11, 16, 24, 33, 64, 100, 128, 500, 1000, 4096} {
		var labels []int
		for _, tk := range (rankTicks{}).Ticks(-0.5, float64(n)-0.5) {
			if tk.Value != math.Trunc(tk.Value) || tk.Value < 0 || tk.Value > float64(n-1) {
				t.Errorf("n=%d: tick at %v", n, tk.Value)
			}
			if tk.Label != "" {
				labels = append(labels, int(tk.Value))
			}
		}
		if n <= 10 && len(labels) != n {
			t.Errorf("n=%d: labels %v, want every rank", n, labels)
		}
		if want := min(n, 4); len(labels) < want || len(labels) > 10 {
			t.Errorf("n=%d: %d labels %v, want %d to 10", n, len(labels), labels, want)
		}
		for i := range labels {
			if step := RankStep(n); labels[i] != i*step {
				t.Errorf("n=%d: labels %v, want every multiple of %d", n, labels, step)
				break
			}
		}
	}
}

// TestCompareSparse: latmap compare's picture of two surveys of scope
// nodes (sparse tables: the pairs inside each node and between leaders)
// draws every stored pair; it read a sparse table as a dense one and
// panicked (index out of range) on a 16,384-rank survey. Each leader
// pair's round trip lands in its cell, the unmeasured cells stay empty.
func TestCompareSparse(t *testing.T) {
	spec := synth.Spec{Nodes: 8, Sockets: 1, Cores: 4, RTT: [4]float64{1, 2, 10, 10}, Scope: survey.ScopeNodes, Seed: 3}
	a := synth.New(spec)
	spec.Seed = 4
	b := synth.New(spec)
	if !a.Tables[0].Sparse() {
		t.Fatalf("premise: synth's scope-nodes survey is not sparse")
	}
	c, err := compare.Compare(a, b, "a", "b", topo.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RenderCompare(a, b, c, "png", DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	g := newGrid(a.Tables[0], survey.Mean, identity(32))
	// Ranks 0 and 4 lead nodes 0 and 1: about 10 us; ranks 1 and 5 were
	// not measured.
	if v := g.v[0*g.n+4]; !(v > 5 && v < 20) {
		t.Errorf("leaders 0 and 4: cell %g, want about 10 us", v)
	}
	if v := g.v[1*g.n+5]; v == v {
		t.Errorf("ranks 1 and 5 (not measured): cell %g, want empty", v)
	}
}
