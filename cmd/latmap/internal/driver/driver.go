package driver

import (
	"fmt"
	"io"

	"github.com/latmap/latmap/mapper/survey"
)

// metricAndSize parses the --metric and --size flags of a command that
// reads the survey at path: "" or "auto" lets survey.AutoMetric choose
// for path (-1 when path is ""), a size is in bytes or -1 for the
// smallest measured.
func metricAndSize(metric string, size int, path string) (survey.Metric, error) {
	if size < -1 {
		return 0, fmt.Errorf("--size %d: want a message size in bytes the survey measured, or leave it out for the smallest", size)
	}
	if metric != "" && metric != "auto" {
		m, err := survey.ParseMetric(metric)
		if err != nil {
			return 0, fmt.Errorf("--metric: %w", err)
		}
		return m, nil
	}
	if path == "" {
		return -1, nil
	}
	return survey.AutoMetric(path), nil
}

// notes are what a reader says of the survey s before its results: that
// it stopped early, its warnings (survey.Warnings), and what of it was
// filled or read node by node.
func notes(s *survey.Survey) []string {
	out := warnings(s)
	if note := s.FillNote(); note != "" {
		out = append(out, note)
	}
	return out
}

// warnings are notes without the fill note (which topo.Infer makes its
// own).
func warnings(s *survey.Survey) []string {
	var out []string
	if s.Meta.Stopped != "" {
		out = append(out, "partial survey: it was "+s.Meta.Stopped)
	}
	return append(out, s.Warnings()...)
}

// say prints each line on w as latmap's own (nil w: nowhere), as the
// readers say a survey's notes.
func say(w io.Writer, lines []string) {
	if w == nil {
		return
	}
	for _, l := range lines {
		fmt.Fprintf(w, "latmap: %s\n", l)
	}
}

// hostPattern compiles a --host-pattern flag.
func hostPattern(pattern string) (survey.MMPIOptions, error) {
	mo, err := survey.CompileHostPattern(pattern)
	if err != nil {
		return mo, fmt.Errorf("--host-pattern: %w", err)
	}
	return mo, nil
}

// load reads a survey (directory or mmpi log) keeping only metric m: a
// 4096-rank survey then holds one float per pair instead of six.
func load(path, pattern string, m survey.Metric) (*survey.Survey, error) {
	mo, err := hostPattern(pattern)
	if err != nil {
		return nil, err
	}
	return survey.LoadWith(path, survey.LoadOptions{SkipFit: true, Metrics: []survey.Metric{m}}, mo)
}
