package export

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"

	lp "github.com/latmap/latmap/mapper/profile"
)

// HatchetNode is one node of Hatchet's literal call tree
// (hatchet.GraphFrame.from_literal): a frame, its metrics and its children.
type HatchetNode struct {
	Frame    HatchetFrame       `json:"frame"`
	Metrics  map[string]float64 `json:"metrics"`
	Children []*HatchetNode     `json:"children,omitempty"`

	index map[string]*HatchetNode
}

// HatchetFrame names a node: the program at the root, then the call
// site's frames from the outermost in, then the MPI function.
type HatchetFrame struct {
	Name string `json:"name"`
	Type string `json:"type"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// Hatchet's metric names: a name with "(inc)" is the node's subtree's,
// the others the node's own (non-zero only on the MPI function leaves).
// All are summed over ranks.
const (
	HatchetTime     = "time"
	HatchetTimeInc  = "time (inc)"
	HatchetLate     = "send-late"
	HatchetLateInc  = "send-late (inc)"
	HatchetSync     = "collective wait"
	HatchetSyncInc  = "collective wait (inc)"
	HatchetCalls    = "calls"
	HatchetSent     = "bytes sent"
	HatchetReceived = "bytes received"
)

// Hatchet builds the literal call tree of a profile's MPI time: one root
// named after the program, whose paths are the call sites' frames from the
// outermost (main) in, ending at the MPI function; time is MPI time in
// seconds, summed over ranks. Without call sites the MPI functions hang
// from the root.
func Hatchet(p *lp.Profile) []*HatchetNode {
	root := newHatchetNode(HatchetFrame{Name: program(p.Meta.Command), Type: "function"})
	for _, c := range p.CallPaths() {
		n := root
		n.add(c, false)
		for i := len(c.Frames) - 1; i >= 0; i-- {
			f := c.Frames[i]
			n = n.child(HatchetFrame{Name: frameName(f), Type: "function", File: f.File, Line: f.Line})
			n.add(c, false)
		}
		n = n.child(HatchetFrame{Name: c.Function, Type: "function"})
		n.add(c, true)
	}
	return []*HatchetNode{root}
}

// WriteHatchet writes the profile directory dir as Hatchet's literal JSON.
func WriteHatchet(w io.Writer, dir string) error {
	p, err := lp.ReadProfile(dir)
	if err != nil {
		return err
	}
	e := json.NewEncoder(w)
	e.SetIndent("", " ")
	return e.Encode(Hatchet(p))
}

func newHatchetNode(f HatchetFrame) *HatchetNode {
	m := map[string]float64{}
	for _, k := range []string{HatchetTime, HatchetTimeInc, HatchetLate, HatchetLateInc, HatchetSync, HatchetSyncInc, HatchetCalls, HatchetSent, HatchetReceived} {
		m[k] = 0
	}
	return &HatchetNode{Frame: f, Metrics: m, index: map[string]*HatchetNode{}}
}

// child is n's child with frame f, made on first use; children keep the
// order they were first met in.
func (n *HatchetNode) child(f HatchetFrame) *HatchetNode {
	key := fmt.Sprintf("%s\x00%s\x00%d", f.Name, f.File, f.Line)
	if c := n.index[key]; c != nil {
		return c
	}
	c := newHatchetNode(f)
	n.index[key] = c
	n.Children = append(n.Children, c)
	return c
}

// add counts c in n's inclusive metrics, and in its own when leaf.
func (n *HatchetNode) add(c lp.CallPath, leaf bool) {
	m := n.Metrics
	m[HatchetTimeInc] += c.MPITime()
	m[HatchetLateInc] += c.Late
	m[HatchetSyncInc] += c.Sync
	if leaf {
		m[HatchetTime] += c.MPITime()
		m[HatchetLate] += c.Late
		m[HatchetSync] += c.Sync
		m[HatchetCalls] += float64(c.Calls)
		m[HatchetSent] += float64(c.BytesSent)
		m[HatchetReceived] += float64(c.BytesRecv)
	}
}

// frameName is a frame's function with its file's name and line (two
// call sites in one function are two nodes), or its object and offset
// when no symbol covers it.
func frameName(f lp.SiteFrame) string {
	if f.Function == "" {
		return filepath.Base(f.Object) + "+" + f.Offset
	}
	if f.File == "" {
		return f.Function
	}
	return fmt.Sprintf("%s (%s:%d)", f.Function, filepath.Base(f.File), f.Line)
}

// launchers are the commands that start a program's ranks.
var launchers = map[string]bool{"mpirun": true, "mpiexec": true, "mpiexec.hydra": true, "mpiexec.openmpi": true, "mpirun.openmpi": true,
	"mpiexec.mpich": true, "mpirun.mpich": true, "orterun": true, "prterun": true, "srun": true, "aprun": true}

// program names the application in a launch command: past the launcher,
// the first word that is a path or a command on PATH ("mpirun -np 4
// ./app" is app).
func program(cmd []string) string {
	if len(cmd) == 0 {
		return "program"
	}
	if !launchers[filepath.Base(cmd[0])] {
		return filepath.Base(cmd[0])
	}
	for _, a := range cmd[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if strings.Contains(a, "/") {
			return filepath.Base(a)
		}
		if _, err := exec.LookPath(a); err == nil {
			return a
		}
	}
	return filepath.Base(cmd[0])
}
