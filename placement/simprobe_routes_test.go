package placement

import (
	"fmt"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/topo"
)

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
// past shareSlowdown, as the truth. It says what a probe would tell place where the round trips
// cannot. Run it with go test -run '^$' -bench SimProbeRoutes
// -benchtime 1x ./placement/.
func BenchmarkSimProbeRoutes(b *testing.B) {
	clusters, names := probedClusters(b)
	for b.Loop() {
		for x, c := range clusters {
			flows, _, truth := probeEveryPair(b, c)
			declared, err := fabric.ReadAll(c.declared)
			if err != nil {
				b.Fatal(err)
			}
			sv := c.survey(b, "all", []int{64, 1 << 20}, 10)
			in, err := loadInputs(Options{Survey: sv, Matrix: writeMatrix(b, []profile.Flow{{Src: 0, Dst: 1, Bytes: 1e6, Messages: 1}}), Ranks: len(c.hosts) * c.cores})
			if err != nil {
				b.Fatal(err)
			}
			fmt.Printf("\n%s: %d flows, %d pairs of them share a link in the simulation\n", names[x], len(flows), len(truth))
			fmt.Printf("%-22s %8s %14s %14s\n", "routes", "agree", "slowed, apart", "apart, slowed")
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
			for _, r := range routings {
				agree, falseShare, falseApart := judgeRoutes(r.f, c.hosts, flows, truth)
				fmt.Printf("%-22s %8d %14d %14d\n", r.name, agree, falseShare, falseApart)
			}
		}
	}
}

// judgeRoutes sets f's routes beside the truth for every two flows of
// four distinct hosts (flows between hosts, by index into names): how
// many it judges alike (topo.FlowSlowdown past shareSlowdown, as the
// truth), how many it slows that are apart, and how many it leaves
// apart that share.
func judgeRoutes(f *fabric.Fabric, names []string, flows [][2]int, truth map[[2]int]bool) (agree, falseShare, falseApart int) {
	idx := f.HostIndex()
	slow := topo.FlowSlowdown(f)
	for i, x := range flows {
		for j := i + 1; j < len(flows); j++ {
			y := flows[j]
			if !disjointFlows(x, y) {
				continue
			}
			shared := truth[[2]int{i, j}]
			switch s := slow(idx[names[x[0]]], idx[names[x[1]]], idx[names[y[0]]], idx[names[y[1]]]) > shareSlowdown; {
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
