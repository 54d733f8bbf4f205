package placement

// The network the model prices: the one a --topology file declares, or
// the one found in the survey's round trips (network.Discover), routed
// link by link.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/internal/text"
	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/network"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
	"github.com/latmap/latmap/placement/model"
)

// maxDeclaredCheck is the most host pairs whose declared routes place
// sets against the survey's round trips (topo.CompareDeclared).
const maxDeclaredCheck = 1 << 18

// fabricRead is a network description read, or why not.
type fabricRead struct {
	f   *fabric.Fabric
	err error
}

// readFabric reads the network the files at paths describe (none: nil),
// routed as routing says.
func readFabric(paths []string, routing string) (*fabric.Fabric, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	f, err := fabric.ReadAll(paths)
	if err != nil {
		return nil, fmt.Errorf("--topology: %w", err)
	}
	if f, err = f.Routed(routing); err != nil {
		return nil, fmt.Errorf("--routing: %w", err)
	}
	return f, nil
}

// addTopology prices the network description r (readFabric: the files
// of --topology, routed as --routing says; none does nothing) link by
// link, with what the survey s measured of it (nodebw.csv, the switch
// phase).
func (in *inputs) addTopology(r fabricRead, s *survey.Survey) error {
	if r.err != nil || r.f == nil {
		return r.err
	}
	f := in.fitProbe(s, r.f, "") // where the file's routes are a guess
	notes, err := in.md.AddRoutes(f, s.NodeBandwidth, topo.SwitchShares(s, f))
	if err != nil {
		return fmt.Errorf("--topology: %w", err)
	}
	in.warnings = append(in.warnings, notes...)
	// A description the latencies contradict (longer routes measuring
	// faster, hosts not where it puts them, routes longer than declared)
	// is the wrong file, a different machine or a fault: say so, naming
	// the hosts (topo says the same). Past
	// maxDeclaredCheck host pairs the routes are not walked again.
	if _, hosts := survey.HostIndex(s.Ranks); len(s.Tables) > 0 && hosts*(hosts-1)/2 <= maxDeclaredCheck {
		if m, err := topo.ChooseMetric(s.Tables[0], -1); err == nil {
			if d, err := topo.CompareDeclared(s, f, s.Tables[0].Size, m); err == nil {
				for _, c := range append(append(d.Contradictions, d.Misplaced...), d.LongRoutes...) {
					in.warnings = append(in.warnings, "--topology: "+c)
				}
			}
		}
	}
	return nil
}

// checkProbe says whether the routes the network is priced on (declared
// or found) judge the survey's probe of flows at once as it measured:
// which flows slowed each other (topo.CheckProbe), naming the pairs of
// flows they judge otherwise.
func (in *inputs) checkProbe(s *survey.Survey) {
	if in.md.Routes == nil {
		return
	}
	c := topo.CheckProbe(s, in.md.Routes.Fabric)
	if c == nil {
		return
	}
	for _, l := range c.Lines() {
		in.warnings = append(in.warnings, "network: "+strings.TrimPrefix(l, "warning: "))
	}
}

// addFound prices the network, where none is declared, as the one found
// in the survey's round trips (network.Discover, which latmap topo names
// too): a direct network between the nodes where the node phase's
// fan-out found that nodes drive several links at once (addDirect), a
// dragonfly whose routes the round trips follow (addDragonfly), a graph
// of routers (addRouters), else the survey's switch levels routed as a
// fat tree where their shape is one (addTree). A network found that
// cannot be priced leaves the switch levels. It says what it found, or
// why not.
func (in *inputs) addFound(s *survey.Survey, routing string) (err error) {
	if in.md.Routes != nil {
		return nil
	}
	nin, err := network.FromSurvey(s)
	if err != nil {
		return err
	}
	in.found = network.Discover(nin)
	switch in.found.Kind {
	case network.KindDirect:
		return in.addDirect(s, in.found.Graph, routing)
	case network.KindDragonfly:
		if ok, err := in.addDragonfly(s, in.found.Fit, routing); ok || err != nil {
			return err
		}
	case network.KindRouters:
		if err := in.addRouters(s, in.found, routing); err != nil || in.md.Routes != nil {
			return err
		}
	}
	if in.found.Far != "" {
		in.routersOwnWayOut()
		defer func() {
			if err == nil {
				err = in.addShared(s)
			}
		}()
	}
	if in.found.Links != nil || in.found.Far != "" {
		in.routerUplinksOnly()
	}
	if in.found.Links != nil {
		defer in.addRefusedLinks(s, *in.md, routing)
	}
	if nin.Ports > 1 {
		if in.found.Kind == network.KindNone {
			in.warnings = append(in.warnings, "network: nodes drive several links at once (nodebw.csv's fan-out), "+
				"but the round trips show no direct network ("+in.found.Why+"): a node's traffic to its nearest "+
				"nodes is priced over its links, farther traffic over one; declare the network with --topology to "+
				"route it")
		}
		return nil
	}
	return in.addTree(s, routing)
}

