package survey

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSetAnyOrder: a sparse table given its rows shuffled, with some pairs
// given twice, holds what it holds given them in key order, each pair's
// last row winning; lookups and Each see the settled table.
func TestSetAnyOrder(t *testing.T) {
	const n = 50
	rng := rand.New(rand.NewPCG(1, 2))
	var rows []PairStats
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			if rng.IntN(3) == 0 {
				rows = append(rows, PairStats{A: a, B: b, Samples: 1, Median: float64(a*n + b)})
			}
		}
	}
	sorted := NewSparsePairTable(n, 8, Median)
	for i := range rows {
		sorted.Set(&rows[i])
	}
	shuffled := NewSparsePairTable(n, 8, Median)
	perm := rng.Perm(len(rows))
	for _, i := range perm {
		// A stale value first, then the right one: the last row wins.
		stale := rows[i]
		stale.Median = -1
		if i%4 == 0 {
			shuffled.Set(&stale)
		}
		shuffled.Set(&rows[i])
	}
	if shuffled.Len() != sorted.Len() || shuffled.Len() != len(rows) {
		t.Fatalf("%d and %d pairs held, want %d", shuffled.Len(), sorted.Len(), len(rows))
	}
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			x, y := sorted.At(Median, a, b), shuffled.At(Median, a, b)
			if x != y && !(math.IsNaN(x) && math.IsNaN(y)) {
				t.Fatalf("(%d,%d): %v in order, %v shuffled", a, b, x, y)
			}
		}
	}
	last := -1
	shuffled.Each(func(a, b, i int) {
		if k := a*n + b; k <= last || float64(shuffled.Values[Median][i]) != float64(k) {
			t.Fatalf("Each at (%d,%d): key %d after %d, value %v", a, b, k, last, shuffled.Values[Median][i])
		} else {
			last = k
		}
	})
	// A settled table takes an update in place.
	shuffled.Set(&PairStats{A: rows[0].A, B: rows[0].B, Samples: 2, Median: 7})
	if shuffled.Len() != len(rows) || shuffled.At(Median, rows[0].A, rows[0].B) != 7 {
		t.Fatalf("update: %d pairs, value %v", shuffled.Len(), shuffled.At(Median, rows[0].A, rows[0].B))
	}
}

