package sweepcurve

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/latmap/latmap/internal/stats"
)

// The kinds of pairs.
const (
	Socket = iota
	Node
	Network
	kinds
)

// Size bins: binsPerOctave per doubling (the float's exponent and the
// top bits of its mantissa), up to 2^maxOctave bytes.
const (
	binBits       = 4
	binsPerOctave = 1 << binBits
	maxOctave     = 48
	// FactorMin and FactorMax bound a factor: a sweep that says a size
	// costs 4 times the line is more likely noise than the library.
	FactorMin = 0.25
	FactorMax = 4
	// ownTolerance is how far apart (log ratio, 1.4x) two intervals'
	// slopes may be and still be one regime's (own): a real sweep's
	// slopes in one regime scatter by a quarter (Open MPI over TCP
	// between two namespaces here), a protocol's step is 2-8x.
	ownTolerance = 0.336
)

// Curve is the factor on a message's line cost by kind and size.
type Curve struct {
	// factor[k][bin] is kind k's factor at the sizes of fine bin bin
	// (bin); nil when the sweep has no pair of that kind. wire[k][bin]
	// is the factor on the time its bytes keep a link busy (Wire).
	factor, wire [kinds][]float32
	source       string
}

// Pair is one pair of the sweep: its kind, and at increasing sizes its
// measured one-way time and its line's (the same unit).
type Pair struct {
	Kind                  int
	Sizes, Measured, Line []float64
}

// New is the curve of the pairs swept around a survey of surveySizes
// (nil when no kind has two sizes). The two kinds inside a node use one
// transport (shared memory): either stands for the other when the sweep
// has one of them.
func New(pairs []Pair, surveySizes []int) *Curve {
	var c Curve
	var notes []string
	names := [kinds]string{"on a socket", "between sockets", "between nodes"}
	for k := range kinds {
		xs, ys, slopes, points := medians(pairs, k, surveySizes)
		if len(xs) < 2 {
			continue
		}
		c.factor[k] = factors(xs, ys, surveySizes)
		c.wire[k] = wires(xs, slopes, points)
		worst, at := 1.0, xs[0]
		for _, x := range xs {
			if v := float64(c.factor[k][bin(x)]); math.Abs(math.Log(v)) > math.Abs(math.Log(worst)) {
				worst, at = v, x
			}
		}
		notes = append(notes, fmt.Sprintf("%s up to %.2fx the line at %.0f B", names[k], worst, at))
	}
	if notes == nil {
		return nil
	}
	for k := range 2 {
		if c.factor[k] == nil {
			c.factor[k], c.wire[k] = c.factor[1-k], c.wire[1-k]
		}
	}
	c.source = fmt.Sprintf("sweep.csv (each rank pair at its mean message size: %s, against the line through %v B)", strings.Join(notes, ", "), surveySizes)
	return &c
}

// Factor is kind's factor at a mean message size (1 on a nil curve).
func (c *Curve) Factor(kind int, meanSize float64) float64 {
	if c == nil || c.factor[kind] == nil {
		return 1
	}
	return float64(c.factor[kind][bin(meanSize)])
}

// Wire is kind's factor on the time the bytes of messages of a mean
// size keep a link busy (1 on a nil curve): the time a further byte took
// in the sweep around that size over the line's, bounded to 1-FactorMax,
// and 1 where the line's bytes take less than its latency. Where a
// size's bytes cost more than the line's (SimGrid's bandwidth factors, a
// fabric's per-packet overheads), flows that share a link take longer.
// A latency step between two swept sizes (a rendezvous handshake) raises
// Factor but is no cost per byte: each interval's slope is the median of
// its own and its neighbours' (steady), so a step confined to one
// interval does not count. A swept size takes the slope of the side of
// such a step it is on (own).
func (c *Curve) Wire(kind int, meanSize float64) float64 {
	if c == nil || c.wire[kind] == nil {
		return 1
	}
	return float64(c.wire[kind][bin(meanSize)])
}

// Source says where message sizes are priced from ("" on a nil curve).
func (c *Curve) Source() string {
	if c == nil {
		return ""
	}
	return c.source
}