// addDirect prices the network as d, the direct network (a torus's or a
// mesh's) found in the survey's round trips between nodes, each link
// priced at the median bandwidth measured between the nodes it joins.
// Where its links are a torus's with the nodes in coordinate order
// (fabric.TorusInOrder) it is that torus, routed as routing says
// (static: dimension order, x first, as a torus routes by default); else
// every flow is spread evenly over its shortest paths (fabric.NewDirect),
// as the routing is not known.
func (in *inputs) addDirect(s *survey.Survey, d *network.Direct, routing string) error {
	md := in.md
	bw := linkRate(md, network.OwnRouters(len(md.Hosts)), d)
	if bw == 0 {
		in.warnings = append(in.warnings, "network: nodes drive several links at once (nodebw.csv's fan-out), "+
			"but the round trips show no direct network (no bandwidth was measured between linked nodes): "+
			"a node's traffic to its nearest nodes is priced over its links, farther traffic over one; "+
			"declare the network with --topology to route it")
		return nil
	}
	f, routed, err := directFabric(md.Hosts, d, bw, routing)
	if err != nil {
		return err
	}
	f.Source = fabric.FoundInSurvey
	in.crossTraffic(s, f)
	f = in.fitProbe(s, f, routing)
	// The links' capacities are the survey's own: AddRoutes' check of
	// declared bandwidths against it has nothing to say.
	if _, err := md.AddRoutes(f, s.NodeBandwidth, nil); err != nil {
		return err
	}
	in.warnings = append(in.warnings, fmt.Sprintf("network: the round trips between nodes show a direct network (a "+
		"torus's or a mesh's): %d links%s, %d-%d a node, %d hops across, a message's latency %.3g us + %.3g us a hop "+
		"(within %.2f of a hop); each link priced at %.4g MB/s (the median measured between linked nodes), %s",
		len(d.Links), d.ShortcutsNote(), d.MinDegree, d.MaxDegree, d.Diameter, d.Base*1e6, d.PerHop*1e6, d.Residual, bw/1e6, routed))
	return nil
}

// addSpread keeps in.spread: in.md, before it is routed over f (routers
// found in the survey in a dragonfly's groups, routed minimally in
// dimension order, or a dragonfly fitted whose routes are all shortest
// paths: a guess, where Aries and Slingshot route adaptively by
// default), routed over f with every flow spread over its shortest
// paths instead, to hold the proposal to (keepOnEitherRouting). None
// where the routing was given as adaptive, or f routes one way. A torus
// found in the hosts' order is not held so: dimension order is what tori
// route by default, and on the simulated 2 x 2 x 8 torus, held so,
// GROMACS's proposal (1.21x predicted, 1.20x simulated) was block.
// hidden is how many of f's routers are outside the job (switchShares).
func (in *inputs) addSpread(f *fabric.Fabric, s *survey.Survey, routing string, hidden int) {
	g, err := f.Routed(fabric.RoutingAdaptive)
	if routing == fabric.RoutingAdaptive || err != nil || g == f {
		return
	}
	md := *in.md
	if _, err := md.AddRoutes(g, s.NodeBandwidth, switchShares(s, g, hidden)); err == nil {
		in.spread, in.spreadIs = &md, "with every flow spread over its shortest paths (--routing adaptive; the routing is not in the round trips)"
	}
}

