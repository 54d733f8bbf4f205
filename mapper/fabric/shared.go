package fabric

import "fmt"

// RoutesShared: a network whose links between routers are not known,
// only which flows share one (a survey's probe of flows at once): each
// flow crosses the shared links NewShared gives its class.
const RoutesShared = "the links the probe of flows at once found flows to share"

// ClassShared is the class of NewShared's links between routers.
const ClassShared = "shared"

// NewShared is a network of routers whose links are known only by the
// flows that share them: each host attached to its router router[h]
// (0 ... nr-1) by a node link of class "node" (its bandwidth not
// declared: the model prices it from the survey's node phase), and
// shared directed links of class ClassShared, each of bw bytes/s and lat
// seconds; a flow from host a to host b on another router crosses a's
// node link, the shared links cross(router[a], b) names (0 ...
// shared-1), in order, and b's node link. It stands for the routes
// through routers outside the job (a dragonfly's groups in a fragmented
// allocation) where the round trips tell how far apart the job's
// routers are but not which links their flows cross: a link shared by
// two flows is one whatever it is, and a link only one class crosses
// limits that class no more than its own node links do.
func NewShared(hosts []string, router []int32, nr, shared int, cross func(r int32, b int) []int32, bw, lat float64) (*Fabric, error) {
	if len(router) != len(hosts) {
		return nil, fmt.Errorf("%d hosts and %d routers of hosts", len(hosts), len(router))
	}
	s := linkSet{}
	var up, down []int32
	for h, r := range router {
		if r < 0 || int(r) >= nr {
			return nil, fmt.Errorf("host %s on router %d of %d", hosts[h], r, nr)
		}
		u, d := s.duplex("node_"+hosts[h], "node", 0, 0)
		up, down = append(up, u), append(down, d)
	}
	base := int32(len(s.links))
	for l := range shared {
		s.add(fmt.Sprintf("shared%d", l), ClassShared, bw, lat)
	}
	routes := make([][]int32, nr*len(hosts)) // by class: router x hosts + host
	for r := range int32(nr) {
		for b := range hosts {
			if router[b] == r {
				continue
			}
			for _, l := range cross(r, b) {
				if l < 0 || int(l) >= shared {
					return nil, fmt.Errorf("router %d to host %s crosses shared link %d of %d", r, hosts[b], l, shared)
				}
				routes[int(r)*len(hosts)+b] = append(routes[int(r)*len(hosts)+b], base+l)
			}
		}
	}
	f := &Fabric{Kind: KindDirect, Routing: RoutesShared, Hosts: hosts, Links: s.links,
		Shape: fmt.Sprintf("%d routers (%d nodes) joined through routers outside the job by %d links their flows share", nr, len(hosts), shared)}
	f.route = func(a, b int, visit func(int32)) {
		visit(up[a])
		if router[a] != router[b] {
			for _, l := range routes[int(router[a])*len(hosts)+b] {
				visit(l)
			}
		}
		visit(down[b])
	}
	return f, nil
}
