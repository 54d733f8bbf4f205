package placement

import (
	"fmt"
	"hash/fnv"
	"math"
	"testing"

	"github.com/latmap/latmap/bench"
	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/topo"
)

// slowBins are the lower bounds of the slowdowns BenchmarkSimProbeRoutes
// counts pairs of flows by.
var slowBins = []float64{0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.7, 1.9}

// BenchmarkSimProbeRoutes: how well the routes place prices judge which
// flows share a link, against the flows' own sharing inside the
// simulation (every pair of flows of four distinct hosts moved two at a
// time, probeEveryPair), on the two Aries fragments and every built
// network: the declared network's routes (as the platform was written:
// a check of the comparison), the network found in the survey's round
// trips as place routes it, and, where place holds a proposal to both
// (Model.Either), the same routed with every flow spread over its
// shortest paths. Two flows slow each other in a routing as
// topo.CheckProbe judges them (topo.FlowSlowdown: each alone at its
// narrowest link, together shared max-min fair on their common links)
// past a threshold, as the truth: the survey's (bench.ProbeSlowed) and
// shareSlowdown. It also counts the pairs by how much they slowed each
// other: what the survey's threshold must fall between. It says what a probe would tell place where the round trips
// cannot. Run it with go test -run '^$' -bench SimProbeRoutes
// -benchtime 1x ./placement/.
func BenchmarkSimProbeRoutes(b *testing.B) {
	clusters, names := probedClusters(b)
	for b.Loop() {
		for x, c := range clusters {
			flows, lf := buildFlows(b, c)
			slow := pairSlowdowns(b, c.run(b, c.hosts, "flows", lf))
			spread := make([]int, len(slowBins))
			for _, s := range slow {
				k := 0
				for k+1 < len(slowBins) && s > slowBins[k+1] {
					k++
				}
				spread[k]++
			}
			truth := map[float64]map[[2]int]bool{}
			for _, thr := range []float64{bench.ProbeSlowed, shareSlowdown} {
				truth[thr] = map[[2]int]bool{}
				for p, s := range slow {
					if s > thr {
						truth[thr][p] = true
					}
				}
			}
			declared, err := fabric.ReadAll(c.declared)
			if err != nil {
				b.Fatal(err)
			}
			sv := c.survey(b, "all", []int{64, 1 << 20}, 10)
			in, err := loadInputs(Options{Survey: sv, Matrix: writeMatrix(b, []profile.Flow{{Src: 0, Dst: 1, Bytes: 1e6, Messages: 1}}), Ranks: len(c.hosts) * c.cores})
			if err != nil {
				b.Fatal(err)
			}
			fmt.Printf("\n%s: %d flows, %d pairs of them slowed past %.1fx in the simulation, %d past %.1fx; pairs by slowdown:",
				names[x], len(flows), len(truth[shareSlowdown]), shareSlowdown, len(truth[bench.ProbeSlowed]), bench.ProbeSlowed)
			for k, lo := range slowBins {
				fmt.Printf(" %.1f- %d", lo, spread[k])
			}
			fmt.Printf("\n%-22s %9s %8s %14s %14s\n", "routes", "threshold", "agree", "slowed, apart", "apart, slowed")
			routings := []struct {
				name string
				f    *fabric.Fabric
			}{{"declared", declared}}
			if in.md.Routes != nil {
				routings = append(routings, struct {
					name string
					f    *fabric.Fabric
				}{"found", in.md.Routes.Fabric})
				if in.md.Either != nil && in.md.Either.Routes != nil {
					routings = append(routings, struct {
						name string
						f    *fabric.Fabric
					}{"found, spread", in.md.Either.Routes.Fabric})
				}
			} else {
				fmt.Printf("  (no network found in the survey: place prices the switch levels)\n")
			}
			apart, back := wayBack(declared, c.hosts, flows, slow)
			fmt.Printf("pairs slowed %.1f-%.1fx that the declared routes leave apart: %d, of which %d cross a link the other's way back crosses\n",
				slowBins[2], shareSlowdown, apart, back)
			most, least := gap(declared, c.hosts, flows, slow)
			fmt.Printf("the most slowed pair the declared routes leave apart: %.3fx; the least slowed they slow: %.3fx\n", most, least)
			for _, r := range routings {
				for _, thr := range []float64{bench.ProbeSlowed, shareSlowdown} {
					agree, falseShare, falseApart := judgeRoutes(r.f, c.hosts, flows, truth[thr], thr, nil)
					fmt.Printf("%-22s %9.1f %8d %14d %14d\n", r.name, thr, agree, falseShare, falseApart)
				}
			}
			if in.md.Routes != nil {
				fitHalf(in.md.Routes.Fabric, c.hosts, flows, truth[bench.ProbeSlowed])
			}
		}
	}
}