// addRefusedLinks keeps in.spread: md (in.md before the switch tree was
// priced) priced on the links between routers that the round trips fit
// but that miscount their hops (network.Network.Links): where the
// nearest of a job's routers are two hops apart or more, through routers
// outside the job, neither those links nor the switch tree is the
// network, and a proposal is held to both. On the simulated fragment of
// a dragonfly whose groups are Cray XC's rows and columns, priced on the
// links alone LAMMPS peptide's proposal simulated 1.43x slower than
// block, on the switch tree alone GROMACS's 1.27x; priced on the links,
// the tree's GROMACS proposal was 68% slower than block, and on the
// tree peptide's proposal is block.
func (in *inputs) addRefusedLinks(s *survey.Survey, md model.Model, routing string) {
	alt := &inputs{md: &md, found: in.found.Links}
	if err := alt.addRouters(s, in.found.Links, routing); err != nil || md.Routes == nil {
		return
	}
	in.spread, in.spreadIs = &md, "priced on the links between routers the round trips also fit "+
		"(they miscount the hops: routers outside the job lie between the job's; the switch tree is priced)"
	in.warnings = append(in.warnings, "network: "+in.found.Describe())
}

// routersOwnWayOut leaves the first switch level's uplinks unpriced
// where the job's routers are two hops apart or more through routers
// outside the job (network.Network.Far): a router's switch-phase rows
// measured the way to its siblings at the next level, through links
// outside the job, not the router's way out, which is several links of
// a direct network's (a Cray XC router's row, column and global links).
// On a fragment of a dragonfly whose groups are Cray XC's rows and
// columns, three routers' rows measured the one global link between two
// groups (1,119 MB/s) where each router has five links out; priced as
// their way out, from the survey alone GROMACS's proposal was predicted
// 11.5% faster than block and simulated 34% slower (declared, the same
// placement was predicted 34% slower). The levels above still price the
// traffic between the far groups.
func (in *inputs) routersOwnWayOut() {
	if len(in.md.Uplinks) == 0 || in.md.Uplinks[0].InvUp == nil {
		return
	}
	in.md.Uplinks = slices.Clone(in.md.Uplinks)
	in.md.Uplinks[0] = model.Uplink{}
	in.warnings = append(in.warnings, "network: the job's routers are two hops apart or more, through routers outside "+
		"the job: their rows in "+survey.SwitchBandwidthFile+" measured the way to their siblings over links outside the job, "+
		"not a router's way out (several links of a direct network's), which is not priced; the switch levels above "+
		"price the traffic between them")
}

// routerUplinksOnly keeps in.hedge: in.md with the uplinks of the switch
// levels above the first not priced, where the job's nearest routers
// are two hops apart or more through routers outside the job
// (network.Network.Far, with or without Links fitted to them). The
// first level's groups are the routers; the levels above them group
// routers by how far apart they are, not by a switch they share, yet
// priced as the switch phase measured them,
// they still price the runs: far traffic crosses the scarce links
// between a dragonfly's groups, and without them cyclic was predicted at
// 0.65 of its simulated run. On the simulated fragment of a dragonfly
// whose groups are Cray XC's rows and columns the second level put
// routers of three groups in one, and searched on its uplinks NPB SP's
// proposal was predicted 31% faster than block and simulated 12%
// slower; searched without them, 23% faster.
func (in *inputs) routerUplinksOnly() {
	if len(in.md.Uplinks) < 2 {
		return
	}
	md := *in.md
	md.Uplinks = slices.Clone(md.Uplinks)
	for k := 1; k < len(md.Uplinks); k++ {
		md.Uplinks[k] = model.Uplink{}
	}
	in.hedge = &md
}

// switchShares is what the survey's switch phase measured of f's link
// classes (topo.SwitchShares), where f is a graph of routers found in
// the survey with hidden of them outside the job (network.FindHidden),
// only of its links between groups. A step measures how fast a group's
// hosts send out of it, and where the step routed over f is bound by a
// link inside a group, that link is one of a graph whose routers outside
// the job are linked only as the round trips need: which local links
// their traffic takes, and what else crosses them, is not known. On a
// fragment of a site-cabled dragonfly (25 routers, 7 hidden) the steps
// priced its local links at 51-70% of the pairs' rate, and every run
// from 1.3 to 1.5x its simulated one.
func switchShares(s *survey.Survey, f *fabric.Fabric, hidden int) []topo.ClassShare {
	shares := topo.SwitchShares(s, f)
	if hidden > 0 {
		shares = slices.DeleteFunc(shares, func(c topo.ClassShare) bool { return c.Class != fabric.ClassGlobal })
	}
	return shares
}

