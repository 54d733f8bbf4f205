package fabric

import (
	"fmt"
	"strings"
)

// Restrict is f indexed by hosts alone, in that order: a job's nodes on
// a fabric that has many more. Its links and routes are f's (a message
// between two of the hosts crosses what it crosses in f, over switches
// and links the job does not use, and Links keeps f's numbering); its
// levels group the hosts as f's do, groups numbered afresh; routed
// adaptive it is f's adaptive routing restricted alike. An error names
// the hosts f lacks, and a host given twice.
func (f *Fabric) Restrict(hosts []string) (*Fabric, error) {
	idx := f.HostIndex()
	at := make([]int, len(hosts))
	seen := make(map[string]bool, len(hosts))
	var missing []string
	for i, h := range hosts {
		if seen[h] {
			return nil, fmt.Errorf("restricting %s: host %s is given twice", f.Source, h)
		}
		seen[h] = true
		j, ok := idx[h]
		if !ok {
			missing = append(missing, h)
		}
		at[i] = j
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s does not describe %d of the %d hosts: %s", f.Source, len(missing), len(hosts), strings.Join(clip(missing, 10), ", "))
	}
	return f.restrict(hosts, at), nil
}

// restrict is f with host i at f's host at[i].
func (f *Fabric) restrict(hosts []string, at []int) *Fabric {
	r := *f
	r.measured = nil // found in a survey of the job's hosts alone
	r.Hosts = append([]string(nil), hosts...)
	r.Shape = fmt.Sprintf("%s: %d of its %d hosts", f.Shape, len(hosts), len(f.Hosts))
	route := f.route
	r.route = func(a, b int, visit func(int32)) { route(at[a], at[b], visit) }
	if shares := f.shares; shares != nil {
		r.shares = func(a, b int, visit func(int32, float64)) { shares(at[a], at[b], visit) }
	}
	if paths := f.paths; paths != nil {
		r.paths = func(a, b int, visit func([]int32) bool) { paths(at[a], at[b], visit) }
	}
	r.Levels = nil
	for _, lv := range f.Levels {
		g := make([]int, len(at))
		for i, h := range at {
			g[i] = lv.Group[h]
		}
		r.Levels = append(r.Levels, GroupLevel{Name: lv.Name, Class: lv.Class, Group: Renumber(g)})
	}
	if f.spread != nil {
		r.spread = f.spread.restrict(hosts, at)
	}
	return &r
}

// clip is s cut to max names and "...".
func clip(s []string, max int) []string {
	if len(s) > max {
		return append(s[:max:max], "...")
	}
	return s
}
