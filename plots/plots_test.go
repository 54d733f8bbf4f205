package plots

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	stddraw "image/draw"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/compare"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
	"github.com/latmap/latmap/mapper/topo"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

var update = flag.Bool("update", false, "rewrite the golden images in testdata/")

// Golden pictures are compared on their data, not on their text. The
// data are the coloured parts of a picture (heat map cells, colour bars,
// surface quads, bars, legend swatches): pixels whose channels spread by
// at least dataChroma. Text, axes, tick marks, grid lines and the no-data
// grey are grey (channels alike) and left out, so a different font stack
// (other glyphs, other widths of the tick labels, which move and resize
// the plot area and the colour bar by a few pixels) changes nothing
// compared: every golden drawn in Liberation Sans or Mono instead of
// Serif matches (TestGoldenOtherFonts), where the earlier comparison,
// pixel for pixel to 0.02% of the pixels, failed them all (2.0-19.4% of
// their pixels moved).
//
// Data pixels within dataJoin pixels of each other form one part (across
// a quad's edge line or a host line on a heat map); parts smaller than
// dataMinPart pixels are left out. Each part of the golden must have a
// part in the picture (and the reverse) whose box's centre is within
// dataShift of the picture's size of the golden's and whose width and
// height are within dataResize of the picture's size of the golden's. The
// two boxes are then sampled at dataSamples x dataSamples points at the
// same places relative to each box: points on an edge (anti-aliased) are
// left out, and at most dataOff of the others where either is data may
// differ by more than goldenDelta in a channel from everything within
// dataNear pixels in the other picture; at least dataCompared of the data
// points must be compared. A reversed colour map changes 95% of the heat
// map's points, the heat map upside down 82%, the profile's matrix
// transposed or a bar rescaled moves its parts (TestSimilarCatches).
//
// What this gives up: the words. A changed title, axis label or tick
// label (the earlier comparison caught one letter of an axis label) is
// not a difference here, nor a bar a few percent too tall or short (within
// dataResize); the goldens hold the colours and the places of the data.
const (
	goldenDelta  = 48
	dataChroma   = 32
	dataJoin     = 2
	dataMinPart  = 25
	dataShift    = 0.08
	dataResize   = 0.05
	dataNear     = 2
	dataSamples  = 64
	dataOff      = 0.03
	dataCompared = 0.25
)

// part is one coloured part of a picture: its box and its pixel count.
type part struct {
	box  image.Rectangle
	area int
}

// isData reports whether a pixel is coloured: its channels spread by at
// least dataChroma.
func isData(img *image.RGBA, x, y int) bool {
	c := img.RGBAAt(x, y)
	return max(c.R, c.G, c.B)-min(c.R, c.G, c.B) >= dataChroma
}

// rgba is img as an *image.RGBA (a copy unless it is one).
func rgba(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok {
		return r
	}
	out := image.NewRGBA(img.Bounds())
	stddraw.Draw(out, out.Bounds(), img, img.Bounds().Min, stddraw.Src)
	return out
}

// dataParts finds the coloured parts of img (union-find over data pixels
// within dataJoin of each other), largest first.
func dataParts(img *image.RGBA) []part {
	r := img.Bounds()
	w, h := r.Dx(), r.Dy()
	parent := make([]int32, w*h)
	data := make([]bool, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			parent[i] = int32(i)
			data[i] = isData(img, r.Min.X+x, r.Min.Y+y)
		}
	}
	find := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			if !data[i] {
				continue
			}
			// The neighbours within dataJoin already visited: the rows
			// above, and the pixels to the left on this row.
			for dy := -dataJoin; dy <= 0; dy++ {
				for dx := -dataJoin; dx <= dataJoin; dx++ {
					if dy == 0 && dx >= 0 {
						break
					}
					xx, yy := x+dx, y+dy
					if xx < 0 || yy < 0 || xx >= w || !data[yy*w+xx] {
						continue
					}
					if a, b := find(int32(i)), find(int32(yy*w+xx)); a != b {
						parent[a] = b
					}
				}
			}
		}
	}
	byRoot := map[int32]*part{}
	var roots []int32
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			if !data[i] {
				continue
			}
			root := find(int32(i))
			p := byRoot[root]
			pt := image.Rect(r.Min.X+x, r.Min.Y+y, r.Min.X+x+1, r.Min.Y+y+1)
			if p == nil {
				p = &part{box: pt}
				byRoot[root] = p
				roots = append(roots, root)
			}
			p.box = p.box.Union(pt)
			p.area++
		}
	}
	var parts []part
	for _, root := range roots {
		if p := byRoot[root]; p.area >= dataMinPart {
			parts = append(parts, *p)
		}
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].area > parts[j].area })
	return parts
}