// directFabric is the direct network d between hosts, each link of bw
// bytes/s: the torus its links are in the hosts' order, routed as
// routing says, else every flow spread over its shortest paths; and a
// clause saying which.
func directFabric(hosts []string, d *network.Direct, bw float64, routing string) (*fabric.Fabric, string, error) {
	dims := fabric.TorusInOrder(len(hosts), d.Links)
	if dims == nil {
		f, err := fabric.NewDirect(hosts, d.Links, d.Shortcuts, bw, d.PerHop)
		return f, "every flow spread evenly over its shortest paths, as the routing is not in the round trips " +
			"(a 4 x 4 torus is, link for link, a hypercube, and these links are no torus's in the nodes' order): " +
			"declare the network with --topology to route as the machine does", err
	}
	f, err := fabric.NewTorus(hosts, dims, bw, d.PerHop, false)
	if err != nil {
		return nil, "", err
	}
	shape := f.Shape
	if f, err = f.Routed(routing); err != nil {
		return nil, "", fmt.Errorf("--routing: %w", err)
	}
	how := "routed in dimension order, x first, the shorter way round (a torus's static routing; --routing adaptive spreads every flow over its shortest paths)"
	if routing == fabric.RoutingAdaptive {
		how = "every flow spread over its shortest paths (--routing adaptive)"
	}
	return f, fmt.Sprintf("its links those of a %s with the nodes in the survey's order (x = a node's place mod "+
		"%d, ...), %s; declare the network with --topology if the machine routes otherwise", shape, dims[0], how), nil
}

// maxSpreadHosts is the most hosts outerSpread looks at every pair of;
// above, every k-th host.
const maxSpreadHosts = 1024

// outerSpread is how far the round trips between hosts of different
// outermost switch groups spread: their 90th percentile over their 10th
// (a pair or two slowed by noise does not move it; 1 when there are no
// such hosts). A fat tree's top joins every two of its pods alike (a
// simulated 2:1 tree's levels spread 1.06-1.07 from the shortest round
// trip to the longest); a dragonfly's groups meet over global links at
// particular routers, a few hops apart (the simulated two-group
// dragonflies' 12-29 us: 1.74x).
func outerSpread(m *model.Machine) float64 {
	if len(m.NetGroups) == 0 {
		return 1
	}
	outer, first := m.NetGroups[len(m.NetGroups)-1], m.FirstSlots()
	step := max(1, (len(first)+maxSpreadHosts-1)/maxSpreadHosts)
	var lat []float64
	for a := 0; a < len(first); a += step {
		for b := a + step; b < len(first); b += step {
			if outer[a] != outer[b] {
				lat = append(lat, m.Link(first[a], first[b]).Latency)
			}
		}
	}
	if len(lat) == 0 {
		return 1
	}
	lo, hi := stats.Select(lat, len(lat)/10), stats.Select(lat, len(lat)*9/10)
	if !(lo > 0) {
		return 1
	}
	return hi / lo
}

