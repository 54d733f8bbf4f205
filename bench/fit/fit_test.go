package fit

import (
	"math"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestPair(t *testing.T) {
	// One way = 1 us + s / (1000 bytes/us): round trips 2(1 + s/1000).
	sizes := []int{0, 1000, 2000, 4000}
	rtts := []float64{2, 4, 6, 10}
	l, b, ok := Pair(sizes, rtts)
	if !ok || !near(l, 1) || !near(b, 1000) {
		t.Errorf("Pair = %v, %v, %v; want 1 us, 1000 MB/s", l, b, ok)
	}
	// Time that does not grow with size has no bandwidth.
	if _, b, ok := Pair([]int{8, 64}, []float64{3, 3}); !ok || !math.IsNaN(b) {
		t.Errorf("flat Pair bandwidth = %v, %v; want NaN", b, ok)
	}
	if _, _, ok := Pair([]int{64}, []float64{3}); ok {
		t.Error("Pair with one size reported a fit")
	}
	if _, _, ok := Pair([]int{8, 64}, []float64{3, math.NaN()}); ok {
		t.Error("Pair with one measured size reported a fit")
	}
}

// TestFitSurveyContended: a level whose round trips the concurrent rounds
// slowed (here 4x at 1 MiB, measured on the isolation sample) takes the
// bandwidth fitted on its pairs measured alone, and each pair keeps its
// own latency; a level measured as alone keeps each pair's own fit.
func TestFitSurveyContended(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 4, Sockets: 1, Cores: 2, RTT: [4]float64{1, 1, 10, 10}, Seed: 1})
	s.Meta.Sizes = []int{64, 1 << 20}
	n := s.N()
	big := survey.NewPairTable(n, 1<<20)
	s.Tables[0].Each(func(a, b, _ int) {
		// alone: 1 MiB takes 1000 us one way between nodes (1048.576
		// MB/s), 100 us inside; in the rounds 4x between nodes, and pair
		// (0, 7) 7x.
		small := s.Tables[0].At(survey.Min, a, b)
		alone := small + 2000
		if s.Ranks[a].Host == s.Ranks[b].Host {
			alone = small + 200
		}
		conc := alone
		if s.Ranks[a].Host != s.Ranks[b].Host {
			conc = 4 * alone
			if a == 0 && b == 7 {
				conc = 7 * alone
			}
		}
		iso := math.NaN()
		if (a+b)%3 == 0 {
			iso = alone
		}
		big.Set(&survey.PairStats{A: a, B: b, Size: 1 << 20, Samples: 10, Mean: conc, Min: conc, Median: conc, P99: conc, Isolated: iso})
	})
	s.Tables = append(s.Tables, big)
	fits := Survey(s, HostFactors(s))
	for _, f := range fits {
		small := s.Tables[0].At(survey.Min, f.A, f.B)
		lat, bw := small/2-64/1048.576, 1048.576
		if s.Ranks[f.A].Host == s.Ranks[f.B].Host {
			lat, bw = small/2-64/10485.76, 10485.76
		}
		if math.Abs(f.Bandwidth/bw-1) > 1e-3 || math.Abs(f.Latency-lat) > 1e-3 {
			t.Errorf("pair (%d, %d): latency %.4f us, bandwidth %.2f MB/s; want %.4f, %.2f", f.A, f.B, f.Latency, f.Bandwidth, lat, bw)
		}
	}
	if len(fits) != n*(n-1)/2 {
		t.Errorf("%d fits, want %d", len(fits), n*(n-1)/2)
	}
}

// TestInterference: the median over re-measured pairs of concurrent over
// isolated round trip (2, 3 and 1.5: 2), pairs not re-measured left
// out; none re-measured: not ok.
func TestInterference(t *testing.T) {
	tab := survey.NewPairTable(4, 64, survey.Median, survey.Isolated)
	nan := math.NaN()
	for _, p := range []survey.PairStats{{A: 0, B: 1, Samples: 10, Median: 4, Isolated: 2}, {A: 0, B: 2, Samples: 10, Median: 9, Isolated: 3}, {A: 1, B: 2, Samples: 10, Median: 3, Isolated: 2}, {A: 2, B: 3, Samples: 10, Median: 50, Isolated: nan}} {
		tab.Set(&p)
	}
	if x, ok := Interference([]*survey.PairTable{tab}); !ok || x != 2 {
		t.Errorf("interference %g (%v), want 2", x, ok)
	}
	if _, ok := Interference([]*survey.PairTable{survey.NewPairTable(4, 64, survey.Median)}); ok {
		t.Error("interference without re-measured pairs")
	}
}
