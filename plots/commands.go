package plots

import (
	"fmt"
	"io"

	"github.com/latmap/latmap/mapper"
)

// Request is latmap plot: draw the survey (directory or mmpi log) Input
// into the picture Output.
type Request struct {
	Input, Output string
	HostPattern   string
	// Metric is a metric name or "" / "auto".
	Metric string
	Size   int
	Order  string
	Style  string
	Force  bool
}

// Run loads the survey and draws it.
func Run(req Request) error {
	s, opt, err := load(req.Input, req.HostPattern, req.Metric)
	if err != nil {
		return err
	}
	opt.Size, opt.Order, opt.Style, opt.Force = req.Size, req.Order, req.Style, req.Force
	return WriteFile(req.Output, s, opt)
}

func load(path, hostPattern, metric string) (*mapper.Survey, Options, error) {
	opt := DefaultOptions()
	mo, err := mapper.HostPattern(hostPattern)
	if err != nil {
		return nil, opt, err
	}
	if opt.Metric, err = mapper.ParseMetricFlag(metric); err != nil {
		return nil, opt, err
	}
	// Only the metrics a plot can use; a 4096-rank survey loads in a
	// third of the memory of all of them.
	lo := mapper.LoadOptions{SkipFit: true, Metrics: []mapper.Metric{mapper.Mean, mapper.Median}}
	if opt.Metric >= 0 {
		lo.Metrics = []mapper.Metric{opt.Metric, mapper.Mean, mapper.Median}
	}
	s, err := mapper.LoadWith(path, lo, mo)
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
	a, opt, err := load(req.A, req.HostPattern, req.Metric)
	if err != nil {
		return err
	}
	b, _, err := load(req.B, req.HostPattern, req.Metric)
	if err != nil {
		return err
	}
	to := mapper.DefaultTopoOptions()
	to.Size, to.Metric = req.Size, opt.Metric
	c, err := mapper.Compare(a, b, req.A, req.B, to)
	if err != nil {
		return err
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