// addRouters prices the network, where none is declared and each node
// drives one link, as a direct network of routers when the round trips
// between routers show one (network.Discover's Routers): the routers are the
// innermost switch level's groups (a dragonfly's routers, each serving
// a few nodes, linked all to all in a chassis and to the same router of
// the group's other chassis), else each node is its own router's only
// node. A tree's leaves all meet one hop above, which no direct network
// explains. Each node's link to its router is priced as the survey's
// node phase measured it, every flow between routers spread evenly over
// their shortest paths (fabric.NewRouterNetwork; where the outermost
// switch level groups the routers as a dragonfly's groups, over the
// shortest minimal one, local, global, local, in dimension order in the
// nodes' order, unless routing is adaptive), each link between
// routers at the median bandwidth measured between the nodes of the
// routers it joins. A switch level prices a group's links to the rest
// as one; on a dragonfly one link (to the same router of the other
// chassis, to another group) carries what a router sends to several,
// which only routes price. It says what it found; where no direct
// network is found the switch levels stay.
func (in *inputs) addRouters(s *survey.Survey, found *network.Network, routing string) error {
	md := in.md
	d, router, nr, groups := found.Graph, found.Router, found.Routers, found.Groups
	bw := linkRate(md, router, d)
	if bw == 0 {
		return nil
	}
	f, whyNot, err := fabric.NewRouterNetwork(md.Hosts, router, nr, d.Links, d.Shortcuts, bw, d.PerHop, groups)
	if err != nil {
		return err
	}
	routed := "every flow spread evenly over its shortest paths, as the routing is not in the round trips"
	switch {
	case groups == nil:
	case whyNot != "":
		routed += fmt.Sprintf(" (the outermost switch level's %d groups are no dragonfly's: %s)", slices.Max(groups)+1, whyNot)
	case routing == fabric.RoutingAdaptive:
		routed = "every flow spread evenly over its shortest paths (--routing adaptive), through any group"
	default:
		routed = fmt.Sprintf("routed as a dragonfly's minimal routing, the outermost switch level's %d groups its "+
			"groups%s: a flow between groups crosses one link between them and stays in its own two (local, global, "+
			"local), the shortest such path in dimension order in the nodes' order (at each router, "+
			"to the router nearest in number: a chassis's own links before the links between chassis, "+
			"as SimGrid's dragonfly and static minimal routing take; which path the machine takes is not in the "+
			"round trips; --routing adaptive: every flow spread over all shortest paths, a third group's too)",
			slices.Max(groups)+1, found.MovedNote(md.Hosts))
		if n, a, b := found.ThroughThird(); n > 0 {
			rep := network.Representatives(router)
			routed += fmt.Sprintf("; the round trips of %s (%s and %s the first) are shorter than any path that stays in their "+
				"two groups: the machine routes those flows through a third group",
				text.Count(n, "pair")+" of routers", md.Hosts[rep[a]], md.Hosts[rep[b]])
		}
	}
	if f, err = f.Routed(routing); err != nil {
		return fmt.Errorf("--routing: %w", err)
	}
	f.Source = fabric.FoundInSurvey
	in.crossTraffic(s, f)
	f = in.fitProbe(s, f, routing)
	in.addSpread(f, s, routing, found.Hidden)
	strict, search := f, *md // AddRoutes gives md new node link slices
	f = f.Measured()
	notes, err := md.AddRoutes(f, s.NodeBandwidth, switchShares(s, f, found.Hidden))
	if f != strict && err == nil {
		if _, err := search.AddRoutes(strict, s.NodeBandwidth, switchShares(s, strict, found.Hidden)); err == nil {
			in.search = &search
			routed += "; the flows between routers whose round trips are shorter than any minimal path are priced spread " +
				"over their shortest paths, and the proposal searched with them routed minimally (searched spread, " +
				"proposals loaded links the machine's one path does not)"
		}
	}
	if in.spread != nil && err == nil {
		// Which of its shortest paths a message takes is not in the round
		// trips: neither routing alone came within bounds of every run on
		// the two simulated fragments with routers outside the job, and on
		// the site-wired dragonfly NPB LU's cyclic run was predicted at
		// 0.80 of its simulation routed minimally, 0.91 spread
		// (docs/place.md).
		md.Either = in.spread
		routed += "; every prediction is the slower of that and every flow spread over its shortest paths"
	}
	if err != nil {
		in.warnings = append(in.warnings, fmt.Sprintf("network: the round trips show a direct network of %d routers, not priced: %v", nr, err))
		return nil
	}
	what := fmt.Sprintf("the level-1 switches show a direct network of %d routers of %d nodes (a dragonfly's, "+
		"or a torus whose routers serve several nodes)%s", nr-found.Hidden, len(md.Hosts), found.HiddenNote())
	if nr == len(md.Hosts) {
		what = fmt.Sprintf("the nodes show a direct network of %d routers, one a node (a dragonfly's or a torus's)", nr)
	}
	in.warnings = append(append(in.warnings, notes...), fmt.Sprintf("network: the round trips between %s: %d links "+
		"between them%s, %d-%d a router, %d hops across, a message's latency %.3g us + %.3g us a hop (within %.2f of "+
		"a hop); each node's link priced as for the switch levels, each link between routers at %.4g MB/s (the "+
		"median bandwidth between their nodes, from %s), %s: declare the network with --topology to route as the "+
		"machine does",
		what, len(d.Links), d.ShortcutsNote(), d.MinDegree, d.MaxDegree, d.Diameter,
		d.Base*1e6, d.PerHop*1e6, d.Residual, bw/1e6, md.Machine.Bandwidth, routed))
	return nil
}

