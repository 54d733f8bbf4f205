package survey

import (
	"fmt"
	"io"
	"regexp"

	"github.com/latmap/latmap/internal/text"
)

// HostPattern compiles a --host-pattern flag into MMPIOptions; "" keeps
// whole processor names.
func HostPattern(pattern string) (MMPIOptions, error) {
	if pattern == "" {
		return MMPIOptions{}, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return MMPIOptions{}, fmt.Errorf("--host-pattern: %w", err)
	}
	return MMPIOptions{HostPattern: re}, nil
}

// ParseMetricFlag parses a --metric flag: "" or "auto" is -1 (let the
// reader choose), else a metric name.
func ParseMetricFlag(s string) (Metric, error) {
	if s == "" || s == "auto" {
		return -1, nil
	}
	m, err := ParseMetric(s)
	if err != nil {
		return 0, fmt.Errorf("--metric: %w", err)
	}
	return m, nil
}

// ImportRequest is latmap import mmpi: read Log, write the survey
// directory Out.
type ImportRequest struct {
	Log, Out    string
	HostPattern string
	Force       bool
	// Report receives a one-line summary.
	Report io.Writer
}

// ImportMMPI turns an mmpi log into a survey directory, atomically.
func ImportMMPI(req ImportRequest) error {
	mo, err := HostPattern(req.HostPattern)
	if err != nil {
		return err
	}
	s, err := ReadMMPIFile(req.Log, mo)
	if err != nil {
		return err
	}
	if err := WriteSurvey(req.Out, s, req.Force); err != nil {
		return err
	}
	if req.Report != nil {
		fmt.Fprintf(req.Report, "latmap: wrote %s: %d ranks on %s, %d pairs of %d B, %d repeats\n",
			req.Out, s.N(), text.Count(hostCount(s.Ranks), "host"), TriLen(s.N()), s.Tables[0].Size, s.Meta.Repeats)
		for _, w := range s.Meta.Warnings {
			fmt.Fprintf(req.Report, "latmap: note: %s\n", w)
		}
	}
	return nil
}
