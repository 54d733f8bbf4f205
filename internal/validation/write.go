package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/latmap/latmap/internal/testutil"
)

// table is one table of the page: one test's (or subtest's) rows under
// one title.
type table struct {
	pkg, test, title string
	rows             []testutil.Recorded
}

// tables groups records by package, test and title, in that order; the
// rows of a table in the order recorded.
func tables(recs []testutil.Recorded) []*table {
	byKey := map[[3]string]*table{}
	var out []*table
	for _, r := range recs {
		k := [3]string{r.Package, r.Test, r.Table}
		t := byKey[k]
		if t == nil {
			t = &table{pkg: r.Package, test: r.Test, title: r.Table}
			byKey[k] = t
			out = append(out, t)
		}
		t.rows = append(t.rows, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.pkg != b.pkg {
			return a.pkg < b.pkg
		}
		if a.test != b.test {
			return a.test < b.test
		}
		return a.title < b.title
	})
	return out
}

// generatedMark opens the page: it is written, not edited.
const generatedMark = "<!-- Written by make validation (go run ./internal/validation) from the figures the tests below asserted; do not edit. -->"

// writePage writes docs/validation.md from the tables, naming each
// table's test and its file; silent lists the recording tests that
// recorded nothing in this run (skipped, failed or not run). commit is
// the source the tests ran on.
func writePage(w io.Writer, tabs []*table, tests []recordingTest, commit string) error {
	file := map[string]recordingTest{}
	for _, rt := range tests {
		file[rt.pkg+" "+rt.name] = rt
	}
	b := &strings.Builder{}
	fmt.Fprintf(b, "%s\n\n# Validation: the figures the tests assert\n\n", generatedMark)
	b.WriteString(pageIntro)
	if commit != "" {
		fmt.Fprintf(b, "These figures are of one run of `make validation` on commit %s.\n\n", commit)
	}
	pkg, test := "", ""
	recorded := map[string]bool{}
	for _, t := range tabs {
		if t.pkg != pkg {
			pkg, test = t.pkg, ""
			fmt.Fprintf(b, "## %s\n\n", pkg)
		}
		top, _, _ := strings.Cut(t.test, "/")
		recorded[t.pkg+" "+top] = true
		if t.test != test {
			test = t.test
			fmt.Fprintf(b, "### %s\n\n", test)
		}
		fmt.Fprintf(b, "%s, asserted by %s.\n\n", capital(t.title), testLink(file[t.pkg+" "+top], t.pkg, top))
		writeTable(b, t.rows)
	}
	var silent []string
	for _, rt := range tests {
		if !recorded[rt.pkg+" "+rt.name] {
			silent = append(silent, testLink(rt, rt.pkg, rt.name))
		}
	}
	if len(silent) > 0 {
		fmt.Fprintf(b, "## Not recorded in this run\n\nThese tests record figures but wrote none in this run (skipped for a missing tool, or failed): %s.\n", strings.Join(silent, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// pageIntro says what the page is and how to read it.
const pageIntro = `Every table here is written by ` + "`make validation`" + ` from the rows a test
recorded (` + "`testutil.Record`" + `) right after checking them, and only if the
test passed: each figure is one a test holds to a bound, and the bound is
beside it. A column whose value is the same in every row of a table is
given once, above it. The model's formulas are in [place.md](place.md);
how the figures came to be what they are is in
[CHANGELOG.md](../CHANGELOG.md). Predictions are raw (the model is not
calibrated on a matrix alone) unless a table says otherwise; runs are
seconds; "predicted / simulated" is the prediction over SimGrid SMPI's
simulated run of the same layout (the survey measured inside the same
simulation), "predicted / measured" the same against real runs on the
virtual cluster (network namespaces with shaped links).

`

// testLink names a test with a link to its file, from docs/.
func testLink(rt recordingTest, pkg, name string) string {
	if rt.file == "" {
		return fmt.Sprintf("`%s` in `%s`", name, pkg)
	}
	return fmt.Sprintf("[`%s`](../%s/%s) in `%s`", name, pkg, rt.file, pkg)
}

// capital is s with its first letter a capital.
func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// writeTable writes rows as a Markdown table, the columns in their first
// row's order (a column a later row adds, after them); a column with one
// value in every row of several is written once, above the table.
func writeTable(b *strings.Builder, rows []testutil.Recorded) {
	var cols []string
	vals := make([]map[string]string, len(rows))
	for i, r := range rows {
		vals[i] = map[string]string{}
		for _, f := range r.Fields {
			name := fmt.Sprint(f[0])
			if !slices.Contains(cols, name) {
				cols = append(cols, name)
			}
			vals[i][name] = format(f[1])
		}
	}
	var shown []string
	for _, c := range cols {
		same := len(rows) > 1
		for i := range rows {
			_, has := vals[i][c]
			same = same && has && vals[i][c] == vals[0][c]
		}
		if same {
			fmt.Fprintf(b, "%s: %s.\n\n", capital(c), vals[0][c])
		} else {
			shown = append(shown, c)
		}
	}
	if len(shown) == 0 {
		return
	}
	fmt.Fprintf(b, "| %s |\n|%s\n", strings.Join(shown, " | "), strings.Repeat("---|", len(shown)))
	for i := range rows {
		cells := make([]string, len(shown))
		for k, c := range shown {
			cells[k] = vals[i][c]
		}
		fmt.Fprintf(b, "| %s |\n", strings.Join(cells, " | "))
	}
	b.WriteString("\n")
}

// format writes a recorded value: a number to 4 significant digits (a
// whole number of 1,000 or more in full), anything else as it is.
func format(v any) string {
	x, ok := v.(float64)
	if !ok {
		return strings.ReplaceAll(fmt.Sprint(v), "|", "\\|")
	}
	if math.Abs(x) >= 1000 {
		return strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}
