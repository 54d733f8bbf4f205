package fabric

import (
	"fmt"
	"slices"
	"strings"
)

// The kinds of network a Fabric describes.
const (
	KindTree      = "tree"
	KindTorus     = "torus"
	KindDragonfly = "dragonfly"
	// KindDirect is a direct network found in a survey (NewDirect).
	KindDirect = "direct"
)

// Rules of the generated kinds' routing (Fabric.Routing), beside
// RoutesFromTables, RoutesShortest, RoutesSpread and RoutesDeclared.
const (
	RuleUpDown    = "rule: up/down the tree, a group's parallel uplinks as one"
	RuleDModK     = "rule: d-mod-k"
	RuleDimension = "rule: dimension order"
	RuleDragonfly = "rule: SimGrid's minimal dragonfly routes"
	RuleMinimal   = "rule: minimal (local, global, local) in dimension order"
)

// Link is one direction of a physical link (or of a bundle of parallel
// links routed as one): the bytes crossing it share Bandwidth.
type Link struct {
	Name string `json:"name"`
	// Class groups links of one kind, for what-if and for reports
	// ("node", "torus-x", "local", "green", "black", "blue", "up-1", ...).
	Class string `json:"class"`
	// Bandwidth in bytes per second (0: not declared), Latency in seconds.
	Bandwidth float64 `json:"bandwidth_Bps"`
	Latency   float64 `json:"latency_s"`
}

// Fabric is a network: its hosts (the nodes ranks run on), its directed
// links, and the route between any two hosts.
type Fabric struct {
	// Kind is KindTree, KindTorus, KindDragonfly, KindDirect or
	// KindGraph; Source the file it was read from and Shape its
	// dimensions in words ("4x4x4 torus").
	Kind, Source, Shape string
	// Routing says where its routes come from: RoutesFromTables,
	// RoutesShortest, RoutesSpread, RoutesDeclared or a rule (RuleDModK,
	// ...), for place and topo to name.
	Routing string
	Hosts   []string
	Links   []Link
	// Levels are the groups of hosts above the nodes, innermost first,
	// where the network has them (a tree's switches; a dragonfly's
	// routers, chassis and groups; none on a torus).
	Levels []GroupLevel
	// Surveyed: the network was found in a survey, not declared; its
	// links' bandwidths are the survey's own (no derating), its node
	// links without one take the node phase's.
	Surveyed bool
	// Reverse is the share of a message's bytes its route back carries
	// as it flows (acknowledgements; 0: none): SimGrid's cross traffic,
	// 0.05 unless the platform turns network/crosstraffic off.
	Reverse float64
	route   func(a, b int, visit func(link int32))
	// shares spreads a message over several routes (nil: Route's one).
	shares func(a, b int, visit func(link int32, share float64))
	// paths, where set, visits the shortest paths from a to b until
	// visit returns false: the routes a network found in a survey may
	// take (Candidates).
	paths func(a, b int, visit func([]int32) bool)
	// spread is the same network routed adaptive (Routed): a fat tree's
	// group's parallel uplinks as one link of their summed bandwidth, a
	// torus's or a dragonfly's messages over all their shortest paths
	// (nil: routed the same either way).
	spread *Fabric
	// measured is the fabric with the flows the round trips show taking
	// another path than its routing's taking that (Measured); nil: none.
	measured *Fabric
}

// Measured is f where its flows take the paths its round trips show: a
// router network found in a dragonfly's groups (NewRouterNetwork),
// routed minimally, with the pairs of routers whose round trips are
// shorter than any minimal path (through a third group) spread over
// their shortest paths. f itself where no flow's path differs so.
// Minimal routing prices those flows over a longer path than the
// machine takes; spread, a proposal can load links the machine's one
// path does not (docs/place.md).
func (f *Fabric) Measured() *Fabric {
	if f.measured == nil {
		return f
	}
	v := *f.measured
	v.Source, v.Reverse, v.Surveyed = f.Source, f.Reverse, f.Surveyed
	return &v
}

// FoundInSurvey is the Source of a network latmap found in a survey's
// round trips (a torus in the nodes' order, a graph of routers): its
// links are priced at what the survey measured between linked nodes,
// not derated from a declared bandwidth.
const FoundInSurvey = "the survey's round trips"

// Declared reports whether f's bandwidths are a description's, to be
// derated by what the survey measured: not a network found in the
// survey (Surveyed, a direct network, or one of FoundInSurvey).
func (f *Fabric) Declared() bool {
	return !f.Surveyed && f.Kind != KindDirect && f.Source != FoundInSurvey
}

// Routings say how a message picks among parallel paths: RoutingStatic
// as the description's machine does (d-mod-k on a fat tree as SimGrid's
// FatTreeZone and InfiniBand's ftree routing, dimension order on a torus,
// minimal on a dragonfly); RoutingAdaptive spreads a group's traffic
// evenly over its parallel uplinks (a fat tree's), as adaptive routing
// does when many flows leave the group, and a torus's or a dragonfly's
// messages evenly over their shortest paths.
const (
	RoutingStatic   = "static"
	RoutingAdaptive = "adaptive"
)