// judgeRoutes sets f's routes beside the truth for every two flows of
// four distinct hosts (flows between hosts, by index into names): how
// many it judges alike (topo.FlowSlowdown past threshold, as the truth
// was judged), how many it slows that are apart, and how many it leaves
// apart that share.
func judgeRoutes(f *fabric.Fabric, names []string, flows [][2]int, truth map[[2]int]bool, threshold float64, keep func(i, j int) bool) (agree, falseShare, falseApart int) {
	idx := f.HostIndex()
	slow := topo.FlowSlowdown(f)
	for i, x := range flows {
		for j := i + 1; j < len(flows); j++ {
			y := flows[j]
			if !disjointFlows(x, y) || keep != nil && !keep(i, j) {
				continue
			}
			shared := truth[[2]int{i, j}]
			switch s := slow(idx[names[x[0]]], idx[names[x[1]]], idx[names[y[0]]], idx[names[y[1]]]) > threshold; {
			case s == shared:
				agree++
			case shared:
				falseApart++
			default:
				falseShare++
			}
		}
	}
	return agree, falseShare, falseApart
}

// wayBack counts the pairs of flows slowed between slowBins[2] and
// shareSlowdown that f's routes leave apart (topo.FlowSlowdown at 1),
// and of those how many have one flow's route cross a link the other's
// way back (its destination to its source) crosses: SimGrid's cross
// traffic.
func wayBack(f *fabric.Fabric, names []string, flows [][2]int, slow map[[2]int]float64) (apart, back int) {
	idx := f.HostIndex()
	fs := topo.FlowSlowdown(f)
	path := func(a, b int) map[int32]bool {
		m := map[int32]bool{}
		f.Route(idx[names[a]], idx[names[b]], func(l int32) { m[l] = true })
		return m
	}
	crosses := func(x, y [2]int) bool {
		back := path(y[1], y[0])
		for l := range path(x[0], x[1]) {
			if back[l] {
				return true
			}
		}
		return false
	}
	for p, s := range slow {
		x, y := flows[p[0]], flows[p[1]]
		if s <= slowBins[2] || s > shareSlowdown || fs(idx[names[x[0]]], idx[names[x[1]]], idx[names[y[0]]], idx[names[y[1]]]) > 1 {
			continue
		}
		apart++
		if crosses(x, y) || crosses(y, x) {
			back++
		}
	}
	return apart, back
}

// gap is the most SimGrid slowed a pair of flows that f's routes leave
// apart, and the least it slowed a pair they slow (topo.FlowSlowdown
// above 1): a threshold between the two judges every pair as f does.
func gap(f *fabric.Fabric, names []string, flows [][2]int, slow map[[2]int]float64) (most, least float64) {
	idx := f.HostIndex()
	fs := topo.FlowSlowdown(f)
	least = math.Inf(1)
	for p, s := range slow {
		x, y := flows[p[0]], flows[p[1]]
		if fs(idx[names[x[0]]], idx[names[x[1]]], idx[names[y[0]]], idx[names[y[1]]]) > 1 {
			least = min(least, s)
		} else {
			most = max(most, s)
		}
	}
	return most, least
}

// fitHalf chooses the found network's routes (topo.FitProbe) on the
// verdicts of half the pairs of flows (every other pair, by a hash) as
// the simulation slowed them past bench.ProbeSlowed, each host its own
// router, and prints how the routes before and after judge the other
// half: the choice judged out of sample.
func fitHalf(f *fabric.Fabric, names []string, flows [][2]int, truth map[[2]int]bool) {
	at := map[[2]string]int{}
	for i, x := range flows {
		at[[2]string{names[x[0]], names[x[1]]}] = i
	}
	half := func(i, j int) bool {
		h := fnv.New32a()
		fmt.Fprint(h, min(i, j), max(i, j))
		return h.Sum32()%2 == 0
	}
	fit := topo.FitProbe(f, names, nil, bench.ProbeSlowed, func(x, y [2]string) (bool, bool) {
		i, j := at[x], at[y]
		return truth[[2]int{min(i, j), max(i, j)}], half(i, j)
	})
	if fit == nil {
		fmt.Printf("found, fitted: no fit (fewer than 4 or more than 64 hosts)\n")
		return
	}
	other := func(i, j int) bool { return !half(i, j) }
	for _, r := range []struct {
		name string
		g    *fabric.Fabric
	}{{"found, held-out half", f}, {"found, fitted on half", fit.Fabric}} {
		agree, falseShare, falseApart := judgeRoutes(r.g, names, flows, truth, bench.ProbeSlowed, other)
		fmt.Printf("%-22s %9.1f %8d %14d %14d\n", r.name, bench.ProbeSlowed, agree, falseShare, falseApart)
	}
	fmt.Printf("  fitted on %d pairs: %d judged wrong before, %d after, %d classes moved\n", fit.Pairs, fit.Before, fit.After, fit.Moved)
}
