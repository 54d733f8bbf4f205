package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (see go doc test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	Elapsed    float64 // seconds, on pass and fail
	ImportPath string  // build-output and build-fail events
}

// slowestShown is how many of the slowest tests finish lists: where a
// long run's time went, for keeping make test within its budget.
const slowestShown = 10

// timed is a top-level test's wall time.
type timed struct {
	name string // "pkg Test"
	secs float64
}

// summary accumulates a run.
type summary struct {
	out            io.Writer
	passed, failed int
	skipped        []string            // "pkg Test: reason"
	failedPkgs     map[string]bool     // packages that failed or did not build
	output         map[string][]string // test output so far, by pkg + test
	sawEvent       bool
	times          []timed // top-level tests that passed or failed
}

func main() {
	s := newSummary(os.Stdout)
	if err := s.read(os.Stdin); err != nil {
		fmt.Fprintf(os.Stderr, "testsum: %v\n", err)
		os.Exit(1)
	}
	if !s.finish() {
		os.Exit(1)
	}
}

func newSummary(out io.Writer) *summary {
	return &summary{out: out, output: map[string][]string{}, failedPkgs: map[string]bool{}}
}

func (s *summary) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			// go test prints some errors (a package that does not build
			// with an older toolchain) as plain text: pass it on.
			fmt.Fprintln(s.out, string(line))
			continue
		}
		s.sawEvent = true
		s.add(e)
	}
	return sc.Err()
}

func (s *summary) add(e event) {
	key := e.Package + " " + e.Test
	if (e.Action == "pass" || e.Action == "fail") && e.Test != "" && !strings.Contains(e.Test, "/") {
		s.times = append(s.times, timed{key, e.Elapsed})
	}
	switch {
	case e.Action == "build-output":
		fmt.Fprint(s.out, e.Output)
	case e.Action == "build-fail":
		s.failedPkgs[e.ImportPath] = true
	case e.Test == "" && e.Action == "output":
		// The package's own lines: "ok  pkg 1.2s", "FAIL pkg", panics
		// outside a test. "PASS" alone is noise.
		if strings.TrimSpace(e.Output) != "PASS" {
			fmt.Fprint(s.out, e.Output)
		}
	case e.Test == "" && e.Action == "fail":
		s.failedPkgs[e.Package] = true
	case e.Test == "":
	case e.Action == "output":
		s.output[key] = append(s.output[key], e.Output)
	case e.Action == "pass":
		s.passed++
		delete(s.output, key)
	case e.Action == "skip":
		s.skipped = append(s.skipped, fmt.Sprintf("%s %s: %s", e.Package, e.Test, skipReason(s.output[key])))
		delete(s.output, key)
	case e.Action == "fail":
		s.failed++
		fmt.Fprintf(s.out, "--- FAIL: %s (%s)\n%s", e.Test, e.Package, strings.Join(s.output[key], ""))
		delete(s.output, key)
	}
}

// skipReason is the message a skipped test gave (the lines after its
// "=== RUN" and before "--- SKIP").
func skipReason(lines []string) string {
	var why []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		why = append(why, t)
	}
	if len(why) == 0 {
		return "no reason given"
	}
	return strings.Join(why, " ")
}

// finish prints the skips and the closing line; it reports whether the
// run passed.
func (s *summary) finish() bool {
	if len(s.skipped) > 0 {
		sort.Strings(s.skipped)
		fmt.Fprintf(s.out, "\nskipped tests:\n")
		for _, k := range s.skipped {
			fmt.Fprintf(s.out, "  %s\n", k)
		}
	}
	s.printSlowest()
	failed := s.failed
	if failed == 0 {
		failed = len(s.failedPkgs) // a package that did not build has no failed test
	}
	fmt.Fprintf(s.out, "\n%d passed, %d failed, %d skipped\n", s.passed, failed, len(s.skipped))
	return s.sawEvent && s.failed == 0 && len(s.failedPkgs) == 0
}

// printSlowest lists the slowest top-level tests, slowest first.
func (s *summary) printSlowest() {
	if len(s.times) == 0 {
		return
	}
	sort.SliceStable(s.times, func(i, j int) bool { return s.times[i].secs > s.times[j].secs })
	fmt.Fprintf(s.out, "\nslowest tests:\n")
	for _, t := range s.times[:min(slowestShown, len(s.times))] {
		fmt.Fprintf(s.out, "  %6.1f s  %s\n", t.secs, t.name)
	}
}
