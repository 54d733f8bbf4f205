package sweepcurve

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
			t.Errorf("size %g in bin %d [%g, %g), its size %g", x, i, lo, hi, binSize(i))
		}
	}
	if bin(0) != 0 || bin(math.NaN()) != 0 || bin(math.Inf(1)) != maxOctave*binsPerOctave-1 {
		t.Errorf("bins of 0, NaN, Inf: %d %d %d", bin(0), bin(math.NaN()), bin(math.Inf(1)))
	}
}

// TestNew: a kind measured at one size only has no curve; the kinds on
// a node stand for each other; factors are bounded; the factor at a size
// is the median over the pairs.
func TestNew(t *testing.T) {
	one := []Pair{{Kind: Network, Sizes: []float64{64}, Measured: []float64{2}, Line: []float64{1}}}
	if c := New(one, []int{64, 65536}); c != nil || c.Factor(Network, 100) != 1 || c.Wire(Network, 100) != 1 || c.Source() != "" {
		t.Errorf("one size: curve %v", c)
	}
	sock := func(m float64) Pair {
		return Pair{Kind: Socket, Sizes: []float64{64, 1024, 65536}, Measured: []float64{1, m, 1}, Line: []float64{1, 1, 1}}
	}
	c := New([]Pair{sock(10), sock(1.5), sock(20)}, []int{64, 65536})
	if got := c.Factor(Node, 1024); got != FactorMax {
		t.Errorf("between sockets at 1 KiB: %g, want the socket's, bounded to %g", got, float64(FactorMax))
	}
	if got := c.Factor(Network, 1024); got != 1 {
		t.Errorf("between nodes: %g, want 1 (no curve)", got)
	}
	c = New([]Pair{sock(3), sock(1.5), sock(2)}, []int{64, 65536})
	if got := c.Factor(Socket, 1024); math.Abs(got-2) > 0.02 {
		t.Errorf("on a socket at 1 KiB: %g, want the median pair's 2", got)
	}
}

// TestWire: a pair whose bytes cost 1.4 times the line's from 16 KiB to
// 64 KiB and whose latency steps up at 64 KiB (SimGrid SMPI's default
// factors, a rendezvous) has a wire factor of 1.4 for 16-64 KiB
// messages, not the step's slope, 1 above 64 KiB; 1 below the line's
// half-bandwidth size (10 KB), where a slope is latency and noise.
func TestWire(t *testing.T) {
	const lat, invB = 10e-6, 1e-9 // 10 us, 1 GB/s
	p := Pair{Kind: Network}
	for x := 1024.0; x <= 1<<20; x *= 2 {
		m := lat + x*invB
		switch {
		case x >= 64<<10:
			m = 8*lat + x*invB
		case x >= 16<<10:
			m = 1.2*lat + x*1.4*invB
		case x <= 4<<10:
			m = lat * (1 + x/1024) // slopes of 10 below the half-bandwidth size
		}
		p.Sizes, p.Measured, p.Line = append(p.Sizes, x), append(p.Measured, m), append(p.Line, lat+x*invB)
	}
	c := New([]Pair{p}, []int{1024, 1 << 20})
	for _, w := range []struct{ size, want float64 }{{2 << 10, 1}, {12 << 10, 1}, {20 << 10, 1.4}, {48 << 10, 1.4}, {96 << 10, 1}, {4 << 20, 1}} {
		if got := c.Wire(Network, w.size); math.Abs(got-w.want) > 1e-3 {
			t.Errorf("wire at %.0f B: %.3f, want %.3f", w.size, got, w.want)
		}
	}
	// The raw slope from 32 to 64 KiB counts the step: 1.4 + 30/32.
	if raw := (p.Measured[6] - p.Measured[5]) / (p.Line[6] - p.Line[5]); raw < 2 {
		t.Fatalf("the test's step is too small to tell: slope %.2f", raw)
	}
	if got := c.Wire(Socket, 20<<10); got != 1 {
		t.Errorf("no pair on a socket: wire %g", got)
	}
}

