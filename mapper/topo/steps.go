package topo

import (
	"maps"
	"math"
	"slices"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/fabric"
)

// stepBound is what the declared links let a group send out in a step
// of the switch phase: bytes per second, and the class of the links
// that bind it ("": none on its routes declares a bandwidth, or links of
// two classes bind it as much, so the step measures neither alone).
type stepBound struct {
	bps   float64
	class string
}

// PhaseShifts is how many shift steps the node and switch phases sample
// (a node phase step takes about 1.5 s: bench's nodeBWMessages).
const PhaseShifts = 4

// Shifts samples the shift steps 1 ... peers-1 of a phase among peers:
// all of them up to PhaseShifts, else PhaseShifts spread evenly.
func Shifts(peers int) []int {
	n := peers - 1
	if n <= PhaseShifts {
		out := make([]int, max(n, 0))
		for i := range out {
			out[i] = i + 1
		}
		return out
	}
	out := make([]int, PhaseShifts)
	for j := range out {
		out[j] = 1 + j*(n-1)/(PhaseShifts-1)
	}
	return out
}

// SwitchShifts is the switch phase's steps at a level whose largest set
// of siblings has most groups: Shifts(most), then the pair step (0).
func SwitchShifts(most int) []int {
	shifts := Shifts(most)
	if most > 2 {
		shifts = append(shifts, 0)
	}
	return shifts
}

// SwitchPeer is the group the host at position pos of a group sends to
// in the switch phase's step of shift (0: the pair step), the group
// being at index idx among its siblings sib (Siblings); -1 where it sends
// in no step of that shift. With one sibling it sends to it in every
// shift step; with m of them it sends to the rest, to sibling
// idx+1+(s'-1+pos) mod (m-1) of the m, s' = 1 + (shift-1) mod (m-1),
// and in the pair step to the next sibling alone.
func SwitchPeer(sib []int, idx, shift, pos int) int {
	m := len(sib)
	switch {
	case m < 2, m == 2 && shift == 0:
		return -1
	case m == 2, shift == 0:
		return sib[(idx+1)%m]
	}
	s1 := 1 + (shift-1)%(m-1)
	return sib[(idx+1+(s1-1+pos)%(m-1))%m]
}

// routedSteps routes the switch phase's steps at one level over f as
// the phase runs them (bench.SwitchPhase): every group of the level at
// once, each with its siblings (sib, idx: Siblings; members[g] its
// hosts, fhost[h] host h's in f), in the steps SwitchShifts names, each
// host to the host at its position in the group SwitchPeer names. Each
// flow loads the links of its route, and those of the route back with
// f's cross traffic (Reverse), each by the share of its bytes that
// crosses it (Fabric.RouteShares), as the model routes it: counted
// whole on one of its shortest paths where the model spreads it over
// them, a group of a dragonfly found in the round trips was allowed
// 1235 MB/s to another over the two links between them, and its links
// were priced at 177%. A group's aggregate is its flows over
// the most loaded link (load over bandwidth) on their routes either way.
// rest[g] is the median over the shift steps (switchbw.csv's rows do not
// say which shift a row is); pair[g] the step to one sibling (the only
// step of a group with one sibling).
//
// Routed as the group alone, its flows and their way back only, the
// steps to the rest of the dragonfly of 4 groups of 4 routers of 4
// nodes (2 global links a pair of groups) were bound by the global
// links, at 15.9 GB/s out of a group; the phase measured 11.3. What the
// other groups send in at once shares the local links that carry a
// group's flows to its global links.
func routedSteps(f *fabric.Fabric, fhost []int, members [][]int, sib [][]int, idx []int) (rest, pair []stepBound) {
	ng := len(members)
	most := 0
	for _, s := range sib {
		most = max(most, len(s))
	}
	rest, pair = make([]stepBound, ng), make([]stepBound, ng)
	restBy := make([][]float64, ng)
	restClass := make([]map[string]int, ng)
	load := make([]float64, len(f.Links))
	var on [][]int32 // each group's links this step
	for _, s := range SwitchShifts(most) {
		clear(load)
		on = on[:0]
		flows := make([]int, ng)
		for g := range members {
			var links []int32
			for p, h := range members[g] {
				to := SwitchPeer(sib[g], idx[g], s, p)
				if to < 0 || p >= len(members[to]) {
					continue
				}
				flows[g]++
				a, b := fhost[h], fhost[members[to][p]]
				f.RouteShares(a, b, func(l int32, x float64) { load[l] += x; links = append(links, l) })
				if f.Reverse > 0 {
					f.RouteShares(b, a, func(l int32, x float64) { load[l] += f.Reverse * x; links = append(links, l) })
				}
			}
			on = append(on, links)
		}
		for g := range members {
			if flows[g] == 0 {
				continue
			}
			bps, class := bound(f, load, on[g], flows[g])
			switch {
			case s == 0 || len(sib[g]) == 2:
				pair[g] = stepBound{bps, class}
			default:
				restBy[g] = append(restBy[g], bps)
				if restClass[g] == nil {
					restClass[g] = map[string]int{}
				}
				restClass[g][class]++
			}
		}
	}
	for g := range rest {
		rest[g] = medianBound(restBy[g], restClass[g])
	}
	return rest, pair
}

// medianBound is the median of a group's shifts' aggregates bps, with
// the class that binds most of them (of their count by class), none
// where it binds half of them or fewer.
func medianBound(bps []float64, by map[string]int) stepBound {
	if len(bps) == 0 {
		return stepBound{}
	}
	class, n := "", 0
	for _, c := range slices.Sorted(maps.Keys(by)) {
		if by[c] > n {
			class, n = c, by[c]
		}
	}
	if 2*n <= len(bps) {
		class = ""
	}
	return stepBound{stats.Median(bps), class}
}

// bound is flows over the most loaded of links (load over declared
// bandwidth), in bytes per second, and that link's class; 0 and "" when
// none declares a bandwidth, or links of another class are as loaded.
func bound(f *fabric.Fabric, load []float64, links []int32, flows int) (float64, string) {
	worst, class := 0.0, ""
	for _, l := range links {
		if bw := f.Links[l].Bandwidth; bw > 0 && load[l]/bw > worst {
			worst, class = load[l]/bw, f.Links[l].Class
		}
	}
	if worst == 0 || math.IsInf(worst, 0) {
		return 0, ""
	}
	for _, l := range links {
		if bw := f.Links[l].Bandwidth; bw > 0 && f.Links[l].Class != class && load[l]/bw >= worst*(1-1e-9) {
			return 0, ""
		}
	}
	return float64(flows) / worst, class
}
