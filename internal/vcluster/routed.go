package vcluster

import (
	"fmt"
	"strconv"
)

// Routed is a network of routers for the ranks' traffic: each router a
// network namespace that forwards (Linux IP routing), joined to others by
// point-to-point links, each node on one router by a link of its own.
// Each router forwards by destination, as a subnet manager's forwarding
// tables do: Next names, for a router and a destination node, the router
// it sends that node's packets to. Where two routers are joined by
// several shortest paths, which one a flow takes is then set by the
// tables alone: a probe of flows at once finds it, round trips cannot.
//
// The bridge (Cluster.Net) then carries only the launcher's traffic;
// MPI's goes over the routers (Cluster.DataNet).
type Routed struct {
	Routers int      // how many routers
	Links   [][2]int // pairs of routers (by index from 0), each joined by one full-duplex link
	Rate    string   // each router link's rate, both ways, "100mbit" say ("": unshaped)
	Attach  []int    // each node's router, by node index from 0
	// Next is the router that router sends node's packets to: a router
	// joined to it. It is not asked at node's own router.
	Next func(router, node int) int
}

// RouterName is router r's namespace name (r from 0).
func (c *Cluster) RouterName(r int) string { return fmt.Sprintf("lm%dr%d", c.index, r) }

// DataAddr is node i's address (from 0) on the network MPI's traffic
// takes: the routers' where the cluster is Routed, else the bridge's.
func (c *Cluster) DataAddr(i int) string {
	if c.routed {
		return fmt.Sprintf("10.214.%d.%d", c.index, i+1)
	}
	return c.NodeAddr(i)
}

// DataNet is the subnet (CIDR) of DataAddr, for btl_tcp_if_include.
func (c *Cluster) DataNet() string {
	if c.routed {
		return fmt.Sprintf("10.214.%d.0/24", c.index)
	}
	return c.Net
}

