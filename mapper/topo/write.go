package topo

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

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
