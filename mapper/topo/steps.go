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

// maxRoutedShifts bounds the shifts of a level's step to the rest that
// routedSteps routes (evenly spaced beyond).
const maxRoutedShifts = 16

// routedSteps routes the switch phase's steps at one level over f as
// the phase runs them (bench.SwitchPhase): every group of the level at
// once, each with its siblings (sib, idx: Siblings; members[g] its
// hosts, fhost[h] host h's in f). A group of one sibling sends to it; of
// more, to the rest: in shift s the host at position p of sibling j
// sends to sibling j+1+(s-1+p) mod (m-1) of the m; then, in the pair
// step, every such group to its next sibling alone; each host to the
// host at its position in the group it sends to. Each flow loads the
// links of its route, and those of the route back with f's cross
// traffic (Reverse). A group's aggregate is its flows over the most
// loaded link (load over bandwidth) on their routes either way. rest[g]
// is the median over the shifts (switchbw.csv's rows do not say which
// shift a row is); pair[g] the step to one sibling (the only step of a
// group with one sibling).
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
	if most < 2 {
		return rest, pair
	}
	// peer is the group host position p of group g sends to in shift s
	// (0: the pair step), or -1.
	peer := func(g, p, s int) int {
		set, m := sib[g], len(sib[g])
		switch {
		case m < 2, m == 2 && s == 0:
			return -1
		case m == 2, s == 0:
			return set[(idx[g]+1)%m]
		}
		s1 := 1 + (s-1)%(m-1)
		return set[(idx[g]+1+(s1-1+p)%(m-1))%m]
	}
	shifts := routedShifts(most - 1)
	if most > 2 {
		shifts = append(shifts, 0)
	}
	restBy := make([][]float64, ng)
	restClass := make([]map[string]int, ng)
	load := make([]float64, len(f.Links))
	var on [][]int32 // each group's links this step
	for _, s := range shifts {
		clear(load)
		on = on[:0]
		flows := make([]int, ng)
		for g := range members {
			var links []int32
			for p, h := range members[g] {
				to := peer(g, p, s)
				if to < 0 || p >= len(members[to]) {
					continue
				}
				flows[g]++
				a, b := fhost[h], fhost[members[to][p]]
				f.Route(a, b, func(l int32) { load[l]++; links = append(links, l) })
				if f.Reverse > 0 {
					f.Route(b, a, func(l int32) { load[l] += f.Reverse; links = append(links, l) })
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

// routedShifts is 1 ... n, or maxRoutedShifts of them evenly spaced.
func routedShifts(n int) []int {
	k := min(n, maxRoutedShifts)
	out := make([]int, k)
	for j := range out {
		out[j] = j + 1
		if n > maxRoutedShifts {
			out[j] = 1 + j*(n-1)/(k-1)
		}
	}
	return out
}
