package mapper

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"text/tabwriter"
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
		fmt.Fprintf(req.Report, "latmap: wrote %s: %d ranks on %d hosts, %d pairs of %d B, %d repeats\n",
			req.Out, s.N(), hostCount(s.Ranks), TriLen(s.N()), s.Tables[0].Size, s.Meta.Repeats)
		for _, w := range s.Meta.Warnings {
			fmt.Fprintf(req.Report, "latmap: note: %s\n", w)
		}
	}
	return nil
}

// TopoRequest is latmap topo: infer the topology of the survey (directory
// or mmpi log) Input and write it to Out as text or JSON.
type TopoRequest struct {
	Input       string
	HostPattern string
	Metric      string
	Size        int
	JSON        bool
	Out         io.Writer
}

// RunTopo loads the survey, infers its topology and writes it.
func RunTopo(req TopoRequest) error {
	mo, err := HostPattern(req.HostPattern)
	if err != nil {
		return err
	}
	m, err := ParseMetricFlag(req.Metric)
	if err != nil {
		return err
	}
	// Only the metric clustered: loading all six of a 4096-rank survey
	// would take six times the memory.
	if m < 0 {
		m = AutoMetric(req.Input)
	}
	lo := LoadOptions{Metrics: []Metric{m}, SkipFit: true}
	s, err := LoadWith(req.Input, lo, mo)
	if err != nil {
		return err
	}
	opt := DefaultTopoOptions()
	opt.Size, opt.Metric = req.Size, m
	topo, err := InferTopology(s, opt)
	if err != nil {
		return err
	}
	if req.JSON {
		return topo.WriteJSON(req.Out)
	}
	return topo.WriteText(req.Out)
}

// WriteJSON writes the topology as the JSON object of DESIGN.md (unknown
// latencies as null).
func (t *Topology) WriteJSON(w io.Writer) error {
	c := *t
	c.Levels = append([]Level(nil), t.Levels...)
	for i := range c.Levels {
		l := &c.Levels[i]
		// JSON has no NaN: a level of unmeasured pairs reports 0 pairs'
		// worth of latency as -1.
		for _, v := range []*float64{&l.RTTMin, &l.RTTMax, &l.RTTMedian} {
			if math.IsNaN(*v) {
				*v = -1
			}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(&c)
}

// WriteText writes the topology for people.
func (t *Topology) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s\n\n", t.Description)
	fmt.Fprintf(w, "levels (%s round trip at %d B, from latencies alone):\n", t.Metric, t.SizeBytes)
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "level\tgroups\tpairs\tmin us\tmedian us\tmax us\t\n")
	for _, l := range t.Levels {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.2f\t%.2f\t\n", l.Name, l.Groups, l.Pairs, l.RTTMin, l.RTTMedian, l.RTTMax)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if t.HostsAgree {
		fmt.Fprintf(w, "\nhost names agree with the inferred nodes\n")
	} else {
		fmt.Fprintf(w, "\nhost names disagree with the inferred nodes:\n")
		for _, d := range t.Disagreements {
			fmt.Fprintf(w, "  %s\n", d)
		}
	}
	for _, n := range t.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}
