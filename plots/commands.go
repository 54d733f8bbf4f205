package plots

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/latmap/latmap/mapper/compare"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
)

// Request is latmap plot: draw the survey (directory or mmpi log) Input
// into the picture Output.
type Request struct {
	Input, Output string
	HostPattern   string
	// Metric is a metric name or "" / "auto"; for a profile's matrix,
	// bytes, messages or time.
	Metric string
	Size   int
	Order  string
	Style  string
	// Comm is a profile's communicator (--comm) for the matrix style.
	Comm  string
	Force bool
	// Out receives notes about the input (nil: none).
	Out io.Writer
}

// Run draws a survey (directory or mmpi log) or a profile directory.
func Run(req Request) error {
	if profile.IsDir(req.Input) {
		return runProfile(req)
	}
	if req.Comm != "" {
		return fmt.Errorf("--comm draws a profile's communicator, and %s is not a profile directory", req.Input)
	}
	if contains(ProfileStyles, req.Style) {
		return fmt.Errorf("style %s draws a profile, and %s is not a profile directory (no %s); survey styles: heatmap, surface, histogram", req.Style, req.Input, profile.FunctionsFile)
	}
	m, err := survey.ParseMetricFlag(req.Metric)
	if err != nil {
		return err
	}
	if m < 0 {
		m = survey.AutoMetric(req.Input)
	}
	s, opt, err := load(req.Input, req.HostPattern, m)
	if err != nil {
		return err
	}
	opt.Size, opt.Order, opt.Style, opt.Force = req.Size, req.Order, req.Style, req.Force
	if note := s.FillNote(); note != "" && req.Out != nil {
		fmt.Fprintf(req.Out, "latmap: %s\n", note)
	}
	return WriteFile(req.Output, s, opt)
}

// load reads a survey keeping only metric m: a 4096-rank survey then holds
// one float per pair instead of six.
func load(path, hostPattern string, m survey.Metric) (*survey.Survey, Options, error) {
	opt := DefaultOptions()
	opt.Metric = m
	mo, err := survey.HostPattern(hostPattern)
	if err != nil {
		return nil, opt, err
	}
	lo := survey.LoadOptions{SkipFit: true, Metrics: []survey.Metric{m}}
	s, err := survey.LoadWith(path, lo, mo)
	return s, opt, err
}

// CompareRequest is latmap compare: compare surveys A and B (directories or
// mmpi logs), write the table to Out and, with Output, the two surfaces
// side by side.
type CompareRequest struct {
	A, B        string
	Output      string
	HostPattern string
	Metric      string
	Size        int
	Order       string
	Force       bool
	Out         io.Writer
}

// RunCompare loads both surveys, compares them and writes the results.
func RunCompare(req CompareRequest) error {
	m, err := survey.ParseMetricFlag(req.Metric)
	if err != nil {
		return err
	}
	if m < 0 {
		// The median when both have it, else the mean.
		m = survey.Mean
		if survey.AutoMetric(req.A) == survey.Median && survey.AutoMetric(req.B) == survey.Median {
			m = survey.Median
		}
	}
	a, opt, err := load(req.A, req.HostPattern, m)
	if err != nil {
		return err
	}
	b, _, err := load(req.B, req.HostPattern, m)
	if err != nil {
		return err
	}
	to := topo.DefaultOptions()
	to.Size, to.Metric = req.Size, opt.Metric
	c, err := compare.Compare(a, b, req.A, req.B, to)
	if err != nil {
		return err
	}
	for _, s := range []*survey.Survey{a, b} {
		if note := s.FillNote(); note != "" {
			fmt.Fprintf(req.Out, "latmap: %s: %s\n", s.Path, note)
		}
	}
	if err := c.WriteText(req.Out); err != nil {
		return err
	}
	if req.Output == "" {
		return nil
	}
	opt.Size, opt.Order, opt.Force = req.Size, req.Order, req.Force
	if err := WriteCompareFile(req.Output, a, b, c, opt); err != nil {
		return err
	}
	fmt.Fprintf(req.Out, "\nlatmap: wrote %s\n", req.Output)
	return nil
}

// runProfile draws a profile directory.
func runProfile(req Request) error {
	if req.Style != "" && !contains(ProfileStyles, req.Style) {
		return fmt.Errorf("%s is a profile directory: style %s draws surveys; profile styles: ranks, functions, matrix, sizes", req.Input, req.Style)
	}
	p, err := profile.ReadProfile(req.Input)
	if err != nil {
		return err
	}
	metric := req.Metric
	if metric == "auto" {
		metric = ""
	}
	name := filepath.Base(filepath.Clean(req.Input)) + "/"
	if req.Comm != "" && req.Style != StyleMatrix {
		return fmt.Errorf("--comm %s draws a communicator's matrix: add --style matrix", req.Comm)
	}
	return WriteProfileFile(req.Output, p, ProfileOptions{Style: req.Style, Metric: metric, Comm: req.Comm, Name: name, Force: req.Force})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
