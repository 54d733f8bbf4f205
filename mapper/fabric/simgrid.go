package fabric

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// simCluster is a SimGrid platform file's <cluster> element.
type simCluster struct {
	ID       string `xml:"id,attr"`
	Prefix   string `xml:"prefix,attr"`
	Suffix   string `xml:"suffix,attr"`
	Radical  string `xml:"radical,attr"`
	BW       string `xml:"bw,attr"`
	Lat      string `xml:"lat,attr"`
	Topology string `xml:"topology,attr"`
	Params   string `xml:"topo_parameters,attr"`
	Sharing  string `xml:"sharing_policy,attr"`
	BBBW     string `xml:"bb_bw,attr"`
}

// maxHosts bounds the hosts a description may declare (a radical such
// as 0-999999999 must not allocate gigabytes).
const maxHosts = 1 << 22

// simProp is a <prop> of a SimGrid platform's <config>.
type simProp struct {
	ID    string `xml:"id,attr"`
	Value string `xml:"value,attr"`
}

// CrossTraffic is the share of a message's bytes SimGrid's network
// models (CM02, LV08 and SMPI's) load on the links of its way back while
// it flows (network/crosstraffic, on unless the platform's <config>
// turns it off): each message's rate is then also shared on those
// links, as if it were one of their flows.
const CrossTraffic = 0.05

// ReadSimGrid reads a SimGrid platform file (the XML of smpirun
// -platform): one <cluster> of topology FAT_TREE, TORUS or DRAGONFLY,
// the cluster's bw and lat on every link, its hosts prefix + number +
// suffix for each number of the radical, in order; or one <zone> of
// hosts, routers and links routed Full, Floyd, Dijkstra, Cluster or
// None (readZone). The network carries SimGrid's cross traffic
// (Reverse) unless a <config> <prop id="network/crosstraffic"> turns it
// off; a --cfg given to smpirun itself is not in the file.
func ReadSimGrid(r io.Reader) (*Fabric, error) {
	p, err := readPlatform(r)
	if err != nil {
		return nil, err
	}
	var f *Fabric
	switch {
	case len(p.clusters) == 0 && len(p.zones) > 0 && (len(p.hosts) > 0 || p.unread != ""):
		f, err = p.readZone()
	case len(p.clusters) != 1:
		return nil, fmt.Errorf("SimGrid platform has %d <cluster> elements and no zone of hosts; "+
			"latmap reads platforms of exactly one cluster of topology FAT_TREE, TORUS or DRAGONFLY, "+
			"or of one zone of hosts, routers and links", len(p.clusters))
	default:
		f, err = p.clusters[0].fabric()
	}
	if f != nil {
		f.Reverse = p.reverse
	}
	return f, err
}

// simBool reads a SimGrid configuration boolean.
func simBool(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "yes", "on", "true", "1":
		return true, nil
	case "no", "off", "false", "0":
		return false, nil
	}
	return false, fmt.Errorf("%q is not yes, no, on, off, true, false, 1 or 0", v)
}

// fabric builds the cluster's network.
func (c simCluster) fabric() (*Fabric, error) {
	hosts, err := expandRadical(c.Prefix, c.Radical, c.Suffix)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", c.ID, err)
	}
	bw, err := ParseBandwidth(c.BW)
	if err != nil {
		return nil, fmt.Errorf("cluster %s bw: %w", c.ID, err)
	}
	lat, err := ParseDuration(c.Lat)
	if err != nil {
		return nil, fmt.Errorf("cluster %s lat: %w", c.ID, err)
	}
	var shared bool
	switch strings.ToUpper(c.Sharing) {
	case "SPLITDUPLEX":
	case "", "SHARED":
		shared = true
	default:
		return nil, fmt.Errorf("cluster %s: sharing_policy %s is not modelled (SPLITDUPLEX or SHARED)", c.ID, c.Sharing)
	}
	var f *Fabric
	switch strings.ToUpper(c.Topology) {
	case "TORUS":
		var d []int
		if d, err = ints(c.Params, ","); err == nil {
			f, err = NewTorus(hosts, d, bw, lat, shared)
		}
	case "DRAGONFLY":
		var s DragonflyShape
		if s, err = parseDragonfly(c.Params); err == nil {
			f, err = NewDragonfly(hosts, s, bw, lat, shared)
		}
	case "FAT_TREE":
		var s FatTreeShape
		if s, err = parseFatTree(c.Params, len(hosts)); err == nil {
			f, err = NewFatTree(hosts, s, bw, lat, shared)
		}
		if err == nil {
			f.spread, err = NewTree(hosts, s.Levels(len(hosts), bw, lat), shared)
		}
	default:
		return nil, fmt.Errorf("cluster %s: topology %q is not one latmap routes (FAT_TREE, TORUS or DRAGONFLY)", c.ID, c.Topology)
	}
	if err != nil {
		return nil, fmt.Errorf("cluster %s: %w", c.ID, err)
	}
	return f, f.Check()
}

