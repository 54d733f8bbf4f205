package driver

import (
	"fmt"
	"io"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/topo"
)

// TopoRequest is latmap topo: infer the topology of the survey (directory
// or mmpi log) Input and write it to Out as text or JSON.
type TopoRequest struct {
	Input       string
	HostPattern string
	Metric      string
	Size        int
	JSON        bool
	// Topology is a network description set beside the inferred levels
	// (--topology; see mapper/fabric).
	Topology []string
	Out      io.Writer
	// Err receives the survey's warnings (what it lacks against its
	// meta.json or its log promised; nil: none), also among the
	// topology's notes: a reader of --json output sees them too.
	Err io.Writer
}

// Topo loads the survey, infers its topology and writes it; without a
// survey (Input ""), it writes what the network description holds
// (fabric.Summarize).
func Topo(req TopoRequest) error {
	if req.Input == "" {
		f, err := fabric.ReadAll(req.Topology)
		if err != nil {
			return fmt.Errorf("--topology: %w", err)
		}
		s := fabric.Summarize(f)
		if req.JSON {
			return s.WriteJSON(req.Out)
		}
		return s.WriteText(req.Out)
	}
	m, err := metricAndSize(req.Metric, req.Size, req.Input)
	if err != nil {
		return err
	}
	// Only the metric clustered: loading all six of a 4096-rank survey
	// would take six times the memory.
	s, err := load(req.Input, req.HostPattern, m)
	if err != nil {
		return err
	}
	opt := topo.DefaultOptions()
	opt.Size, opt.Metric = req.Size, m
	t, err := topo.Infer(s, opt)
	if err != nil {
		return err
	}
	w := warnings(s)
	t.Notes = append(w, t.Notes...)
	// Said before the results too, as plot and compare say them: a
	// survey that lacks pairs (a log or a file cut short) is read with
	// less than it promised.
	say(req.Err, w)
	if len(req.Topology) > 0 {
		f, err := fabric.ReadAll(req.Topology)
		if err != nil {
			return fmt.Errorf("--topology: %w", err)
		}
		if t.Declared, err = topo.CompareDeclared(s, f, t.SizeBytes, m); err != nil {
			return err
		}
		t.Declared.Probe, t.Declared.ProbeFit = topo.CheckProbe(s, f), topo.FitSurveyProbe(s, f)
	}
	if req.JSON {
		return t.WriteJSON(req.Out)
	}
	return t.WriteText(req.Out)
}
