package survey

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWarningsShortPairs: a pairs.csv cut at a line boundary, and a
// meta.json listing a size pairs.csv lacks, are each said once by
// Warnings, with the counts; a whole survey says nothing.
func TestWarningsShortPairs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	in := testSurvey()
	in.Meta.Warnings = []string{"ranks not bound"}
	if err := WriteSurvey(dir, in, false); err != nil {
		t.Fatal(err)
	}
	whole, err := ReadSurvey(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := whole.Warnings(); !slices.Equal(got, []string{"survey: ranks not bound"}) {
		t.Errorf("whole survey: warnings %q, want only the producer's", got)
	}
	// Cut the last row.
	path := filepath.Join(dir, PairsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimRight(string(b), "\n"), "\n")
	if err := os.WriteFile(path, []byte(strings.Join(lines[:len(lines)-1], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	short, err := ReadSurvey(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	size := strings.Split(lines[len(lines)-1], ",")[2]
	want := "pairs.csv: 1 of 3 rank pairs at " + size + " bytes are missing against meta.json (3 ranks, scope all; was the file cut short?): left unmeasured"
	if got := short.Warnings(); len(got) != 2 || got[1] != want {
		t.Errorf("cut pairs.csv: warnings %q, want the producer's and %q", got, want)
	}
	// A size meta.json lists and pairs.csv has none of.
	short.Meta.Sizes = append(short.Meta.Sizes, 4096)
	if got := short.lacks(nil); !slices.Contains(got, "pairs.csv: no pair at 4096 bytes, a size meta.json lists; the readers use the sizes it has") {
		t.Errorf("missing size: lacks %q", got)
	}
}

// TestWarningsCutToFew: a pairs.csv of every pair cut to under a tenth
// (read sparse, then filled from the node leaders) says in one line how
// many pairs meta.json promised, how many were filled and how many left
// unmeasured, and FillNote says nothing more; a survey its producer said
// lacks pairs (an mmpi log cut short, imported) is not said to again.
func TestWarningsCutToFew(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	in := synthLike(4, 4)
	if err := WriteSurvey(dir, in, false); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, PairsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	// The header, pairs (0,1)..(0,4): 4 of 120, node 0's pairs and one
	// to node 1.
	if err := os.WriteFile(path, []byte(strings.Join(lines[:5], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSurvey(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "pairs.csv: 116 of 120 rank pairs at 64 bytes are missing against meta.json (16 ranks, scope all; was the file cut short?): 15 filled from their nodes' leader pair (the median of the pairs measured between the two nodes), 101 left unmeasured"
	if got := s.Lacks; len(got) != 1 || !strings.HasPrefix(got[0], want) || s.FillNote() != "" {
		t.Errorf("lacks %q, fill note %q; want one line starting %q and no fill note", got, s.FillNote(), want)
	}
	s.Meta.Warnings = []string{"the log: " + MissingPairs(116, 120, 64) + " (was the run or the file cut short?): left unmeasured"}
	if got := s.lacks(nil); len(got) != 0 {
		t.Errorf("said by the producer: lacks %q, want none", got)
	}
}

// synthLike is a survey of every pair of nodes x per ranks, rank r on
// host r/per, 1 us inside a node and 10 between, at 64 bytes.
func synthLike(nodes, per int) *Survey {
	n := nodes * per
	s := &Survey{Meta: SurveyMeta{Ranks: n, Sizes: []int{64}, Repeats: 10, Scope: ScopeAll}}
	for r := 0; r < n; r++ {
		s.Ranks = append(s.Ranks, Rank{Rank: r, Host: fmt.Sprintf("n%d", r/per), CPU: r % per, Socket: 0, NUMA: 0, L3: 0, Core: r % per})
	}
	t := NewPairTable(n, 64)
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			v := 1.0
			if a/per != b/per {
				v = 10
			}
			t.Set(&PairStats{A: a, B: b, Size: 64, Samples: 10, Mean: v, Std: 0.1, Min: v, Median: v, P99: v, Isolated: math.NaN()})
		}
	}
	s.Tables = []*PairTable{t}
	return s
}

// TestNegativeRoundTripRefused: a negative or NaN round trip in
// pairs.csv is refused with its line and column.
func TestNegativeRoundTripRefused(t *testing.T) {
	for _, bad := range []string{"-5.00", "NaN", "+Inf"} {
		dir := filepath.Join(t.TempDir(), "s")
		if err := WriteSurvey(dir, testSurvey(), false); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, PairsFile)
		b, _ := os.ReadFile(path)
		lines := strings.Split(string(b), "\n")
		f := strings.Split(lines[2], ",")
		f[4] = bad
		lines[2] = strings.Join(f, ",")
		os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
		_, err := ReadSurvey(dir, LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), "line 3: rtt_mean_us \""+bad+"\": want a non-negative number") {
			t.Errorf("round trip %s: %v, want it refused at line 3", bad, err)
		}
	}
}