// addDragonfly prices the network, where none is declared and each node
// drives one link, as the dragonfly whose static minimal routes explain
// the round trips between the survey's nodes (network.FitDragonfly: the
// shape of groups, chassis, routers and nodes, with the nodes in the
// hosts' order, whose routes there and back, SimGrid's DragonflyZone's,
// have the lengths the round trips say), routed as those routes go,
// every link at the median bandwidth between nodes: as if declared with
// that shape. Routes that are not a graph's shortest paths (within a
// group, SimGrid's continue from chassis 0) are what made the graphs
// FindDirect tries miss: SimGrid's dragonflies of 8 chassis, or of 4
// chassis of 4 routers, were found in no other way. Where the fitted
// routes are all shortest paths, the round trips do not show which of
// them the machine takes, and a proposal is held to the spread routing
// too (addSpread); where some are longer, they show a static routing.
// It reports whether it found one.
func (in *inputs) addDragonfly(s *survey.Survey, fit *network.DragonflyFit, routing string) (bool, error) {
	md := in.md
	bw := hostPairRate(md, nil)
	if bw == 0 {
		return false, nil
	}
	f, err := fabric.NewDragonfly(md.Hosts, fit.Shape, bw, fit.PerHop, false)
	if err != nil {
		return false, err
	}
	if f, err = f.Routed(routing); err != nil {
		return false, fmt.Errorf("--routing: %w", err)
	}
	f.Source = fabric.FoundInSurvey
	in.crossTraffic(s, f)
	routed := "routed statically as SimGrid's DragonflyZone routes (minimal: local, global, local; " +
		"within a group a green hop, then on from chassis 0), which the round trips follow where those routes are " +
		"longer than the shortest paths"
	switch {
	case routing == fabric.RoutingAdaptive:
		routed = "every flow spread evenly over its shortest paths (--routing adaptive)"
	case !fit.Static:
		routed = "routed minimally as SimGrid's DragonflyZone routes (local, global, local); " +
			"its routes are all shortest paths, so the round trips do not show which the machine takes, " +
			"and a proposal must also be faster with every flow spread over them"
		in.addSpread(f, s, routing, 0)
	}
	notes, err := md.AddRoutes(f, s.NodeBandwidth, topo.SwitchShares(s, f))
	if err != nil {
		in.warnings = append(in.warnings, fmt.Sprintf("network: the round trips between the nodes fit a dragonfly "+
			"(SimGrid's DRAGONFLY %s), not priced: %v", fit.Shape, err))
		in.spread = nil
		return false, nil
	}
	in.warnings = append(append(in.warnings, notes...), fmt.Sprintf("network: the round trips between the %d nodes "+
		"fit the routes of a dragonfly of %d groups x %d chassis x %d routers x %d nodes (SimGrid's DRAGONFLY "+
		"%s, the nodes in the hosts' order: a message's latency %.3g us + %.3g us a link, within %.2f of a link; "+
		"the best other shape within %.2f), each link at %.4g MB/s (the median bandwidth between nodes, "+
		"from %s), %s: declare the network with --topology to route as the machine does",
		len(md.Hosts), fit.Shape.Groups, fit.Shape.Chassis, fit.Shape.Routers, fit.Shape.Nodes, fit.Shape,
		fit.Base*1e6, fit.PerHop*1e6, fit.Residual, fit.Next, bw/1e6, md.Machine.Bandwidth, routed))
	return true, nil
}

