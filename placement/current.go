package placement

import (
	"fmt"

	"github.com/latmap/latmap/internal/text"
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/placement/model"
)

// slotsOf maps --current's placement file's ranks onto m's slots: the
// slot of the named host and cpu; without a cpu, the host's next usable
// slot in socket and cpu order; a Cray group takes the group-th host.
func slotsOf(m *model.Machine, ranks []placefile.RankSlot, n int) ([]int32, error) {
	if len(ranks) != n {
		return nil, fmt.Errorf("--current places %d ranks, the traffic has %d", len(ranks), n)
	}
	usable, err := m.UsableSlots(model.SelectOptions{})
	if err != nil {
		return nil, err
	}
	perNode := make([][]int32, len(m.Hosts))
	for _, s := range usable {
		perNode[m.Slots[s].Node] = append(perNode[m.Slots[s].Node], s)
	}
	host := map[string]int{}
	for i, h := range m.Hosts {
		host[h] = i
	}
	used := map[int32]bool{}
	next := make([]int, len(perNode))
	out := make([]int32, n)
	for r, rs := range ranks {
		node, ok := host[rs.Host]
		if rs.Group >= 0 {
			node, ok = rs.Group, rs.Group < len(m.Hosts)
		}
		if !ok {
			return nil, fmt.Errorf("--current: rank %d goes to %s, which the survey did not measure (hosts: %s)", r, rs.Host, text.HostList(m.Hosts))
		}
		slot := int32(-1)
		if rs.CPU >= 0 || rs.Core >= 0 {
			what, want, of := "cpu", rs.CPU, func(s int32) int { return m.Slots[s].CPU }
			if rs.CPU < 0 {
				// An Open MPI 5 rankfile names logical cores.
				what, want, of = "logical core", rs.Core, func(s int32) int { return m.Slots[s].Core }
			}
			for _, s := range perNode[node] {
				if of(s) == want {
					slot = s
				}
			}
			if slot < 0 {
				return nil, fmt.Errorf("--current: rank %d goes to %s %s %d, which the survey did not measure", r, m.Hosts[node], what, want)
			}
		} else {
			for next[node] < len(perNode[node]) && used[perNode[node][next[node]]] {
				next[node]++
			}
			if next[node] == len(perNode[node]) {
				return nil, fmt.Errorf("--current: more ranks on %s than the survey measured slots there (%d)", m.Hosts[node], len(perNode[node]))
			}
			slot = perNode[node][next[node]]
		}
		if used[slot] {
			return nil, fmt.Errorf("--current: rank %d shares %s cpu %d with another rank", r, m.Slots[slot].Host, m.Slots[slot].CPU)
		}
		used[slot] = true
		out[r] = slot
	}
	return out, nil
}
