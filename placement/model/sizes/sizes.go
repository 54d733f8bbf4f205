// Package sizes is the size sweep's curve (sweep.csv, mapper/survey/sweep):
// a survey timed a few pairs at every size from 64 bytes up in steps of
// two. A pair's cost L + s/B is the line through the survey's own sizes;
// an MPI library is not a line between them (its eager and rendezvous
// protocols, its copy paths and the fabric's packets change with the
// size), so a message between them may take more or less. A Curve is,
// for each kind of pair (one socket, one node, two nodes), the sweep's
// time at each size over the line's, divided by the same ratio at the
// survey's sizes: 1 at the survey's sizes, where the all-pairs
// measurements stand, and the sweep's shape between and beyond them.
package sizes

import (
	"fmt"
	"math"
	"slices"
	"strings"
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
)

// Curve is the factor on a message's line cost by kind and size.
type Curve struct {
	// factor[k][bin] is kind k's factor at the sizes of fine bin bin
	// (bin); nil when the sweep has no pair of that kind.
	factor [kinds][]float32
	source string
}

// Ratios are the sweep's medians of measured over line time, by kind,
// at increasing sizes.
type Ratios struct {
	Sizes [kinds][]float64
	Ratio [kinds][]float64
}

// New is the curve of ratios measured around a survey of surveySizes
// (nil when no kind has two sizes). The two kinds inside a node use one
// transport (shared memory): either stands for the other when the sweep
// has one of them.
func New(r Ratios, surveySizes []int) *Curve {
	var c Curve
	var notes []string
	names := [kinds]string{"on a socket", "between sockets", "between nodes"}
	for k := range kinds {
		xs, ys := r.Sizes[k], r.Ratio[k]
		if len(xs) < 2 || len(xs) != len(ys) {
			continue
		}
		c.factor[k] = factors(xs, ys, surveySizes)
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
			c.factor[k] = c.factor[1-k]
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

// binSize is the middle of bin i's sizes.
func binSize(i int) float64 {
	return math.Ldexp(1+(float64(i%binsPerOctave)+0.5)/binsPerOctave, i/binsPerOctave)
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
