package driver

import (
	"fmt"
	"io"

	"github.com/latmap/latmap/internal/atomicdir"
	"github.com/latmap/latmap/internal/text"
	"github.com/latmap/latmap/mapper/survey"
)

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
	if err := atomicdir.CheckDest(req.Out, req.Force); err != nil {
		return err
	}
	mo, err := hostPattern(req.HostPattern)
	if err != nil {
		return err
	}
	s, err := survey.ReadMMPIFile(req.Log, mo)
	if err != nil {
		if ok, serr := survey.IsMMPILog(req.Log); serr == nil && !ok {
			return fmt.Errorf("%s is not an mmpi log: it does not start with mmpi's \"# Testing Hostname:\" or \"# Processors:\" (%w)", req.Log, err)
		}
		return err
	}
	if err := survey.WriteSurvey(req.Out, s, req.Force); err != nil {
		return err
	}
	if req.Report != nil {
		_, hosts := survey.HostIndex(s.Ranks)
		pairs := fmt.Sprint(survey.TriLen(s.N()))
		got := 0
		s.Tables[0].Each(func(int, int, int) { got++ })
		if got < survey.TriLen(s.N()) {
			pairs = fmt.Sprintf("%d of %s", got, pairs)
		}
		fmt.Fprintf(req.Report, "latmap: wrote %s: %d ranks on %s, %s pairs of %d B, %d repeats\n",
			req.Out, s.N(), text.Count(hosts, "host"), pairs, s.Tables[0].Size, s.Meta.Repeats)
		for _, w := range s.Meta.Warnings {
			fmt.Fprintf(req.Report, "latmap: note: %s\n", w)
		}
	}
	return nil
}