// similar decodes two PNGs (got, then the golden) and compares their
// coloured parts as said above.
func similar(a, b []byte) (bool, string, error) {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return false, "", err
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return false, "", err
	}
	ok, why := similarImages(ia, ib)
	return ok, why, nil
}

// similarImages compares the coloured parts of got and want.
func similarImages(gotImg, wantImg image.Image) (bool, string) {
	got, want := rgba(gotImg), rgba(wantImg)
	if got.Bounds().Size() != want.Bounds().Size() {
		return false, "sizes " + got.Bounds().String() + " and " + want.Bounds().String()
	}
	size := want.Bounds().Size()
	pg, pw := dataParts(got), dataParts(want)
	used := make([]bool, len(pg))
	worst, fewest := 0.0, 1.0
	for _, w := range pw {
		best, bestD := -1, math.Inf(1)
		for i, g := range pg {
			if used[i] || !nearBox(g.box, w.box, size) {
				continue
			}
			cg, cw := g.box.Min.Add(g.box.Max), w.box.Min.Add(w.box.Max)
			if d := math.Hypot(float64(cg.X-cw.X), float64(cg.Y-cw.Y)); d < bestD {
				best, bestD = i, d
			}
		}
		if best < 0 {
			return false, fmt.Sprintf("the golden's coloured part at %v (%d pixels) is not in the picture (its parts: %v)", w.box, w.area, boxes(pg))
		}
		used[best] = true
		off, compared := sampleOff(got, pg[best].box, want, w.box)
		if compared < dataCompared {
			return false, fmt.Sprintf("the part at %v and the golden's at %v are alike at %.1f%% of their points, edges at the others", pg[best].box, w.box, 100*compared)
		}
		if off > dataOff {
			return false, fmt.Sprintf("%.1f%% of the points of the part at %v differ from the golden's at %v", 100*off, pg[best].box, w.box)
		}
		worst, fewest = max(worst, off), min(fewest, compared)
	}
	for i, g := range pg {
		if !used[i] {
			return false, fmt.Sprintf("the coloured part at %v (%d pixels) is not in the golden (its parts: %v)", g.box, g.area, boxes(pw))
		}
	}
	return true, fmt.Sprintf("%d coloured parts alike, at most %.1f%% of a part's points differ, at least %.1f%% compared", len(pw), 100*worst, 100*fewest)
}

// nearBox reports whether two parts' boxes are within dataShift of the
// picture's size of each other and dataResize (and a pixel) of each
// other's size.
func nearBox(a, b image.Rectangle, size image.Point) bool {
	within := func(x, y, tol float64) bool { return math.Abs(x-y) <= tol }
	return within(float64(a.Min.X+a.Max.X)/2, float64(b.Min.X+b.Max.X)/2, dataShift*float64(size.X)) &&
		within(float64(a.Min.Y+a.Max.Y)/2, float64(b.Min.Y+b.Max.Y)/2, dataShift*float64(size.Y)) &&
		within(float64(a.Dx()), float64(b.Dx()), dataResize*float64(size.X)+1) &&
		within(float64(a.Dy()), float64(b.Dy()), dataResize*float64(size.Y)+1)
}

// sampleOff compares two parts: their boxes are sampled at dataSamples x
// dataSamples points at the same places relative to each box. Points where
// neither picture is data, and points on an edge in either (a pixel of
// the 3 x 3 around it unlike it: anti-aliased, blended with what is
// beside it), are left out; it returns the fraction of the points left
// that differ, a point differing when no pixel within dataNear of it in
// one picture is within goldenDelta of the other's pixel there, either
// way (a cell's edge rounded to another pixel in a box of another size is
// not a difference), and the fraction of the data points compared.
func sampleOff(a *image.RGBA, ra image.Rectangle, b *image.RGBA, rb image.Rectangle) (off, compared float64) {
	at := func(r image.Rectangle, u, v int) (int, int) {
		return r.Min.X + int((float64(u)+0.5)/dataSamples*float64(r.Dx())),
			r.Min.Y + int((float64(v)+0.5)/dataSamples*float64(r.Dy()))
	}
	// like reports whether some pixel within d of (x, y) in img is within
	// goldenDelta of pixel (xo, yo) of other: for d 1 and other img, all
	// are (the point is inside an area of one colour).
	like := func(img *image.RGBA, x, y, d int, other *image.RGBA, xo, yo int, all bool) bool {
		for dy := -d; dy <= d; dy++ {
			for dx := -d; dx <= d; dx++ {
				if (pixelDiff(img, x+dx, y+dy, other, xo, yo) <= goldenDelta) != all {
					return !all
				}
			}
		}
		return all
	}
	data, seen, differ := 0, 0, 0
	for v := 0; v < dataSamples; v++ {
		for u := 0; u < dataSamples; u++ {
			xa, ya := at(ra, u, v)
			xb, yb := at(rb, u, v)
			if !isData(a, xa, ya) && !isData(b, xb, yb) {
				continue
			}
			data++
			if !like(a, xa, ya, 1, a, xa, ya, true) || !like(b, xb, yb, 1, b, xb, yb, true) {
				continue
			}
			seen++
			if !like(a, xa, ya, dataNear, b, xb, yb, false) || !like(b, xb, yb, dataNear, a, xa, ya, false) {
				differ++
			}
		}
	}
	if seen == 0 {
		return 0, 0
	}
	return float64(differ) / float64(seen), float64(seen) / float64(data)
}

