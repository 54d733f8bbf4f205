package sizes

import (
	"math"
	"testing"
)

// TestBins: every size falls in the bin whose range holds it, the bins
// are 1/16 of a doubling wide, and the largest sizes share the last bin.
func TestBins(t *testing.T) {
	for _, x := range []float64{1, 1.5, 64, 100, 4095, 4096, 65535, 1 << 20, 3e9} {
		i := bin(x)
		lo, hi := math.Ldexp(1+float64(i%binsPerOctave)/binsPerOctave, i/binsPerOctave), math.Ldexp(1+float64(i%binsPerOctave+1)/binsPerOctave, i/binsPerOctave)
		if x < lo || x >= hi || binSize(i) < lo || binSize(i) >= hi {
			t.Errorf("size %g in bin %d [%g, %g), middle %g", x, i, lo, hi, binSize(i))
		}
	}
	if bin(0) != 0 || bin(math.NaN()) != 0 || bin(math.Inf(1)) != maxOctave*binsPerOctave-1 {
		t.Errorf("bins of 0, NaN, Inf: %d %d %d", bin(0), bin(math.NaN()), bin(math.Inf(1)))
	}
}

// TestNew: a kind measured at one size only has no curve; the kinds on
// a node stand for each other; factors are bounded.
func TestNew(t *testing.T) {
	var r Ratios
	r.Sizes[Network], r.Ratio[Network] = []float64{64}, []float64{2}
	if c := New(r, []int{64, 65536}); c != nil || c.Factor(Network, 100) != 1 || c.Source() != "" {
		t.Errorf("one size: curve %v", c)
	}
	r.Sizes[Socket], r.Ratio[Socket] = []float64{64, 1024, 65536}, []float64{1, 10, 1}
	c := New(r, []int{64, 65536})
	if got := c.Factor(Node, 1024); got != FactorMax {
		t.Errorf("between sockets at 1 KiB: %g, want the socket's, bounded to %g", got, float64(FactorMax))
	}
	if got := c.Factor(Network, 1024); got != 1 {
		t.Errorf("between nodes: %g, want 1 (no curve)", got)
	}
}