// TestSweptSizeIsItsOwn: a message of a swept size is priced at the
// sweep's measure there, not toward the next size's. The pair's time is
// the line's up to 8 KiB and three times it from 16 KiB (SMPI's
// protocol steps between them, at 9,376 and 15,424 B): an 8 KiB message
// takes factor 1 and the wire factor of the interval below it (1), and
// a 16 KiB one the step's full factor. Priced at its bin's middle (8,448
// B), the 8 KiB message took 1.09.
func TestSweptSizeIsItsOwn(t *testing.T) {
	const lat, invB = 10e-6, 1e-9
	p := Pair{Kind: Network}
	for x := 1024.0; x <= 1<<20; x *= 2 {
		m := lat + x*invB
		if x >= 16<<10 {
			m *= 3
		}
		p.Sizes, p.Measured, p.Line = append(p.Sizes, x), append(p.Measured, m), append(p.Line, lat+x*invB)
	}
	c := New([]Pair{p}, []int{1024})
	if f, w := c.Factor(Network, 8<<10), c.Wire(Network, 8<<10); math.Abs(f-1) > 1e-6 || w != 1 {
		t.Errorf("8 KiB: factor %.4g, wire %.4g, want 1 and 1", f, w)
	}
	if f := c.Factor(Network, 16<<10); math.Abs(f-3) > 1e-6 {
		t.Errorf("16 KiB: factor %.4g, want 3", f)
	}
}

// TestWireAtAStep: a protocol's step between two swept sizes puts the
// upper size on one side or the other, and its wire factor is that
// side's. The pair's bytes cost 1.4 times the line's below the step and
// the line's above it, with a latency step there. With the step under
// 64 KiB (SimGrid's 65,472 B), a 64 KiB message's bytes cost the line's;
// with it just over 64 KiB (an eager limit that holds its own size),
// 1.4 times. Messages between the swept sizes keep the interval's
// steady slope either way, and 32 and 128 KiB their own side's.
func TestWireAtAStep(t *testing.T) {
	const lat, invB = 10e-6, 1e-9
	for _, c := range []struct {
		step, want64 float64
	}{{65472, 1}, {65536 + 1, 1.4}} {
		p := Pair{Kind: Network}
		for x := 1024.0; x <= 1<<20; x *= 2 {
			m := 1.2*lat + x*1.4*invB
			if x >= c.step {
				m = 8*lat + x*invB
			}
			p.Sizes, p.Measured, p.Line = append(p.Sizes, x), append(p.Measured, m), append(p.Line, lat+x*invB)
		}
		w := New([]Pair{p}, []int{1024, 1 << 20})
		for _, s := range []struct{ size, want float64 }{{32 << 10, 1.4}, {48 << 10, 1.4}, {64 << 10, c.want64}, {128 << 10, 1}} {
			if got := w.Wire(Network, s.size); math.Abs(got-s.want) > 1e-3 {
				t.Errorf("step at %.0f B: wire at %.0f B %.3f, want %.3f", c.step, s.size, got, s.want)
			}
		}
	}
}

// TestWireOfASlowerPair: a swept pair whose bytes cost twice its line's
// at every size (it runs through a slower adapter than its level's
// median, which the line takes) puts no factor on the bytes of other
// pairs: its wire factor is its slope over its own at the survey's
// largest size, 1 throughout; before, 2 for every flow between nodes.
// Where its bytes cost 1.5 times more below 64 KiB than above, that
// stays.
func TestWireOfASlowerPair(t *testing.T) {
	const lat, invB = 1e-6, 1e-9
	for _, below := range []float64{1, 1.5} {
		p := Pair{Kind: Network}
		for x := 64.0; x <= 1<<20; x *= 2 {
			m := lat + 2*x*invB
			if x < 64<<10 {
				m = lat + below*2*x*invB
			}
			p.Sizes, p.Measured, p.Line = append(p.Sizes, x), append(p.Measured, m), append(p.Line, lat+x*invB)
		}
		c := New([]Pair{p}, []int{64, 1 << 20})
		for _, s := range []float64{4 << 10, 16 << 10, 256 << 10, 1 << 20} {
			want := 1.0
			if s < 32<<10 {
				want = below
			}
			if got := c.Wire(Network, s); math.Abs(got-want) > 0.02 {
				t.Errorf("bytes %.1fx below 64 KiB: wire at %.0f B %.3f, want %.2f", below, s, got, want)
			}
		}
	}
}
