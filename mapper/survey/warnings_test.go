package survey

import (
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
	want := "pairs.csv: 1 of 3 rank pairs at " + size + " bytes are missing (was the file cut short?); they are left unmeasured"
	if got := short.Warnings(); len(got) != 2 || got[1] != want {
		t.Errorf("cut pairs.csv: warnings %q, want the producer's and %q", got, want)
	}
	// A size meta.json lists and pairs.csv has none of.
	short.Meta.Sizes = append(short.Meta.Sizes, 4096)
	if got := short.lacks(); !slices.Contains(got, "pairs.csv: no pair at 4096 bytes, a size meta.json lists") {
		t.Errorf("missing size: lacks %q", got)
	}
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