// Routed is f routed as routing (RoutingStatic or RoutingAdaptive, ""
// static). Adaptive, a fat tree's group sends over its parallel uplinks
// as one; a torus or a dragonfly spreads every message evenly over its
// shortest paths by hops (a torus's dimensions in any order, a
// dragonfly group's chassis either way round, and, on a small
// dragonfly, a path through a third group as short as the direct one;
// not the longer paths adaptive routing also takes when the shortest
// are loaded). A network with one path between two hosts (a tree whose
// parallel uplinks are not told apart: Slurm's topology.conf) routes
// the same either way, and is f.
func (f *Fabric) Routed(routing string) (*Fabric, error) {
	switch routing {
	case "", RoutingStatic:
		return f, nil
	case RoutingAdaptive:
		if f.spread != nil {
			s := *f.spread
			s.Reverse = f.Reverse
			if s.Source = f.Source; f.Kind == KindTree {
				s.Shape += ", routed adaptive (a group's parallel uplinks as one)"
			}
			return &s, nil
		}
		return f, nil
	}
	return nil, fmt.Errorf("routing %q: want %s or %s", routing, RoutingStatic, RoutingAdaptive)
}

// GroupLevel is one level of a network's hierarchy above its nodes:
// Group[h] is host h's group (the hosts that meet below this level), and
// a group's traffic to the rest leaves it over links of Class.
type GroupLevel struct {
	Name, Class string
	Group       []int
}

// Route calls visit with each directed link, in order, that a message
// from host a to host b crosses (none when a == b: a node's own traffic
// stays on it).
func (f *Fabric) Route(a, b int, visit func(link int32)) {
	if a != b {
		f.route(a, b, visit)
	}
}

// RouteShares calls visit with each directed link a message from host a
// to host b crosses and the share of its bytes that crosses it: 1 each
// on Route's links where the network routes one way, and on a direct
// network found in a survey (NewDirect), whose routing is not known, an
// even split at every host over the links one hop nearer, as adaptive
// routing spreads it.
func (f *Fabric) RouteShares(a, b int, visit func(link int32, share float64)) {
	switch {
	case a == b:
	case f.shares != nil:
		f.shares(a, b, visit)
	default:
		f.route(a, b, func(l int32) { visit(l, 1) })
	}
}

// Path is the links of Route(a, b) as a slice.
func (f *Fabric) Path(a, b int) []int32 {
	var p []int32
	f.Route(a, b, func(l int32) { p = append(p, l) })
	return p
}

// HostIndex maps each host name to its index in Hosts.
func (f *Fabric) HostIndex() map[string]int {
	idx := make(map[string]int, len(f.Hosts))
	for i, h := range f.Hosts {
		idx[h] = i
	}
	return idx
}

// Classes are the link classes in order of first appearance.
func (f *Fabric) Classes() []string {
	var out []string
	for _, l := range f.Links {
		if !slices.Contains(out, l.Class) {
			out = append(out, l.Class)
		}
	}
	return out
}

// Check returns an error when the fabric has no hosts, a host twice, or
// a link with a negative or NaN bandwidth or latency (0: not declared).
func (f *Fabric) Check() error {
	if len(f.Hosts) == 0 {
		return fmt.Errorf("the network description names no host")
	}
	seen := map[string]bool{}
	for _, h := range f.Hosts {
		if h == "" {
			return fmt.Errorf("the network description has a host without a name")
		}
		if seen[h] {
			return fmt.Errorf("the network description names host %s twice", h)
		}
		seen[h] = true
	}
	for _, l := range f.Links {
		if l.Bandwidth < 0 || l.Bandwidth != l.Bandwidth || l.Latency < 0 || l.Latency != l.Latency {
			return fmt.Errorf("link %s has a negative or undefined bandwidth or latency", l.Name)
		}
	}
	return nil
}

// Missing lists the hosts not in the fabric (at most max, then "...").
func (f *Fabric) Missing(hosts []string, max int) []string {
	idx := f.HostIndex()
	var out []string
	for _, h := range hosts {
		if _, ok := idx[h]; !ok {
			if len(out) == max {
				return append(out, "...")
			}
			out = append(out, h)
		}
	}
	return out
}

// linkSet builds a fabric's links: add appends a link and returns its id.
// With shared, the two directions of a link are one link (SimGrid's
// SHARED policy: half duplex).
type linkSet struct {
	links  []Link
	shared bool
}

func (s *linkSet) add(name, class string, bw, lat float64) int32 {
	s.links = append(s.links, Link{Name: name, Class: class, Bandwidth: bw, Latency: lat})
	return int32(len(s.links) - 1)
}

// duplex adds the two directions of one link: up (from the first end
// named) and down.
func (s *linkSet) duplex(name, class string, bw, lat float64) (up, down int32) {
	if s.shared {
		l := s.add(name, class, bw, lat)
		return l, l
	}
	return s.add(name+"_UP", class, bw, lat), s.add(name+"_DOWN", class, bw, lat)
}

// Dims formats dimensions as 4x4x4.
func Dims(d []int) string {
	var s []string
	for _, v := range d {
		s = append(s, fmt.Sprint(v))
	}
	return strings.Join(s, "x")
}