// pixelDiff is the largest difference of a channel (0-255) between pixel
// (xa, ya) of a and (xb, yb) of b.
func pixelDiff(a *image.RGBA, xa, ya int, b *image.RGBA, xb, yb int) int {
	p, q := a.RGBAAt(xa, ya), b.RGBAAt(xb, yb)
	d := 0
	for _, v := range []int{int(p.R) - int(q.R), int(p.G) - int(q.G), int(p.B) - int(q.B)} {
		d = max(d, v, -v)
	}
	return d
}

func boxes(parts []part) []image.Rectangle {
	var out []image.Rectangle
	for _, p := range parts {
		out = append(out, p.box)
	}
	return out
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

// goldenCase is a golden picture of a survey (or of the real profile) and
// how it is drawn.
type goldenCase struct {
	name   string
	render func() ([]byte, error)
}

// surveyGoldens are TestGolden's pictures.
func surveyGoldens() []goldenCase {
	small := func(o Options) Options {
		o.Width, o.Height = 6*vg.Inch, 5*vg.Inch
		return o
	}
	block := synthetic(topo.LayoutBlock, 1)
	cyclic := synthetic(topo.LayoutCyclic, 2)
	var cases []goldenCase
	for _, tc := range []struct {
		name string
		s    *survey.Survey
		opt  func(Options) Options
	}{
		{"heatmap_block", block, func(o Options) Options { return o }},
		{"heatmap_cyclic_host", cyclic, func(o Options) Options { o.Order = "host"; return o }},
		{"heatmap_std", block, func(o Options) Options { o.Metric = survey.Std; return o }},
		{"surface_block", block, func(o Options) Options { o.Style = StyleSurface; return o }},
		{"histogram_block", block, func(o Options) Options { o.Style = StyleHistogram; o.Height = 6 * vg.Inch; return o }},
	} {
		cases = append(cases, goldenCase{tc.name, func() ([]byte, error) { return Render(tc.s, "png", tc.opt(small(DefaultOptions()))) }})
	}
	cases = append(cases, goldenCase{"compare_block_cyclic", func() ([]byte, error) {
		c, err := compare.Compare(block, cyclic, "block", "cyclic", topo.DefaultOptions())
		if err != nil {
			return nil, err
		}
		o := DefaultOptions()
		o.Width, o.Height = 10*vg.Inch, 5*vg.Inch
		return RenderCompare(block, cyclic, c, "png", o)
	}})
	return cases
}

func TestGolden(t *testing.T) {
	for _, tc := range surveyGoldens() {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.render()
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tc.name, b)
		})
	}
}

// TestGoldenOtherFonts: every golden (TestGolden's and
// TestProfileGolden's) drawn in Liberation Sans and in Liberation Mono
// instead of the default Serif is another picture pixel for pixel (its
// text reshaped, its plot area moved and resized by the tick labels'
// widths) with the same data, and matches its golden: the comparison
// does not hang on the font stack.
func TestGoldenOtherFonts(t *testing.T) {
	if *update {
		return // the goldens are being rewritten: nothing to compare with
	}
	p := realProfile(t)
	cases := surveyGoldens()
	for _, style := range ProfileStyles() {
		cases = append(cases, goldenCase{"profile_" + style, func() ([]byte, error) {
			return RenderProfile(p, "png", ProfileOptions{Style: style, Name: "splitcoll-slt-cw/", Width: 6 * vg.Inch, Height: 4.5 * vg.Inch})
		}})
	}
	defer func(f font.Font) { plot.DefaultFont = f }(plot.DefaultFont)
	for _, variant := range []string{"Sans", "Mono"} {
		plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: font.Variant(variant)}
		for _, tc := range cases {
			t.Run(variant+"/"+tc.name, func(t *testing.T) {
				got, err := tc.render()
				if err != nil {
					t.Fatal(err)
				}
				want, err := os.ReadFile(filepath.Join("testdata", tc.name+"_golden.png"))
				if err != nil {
					t.Fatal(err)
				}
				ig, _ := png.Decode(bytes.NewReader(got))
				iw, _ := png.Decode(bytes.NewReader(want))
				// Premise: the font changed the picture (at least 1% of
				// its pixels).
				if moved := pixelsMoved(ig, iw); moved < 0.01 {
					t.Fatalf("premise: in %s only %.3f%% of the pixels differ from the golden's", variant, 100*moved)
				}
				if ok, why := similarImages(ig, iw); !ok {
					t.Errorf("in %s: %s", variant, why)
				} else {
					t.Logf("%s: %.1f%% of pixels moved; %s", variant, 100*pixelsMoved(ig, iw), why)
				}
			})
		}
	}
}

