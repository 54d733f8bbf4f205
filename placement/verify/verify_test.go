package verify

import "testing"

func TestBootstrapRatio(t *testing.T) {
	a := []float64{10, 10.5, 9.5, 10.2, 9.8}
	b := []float64{5, 5.1, 4.9, 5.05, 4.95}
	ci := bootstrapRatio(a, b, 2000)
	// The medians' ratio is 10/5 = 2; every resampled ratio lies within
	// min(a)/max(b) .. max(a)/min(b).
	if !(ci[0] <= 2 && 2 <= ci[1]) || ci[0] < 9.5/5.1 || ci[1] > 10.5/4.9 {
		t.Errorf("interval %v does not hold 2 within [%.3f, %.3f]", ci, 9.5/5.1, 10.5/4.9)
	}
	if again := bootstrapRatio(a, b, 2000); again != ci {
		t.Errorf("not reproducible: %v then %v", ci, again)
	}
}
