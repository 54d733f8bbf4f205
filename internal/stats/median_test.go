package stats

import (
	"math"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5}, // mean of the middle two, 2 and 3
	} {
		in := append([]float64(nil), tc.in...)
		if got := Median(tc.in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", in, got, tc.want)
		}
		for i := range in {
			if in[i] != tc.in[i] {
				t.Errorf("Median reordered its input: %v", tc.in)
			}
		}
	}
	if got := Median(nil); !math.IsNaN(got) {
		t.Errorf("Median(nil) = %v, want NaN", got)
	}
}

func TestSelect(t *testing.T) {
	x := []float32{5, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5}
	// Sorted: 1 1 2 3 4 5 5 5 5 6 9.
	for k, want := range []float32{1, 1, 2, 3, 4, 5, 5, 5, 5, 6, 9} {
		y := append([]float32(nil), x...)
		if got := Select(y, k); got != want {
			t.Errorf("Select(%d) = %v, want %v", k, got, want)
		}
	}
}

func TestMedianInPlace(t *testing.T) {
	for _, x := range [][]float32{{3}, {5, 1, 3}, {4, 1, 3, 2}, {9, 9, 1, 1, 5, 7}, {2, 8, 6, 4, 10, 12, 0, 14}} {
		want := make([]float64, len(x))
		for i, v := range x {
			want[i] = float64(v)
		}
		if got, w := MedianInPlace(append([]float32(nil), x...)), Median(want); got != w {
			t.Errorf("MedianInPlace(%v) = %v, want %v (Median)", x, got, w)
		}
		if got, w := MedianInPlace(append([]float64(nil), want...)), Median(want); got != w {
			t.Errorf("MedianInPlace(float64 %v) = %v, want %v (Median)", want, got, w)
		}
	}
	if !math.IsNaN(MedianInPlace[float32](nil)) {
		t.Error("MedianInPlace(nil) is not NaN")
	}
}
