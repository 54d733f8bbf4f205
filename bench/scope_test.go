package bench

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/bench/schedule"
	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/survey"
)

// layoutOf makes a node layout with the given number of ranks per host,
// ranks numbered host by host, or round robin when cyclic.
func layoutOf(per []int, cyclic bool) nodeLayout {
	var names []string
	if cyclic {
		for left := true; left; {
			left = false
			for h, c := range per {
				if c > 0 {
					names = append(names, fmt.Sprintf("h%d", h))
					per[h]--
					left = true
				}
			}
		}
	} else {
		for h, c := range per {
			for i := 0; i < c; i++ {
				names = append(names, fmt.Sprintf("h%d", h))
			}
		}
	}
	return newNodeLayout(names)
}

// TestScopePlan checks the nodes and sample schedules on uneven layouts:
// each wanted pair (every pair inside a node, every leader pair, the
// sample) exactly once, no other pair, no rank twice in a round, partners
// symmetric; PairOf enumerates the same pairs and peers lists each rank's
// higher partners.
func TestScopePlan(t *testing.T) {
	for _, tc := range []struct {
		per    []int
		cyclic bool
		k      int
	}{
		{[]int{2, 2, 2, 2}, false, 0},
		{[]int{3, 1, 4, 2}, false, 0},
		{[]int{3, 1, 4, 2}, true, 2},
		{[]int{5}, false, 3},
		{[]int{1, 1, 1}, false, 0},
		{[]int{8, 8, 8, 8, 8}, true, 4},
		{[]int{7, 6, 7}, false, 1},
	} {
		per := append([]int(nil), tc.per...)
		l := layoutOf(per, tc.cyclic)
		n := len(l.host)
		name := fmt.Sprintf("%v cyclic=%v k=%d", tc.per, tc.cyclic, tc.k)
		plans := make([]*scopePlan, n)
		for r := range plans {
			plans[r] = newScopePlan(l, tc.k, r)
		}
		want := map[schedule.Pair]bool{}
		for _, m := range l.members {
			for i := range m {
				for j := i + 1; j < len(m); j++ {
					want[schedule.Pair{A: m[i], B: m[j]}] = true
				}
			}
		}
		for h := range l.members {
			for o := h + 1; o < len(l.members); o++ {
				want[schedule.Pair{A: min(l.members[h][0], l.members[o][0]), B: max(l.members[h][0], l.members[o][0])}] = true
			}
		}
		for _, q := range plans[0].sample {
			if l.host[q.A] == l.host[q.B] || want[q] {
				t.Fatalf("%s: sample pair %v is inside a node or measured anyway", name, q)
			}
			want[q] = true
		}
		if tc.k > 0 && len(l.members) > 1 && len(plans[0].sample) == 0 {
			t.Fatalf("%s: no sample", name)
		}
		seen := map[schedule.Pair]int{}
		for r := 0; r < plans[0].Rounds(); r++ {
			for a := 0; a < n; a++ {
				if plans[a].Rounds() != plans[0].Rounds() {
					t.Fatalf("%s: ranks disagree on the number of rounds", name)
				}
				b := plans[a].Partner(r, a)
				if b < 0 {
					continue
				}
				if back := plans[b].Partner(r, b); back != a {
					t.Fatalf("%s round %d: %d meets %d but %d meets %d", name, r, a, b, b, back)
				}
				if a < b {
					seen[schedule.Pair{A: a, B: b}]++
				}
			}
		}
		for q := range want {
			if seen[q] != 1 {
				t.Errorf("%s: pair %v measured %d times, want once", name, q, seen[q])
			}
		}
		if len(seen) != len(want) {
			t.Errorf("%s: %d pairs measured, want %d", name, len(seen), len(want))
		}
		if plans[0].NumPairs() != len(want) {
			t.Errorf("%s: NumPairs %d, want %d", name, plans[0].NumPairs(), len(want))
		}
		byOf := map[schedule.Pair]bool{}
		for k := 0; k < plans[0].NumPairs(); k++ {
			byOf[plans[0].PairOf(k)] = true
		}
		for q := range want {
			if !byOf[q] {
				t.Errorf("%s: PairOf never gives %v", name, q)
			}
		}
		for r, p := range plans {
			var up []int
			for q := range want {
				if q.A == r {
					up = append(up, q.B)
				}
			}
			if got := p.peers(); len(got) != len(up) {
				t.Errorf("%s: rank %d peers %v, want %d of them", name, r, got, len(up))
			}
		}
	}
}

