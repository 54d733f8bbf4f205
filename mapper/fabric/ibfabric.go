package fabric

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// ibGeneric matches node descriptions that name an adapter's maker, not
// its host ("MT25408 ConnectX Mellanox Technologies": the firmware's
// default where the host did not set its own).
var ibGeneric = regexp.MustCompile(`(?i)^MT\d|mellanox|qlogic|intel|voltaire|technologies|infiniband|connectx|omni-path`)

// hostOfDesc is the host a channel adapter's node description names:
// its first word ("x5570comp1 HCA-1", "stage114 mlx4_0"), "" for a
// maker's default.
func hostOfDesc(desc string) string {
	f := strings.Fields(desc)
	if len(f) == 0 || ibGeneric.MatchString(desc) {
		return ""
	}
	return f[0]
}

// hostName is channel adapter n's host: the map's name for its GUID or
// one of its ports' (first word), else its node description's, else
// ibnetdiscover's name for it (H-<guid>, as Slurm's topology.conf
// generated from the dump names it).
func hostName(n *ibNode, names *nameMap) string {
	if names != nil {
		if s, ok := names.guid[n.guid]; ok {
			return strings.Fields(s)[0]
		}
		for _, p := range n.portNumbers() {
			if s, ok := names.guid[n.ports[p].guid]; ok && n.ports[p].guid != 0 {
				return strings.Fields(s)[0]
			}
		}
	}
	if h := hostOfDesc(n.desc); h != "" {
		return h
	}
	return n.key()
}

// switchName is switch (or router) n's name: the map's, else
// ibnetdiscover's (S-<guid>, as Slurm's topology.conf generated from the
// dump names it).
func switchName(n *ibNode, names *nameMap) string {
	if names != nil {
		if s, ok := names.guid[n.guid]; ok {
			return s
		}
	}
	return n.key()
}

// portNumbers are n's ports in order.
func (n *ibNode) portNumbers() []int {
	var out []int
	for p := range n.ports {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// ibBuild is an ibnetdiscover dump as a Graph being built: each node's
// vertex and each port's link out.
type ibBuild struct {
	ib     *ibFabric
	g      *Graph
	vertex map[*ibNode]int32
	out    map[*ibNode]map[int]int32
}

// fabric is the network ib describes: its channel adapters' hosts
// (hostName: adapters of one host are one host), its switches and
// routers, a link each way for each cable at the rate both ends report
// (the lower), routed by lfts, the switches' forwarding tables, where
// given (nil: shortest paths).
func (ib *ibFabric) fabric(names *nameMap, lfts map[uint64]*lft) (*Fabric, error) {
	b := &ibBuild{ib: ib, g: &Graph{}, vertex: map[*ibNode]int32{}, out: map[*ibNode]map[int]int32{}}
	g := b.g
	for _, n := range ib.order {
		if n.kind == 'H' {
			b.vertex[n] = g.Host(hostName(n, names))
		} else {
			b.vertex[n] = g.Switch(switchName(n, names))
		}
		b.out[n] = map[int]int32{}
	}
	for _, l := range ib.links {
		va, vb := b.vertex[l.a], b.vertex[l.b]
		if va == vb {
			continue // two adapters of one host cabled together
		}
		a, pa, z, pz := l.a, l.pa, l.b, l.pb
		if z.kind == 'H' && a.kind != 'H' {
			a, pa, z, pz = z, pz, a, pa // a host's link is named from the host
		}
		va, vz := b.vertex[a], b.vertex[z]
		name := fmt.Sprintf("%s[%d]-%s[%d]", g.Name(va), pa, g.Name(vz), pz)
		b.out[a][pa], b.out[z][pz] = g.Connect(va, vz, name, "", a.ports[pa].rate, 0)
	}
	switches := len(g.names) - g.HostCount()
	g.Shape = fmt.Sprintf("InfiniBand fabric of %d hosts, %d switches and %d cables (ibnetdiscover)", g.HostCount(), switches, len(g.Links)/2)
	if lfts != nil {
		if err := b.tables(lfts); err != nil {
			return nil, err
		}
	}
	return NewGraph(g)
}

// tables sets g.Forward from the switches' forwarding tables: a switch
// sends traffic for a host out of the port its table gives for the LID
// of the host's first adapter port.
func (b *ibBuild) tables(lfts map[uint64]*lft) error {
	g := b.g
	hostLID := make([]int, g.HostCount())
	for _, n := range b.ib.order {
		h := g.hostN[b.vertex[n]]
		if n.kind != 'H' || hostLID[h] != 0 {
			continue
		}
		for _, p := range n.portNumbers() {
			if lid := n.ports[p].lid; lid > 0 && n.ports[p].peer != nil {
				hostLID[h] = lid
				break
			}
		}
	}
	tab := make([]*lft, len(g.names))
	for guid, t := range lfts {
		n := b.ib.nodes[guid]
		if n == nil || n.kind == 'H' {
			named := "" // the fdbs dumps name switches by GUID alone
			if t.desc != "" {
				named = " (" + t.desc + ")"
			}
			return fmt.Errorf("%s: the forwarding table of switch guid 0x%016x%s: the ibnetdiscover output has no such switch", t.where, guid, named)
		}
		tab[b.vertex[n]] = t
	}
	ports := make([]map[int]int32, len(g.names))
	for n, v := range b.vertex {
		if n.kind != 'H' {
			ports[v] = b.out[n]
		}
	}
	g.Forward = func(sw int32, h int) int32 {
		p := tab[sw].out(hostLID[h])
		if p == noPort {
			return -1
		}
		if l, ok := ports[sw][p]; ok {
			return l
		}
		return -2
	}
	return nil
}
