package driver

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/latmap/latmap/internal/atomicdir"
	"github.com/latmap/latmap/mapper/compare"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
	"github.com/latmap/latmap/plots"
)

// PlotRequest is latmap plot: draw the survey (directory or mmpi log) or
// the profile directory Input into the picture Output.
type PlotRequest struct {
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

// Plot draws a survey (directory or mmpi log) or a profile directory.
func Plot(req PlotRequest) error {
	if err := atomicdir.CheckFile(req.Output, req.Force); err != nil {
		return err
	}
	if _, err := plots.Format(req.Output); err != nil {
		return err // before the input is read
	}
	if profile.IsDir(req.Input) {
		return plotProfile(req)
	}
	if req.Comm != "" {
		return fmt.Errorf("--comm draws a profile's communicator, and %s is not a profile directory", req.Input)
	}
	if slices.Contains(plots.ProfileStyles(), req.Style) {
		return fmt.Errorf("style %s draws a profile, and %s is not a profile directory (no %s); survey styles: heatmap, surface, histogram", req.Style, req.Input, profile.FunctionsFile)
	}
	m, err := metricAndSize(req.Metric, req.Size, req.Input)
	if err != nil {
		return err
	}
	s, err := load(req.Input, req.HostPattern, m)
	if err != nil {
		return err
	}
	opt := plots.DefaultOptions()
	opt.Metric, opt.Size, opt.Order, opt.Style, opt.Force = m, req.Size, req.Order, req.Style, req.Force
	say(req.Out, notes(s))
	return plots.WriteFile(req.Output, s, opt)
}

// plotProfile draws a profile directory.
func plotProfile(req PlotRequest) error {
	if req.Style != "" && !slices.Contains(plots.ProfileStyles(), req.Style) {
		return fmt.Errorf("%s is a profile directory: style %s draws surveys; profile styles: ranks, functions, matrix, sizes", req.Input, req.Style)
	}
	if req.Comm != "" && req.Style != plots.StyleMatrix {
		return fmt.Errorf("--comm %s draws a communicator's matrix: add --style matrix", req.Comm)
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
	return plots.WriteProfileFile(req.Output, p, plots.ProfileOptions{Style: req.Style, Metric: metric, Comm: req.Comm, Name: name, Force: req.Force})
}

// CompareRequest is latmap compare: compare surveys A and B (directories
// or mmpi logs), write the table to Out and, with Output, the two surfaces
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
	// Err receives the surveys' notes (what each lacks, what was
	// filled), as every reader says them: on standard error, apart from
	// the comparison (nil: on Out).
	Err io.Writer
}

// Compare loads both surveys, compares them and writes the results.
func Compare(req CompareRequest) error {
	if req.Output != "" {
		if err := atomicdir.CheckFile(req.Output, req.Force); err != nil {
			return err
		}
		if _, err := plots.Format(req.Output); err != nil {
			return err // before the surveys are read
		}
	}
	m, err := metricAndSize(req.Metric, req.Size, "")
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
	a, err := load(req.A, req.HostPattern, m)
	if err != nil {
		return err
	}
	b, err := load(req.B, req.HostPattern, m)
	if err != nil {
		return err
	}
	to := topo.DefaultOptions()
	to.Size, to.Metric = req.Size, m
	c, err := compare.Compare(a, b, req.A, req.B, to)
	if err != nil {
		return err
	}
	errw := req.Err
	if errw == nil {
		errw = req.Out
	}
	for _, s := range []*survey.Survey{a, b} {
		for _, note := range notes(s) {
			fmt.Fprintf(errw, "latmap: %s: %s\n", s.Path, note)
		}
	}
	if err := c.WriteText(req.Out); err != nil {
		return err
	}
	if req.Output == "" {
		return nil
	}
	opt := plots.DefaultOptions()
	opt.Metric, opt.Size, opt.Order, opt.Force = m, req.Size, req.Order, req.Force
	return plots.WriteCompareFile(req.Output, a, b, c, opt)
}
