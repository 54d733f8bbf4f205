package topo

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
)

// Request is latmap topo: infer the topology of the survey (directory
// or mmpi log) Input and write it to Out as text or JSON.
type Request struct {
	Input       string
	HostPattern string
	Metric      string
	Size        int
	JSON        bool
	// Topology is a network description set beside the inferred levels
	// (--topology; see mapper/fabric).
	Topology string
	Out      io.Writer
}

// Run is latmap topo: it loads the survey, infers its topology and writes it.
func Run(req Request) error {
	mo, err := survey.HostPattern(req.HostPattern)
	if err != nil {
		return err
	}
	m, err := survey.ParseMetricFlag(req.Metric)
	if err != nil {
		return err
	}
	// Only the metric clustered: loading all six of a 4096-rank survey
	// would take six times the memory.
	if m < 0 {
		m = survey.AutoMetric(req.Input)
	}
	lo := survey.LoadOptions{Metrics: []survey.Metric{m}, SkipFit: true}
	s, err := survey.LoadWith(req.Input, lo, mo)
	if err != nil {
		return err
	}
	opt := DefaultOptions()
	opt.Size, opt.Metric = req.Size, m
	t, err := Infer(s, opt)
	if err != nil {
		return err
	}
	if req.Topology != "" {
		f, err := fabric.Read(req.Topology)
		if err != nil {
			return fmt.Errorf("--topology: %w", err)
		}
		if t.Declared, err = CompareDeclared(s, f, t.SizeBytes, m); err != nil {
			return err
		}
	}
	if req.JSON {
		return t.WriteJSON(req.Out)
	}
	return t.WriteText(req.Out)
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
	for _, l := range t.Outliers.Lines() {
		fmt.Fprintf(w, "%s\n", l)
	}
	if t.Declared != nil {
		fmt.Fprintf(w, "\n%s\n", strings.Join(t.Declared.Lines(), "\n"))
	}
	return nil
}