// writeUnscoped writes a survey of n ranks on nodes of per ranks whose
// pairs.csv holds rows (in that order) and whose meta.json has no scope.
func writeUnscoped(t *testing.T, n, per int, rows []PairStats) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "s")
	s := &Survey{Meta: SurveyMeta{Tool: "test", Ranks: n, Sizes: []int{8}}}
	for r := 0; r < n; r++ {
		s.Ranks = append(s.Ranks, Rank{Rank: r, Host: "n" + string(rune('a'+r/per)), CPU: r % per})
	}
	s.Tables = []*PairTable{NewSparsePairTable(n, 8)}
	if err := WriteSurvey(dir, s, false); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString(strings.Join(PairsHeader(), ",") + "\n")
	for i := range rows {
		rows[i].Size, rows[i].Isolated = 8, math.NaN()
		b.Write(AppendPairRow(nil, &rows[i]))
	}
	if err := os.WriteFile(filepath.Join(dir, PairsFile), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReadSparseWhateverScope: a survey without a scope whose rows cover a
// small part of the triangle is read sparse (Partial) and, being small,
// filled from the leaders with the fill note; rows given in reverse order
// read the same.
func TestReadSparseWhateverScope(t *testing.T) {
	const n, per = 40, 10 // 4 nodes: 0, 10, 20, 30 lead
	var rows []PairStats
	for _, p := range [][2]int{{0, 10}, {0, 20}, {10, 30}, {1, 2}, {11, 12}} {
		rows = append(rows, PairStats{A: p[0], B: p[1], Samples: 5, Mean: 3, Median: float64(p[0] + p[1]), Min: 1, Std: 0.1, P99: 4})
	}
	slices := func(rs []PairStats) []PairStats { return append([]PairStats(nil), rs...) }
	rev := slices(rows)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	for name, rs := range map[string][]PairStats{"in order": slices(rows), "reversed": rev} {
		s, err := ReadSurvey(writeUnscoped(t, n, per, rs), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !s.Partial || s.Sparse() {
			t.Fatalf("%s: partial %v sparse %v; want a partial survey filled dense", name, s.Partial, s.Sparse())
		}
		// (5, 15): nodes 0 and 1, filled from leaders (0, 10) = 10.
		if v := s.Tables[0].At(Median, 5, 15); v != 10 {
			t.Errorf("%s: (5,15) = %v, want 10 from the leaders", name, v)
		}
		// (5, 35): nodes 0 and 3, whose leaders were not measured.
		if v := s.Tables[0].At(Median, 5, 35); !math.IsNaN(v) {
			t.Errorf("%s: (5,35) = %v, want NaN", name, v)
		}
		if note := s.FillNote(); !strings.Contains(note, "scope unset: 5 of 780 rank pairs measured") || !strings.Contains(note, "filled from their nodes' leader pair") {
			t.Errorf("%s: note %q", name, note)
		}
	}
}

// TestReadRefusesWhatCannotFit: a survey whose tables would take more than
// the memory at hand is refused before anything is allocated, with the
// size and the ways out.
func TestReadRefusesWhatCannotFit(t *testing.T) {
	var rows []PairStats
	for a := 0; a < 30; a++ {
		for b := a + 1; b < 30; b++ {
			rows = append(rows, PairStats{A: a, B: b, Samples: 1, Median: 1})
		}
	}
	dir := writeUnscoped(t, 30, 10, rows)
	defer func(f func() (uint64, bool)) { memAvailable = f }(memAvailable)
	memAvailable = func() (uint64, bool) { return 1000, true }
	_, err := ReadSurvey(dir, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "435 rows of 30 ranks") || !strings.Contains(err.Error(), "--scope nodes") {
		t.Fatalf("err %v", err)
	}
}

// TestSortKeyRowsIsStableSort checks sortKeyRows (merge of few runs, or
// a radix sort) against a stable sort by key, on
// rows in a few ascending runs and on shuffled rows, with repeated keys.
func TestSortKeyRowsIsStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct{ rows, runs, keys int }{{0, 1, 1}, {1, 1, 1}, {50, 1, 20}, {1000, 3, 5000}, {1000, 7, 30}, {5000, maxMergeRuns, 100000}, {5000, maxMergeRuns + 1, 100000}, {3000, 3000, 50}} {
		var in []keyRow
		for r := 0; r < c.runs; r++ {
			run := make([]uint64, c.rows/c.runs)
			for i := range run {
				run[i] = uint64(rng.IntN(c.keys))
			}
			slices.Sort(run)
			for _, k := range run {
				in = append(in, keyRow{k, int32(len(in))})
			}
		}
		want := slices.Clone(in)
		slices.SortStableFunc(want, func(x, y keyRow) int { return cmp.Compare(x.k, y.k) })
		got := slices.Clone(in)
		sortKeyRows(got)
		if !slices.Equal(got, want) {
			t.Errorf("%d rows in %d runs of %d keys: sortKeyRows differs from a stable sort", c.rows, c.runs, c.keys)
		}
	}
}

// TestEachPart: the parts of a dense and of a sparse table, one after
// another, visit what Each does, in its order.
func TestEachPart(t *testing.T) {
	for _, sparse := range []bool{false, true} {
		tab := NewPairTable(7, 64)
		if sparse {
			tab = NewSparsePairTable(7, 64)
		}
		for a := 0; a < 7; a++ {
			for b := a + 1; b < 7; b++ {
				if (a+b)%3 != 0 {
					tab.Set(&PairStats{A: a, B: b, Size: 64, Samples: 1, Mean: 1, Median: 1, Min: 1})
				}
			}
		}
		var want []int
		tab.Each(func(a, b, i int) { want = append(want, a, b, i) })
		for parts := 1; parts <= 25; parts++ {
			var got []int
			for p := 0; p < parts; p++ {
				tab.EachPart(p, parts, func(a, b, i int) { got = append(got, a, b, i) })
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("sparse %v, %d parts: visited %v, want %v", sparse, parts, got, want)
			}
		}
	}
}