// TestSimilarCatches: the comparison that lets a font change through
// fails a wrong picture: the heat map's colour map reversed (red and blue
// exchanged, what a reversed jet draws), the heat map upside down (rank 0
// at the top), the profile's matrix transposed (sender and receiver
// exchanged: an asymmetric matrix), and rank 2's MPI time in the
// profile's ranks picture a millisecond longer (its bar the tallest, the
// axis and every bar rescaled). A bar a few percent off is not caught
// (parts may grow by dataResize of the picture's size, as the plot area
// does when the text's size changes): TestRankTimes checks the values.
func TestSimilarCatches(t *testing.T) {
	golden := func(name string) image.Image {
		b, err := os.ReadFile(filepath.Join("testdata", name+"_golden.png"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	edit := func(img image.Image, f func(out *image.RGBA)) image.Image {
		out := image.NewRGBA(img.Bounds())
		stddraw.Draw(out, out.Bounds(), img, img.Bounds().Min, stddraw.Src)
		f(out)
		return out
	}
	heat := golden("heatmap_block")
	box := dataParts(rgba(heat))[0].box // the heat map (the colour bar is narrower)
	profileMatrix := func(swap bool) image.Image {
		p := realProfile(t)
		if swap {
			for i := range p.Matrix {
				p.Matrix[i].Src, p.Matrix[i].Dst = p.Matrix[i].Dst, p.Matrix[i].Src
			}
		}
		b, err := RenderProfile(p, "png", ProfileOptions{Style: StyleMatrix, Name: "splitcoll-slt-cw/", Width: 6 * vg.Inch, Height: 4.5 * vg.Inch})
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	tallerBar := func() image.Image {
		p := realProfile(t)
		for i := range p.Functions {
			if p.Functions[i].Rank == 2 {
				p.Functions[i].Time += 0.001
				break
			}
		}
		b, err := RenderProfile(p, "png", ProfileOptions{Style: StyleRanks, Name: "splitcoll-slt-cw/", Width: 6 * vg.Inch, Height: 4.5 * vg.Inch})
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	// Premise: the unchanged pictures match.
	if ok, why := similarImages(profileMatrix(false), golden("profile_matrix")); !ok {
		t.Fatalf("premise: the profile's matrix does not match its golden: %s", why)
	}
	for _, c := range []struct {
		name      string
		got, want image.Image
	}{
		{"colour map reversed", edit(heat, func(out *image.RGBA) {
			for i := 0; i < len(out.Pix); i += 4 {
				out.Pix[i], out.Pix[i+2] = out.Pix[i+2], out.Pix[i]
			}
		}), heat},
		{"heat map upside down", edit(heat, func(out *image.RGBA) {
			for y := box.Min.Y; y < box.Max.Y; y++ {
				for x := box.Min.X; x < box.Max.X; x++ {
					out.Set(x, y, heat.At(x, box.Max.Y-1-(y-box.Min.Y)))
				}
			}
		}), heat},
		{"matrix transposed", profileMatrix(true), golden("profile_matrix")},
		{"rank 2's MPI time 1 ms longer", tallerBar(), golden("profile_ranks")},
	} {
		if ok, why := similarImages(c.got, c.want); ok {
			t.Errorf("%s: passes as its golden (%s)", c.name, why)
		} else {
			t.Logf("%s: %s", c.name, why)
		}
	}
}

// pixelsMoved is the fraction of pixels of two pictures of one size that
// differ by more than goldenDelta in a channel.
func pixelsMoved(ai, bi image.Image) float64 {
	a, b := rgba(ai), rgba(bi)
	r := a.Bounds()
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if pixelDiff(a, x, y, b, x, y) > goldenDelta {
				n++
			}
		}
	}
	return float64(n) / float64(r.Dx()*r.Dy())
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