// check reports what is wrong with the network for nodes nodes, or nil:
// a router out of range, a node on no router, a next hop that is no
// neighbour, or a loop (a node's packets never reaching its router).
func (r *Routed) check(nodes int) error {
	if r.Routers < 1 || len(r.Attach) != nodes || r.Next == nil {
		return fmt.Errorf("vcluster: a routed network needs routers, a router for each of the %d nodes (got %d) and Next", nodes, len(r.Attach))
	}
	for _, l := range r.Links {
		if l[0] == l[1] || min(l[0], l[1]) < 0 || max(l[0], l[1]) >= r.Routers {
			return fmt.Errorf("vcluster: link %v is not between two of the %d routers", l, r.Routers)
		}
	}
	for i, a := range r.Attach {
		if a < 0 || a >= r.Routers {
			return fmt.Errorf("vcluster: node %d is on router %d, not one of the %d", i, a, r.Routers)
		}
	}
	for d := range r.Attach {
		for s := 0; s < r.Routers; s++ {
			if _, err := r.Hops(s, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// Hops is the links, each [from, to] router, that node's packets take
// from router from to the node's own, as the tables send them; an error
// where a next hop is no neighbour, or the packets loop.
func (r *Routed) Hops(from, node int) ([][2]int, error) {
	var hops [][2]int
	for at := from; at != r.Attach[node]; {
		next := r.Next(at, node)
		if len(hops) == r.Routers || r.Link(at, next) < 0 {
			return nil, fmt.Errorf("vcluster: from router %d, node %d's packets go to router %d, which is no neighbour or a loop", from, node, next)
		}
		hops, at = append(hops, [2]int{at, next}), next
	}
	return hops, nil
}

// Link is the index of the first link joining routers a and b, or -1.
func (r *Routed) Link(a, b int) int {
	for i, l := range r.Links {
		if l == [2]int{a, b} || l == [2]int{b, a} {
			return i
		}
	}
	return -1
}

// linkAddr is the address of link l's end at l[end] (a /31 a link).
func (c *Cluster) linkAddr(l, end int) string {
	return fmt.Sprintf("10.216.%d.%d", c.index, 2*l+end)
}

// gateway is router r's address on its nodes' links.
func (c *Cluster) gateway(r int) string { return fmt.Sprintf("10.215.%d.%d", c.index, r+1) }

// buildRouted makes opt.Routed's routers, their links and each node's link
// (interface data0), and writes every router's table and each node's one
// route, shaping the links to their rates.
func (c *Cluster) buildRouted(opt Options) error {
	r := opt.Routed
	if err := r.check(len(c.Nodes)); err != nil {
		return err
	}
	if len(opt.LinkRates) > 0 {
		return fmt.Errorf("vcluster: LinkRates shape the bridge's links, which a routed network's traffic does not take")
	}
	c.routed = true
	var steps [][]string
	in := func(ns string, args ...string) {
		steps = append(steps, append([]string{"ip", "netns", "exec", ns}, args...))
	}
	shape := func(ns, dev, rate string) {
		if rate != "" {
			in(ns, append([]string{"tc", "qdisc", "replace", "dev", dev}, tbf(rate)...)...)
		}
	}
	for k := 0; k < r.Routers; k++ {
		ns := c.RouterName(k)
		steps = append(steps, []string{"ip", "netns", "add", ns})
		in(ns, "ip", "link", "set", "lo", "up")
		for _, s := range []string{"net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0"} {
			in(ns, "sysctl", "-qw", s)
		}
	}
	for l, ends := range r.Links {
		a, b, la := c.RouterName(ends[0]), c.RouterName(ends[1]), "l"+strconv.Itoa(l)
		steps = append(steps, []string{"ip", "link", "add", la, "netns", a, "type", "veth", "peer", "name", la, "netns", b})
		for end, ns := range []string{a, b} {
			in(ns, "ip", "addr", "add", c.linkAddr(l, end)+"/31", "dev", la)
			in(ns, "ip", "link", "set", la, "up")
			shape(ns, la, r.Rate)
		}
	}
	for i, node := range c.Nodes {
		ns, h := c.RouterName(r.Attach[i]), "h"+strconv.Itoa(i)
		steps = append(steps, []string{"ip", "link", "add", h, "netns", ns, "type", "veth", "peer", "name", "data0", "netns", node})
		in(ns, "ip", "addr", "add", c.gateway(r.Attach[i])+"/32", "dev", h)
		in(ns, "ip", "link", "set", h, "up")
		in(node, "ip", "addr", "add", c.DataAddr(i)+"/32", "dev", "data0")
		in(node, "ip", "link", "set", "data0", "up")
		in(node, "ip", "route", "add", c.DataNet(), "via", c.gateway(r.Attach[i]), "dev", "data0", "onlink")
		shape(ns, h, opt.linkRate(i))
		shape(node, "data0", opt.linkRate(i))
	}
	for k := 0; k < r.Routers; k++ {
		for d, home := range r.Attach {
			if home == k {
				in(c.RouterName(k), "ip", "route", "add", c.DataAddr(d)+"/32", "dev", "h"+strconv.Itoa(d))
				continue
			}
			l := r.Link(k, r.Next(k, d))
			end := 1 // the far end's address
			if r.Links[l][1] == k {
				end = 0
			}
			in(c.RouterName(k), "ip", "route", "add", c.DataAddr(d)+"/32", "via", c.linkAddr(l, end), "dev", "l"+strconv.Itoa(l))
		}
	}
	for _, s := range steps {
		if err := run(s...); err != nil {
			return err
		}
	}
	return nil
}

// TwoSpines is a routed network of two leaf routers (0, 1) and two
// spines (2, 3), every leaf joined to every spine (links 0-3: leaf 0 to
// spine 2, leaf 0 to spine 3, leaf 1 to spine 2, leaf 1 to spine 3), the
// nodes in order on the leaves, perLeaf a leaf, every link of rate. The
// leaves send node i's packets through spine 2 + spine(i) (0 or 1), as a
// subnet manager's tables spread destinations over the spines: between
// the leaves there are two shortest paths, and the tables choose by
// destination.
func TwoSpines(nodes, perLeaf int, rate string, spine func(node int) int) *Routed {
	r := &Routed{Routers: 4, Links: [][2]int{{0, 2}, {0, 3}, {1, 2}, {1, 3}}, Rate: rate}
	for i := 0; i < nodes; i++ {
		r.Attach = append(r.Attach, i/perLeaf)
	}
	r.Next = func(router, node int) int {
		if router >= 2 { // a spine: down to the node's leaf
			return r.Attach[node]
		}
		return 2 + spine(node)
	}
	return r
}
