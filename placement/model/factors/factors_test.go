package factors

import (
	"math"
	"testing"
)

// TestHeldOut: even ranks measure twice the model, odd ranks as
// modelled (on-node traffic only). Fitted on the evens the factor is 2,
// which predicts the odds 100% high; fitted on the odds it is 1, which
// predicts the evens 50% low: the held-out median rank error is 75%,
// where one factor fitted on all ranks would call itself 1.5x.
func TestHeldOut(t *testing.T) {
	n := 8
	on, off, meas := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range on {
		on[i] = 1 + float64(i)
		meas[i] = on[i]
		if i%2 == 0 {
			meas[i] = 2 * on[i]
		}
	}
	halves, e := HeldOut(on, off, meas)
	if math.Abs(halves[0][0]-2) > 1e-12 || math.Abs(halves[1][0]-1) > 1e-12 {
		t.Errorf("factors %v, want 2 on the evens and 1 on the odds", halves)
	}
	if math.Abs(e-0.75) > 1e-12 {
		t.Errorf("held-out rank error %g, want 0.75", e)
	}
}

// TestFitOverlapped: each rank measures the longer of its parts times
// that level's factor (on-node x2, off-node x1.5), on ranks with both
// parts: Fit finds 2 and 1.5, where a fit of the sum finds neither. The
// last rank's off-node part is the longer unscaled (1.2 against 1) and
// its on-node part the longer measured (2 against 1.8): only sorting
// the ranks again with the fitted factors puts it on the right side.
func TestFitOverlapped(t *testing.T) {
	on := []float64{1, 2, 3, 0.2, 0.5, 1, 4, 0, 1}
	off := []float64{0.1, 0.5, 1, 2, 3, 2.5, 0.3, 1, 1.2}
	meas := make([]float64, len(on))
	for i := range on {
		meas[i] = math.Max(2*on[i], 1.5*off[i])
	}
	a, b := Fit(on, off, meas)
	if math.Abs(a-2) > 1e-9 || math.Abs(b-1.5) > 1e-9 {
		t.Errorf("factors %g, %g, want 2 and 1.5", a, b)
	}
	if e := RankError(on, off, meas, a, b); e > 1e-9 {
		t.Errorf("rank error %g with the fitted factors, want 0", e)
	}
}
