package bench

import (
	"testing"

	"github.com/latmap/latmap/bench/schedule"
	"github.com/latmap/latmap/mapper/survey"
)

// checkPlan verifies the schedule properties for n ranks: every unordered
// pair exactly once, no rank in two pairs of a round, partners symmetric.
func checkPlan(t *testing.T, n int, p schedule.Plan, wantRounds int) {
	t.Helper()
	if p.Rounds() != wantRounds {
		t.Fatalf("n=%d: %d rounds, want %d", n, p.Rounds(), wantRounds)
	}
	seen := make([]int, survey.TriLen(n))
	for r := 0; r < p.Rounds(); r++ {
		for a := 0; a < n; a++ {
			b := p.Partner(r, a)
			if b == -1 {
				continue
			}
			if b < 0 || b >= n || b == a {
				t.Fatalf("n=%d round %d: rank %d has partner %d", n, r, a, b)
			}
			// Symmetry also means no rank is in two pairs of one round.
			if back := p.Partner(r, b); back != a {
				t.Fatalf("n=%d round %d: %d meets %d but %d meets %d", n, r, a, b, b, back)
			}
			if a < b {
				seen[survey.TriIndex(n, a, b)]++
			}
		}
	}
	for i, c := range seen {
		if c != 1 {
			pr := schedule.PairAt(n, i)
			t.Fatalf("n=%d: pair (%d,%d) measured %d times, want once", n, pr.A, pr.B, c)
		}
	}
}

func TestCirclePlan(t *testing.T) {
	for n := 2; n <= 65; n++ {
		want := n - 1
		if n%2 == 1 {
			want = n
		}
		checkPlan(t, n, schedule.CirclePlan{N: n}, want)
		// Each round of an even n pairs every rank; of an odd n all but one.
		for r := 0; r < want; r++ {
			idle := 0
			for a := 0; a < n; a++ {
				if (schedule.CirclePlan{N: n}).Partner(r, a) < 0 {
					idle++
				}
			}
			if idle != n%2 {
				t.Fatalf("n=%d round %d: %d idle ranks, want %d", n, r, idle, n%2)
			}
		}
	}
}

func TestSequentialPlanIsMmpiOrder(t *testing.T) {
	for n := 2; n <= 65; n++ {
		p := schedule.SequentialPlan{N: n}
		checkPlan(t, n, p, n*(n-1)/2)
		// mmpi's loops: for lo in 0..n-1, for hi in lo+1..n-1.
		k := 0
		for a := 0; a < n; a++ {
			for b := a + 1; b < n; b++ {
				if got := schedule.PairAt(n, k); got != (schedule.Pair{A: a, B: b}) {
					t.Fatalf("n=%d: pair %d is %v, want (%d,%d)", n, k, got, a, b)
				}
				if p.Partner(k, a) != b || p.Partner(k, b) != a {
					t.Fatalf("n=%d: round %d does not pair %d and %d", n, k, a, b)
				}
				k++
			}
		}
	}
}

func TestPairAtLarge(t *testing.T) {
	// Rows near the end of a 4096-rank triangle, where float rounding of the
	// closed form could be off by one.
	n := 4096
	for _, pr := range []schedule.Pair{{A: 0, B: 1}, {A: 0, B: 4095}, {A: 1, B: 2}, {A: 2047, B: 2048}, {A: 4093, B: 4095}, {A: 4094, B: 4095}} {
		if got := schedule.PairAt(n, survey.TriIndex(n, pr.A, pr.B)); got != pr {
			t.Errorf("PairAt(TriIndex(%v)) = %v", pr, got)
		}
	}
}

func TestIsolationSample(t *testing.T) {
	tests := []struct {
		n    int
		frac float64
		want int
	}{
		{4, 0.05, 4},        // 6 pairs: 5% is 1, at least N = 4
		{2, 0.05, 1},        // 1 pair: capped at all pairs
		{3, 0.05, 3},        // 3 pairs: N = 3 = all
		{64, 0.05, 101},     // 2016 pairs: ceil(100.8) = 101
		{100, 0.05, 248},    // 4950 pairs: ceil(247.5) = 248
		{10, 1, 45},         // all
		{10, 0, 0},          // off
		{256, 0.05, 1632},   // 32640 pairs
		{1000, 0.001, 1000}, // 0.1% of 499500 is 500 < N
	}
	for _, tc := range tests {
		got := schedule.IsolationSample(tc.n, tc.frac)
		if len(got) != tc.want {
			t.Errorf("IsolationSample(%d, %v): %d pairs, want %d", tc.n, tc.frac, len(got), tc.want)
			continue
		}
		for i, p := range got {
			if p.A < 0 || p.A >= p.B || p.B >= tc.n {
				t.Fatalf("IsolationSample(%d, %v): bad pair %v", tc.n, tc.frac, p)
			}
			if i > 0 && survey.TriIndex(tc.n, got[i-1].A, got[i-1].B) >= survey.TriIndex(tc.n, p.A, p.B) {
				t.Fatalf("IsolationSample(%d, %v): pairs not sorted and distinct at %d", tc.n, tc.frac, i)
			}
		}
		again := schedule.IsolationSample(tc.n, tc.frac)
		for i := range got {
			if got[i] != again[i] {
				t.Fatalf("IsolationSample(%d, %v) differs between calls: every rank must draw the same pairs", tc.n, tc.frac)
			}
		}
	}
}

func BenchmarkCirclePartner(b *testing.B) {
	p := schedule.CirclePlan{N: 4096}
	s := 0
	for i := 0; b.Loop(); i++ {
		s += p.Partner(i%p.Rounds(), i%4096)
	}
	_ = s
}

func BenchmarkSequentialPartner(b *testing.B) {
	p := schedule.SequentialPlan{N: 4096}
	s := 0
	for i := 0; b.Loop(); i++ {
		s += p.Partner(i%p.Rounds(), i%4096)
	}
	_ = s
}