// bin is the fine bin of a mean message size x (bytes).
func bin(x float64) int {
	if !(x >= 1) {
		return 0
	}
	i := int(math.Float64bits(x)>>(52-binBits)) - 1023<<binBits
	return min(i, maxOctave*binsPerOctave-1)
}

// binSize is the smallest of bin i's sizes: a power of two, the sweep's
// sizes and the commonest message sizes, is its bin's own.
func binSize(i int) float64 {
	return math.Ldexp(1+float64(i%binsPerOctave)/binsPerOctave, i/binsPerOctave)
}

// factors is the factor at every bin: the sweep's ratio (ys at sizes xs,
// linear in log size, flat beyond its ends) over the same ratio at the
// survey's sizes (linear between them in log size, flat beyond),
// bounded.
func factors(xs, ys []float64, surveySizes []int) []float32 {
	var rx, ry []float64
	for _, s := range surveySizes {
		rx = append(rx, float64(s))
		ry = append(ry, logInterp(xs, ys, float64(s)))
	}
	out := make([]float32, maxOctave*binsPerOctave)
	for i := range out {
		x := binSize(i)
		f := logInterp(xs, ys, x)
		if len(rx) > 0 {
			f /= logInterp(rx, ry, x)
		}
		out[i] = float32(min(FactorMax, max(FactorMin, f)))
	}
	return out
}

// medians are, for the pairs of kind k, the sizes swept, the median
// over the pairs of measured over line time at each, at each size but
// the last the median over the pairs of their steady slope (steady)
// from it to the next size over their slope across the survey's sizes
// (span), and at each size the median of their slopes at it (own; NaN
// where no pair has one).
func medians(pairs []Pair, k int, surveySizes []int) (xs, ys, slopes, at []float64) {
	ratios, slope, atx := map[float64][]float64{}, map[float64][]float64{}, map[float64][]float64{}
	for _, p := range pairs {
		if p.Kind != k || len(p.Measured) != len(p.Sizes) || len(p.Line) != len(p.Sizes) {
			continue
		}
		for i, x := range p.Sizes {
			if p.Line[i] > 0 {
				ratios[x] = append(ratios[x], p.Measured[i]/p.Line[i])
			}
		}
		sl, own := steady(p)
		if r := span(p, surveySizes); r > 0 {
			for i := range sl {
				sl[i] /= r
			}
			for i := range own {
				own[i] /= r
			}
		}
		for i, v := range sl {
			if !math.IsNaN(v) {
				slope[p.Sizes[i]] = append(slope[p.Sizes[i]], v)
			}
		}
		for i, v := range own {
			if !math.IsNaN(v) {
				atx[p.Sizes[i]] = append(atx[p.Sizes[i]], v)
			}
		}
	}
	for x := range ratios {
		xs = append(xs, x)
	}
	slices.Sort(xs)
	for i, x := range xs {
		ys = append(ys, stats.Median(ratios[x]))
		at = append(at, math.NaN())
		if v := atx[x]; len(v) > 0 {
			at[i] = stats.Median(v)
		}
		if i+1 < len(xs) {
			slopes = append(slopes, 1)
			if v := slope[x]; len(v) > 0 {
				slopes[i] = stats.Median(v)
			}
		}
	}
	return xs, ys, slopes, at
}

// span is p's measured slope over its line's in the interval that ends
// at the survey's largest size, where p was swept there (else 0): what a
// further byte costs this pair, against its line, at the size that set
// the bandwidth it is priced at. The wire factor is a pair's slope at a
// size over this, not over its line's alone: the line is the pair's
// level's (a contended level's pairs take its median bandwidth), and a
// swept pair on a slower adapter (PSMN's 4xDDR hosts beside 4xQDR ones,
// 1.84 GB/s for a line of 3.64) made every flow between nodes take twice
// its time, where the sweep tells only how the bytes of sizes below the
// survey's largest cost against those of the largest.
func span(p Pair, surveySizes []int) float64 {
	if len(surveySizes) < 2 {
		return 0
	}
	j := slices.Index(p.Sizes, float64(slices.Max(surveySizes)))
	if j < 1 {
		return 0
	}
	dl := p.Line[j] - p.Line[j-1]
	if r := (p.Measured[j] - p.Measured[j-1]) / dl; dl > 0 && r > 0 {
		return r
	}
	return 0
}

