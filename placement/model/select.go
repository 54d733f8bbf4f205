package model

import (
	"fmt"
	"sort"

	"github.com/latmap/latmap/internal/text"
	"github.com/latmap/latmap/mapper/placefile"
)

// SelectOptions choose which slots the ranks may use.
type SelectOptions struct {
	// Exclude lists hosts not to use.
	Exclude []string
	// RanksPerNode caps the ranks on one node (0: no cap).
	RanksPerNode int
}

// usable is every slot --exclude and --ranks-per-node leave, by node
// (sockets in order, cpus ascending), and how many there are.
func (m *Machine) usable(opt SelectOptions) (perNode [][]int32, total int, err error) {
	excl := map[string]bool{}
	for _, h := range opt.Exclude {
		excl[h] = true
	}
	for h := range excl {
		found := false
		for _, x := range m.Hosts {
			found = found || x == h
		}
		if !found {
			return nil, 0, fmt.Errorf("--exclude %s: no such host in the survey (hosts: %s)", h, text.HostList(m.Hosts))
		}
	}
	perNode = make([][]int32, len(m.Hosts))
	for i, s := range m.Slots {
		if !excl[s.Host] {
			perNode[s.Node] = append(perNode[s.Node], int32(i))
		}
	}
	for h := range perNode {
		sl := perNode[h]
		sort.SliceStable(sl, func(i, j int) bool {
			a, b := m.Slots[sl[i]], m.Slots[sl[j]]
			if a.Socket != b.Socket {
				return a.Socket < b.Socket
			}
			return a.CPU < b.CPU
		})
		if opt.RanksPerNode > 0 && len(sl) > opt.RanksPerNode {
			perNode[h] = sl[:opt.RanksPerNode]
		}
		total += len(perNode[h])
	}
	return perNode, total, nil
}

// UsableSlots is every slot the options leave, by node in survey order:
// what mpirun --map-by node deals ranks over.
func (m *Machine) UsableSlots(opt SelectOptions) ([]int32, error) {
	perNode, _, err := m.usable(opt)
	if err != nil {
		return nil, err
	}
	var out []int32
	for _, sl := range perNode {
		out = append(out, sl...)
	}
	return out, nil
}

// SelectSlots picks n slots: whole nodes first, the nodes with the most
// usable slots first (ties in survey order), and within a node sockets in
// order, cpus ascending. The result is grouped by node, in node order then
// socket then cpu. It fails when fewer than n slots are usable, saying how
// many are missing.
func (m *Machine) SelectSlots(n int, opt SelectOptions) ([]int32, error) {
	perNode, total, err := m.usable(opt)
	if err != nil {
		return nil, err
	}
	if total < n {
		return nil, fmt.Errorf("%d ranks need %d slots but the survey offers %d (after --exclude and --ranks-per-node): %d missing; "+
			"survey more ranks or relax --ranks-per-node/--exclude", n, n, total, n-total)
	}
	order := make([]int, len(perNode))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return len(perNode[order[i]]) > len(perNode[order[j]]) })
	var chosen []int
	left := n
	for _, h := range order {
		if left == 0 {
			break
		}
		if len(perNode[h]) == 0 {
			continue
		}
		chosen = append(chosen, h)
		left -= min(left, len(perNode[h]))
	}
	sort.Ints(chosen)
	// The node taken last (smallest) may be partly used.
	left = n
	var out []int32
	for _, h := range chosen {
		left -= len(perNode[h])
	}
	partial := -1
	if left < 0 {
		// The node with the fewest slots among the chosen gives back -left.
		partial = chosen[0]
		for _, h := range chosen {
			if len(perNode[h]) < len(perNode[partial]) || (len(perNode[h]) == len(perNode[partial]) && h > partial) {
				partial = h
			}
		}
	}
	for _, h := range chosen {
		sl := perNode[h]
		if h == partial {
			sl = sl[:len(sl)+left]
		}
		out = append(out, sl...)
	}
	return out, nil
}

// RankSlots are the host and cpu of each rank of place (rank -> slot),
// as launcher files name them.
func (m *Machine) RankSlots(place []int32) []placefile.RankSlot {
	out := make([]placefile.RankSlot, len(place))
	for r, s := range place {
		out[r] = placefile.RankSlot{Host: m.Slots[s].Host, Group: -1, CPU: m.Slots[s].CPU, Core: m.Slots[s].Core}
	}
	return out
}