// TestSurveyFakeScopes runs nodes and sample:2 surveys of 8 fake ranks on
// 4 hosts (2 each) under both schedules: exactly the scope's pairs are
// written, with the right values; reading the survey fills every other
// cross-node pair from its nodes' leader pair and says how many; a sample
// whose pairs differ from their leader pair is warned about.
func TestSurveyFakeScopes(t *testing.T) {
	const n = 8
	for _, sched := range []Schedule{Rounds, Sequential} {
		for _, scope := range []string{"nodes", "sample:2"} {
			t.Run(string(sched)+"/"+scope, func(t *testing.T) {
				opt := DefaultOptions(filepath.Join(t.TempDir(), "s"))
				opt.Schedule, opt.Scope = sched, scope
				opt.Repeats, opt.Warmup, opt.Burst = 4, 1, 2
				opt.Sizes = []int{8, 800}
				opt.NodeBandwidth = NodeBWOff
				errs, _, stderr := runFake(t, n, opt, linearRTT)
				noRankErrors(t, errs)
				// Hosts are node0 = {0,1}, node1 = {2,3}...: leaders 0, 2, 4, 6.
				want := map[schedule.Pair]bool{{A: 0, B: 1}: true, {A: 2, B: 3}: true, {A: 4, B: 5}: true, {A: 6, B: 7}: true,
					{A: 0, B: 2}: true, {A: 0, B: 4}: true, {A: 0, B: 6}: true, {A: 2, B: 4}: true, {A: 2, B: 6}: true, {A: 4, B: 6}: true}
				var rows int
				err := survey.ScanPairs(mustOpen(t, filepath.Join(opt.Out, survey.PairsFile)), func(p *survey.PairStats) error {
					if p.Size == 8 {
						rows++
						if scope == "nodes" && !want[schedule.Pair{A: p.A, B: p.B}] {
							t.Errorf("pair (%d,%d) written, not in scope nodes", p.A, p.B)
						}
						if p.Median != linearRTT(p.A, p.B, 8) {
							t.Errorf("pair (%d,%d) median %v, want %v", p.A, p.B, p.Median, linearRTT(p.A, p.B, 8))
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if scope == "nodes" && rows != len(want) || scope != "nodes" && rows <= len(want) {
					t.Fatalf("%d pairs written at 8 bytes, want %d (nodes) or more (sample)", rows, len(want))
				}
				s, err := survey.ReadSurvey(opt.Out, survey.LoadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if s.Meta.Scope != scope {
					t.Errorf("meta scope %q, want %q", s.Meta.Scope, scope)
				}
				if s.Filled != survey.TriLen(n)-rows {
					t.Errorf("filled %d pairs, want %d", s.Filled, survey.TriLen(n)-rows)
				}
				// An unmeasured cross-node pair is the median of the pairs
				// measured between its two nodes (survey.CrossNodeMedians).
				lead := func(r int) int { return r &^ 1 }
				between := func(tb *survey.PairTable, a, b int, v func(x, y int) float64) (float64, string) {
					var vals []float64
					var from []string
					for x := 0; x < n; x++ {
						for y := x + 1; y < n; y++ {
							if tb.SamplesAt(x, y) > 0 && (lead(x) == lead(a) && lead(y) == lead(b) || lead(x) == lead(b) && lead(y) == lead(a)) {
								vals, from = append(vals, v(x, y)), append(from, fmt.Sprintf("(%d,%d)", x, y))
							}
						}
					}
					return stats.Median(vals), strings.Join(from, " ")
				}
				for _, tb := range s.Tables {
					for a := 0; a < n; a++ {
						for b := a + 1; b < n; b++ {
							w, from := linearRTT(a, b, tb.Size), "measured"
							if tb.SamplesAt(a, b) == 0 {
								w, from = between(tb, a, b, func(x, y int) float64 { return linearRTT(x, y, tb.Size) })
							}
							if got := tb.At(survey.Median, a, b); math.Abs(got-w) > 1e-3 {
								t.Errorf("size %d pair (%d,%d): %v, want %v (from %s)", tb.Size, a, b, got, w, from)
							}
						}
					}
				}
				// Fits are filled too: (1,3) gets the median latency of
				// the fits between nodes 0 and 1.
				fits := map[schedule.Pair]survey.Fit{}
				for _, f := range s.Fits {
					fits[schedule.Pair{A: f.A, B: f.B}] = f
				}
				f13, ok := fits[schedule.Pair{A: 1, B: 3}]
				if s.Tables[0].SamplesAt(1, 3) == 0 {
					wl, from := between(s.Tables[0], 1, 3, func(x, y int) float64 { return fits[schedule.Pair{A: x, B: y}].Latency })
					if !ok || math.Abs(f13.Latency-wl) > 1e-3 {
						t.Errorf("fit of (1,3): %+v, want the latency %v of %s", f13, wl, from)
					}
				}
				if !strings.Contains(s.FillNote(), fmt.Sprintf("%d of 28 rank pairs measured", rows)) {
					t.Errorf("fill note %q", s.FillNote())
				}
				if scope == "sample:2" {
					// linearRTT grows with the ranks: a non-leader pair is
					// 10a+b against the leaders' 10la+lb, off by more
					// than 1.5x for most.
					c := s.Meta.ScopeCheck
					if c == nil || c.Pairs != rows-len(want) || len(c.Off) == 0 || !strings.Contains(stderr, "leaders do not speak for every rank") {
						t.Errorf("scope check %+v, stderr %q", c, stderr)
					}
				}
			})
		}
	}
}

// TestScopeOptions: --scope is checked before any measurement, and --mmpi
// (every pair) refuses a partial scope.
func TestScopeOptions(t *testing.T) {
	for spec, want := range map[string]string{
		"sample:0": "sample:K", "nodes:2": "unknown scope", "pairs": "unknown scope",
	} {
		opt := DefaultOptions("x")
		opt.Scope = spec
		if err := opt.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--scope %s: %v, want %q", spec, err, want)
		}
	}
	opt := DefaultOptions("x")
	opt.Scope, opt.Mmpi = "nodes", "x.dat"
	if err := opt.Validate(); err == nil || !strings.Contains(err.Error(), "--scope all") {
		t.Errorf("--mmpi with --scope nodes: %v", err)
	}
	l := layoutOf([]int{AutoAllRanks, AutoAllRanks}, false)
	if _, _, name := resolveScope(ScopeAuto, 2*AutoAllRanks, l, false); name != "sample:4" {
		t.Errorf("auto at %d ranks on 2 hosts: %s", 2*AutoAllRanks, name)
	}
	if _, _, name := resolveScope(ScopeAuto, AutoAllRanks, l, false); name != "all" {
		t.Errorf("auto at %d ranks: %s", AutoAllRanks, name)
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestTimeBudget: 8 fake ranks on 4 hosts whose round trips take at
// least 300 us (about 1 ms here: sleeps are coarse). The survey with
// default repeats and two sizes is estimated at about 4 s, with the floor
// of 10 round trips at about 0.5 s: a 1.5 s budget lowers the repeats
// (never below 10) and says so in meta.json; a budget the floor cannot
// meet narrows scope all to nodes; round trips that become 5 times slower
// during the survey, after the probe, are seen by the checks after each
// pass, which lower the repeats below the probe's choice.
func TestTimeBudget(t *testing.T) {
	for _, tc := range []struct {
		budget    time.Duration
		wantScope string
		slow      int
	}{{1500 * time.Millisecond, "all", 1}, {time.Millisecond, "nodes", 1}, {1500 * time.Millisecond, "all", 5}} {
		t.Run(fmt.Sprintf("%s-slow%d", tc.budget, tc.slow), func(t *testing.T) {
			// The fake ranks sleep through their round trips (the
			// whole test keeps 4% of 2 cores busy): the three cases
			// side by side take the time of one.
			t.Parallel()
			opt := DefaultOptions(filepath.Join(t.TempDir(), "s"))
			opt.Scope, opt.TimeBudget, opt.NodeBandwidth = "auto", tc.budget, NodeBWOff
			opt.Sizes = []int{64, 1024}
			w := newFakeWorld(8, linearRTT)
			w.delay, w.slow, w.slowAfter = 300*time.Microsecond, tc.slow, 200
			errs, stderr := runFakeWorld(t, w, opt)
			noRankErrors(t, errs)
			s, err := survey.ReadSurvey(opt.Out, survey.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tb := s.Meta.TimeBudget
			if tb == nil || tb.BudgetS != tc.budget.Seconds() || tb.ProbeS <= 0 || tb.EstimateS <= tc.budget.Seconds() || len(tb.Repeats) != 2 || len(tb.Actions) == 0 {
				t.Fatalf("time_budget %+v", tb)
			}
			t.Logf("%+v\n%s", *tb, stderr)
			if s.Meta.Scope != tc.wantScope {
				t.Errorf("scope %s, want %s", s.Meta.Scope, tc.wantScope)
			}
			for i, r := range tb.Repeats {
				if r < MinBudgetRepeats || r >= DefaultRepeats {
					t.Errorf("size %d: %d repeats, want %d..%d", s.Tables[i].Size, r, MinBudgetRepeats, DefaultRepeats-1)
				}
				s.Tables[i].Each(func(a, b, j int) {
					if got := int(s.Tables[i].Samples[j]); got != r {
						t.Fatalf("size %d pair (%d,%d): %d samples, meta says %d", s.Tables[i].Size, a, b, got, r)
					}
				})
			}
			if !strings.Contains(stderr, "latmap: time budget:") {
				t.Errorf("stderr %q", stderr)
			}
			// Slower after 200 timed round trips, in the first size's
			// passes: a check after a pass lowers the repeats from there.
			if tc.slow > 1 && !(tb.Repeats[1] < tb.PlannedRepeats && strings.Contains(strings.Join(tb.Actions, "\n"), " passes at ")) {
				t.Errorf("repeats %v, probe's choice %d, actions %q: want fewer than the probe chose, after a pass", tb.Repeats, tb.PlannedRepeats, tb.Actions)
			}
		})
	}
}