// steady is p's slope over the line's from each size to the next, NaN
// where it does not count: where the line's bytes take less than its
// latency at the interval's lower size (there a slope is the latency's
// noise and steps more than bytes) or the line does not rise. Each is
// the median of its own and its neighbours' that count, the smaller of
// two: a latency step confined to one interval (a rendezvous handshake,
// an upward step) is not taken for bytes. at is the slope at each size
// itself (own).
func steady(p Pair) (slopes, at []float64) {
	raw := make([]float64, max(0, len(p.Sizes)-1))
	for i := range raw {
		raw[i] = math.NaN()
		dl, dx := p.Line[i+1]-p.Line[i], p.Sizes[i+1]-p.Sizes[i]
		if lat := p.Line[i] - p.Sizes[i]*dl/dx; dl > 0 && dx > 0 && p.Line[i] >= 2*lat {
			raw[i] = (p.Measured[i+1] - p.Measured[i]) / dl
		}
	}
	slopes = make([]float64, len(raw))
	for i := range raw {
		slopes[i] = math.NaN()
		if math.IsNaN(raw[i]) {
			continue
		}
		w := slices.DeleteFunc(slices.Clone(raw[max(0, i-1):min(len(raw), i+2)]), math.IsNaN)
		slopes[i] = stats.Select(w, (len(w)-1)/2)
	}
	return slopes, own(raw)
}

// own is, at each size of slopes raw (one more than raw), the slope of
// the side it belongs to: a protocol's step lies between two swept
// sizes, and the size at the step's end is either the last of the
// regime below (an eager limit that holds its own size) or the first of
// the regime above (SimGrid's factors step at 65,472 B, under 64 KiB).
// Its side is the one whose slope the next interval out continues,
// within ownTolerance (the nearer of two); NaN where neither does (then
// the interval below's steady slope stands).
func own(raw []float64) []float64 {
	// off is how far apart intervals a and b's slopes are (Inf where
	// either is missing).
	off := func(a, b int) float64 {
		if a < 0 || b >= len(raw) || math.IsNaN(raw[a]) || math.IsNaN(raw[b]) || raw[a] <= 0 || raw[b] <= 0 {
			return math.Inf(1)
		}
		return math.Abs(math.Log(raw[a] / raw[b]))
	}
	out := make([]float64, len(raw)+1)
	for j := range out {
		out[j] = math.NaN()
		switch below, above := off(j-2, j-1), off(j, j+1); {
		case above <= below && above <= ownTolerance:
			out[j] = raw[j]
		case below <= ownTolerance:
			out[j] = raw[j-1]
		}
	}
	return out
}

// wires is the wire factor at every bin: the slope at a swept size (at)
// where the bin's size is one, else of the interval of xs that holds it
// (the last one beyond xs, 1 below xs), bounded to 1-FactorMax.
func wires(xs, slopes, at []float64) []float32 {
	out := make([]float32, maxOctave*binsPerOctave)
	for i := range out {
		out[i] = 1
		x := binSize(i)
		if len(slopes) == 0 || x < xs[0] {
			continue
		}
		j, found := slices.BinarySearch(xs, x)
		v := slopes[min(max(j-1, 0), len(slopes)-1)]
		if found && !math.IsNaN(at[j]) {
			v = at[j]
		}
		out[i] = float32(min(max(1, v), FactorMax))
	}
	return out
}

// logInterp is y at x from points (xs, ys), xs increasing: linear in
// log x between two points, the end value beyond them.
func logInterp(xs, ys []float64, x float64) float64 {
	i, _ := slices.BinarySearch(xs, x)
	switch {
	case i == 0:
		return ys[0]
	case i == len(xs):
		return ys[len(ys)-1]
	}
	t := math.Log(x/xs[i-1]) / math.Log(xs[i]/xs[i-1])
	return ys[i-1] + t*(ys[i]-ys[i-1])
}
