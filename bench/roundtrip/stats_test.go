package roundtrip

import (
	"math"
	"testing"
)

func near(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b))
}

func TestSummarize(t *testing.T) {
	seq := make([]float64, 100)
	for i := range seq {
		seq[i] = float64(100 - i) // 100 down to 1
	}
	tests := []struct {
		name string
		in   []float64
		want Stats
	}{
		// Hand-computed: sorted 1 2 3 4 10; mean 20/5 = 4; squared
		// deviations 9+4+1+0+36 = 50, /(n-1) = 12.5, std = sqrt(12.5);
		// median the 3rd value; p99 the ceil(4.95) = 5th value.
		{"odd", []float64{4, 1, 3, 2, 10}, Stats{Samples: 5, Mean: 4, Std: math.Sqrt(12.5), Min: 1, Median: 3, P99: 10}},
		// 1 2 3 4: mean 2.5; deviations 2.25+0.25+0.25+2.25 = 5, /3; median
		// (2+3)/2; p99 the ceil(3.96) = 4th value.
		{"even", []float64{4, 3, 2, 1}, Stats{Samples: 4, Mean: 2.5, Std: math.Sqrt(5.0 / 3), Min: 1, Median: 2.5, P99: 4}},
		// 1..100: mean 50.5; variance n(n+1)/12 = 841.666..., median
		// (50+51)/2, p99 the 99th value.
		{"1..100", seq, Stats{Samples: 100, Mean: 50.5, Std: math.Sqrt(100 * 101 / 12.0), Min: 1, Median: 50.5, P99: 99}},
		{"one", []float64{7}, Stats{Samples: 1, Mean: 7, Std: 0, Min: 7, Median: 7, P99: 7}},
		{"empty", nil, Stats{Mean: math.NaN(), Std: math.NaN(), Min: math.NaN(), Median: math.NaN(), P99: math.NaN()}},
	}
	for _, tc := range tests {
		got := Summarize(append([]float64(nil), tc.in...))
		if got.Samples != tc.want.Samples || !near(got.Mean, tc.want.Mean) || !near(got.Std, tc.want.Std) ||
			!near(got.Min, tc.want.Min) || !near(got.Median, tc.want.Median) || !near(got.P99, tc.want.P99) {
			t.Errorf("%s: Summarize = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestMmpiStats(t *testing.T) {
	tests := []struct {
		name      string
		in        []float64
		mean, sem float64
	}{
		// sum 20, sum of squares 130, n 5: mean 4, (130/5 - 16)/4 = 2.5.
		// This is the standard error: sample std sqrt(12.5) / sqrt(5).
		{"hand", []float64{4, 1, 3, 2, 10}, 4, math.Sqrt(2.5)},
		// The true std of 1 and 3 is sqrt(2); mmpi's column is sqrt(2)/sqrt(2) = 1.
		{"two", []float64{1, 3}, 2, 1},
		{"one", []float64{5}, 5, 0},
		{"none", nil, 0, 0},
		// mmpi stored floats: 0.1 becomes 0.100000001490116..., and its
		// square was a float product, so even equal samples give a small
		// non-zero column, as they did in mmpi.
		{"float32", []float64{0.1, 0.1}, float64(float32(0.1)), float32SEM(0.1)},
	}
	for _, tc := range tests {
		m, s := MmpiStats(tc.in)
		if !near(m, tc.mean) || math.Abs(s-tc.sem) > 1e-6 {
			t.Errorf("%s: MmpiStats = %v, %v; want %v, %v", tc.name, m, s, tc.mean, tc.sem)
		}
	}
	// Equal samples: rounding can make mmpi's variance slightly negative,
	// which mmpi printed as nan; we give 0.
	same := make([]float64, 100)
	for i := range same {
		same[i] = 12.34
	}
	if _, s := MmpiStats(same); math.IsNaN(s) || s > 1e-3 {
		t.Errorf("MmpiStats of equal samples: deviation %v, want about 0", s)
	}
}

// float32SEM is mmpi's column for two equal samples v, step by step as
// mmpi.c computed it.
func float32SEM(v float32) float64 {
	sq := v * v // a float product
	sum2 := 2 * float64(sq)
	mean := float64(v)
	return math.Sqrt((sum2/2 - mean*mean) / 1)
}

func BenchmarkSummarize(b *testing.B) {
	src := make([]float64, 1000)
	for i := range src {
		src[i] = float64((i*7919)%1000) / 10
	}
	buf := make([]float64, len(src))
	for b.Loop() {
		copy(buf, src)
		Summarize(buf)
		MmpiStats(buf)
	}
}