// parseDragonfly reads "groups,blue;chassis,black;routers,green;nodes".
func parseDragonfly(p string) (DragonflyShape, error) {
	parts := strings.Split(p, ";")
	if len(parts) != 4 {
		return DragonflyShape{}, fmt.Errorf("dragonfly topo_parameters %q: want groups,links;chassis,links;routers,links;nodes", p)
	}
	var v []int
	for i, s := range parts {
		x, err := ints(s, ",")
		if err != nil {
			return DragonflyShape{}, err
		}
		if want := 2 - i/3; len(x) != want {
			return DragonflyShape{}, fmt.Errorf("dragonfly topo_parameters %q: part %q wants %d numbers", p, s, want)
		}
		v = append(v, x...)
	}
	return DragonflyShape{Groups: v[0], Blue: v[1], Chassis: v[2], Black: v[3], Routers: v[4], Green: v[5], Nodes: v[6]}, nil
}

// parseFatTree reads SimGrid's "levels;children...;parents...;links..."
// (per level: children per switch, parents per node or switch below,
// parallel links to each parent).
func parseFatTree(p string, hosts int) (FatTreeShape, error) {
	parts := strings.Split(p, ";")
	if len(parts) != 4 {
		return FatTreeShape{}, fmt.Errorf("fat tree topo_parameters %q: want levels;children,...;parents,...;links,...", p)
	}
	var v [4][]int
	for i, s := range parts {
		x, err := ints(s, ",")
		if err != nil {
			return FatTreeShape{}, err
		}
		v[i] = x
	}
	levels := v[0]
	if len(levels) != 1 || levels[0] < 1 || levels[0] > 16 || len(v[1]) != levels[0] || len(v[2]) != levels[0] || len(v[3]) != levels[0] {
		return FatTreeShape{}, fmt.Errorf("fat tree topo_parameters %q: want a level count L, then L children, L parents and L link counts", p)
	}
	for _, x := range v[1:] {
		for _, n := range x {
			if n < 1 || n > maxHosts {
				return FatTreeShape{}, fmt.Errorf("fat tree topo_parameters %q: every count must be 1 to %d", p, maxHosts)
			}
		}
	}
	// Each level's switches: the parents below times the children above,
	// at most maxHosts of them.
	for l := 0; l <= levels[0]; l++ {
		n := 1
		for j := 0; j < levels[0]; j++ {
			if j < l {
				n *= v[2][j] * v[3][j]
			} else {
				n *= v[1][j]
			}
			if n > maxHosts {
				return FatTreeShape{}, fmt.Errorf("fat tree %q has more than %d nodes or switch ports at a level", p, maxHosts)
			}
		}
		if l == 0 && n != hosts {
			return FatTreeShape{}, fmt.Errorf("fat tree %q has %d nodes, the cluster %d", p, n, hosts)
		}
	}
	return FatTreeShape{Children: v[1], Parents: v[2], Links: v[3]}, nil
}