// addTree prices the network, where none is declared, each node drives
// one link and no direct network was found, as the fat tree the
// survey's switch levels describe (topo.TreeShape: each level's groups
// runs of the survey's hosts, all of one size, each group's uplinks a
// whole number of node links), routed statically: d-mod-k with the
// hosts numbered in the survey's order (fabric.NewFatTree), as
// SimGrid's FatTreeZone and InfiniBand's ftree routing do. A group's
// flows to destinations of one residue share one uplink, where the
// switch levels priced its uplinks as one link of their summed
// bandwidth, as if every pattern spread over them evenly. Each node's
// link is priced from the node phase, each uplink at a node link's rate
// and then at what the switch phase measured of its class
// (topo.SwitchShares). Only where some group has two uplinks or more
// (else the tree routes one way, as priced); --routing adaptive keeps
// the uplinks as one. It says what it found, or why not.
func (in *inputs) addTree(s *survey.Survey, routing string) error {
	md := in.md
	if routing == fabric.RoutingAdaptive || len(md.Uplinks) != len(md.NetGroups) || len(md.NetGroups) == 0 {
		return nil
	}
	rate := func(inv []float64) float64 { return medianRate(inv) / 1e6 } // MB/s
	of := make([][]int, len(md.NetGroups))
	out := make([]float64, len(of))
	for k, groups := range md.NetGroups {
		for _, g := range groups {
			of[k] = append(of[k], int(g))
		}
		out[k] = rate(md.Uplinks[k].InvUp)
	}
	link := rate(md.InvInject)
	if link == 0 {
		return nil
	}
	if sp := outerSpread(md.Machine); sp > topo.MaxSwitchSpread {
		in.warnings = append(in.warnings, fmt.Sprintf("network: the switch levels are priced as groups whose uplinks "+
			"share their summed bandwidth, not routed as a fat tree: the round trips between the outermost groups "+
			"spread %.2fx (over %.2gx: a dragonfly's groups, whose links to each other start at particular routers, "+
			"not a tree's parallel uplinks a flow is routed over by its destination)", sp, topo.MaxSwitchSpread))
		return nil
	}
	shape, parallel, why := topo.TreeShape(of, out, link)
	if !parallel {
		if why != "" {
			in.warnings = append(in.warnings, "network: the switch levels are priced as groups whose uplinks share "+
				"their summed bandwidth, not routed as a fat tree: "+why)
		}
		return nil
	}
	f, err := fabric.NewFatTree(md.Hosts, shape, link*1e6, 0, false)
	if err != nil {
		return err
	}
	f.Source, f.Surveyed = "the survey's switch levels", true
	in.crossTraffic(s, f)
	agg := *md // AddRoutes gives md new node link slices
	for l := range f.Links {
		if f.Links[l].Class == "node" {
			f.Links[l].Bandwidth = 0 // the node phase's, node by node
		}
	}
	notes, err := md.AddRoutes(f, s.NodeBandwidth, topo.SwitchShares(s, f))
	if err != nil {
		in.warnings = append(in.warnings, "network: the switch levels' fat tree is not priced: "+err.Error())
		return nil
	}
	if in.t.N > routedSearchMax {
		in.search = &agg
	}
	in.warnings = append(append(in.warnings, notes...), fmt.Sprintf("network: the switch levels are a fat tree's "+
		"(SimGrid's FAT_TREE %s: %s), routed statically by destination, d-mod-k with the hosts numbered in the "+
		"survey's order, as InfiniBand's ftree routing and SimGrid's FatTreeZone do; each node's link priced from "+
		"the node phase, each uplink at a node link's %.4g MB/s and as the switch phase measured its class. "+
		"%s --routing adaptive prices a group's uplinks as one (traffic spread evenly over them); "+
		"declare the network with --topology if it routes otherwise",
		shape, f.Shape, link, map[bool]string{
			true: "The solver searches routed.",
			false: fmt.Sprintf("The solver searches with each group's uplinks as one above %d ranks "+
				"(routed, its search took 4 s at 1,024 ranks against 0.4 s), and every layout is priced routed.", routedSearchMax),
		}[in.t.N <= routedSearchMax]))
	return nil
}

// crossTraffic gives f, a network found in the survey, the cross traffic
// the survey measured (network.Reverse: nodebw.csv's both-ways row), and
// says so. Its links between nodes are priced at what pairs moved one way
// at a time, so a message's way back is not in their price (AddRoutes
// takes it out of the node links' rates, which the node phase measured
// both ways); the switch phase's steps are routed with it
// (topo.SwitchShares).
func (in *inputs) crossTraffic(s *survey.Survey, f *fabric.Fabric) {
	x, note := network.Reverse(s.NodeBandwidth)
	f.Reverse = x
	if note != "" {
		in.warnings = append(in.warnings, "network: "+note)
	}
}

// routedSearchMax is the most ranks the solver searches for routed on a
// fat tree found in the survey (addTree); above, it searches with each
// group's uplinks as one, and the layouts are priced routed. On the
// simulated 1,024-rank tree's survey the routed search took 2.9 s at 64
// ranks (0.7 s as one), 4.7 s at 256 (0.4 s), 4.0 s at 1,024 (0.4 s).
const routedSearchMax = 256

