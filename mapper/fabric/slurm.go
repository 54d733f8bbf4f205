package fabric

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// slurmSwitch is one SwitchName line of Slurm's topology.conf.
type slurmSwitch struct {
	name     string
	nodes    []string
	children []string
	parent   string
}

// ReadSlurmTopology reads Slurm's topology.conf for the tree plugin:
// lines "SwitchName=NAME Nodes=HOSTLIST" (a leaf switch) and
// "SwitchName=NAME Switches=HOSTLIST" (a switch above others), with
// Slurm's host list expressions (node[01-16,20]). LinkSpeed, whose unit
// Slurm leaves to the site, is not read: the links' bandwidths come from
// the survey. Hosts are listed leaf by leaf. Where a switch is under
// several (a fat tree's leaves under all its spines, as sites generate
// topology.conf from ibnetdiscover), the network is that graph, routed
// by shortest paths (slurmGraph).
func ReadSlurmTopology(r io.Reader) (*Fabric, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var sw []*slurmSwitch
	byName := map[string]*slurmSwitch{}
	line := 0
	for sc.Scan() {
		line++
		text, _, _ := strings.Cut(sc.Text(), "#")
		if strings.TrimSpace(text) == "" {
			continue
		}
		s, err := parseSwitchLine(text)
		if err != nil {
			return nil, fmt.Errorf("topology.conf line %d: %w", line, err)
		}
		if byName[s.name] != nil {
			return nil, fmt.Errorf("topology.conf line %d: switch %s declared twice", line, s.name)
		}
		byName[s.name] = s
		sw = append(sw, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading topology.conf: %w", err)
	}
	graph := false
	for _, s := range sw {
		for _, c := range s.children {
			child := byName[c]
			if child == nil {
				return nil, fmt.Errorf("topology.conf: switch %s names switch %s, which is not declared", s.name, c)
			}
			graph = graph || child.parent != ""
			child.parent = s.name
		}
	}
	if graph {
		return slurmGraph(sw)
	}
	return slurmTree(sw, byName)
}

// parseSwitchLine reads one SwitchName line.
func parseSwitchLine(text string) (*slurmSwitch, error) {
	s := &slurmSwitch{}
	for _, kv := range strings.Fields(text) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("%q: want KEY=VALUE", kv)
		}
		var err error
		switch strings.ToLower(k) {
		case "switchname":
			s.name = v
		case "nodes":
			s.nodes, err = ExpandHostlist(v)
		case "switches":
			s.children, err = ExpandHostlist(v)
		case "linkspeed":
		default:
			return nil, fmt.Errorf("unknown key %s (SwitchName, Nodes, Switches, LinkSpeed)", k)
		}
		if err != nil {
			return nil, err
		}
	}
	if s.name == "" {
		return nil, fmt.Errorf("no SwitchName")
	}
	return s, nil
}

// slurmTree makes the tree levels: each host's leaf switch, then its
// parent, ..., a host whose chain ends early keeping its top switch.
func slurmTree(sw []*slurmSwitch, byName map[string]*slurmSwitch) (*Fabric, error) {
	var hosts []string
	var chains [][]string
	seen := map[string]bool{}
	depth := 0
	for _, s := range sw {
		for _, h := range s.nodes {
			if seen[h] {
				return nil, fmt.Errorf("topology.conf: host %s is under two switches", h)
			}
			seen[h] = true
			var chain []string
			for at := s; at != nil; at = byName[at.parent] {
				if len(chain) > len(sw) {
					return nil, fmt.Errorf("topology.conf: switch %s is its own ancestor", s.name)
				}
				chain = append(chain, at.name)
			}
			hosts, chains = append(hosts, h), append(chains, chain)
			depth = max(depth, len(chain))
		}
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("topology.conf names no node (SwitchName=... Nodes=...)")
	}
	node := TreeLevel{Name: "node", Group: make([]int, len(hosts)), Up: make([]float64, len(hosts)), Down: make([]float64, len(hosts))}
	for h := range hosts {
		node.Group[h] = h
	}
	levels := []TreeLevel{node}
	// The top switch is where every route meets: no link above it.
	for k := 0; k < depth-1; k++ {
		lv := TreeLevel{Name: fmt.Sprintf("switch-level-%d", k+1), Group: make([]int, len(hosts))}
		ids := map[string]int{}
		for h, chain := range chains {
			name := chain[min(k, len(chain)-1)]
			if _, ok := ids[name]; !ok {
				ids[name] = len(ids)
			}
			lv.Group[h] = ids[name]
		}
		lv.Up, lv.Down = make([]float64, len(ids)), make([]float64, len(ids))
		levels = append(levels, lv)
	}
	f, err := NewTree(hosts, levels, false)
	if err != nil {
		return nil, err
	}
	return f, f.Check()
}

// slurmGraph is a topology.conf whose switches are under several
// others: every host linked to its switch, every switch to each switch
// it is under, no bandwidth declared, routed by shortest paths.
func slurmGraph(sw []*slurmSwitch) (*Fabric, error) {
	g := &Graph{}
	seen := map[string]bool{}
	for _, s := range sw {
		v := g.Switch(s.name)
		for _, h := range s.nodes {
			if seen[h] {
				return nil, fmt.Errorf("topology.conf: host %s is under two switches", h)
			}
			seen[h] = true
			g.Connect(g.Host(h), v, "node_"+h, "", 0, 0)
		}
	}
	for _, s := range sw {
		v, _ := g.Find(s.name)
		for _, c := range s.children {
			child, _ := g.Find(c)
			g.Connect(child, v, c+"-"+s.name, "", 0, 0)
		}
	}
	if g.HostCount() == 0 {
		return nil, fmt.Errorf("topology.conf names no node (SwitchName=... Nodes=...)")
	}
	g.Shape = fmt.Sprintf("Slurm topology.conf of %d switches, some under several", len(sw))
	return NewGraph(g)
}

// ExpandHostlist expands a Slurm host list expression such as
// "node[01-04,7],login1" or "r[1-2]n[0-1]" (zero padding kept).
func ExpandHostlist(expr string) ([]string, error) {
	var out []string
	for _, item := range splitTop(expr) {
		names, err := expandOne(item)
		if err != nil {
			return nil, fmt.Errorf("host list %q: %w", expr, err)
		}
		if len(out)+len(names) > maxHosts {
			return nil, fmt.Errorf("host list %q names more than %d hosts", expr, maxHosts)
		}
		out = append(out, names...)
	}
	return out, nil
}

// splitTop splits at commas outside brackets.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	out = append(out, s[start:])
	return slices.DeleteFunc(out, func(x string) bool { return x == "" })
}

// expandOne expands one name with bracket ranges.
func expandOne(s string) ([]string, error) {
	open := strings.IndexByte(s, '[')
	if open < 0 {
		if strings.ContainsRune(s, ']') {
			return nil, fmt.Errorf("unbalanced ]")
		}
		return []string{s}, nil
	}
	end := strings.IndexByte(s[open:], ']')
	if end < 0 {
		return nil, fmt.Errorf("unbalanced [")
	}
	end += open
	rest, err := expandOne(s[end+1:])
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range strings.Split(s[open+1:end], ",") {
		lo, hi, found := strings.Cut(r, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && found {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || (b-a+1)*len(rest) > maxHosts {
			return nil, fmt.Errorf("range %q: want numbers such as 01-16", r)
		}
		for i := a; i <= b; i++ {
			num := fmt.Sprintf("%0*d", len(lo), i)
			for _, t := range rest {
				out = append(out, s[:open]+num+t)
			}
		}
	}
	return out, nil
}