// Levels are the fat tree's node links and each level's subtrees but the
// top, a subtree's uplinks added up (its switches' parents times links
// times bw): the tree NewTree routes with a group's uplinks as one.
func (s FatTreeShape) Levels(hosts int, bw, lat float64) []TreeLevel {
	var out []TreeLevel
	span, switches := 1, 1 // hosts per subtree, switches at its top
	for k := range s.Children {
		if k > 0 {
			span *= s.Children[k-1]
		}
		ng := hosts / span
		rate := float64(switches*s.Parents[k]*s.Links[k]) * bw
		lv := TreeLevel{Name: fmt.Sprintf("level%d", k), Group: make([]int, hosts), Up: make([]float64, ng), Down: make([]float64, ng), Latency: lat}
		if k == 0 {
			lv.Name = "node"
		}
		for h := range lv.Group {
			lv.Group[h] = h / span
		}
		for g := range lv.Up {
			lv.Up[g], lv.Down[g] = rate, rate
		}
		out = append(out, lv)
		switches *= s.Parents[k]
	}
	return out
}

// expandRadical lists prefix+i+suffix for each i of a radical such as
// "0-15" or "0-3,8,10-11".
func expandRadical(prefix, radical, suffix string) ([]string, error) {
	var hosts []string
	for _, part := range strings.Split(radical, ",") {
		lo, hi, found := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && found {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a {
			return nil, fmt.Errorf("radical %q: want ranges such as 0-15,20", radical)
		}
		if len(hosts)+b-a+1 > maxHosts {
			return nil, fmt.Errorf("radical %q names more than %d hosts", radical, maxHosts)
		}
		for i := a; i <= b; i++ {
			hosts = append(hosts, prefix+strconv.Itoa(i)+suffix)
		}
	}
	return hosts, nil
}

// ints parses sep-separated positive integers.
func ints(s, sep string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, sep) {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 1 || v > 1<<24 {
			return nil, fmt.Errorf("%q: want positive integers separated by %q", s, sep)
		}
		out = append(out, v)
	}
	return out, nil
}

// units of SimGrid's bandwidths (bytes/s) and durations (s).
var (
	bwUnits = []struct {
		suffix string
		scale  float64
	}{
		{"TiBps", 1 << 40}, {"GiBps", 1 << 30}, {"MiBps", 1 << 20}, {"KiBps", 1 << 10},
		{"Tibps", (1 << 40) / 8.}, {"Gibps", (1 << 30) / 8.}, {"Mibps", (1 << 20) / 8.}, {"Kibps", (1 << 10) / 8.},
		{"TBps", 1e12}, {"GBps", 1e9}, {"MBps", 1e6}, {"kBps", 1e3}, {"KBps", 1e3},
		{"Tbps", 1e12 / 8}, {"Gbps", 1e9 / 8}, {"Mbps", 1e6 / 8}, {"kbps", 1e3 / 8}, {"Kbps", 1e3 / 8},
		{"Bps", 1}, {"bps", 1. / 8}, {"", 1},
	}
	timeUnits = []struct {
		suffix string
		scale  float64
	}{{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}, {"m", 60}, {"h", 3600}, {"", 1}}
)

// ParseBandwidth reads a SimGrid bandwidth ("10Gbps", "1.25GBps",
// "125e6": bytes per second) into bytes per second.
func ParseBandwidth(s string) (float64, error) {
	for _, u := range bwUnits {
		if v, ok := number(s, u.suffix); ok {
			return v * u.scale, nil
		}
	}
	return 0, fmt.Errorf("bandwidth %q: want a number and a unit such as 10Gbps or 1.25GBps", s)
}

// ParseDuration reads a SimGrid duration ("1us", "0.5ms", "1e-6") into
// seconds.
func ParseDuration(s string) (float64, error) {
	for _, u := range timeUnits {
		if v, ok := number(s, u.suffix); ok {
			return v * u.scale, nil
		}
	}
	return 0, fmt.Errorf("duration %q: want a number and a unit such as 1us or 0.5ms", s)
}

// number parses s as a non-negative finite number followed by suffix.
func number(s, suffix string) (float64, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasSuffix(s, suffix) {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, suffix)), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}