// fitProbe is f (a network found in the survey's round trips, or a
// list of links declared without forwarding tables) with each class of
// flows (a router to a host) on the one of its shortest paths that
// agrees best with the survey's probe of flows at once (topo.FitProbe),
// where that judges fewer of the probe's pairs otherwise than f's
// routes: neither the round trips nor such a file tell which of several
// shortest paths the bytes take, the probe tells which flows slowed
// each other. It says what moved, or, without a probe, how many pairs'
// routes are such a guess. With --routing adaptive every flow stays
// spread.
func (in *inputs) fitProbe(s *survey.Survey, f *fabric.Fabric, routing string) *fabric.Fabric {
	if routing == fabric.RoutingAdaptive {
		return f // the machine spreads every flow, as given
	}
	fit := topo.FitSurveyProbe(s, f)
	if fit == nil {
		return f
	}
	in.warnings = append(in.warnings, "network: "+fit.Line())
	return fit.Fabric
}

// linkRate is the median bandwidth (bytes/s) measured between the
// nodes of the routers d's links join (router[node]: its router; a node
// of each, the first): what each of its links is priced at; 0 where none
// was measured.
func linkRate(md *model.Model, router []int32, d *network.Direct) float64 {
	rep, first := network.Representatives(router), md.FirstSlots()
	inv := make([]float64, 0, len(d.Links))
	for _, l := range d.Links {
		if int(max(l[0], l[1])) < len(rep) { // no node hangs off a hidden router
			inv = append(inv, md.Link(first[rep[l[0]]], first[rep[l[1]]]).InvBandwidth)
		}
	}
	return medianRate(inv)
}

// hostPairRate is the median rate (bytes/s) measured between the first
// slots of every two of md's hosts (by name) that keep allows (nil:
// all); 0 where none is priced.
func hostPairRate(md *model.Model, keep func(a, b string) bool) float64 {
	first := md.FirstSlots()
	var inv []float64
	for a := range md.Hosts {
		for b := a + 1; b < len(md.Hosts); b++ {
			if keep == nil || keep(md.Hosts[a], md.Hosts[b]) {
				inv = append(inv, md.Link(first[a], first[b]).InvBandwidth)
			}
		}
	}
	return medianRate(inv)
}

// medianRate is the median rate (bytes/s) of the seconds-per-byte inv
// that are priced (over 0); 0 where none is.
func medianRate(inv []float64) float64 {
	var r []float64
	for _, x := range inv {
		if x > 0 {
			r = append(r, 1/x)
		}
	}
	if len(r) == 0 {
		return 0
	}
	return stats.Median(r)
}

// addShared prices the network, where the job's routers are two hops
// apart or more through routers outside the job (network.Network.Far),
// as the links the survey's probe of flows at once found its flows to
// share (topo.ProbeShared: every pair of classes judged), each at the
// median rate measured between hosts of different routers; the switch
// tree priced so far (in.md) is kept as in.tree, one of the networks
// each prediction's range is priced on (spreadModels). Nothing where
// there is no such probe or it found no flows sharing.
func (in *inputs) addShared(s *survey.Survey) error {
	sl := topo.ProbeShared(s)
	if sl == nil || sl.Links == 0 {
		return nil
	}
	router := make(map[string]int32, len(sl.Hosts))
	for h, name := range sl.Hosts {
		router[name] = sl.Router[h]
	}
	bw := hostPairRate(in.md, func(a, b string) bool { return router[a] != router[b] })
	if bw == 0 {
		return nil
	}
	f, err := sl.Fabric(bw, 0)
	if err != nil {
		return err
	}
	f.Source = fabric.FoundInSurvey
	md := *in.md
	notes, err := md.AddRoutes(f, s.NodeBandwidth, nil)
	if err != nil {
		return err
	}
	in.tree, in.md, in.search = in.md, &md, nil
	in.warnings = append(in.warnings, notes...)
	in.warnings = append(in.warnings, fmt.Sprintf("network: the job's routers are two hops apart or more, through routers "+
		"outside the job, whose links the round trips do not show; the probe of flows at once found %d pairs of classes "+
		"of flows (a router to a host) slowing each other, priced as %d links they share (each at %.4g MB/s, the median "+
		"between hosts of different routers): a flow crosses the links its class shares and no other; the switch tree "+
		"is kept to price each run's range on", sl.Pairs, sl.Links, bw/1e6))
	return nil
}
