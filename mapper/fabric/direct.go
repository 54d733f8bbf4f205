package fabric

import (
	"fmt"
	"slices"
	"sync"
)

// MaxDirectHosts bounds a direct network's hosts: its route table holds
// a hop count for every pair.
const MaxDirectHosts = 4096

// NewDirect is a direct network: hosts joined by a full-duplex link of
// bw bytes/s and lat seconds for each pair in links, and no switch (a
// torus's or a mesh's, found in a survey's round trips rather than
// declared: topo.FindDirect). Its routing is not known: Route takes one
// shortest path (from each host on it, to the lowest-numbered neighbour
// one hop nearer the destination), RouteShares spreads a message evenly
// over the shortest paths, host by host. On a torus routed in dimension
// order the one path can load a link with two flows where the machine
// loads it with one (a ring's row ends on a 4 x 4 torus); the even
// spread loads it with half of each.
func NewDirect(hosts []string, links [][2]int32, bw, lat float64) (*Fabric, error) {
	k := len(hosts)
	if k > MaxDirectHosts {
		return nil, fmt.Errorf("a direct network of %d hosts is more than the %d its route table holds", k, MaxDirectHosts)
	}
	s := linkSet{}
	// out[a] lists a's neighbours and the link to each, by neighbour.
	type hop struct{ to, link int32 }
	out := make([][]hop, k)
	for _, l := range links {
		a, b := l[0], l[1]
		if a < 0 || b < 0 || int(a) >= k || int(b) >= k || a == b {
			return nil, fmt.Errorf("link between hosts %d and %d of %d", a, b, k)
		}
		up, down := s.duplex(fmt.Sprintf("direct_%s_to_%s", hosts[a], hosts[b]), "direct", bw, lat)
		out[a], out[b] = append(out[a], hop{b, up}), append(out[b], hop{a, down})
	}
	nbrs := make([][]int32, k)
	for a := range out {
		slices.SortFunc(out[a], func(x, y hop) int { return int(x.to - y.to) })
		for _, h := range out[a] {
			nbrs[a] = append(nbrs[a], h.to)
		}
	}
	dist := HopTable(nbrs)
	for _, d := range dist[:k] {
		if d == Unreached {
			return nil, fmt.Errorf("the links do not join all %d hosts", k)
		}
	}
	f := &Fabric{Kind: KindDirect, Shape: fmt.Sprintf("direct network of %d nodes and %d links, shortest paths", k, len(links)), Hosts: hosts, Links: s.links}
	f.route = func(a, b int, visit func(int32)) {
		for cur := a; cur != b; {
			here := dist[b*k+cur]
			for _, h := range out[cur] {
				if dist[b*k+int(h.to)] == here-1 {
					visit(h.link)
					cur = int(h.to)
					break
				}
			}
		}
	}
	share := make([]float64, k)
	var order []int32
	var mu sync.Mutex // share and order are one walk's
	f.shares = func(a, b int, visit func(int32, float64)) {
		mu.Lock()
		defer mu.Unlock()
		// The hosts on a shortest path from a, farthest from b first: each
		// passes its share on evenly to its neighbours one hop nearer.
		order = append(order[:0], int32(a))
		share[a] = 1
		for i := 0; i < len(order); i++ {
			cur := int(order[i])
			here, next := dist[b*k+cur], 0
			for _, h := range out[cur] {
				if dist[b*k+int(h.to)] == here-1 {
					next++
				}
			}
			for _, h := range out[cur] {
				if to := int(h.to); dist[b*k+to] == here-1 {
					if share[to] == 0 && to != b {
						order = append(order, h.to)
					}
					visit(h.link, share[cur]/float64(next))
					share[to] += share[cur] / float64(next)
				}
			}
			share[cur] = 0
		}
		share[b] = 0
	}
	return f, nil
}

// Unreached is HopTable's count between hosts no path joins.
const Unreached = ^uint16(0)

// HopTable is the number of hops between every two of len(nbrs) hosts
// (nbrs[a]: a's neighbours), by breadth-first search: entry b*k+a is the
// hops from a to b, Unreached where no path joins them.
func HopTable(nbrs [][]int32) []uint16 {
	k := len(nbrs)
	dist := make([]uint16, k*k)
	for i := range dist {
		dist[i] = Unreached
	}
	queue := make([]int32, 0, k)
	for b := 0; b < k; b++ {
		row := dist[b*k : (b+1)*k]
		row[b] = 0
		queue = append(queue[:0], int32(b))
		for i := 0; i < len(queue); i++ {
			u := queue[i]
			for _, v := range nbrs[u] {
				if row[v] == Unreached {
					row[v] = row[u] + 1
					queue = append(queue, v)
				}
			}
		}
	}
	return dist
}
