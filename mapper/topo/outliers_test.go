package topo

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

// outlierSurvey is a synthetic survey of nodes x 2 ranks at 256 KiB (20 us
// inside a node, 10 ms between nodes, 10% noise) with the round trips of
// the pairs slow() names multiplied by 4.
func outlierSurvey(nodes int, seed uint64, slow func(ha, hb int) bool) *survey.Survey {
	s := synth.New(synth.Spec{Nodes: nodes, Sockets: 1, Cores: 2, RTT: [4]float64{20, 20, 10000, 10000}, Noise: 0.1, Seed: seed, Size: 256 << 10})
	t := s.Tables[0]
	host, _ := survey.HostIndex(s.Ranks)
	n := s.N()
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			if host[a] != host[b] && slow(host[a], host[b]) {
				i := survey.TriIndex(n, a, b)
				for _, m := range []survey.Metric{survey.Mean, survey.Median, survey.Min, survey.P99} {
					t.Values[m][i] *= 4
				}
			}
		}
	}
	return s
}

// TestFindOutliers: injected slow nodes and links are named exactly, a
// slow node's links are not also named as slow links, and noise alone
// names nothing, over several noise seeds.
func TestFindOutliers(t *testing.T) {
	node := func(x int) func(a, b int) bool { return func(a, b int) bool { return a == x || b == x } }
	link := func(x, y int) func(a, b int) bool {
		return func(a, b int) bool { return a == x && b == y || a == y && b == x }
	}
	cases := []struct {
		name         string
		nodes        int
		slow         func(a, b int) bool
		nodesW, link []string
	}{
		{"none", 6, func(int, int) bool { return false }, nil, nil},
		{"slow node", 6, node(2), []string{"node002"}, nil},
		{"slow link", 6, link(1, 4), nil, []string{"node001-node004"}},
		{"both", 6, func(a, b int) bool { return node(5)(a, b) || link(0, 3)(a, b) }, []string{"node005"}, []string{"node000-node003"}},
		{"slow node of 4", 4, node(3), []string{"node003"}, nil},
	}
	for _, c := range cases {
		for seed := uint64(1); seed <= 5; seed++ {
			o, err := FindOutliers(outlierSurvey(c.nodes, seed, c.slow))
			if err != nil {
				t.Fatal(err)
			}
			var gotN, gotL []string
			for _, n := range o.SlowNodes {
				gotN = append(gotN, n.Host)
			}
			for _, l := range o.SlowLinks {
				gotL = append(gotL, l.A+"-"+l.B)
			}
			if !reflect.DeepEqual(gotN, c.nodesW) || !reflect.DeepEqual(gotL, c.link) || len(o.SlowInside) != 0 {
				t.Errorf("%s (seed %d): slow nodes %v, links %v, inside %v; want %v, %v\n%v", c.name, seed, gotN, gotL, o.SlowInside, c.nodesW, c.link, o.Lines())
			}
			if o.SizeBytes != 256<<10 || o.Ratio != OutlierRatioBandwidth {
				t.Errorf("judged at %d B with ratio %v, want the 256 KiB table and %v", o.SizeBytes, o.Ratio, OutlierRatioBandwidth)
			}
		}
	}
}

// TestNoOutliersOnRealLogs: the real mmpi logs of Blue Gene, Mira,
// Stampede and Blue Waters 4x32 name no outlier (on Blue Waters one node
// sits at 1.45x the others by torus distance alone: below the latency
// bar). The Blue Waters 32x1 log, whose 496 node pairs spread from 6 to
// 45 us, names its 4 pairs above 3x the median and median + 5 MADs.
func TestNoOutliersOnRealLogs(t *testing.T) {
	for _, c := range []struct {
		log   string
		links int
	}{
		{"blue_gene_ammpi_32_64_100.dat", 0}, {"mira_2x16_ammpi_32_64_100.dat", 0}, {"stampede_2x16_ammpi_32_64_100.dat", 0},
		{"bw_4x32_ammpi_128_64_100.dat", 0}, {"bw_32x1_ammpi_32_64_100.dat", 4},
	} {
		s := readTestLog(t, c.log, survey.MMPIOptions{})
		o, err := FindOutliers(s)
		if err != nil {
			t.Fatal(err)
		}
		if o == nil {
			continue // one host
		}
		if len(o.SlowNodes) != 0 || len(o.SlowLinks) != c.links || len(o.SlowInside) != 0 {
			t.Errorf("%s: %s", c.log, fmt.Sprint(o.Lines()))
		}
		for _, l := range o.SlowLinks {
			if l.Slowdown < 3 {
				t.Errorf("%s: link %s-%s named at %.2fx", c.log, l.A, l.B, l.Slowdown)
			}
		}
	}
}

// TestFindOutliersSlowInside: a node whose own pairs (4 ranks, 6 pairs)
// are 4 times slower than inside the other nodes is named slow inside;
// with 2 ranks a node (one pair) no node is judged.
func TestFindOutliersSlowInside(t *testing.T) {
	for _, cores := range []int{4, 2} {
		s := synth.New(synth.Spec{Nodes: 5, Sockets: 1, Cores: cores, RTT: [4]float64{20, 20, 10000, 10000}, Noise: 0.1, Seed: 3, Size: 256 << 10})
		host, _ := survey.HostIndex(s.Ranks)
		n := s.N()
		for a := 0; a < n; a++ {
			for b := a + 1; b < n; b++ {
				if host[a] == 1 && host[b] == 1 {
					for _, m := range []survey.Metric{survey.Mean, survey.Median, survey.Min, survey.P99} {
						s.Tables[0].Values[m][survey.TriIndex(n, a, b)] *= 4
					}
				}
			}
		}
		o, err := FindOutliers(s)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if cores == 4 {
			want = 1
		}
		if len(o.SlowInside) != want || (want == 1 && o.SlowInside[0].Host != "node001") || len(o.SlowNodes)+len(o.SlowLinks) != 0 {
			t.Errorf("%d cores: %v", cores, o.Lines())
		}
	}
}

// noisySurvey is 4 nodes x 2 ranks with inside-node medians of 52, 59, 93
// and 58 us and cross-node ones of 140-190 us (8 ranks sharing 2 cpus on
// the virtual cluster), each pair's minimum wander below its median.
func noisySurvey(wander float64) *survey.Survey {
	s := synth.New(synth.Spec{Nodes: 4, Sockets: 1, Cores: 2, RTT: [4]float64{50, 50, 150, 150}, Noise: 0, Seed: 1})
	t := s.Tables[0]
	n := s.N()
	inside := []float64{52, 59, 93, 58}
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			i := survey.TriIndex(n, a, b)
			v := 140 + float64((a*7+b*3)%50)
			if a/2 == b/2 {
				v = inside[a/2]
			}
			t.Values[survey.Median][i], t.Values[survey.Mean][i] = float32(v), float32(v)
			t.Values[survey.Min][i] = float32(v - wander*v/100)
		}
	}
	return s
}

// TestNoiseMakesNoLevel: inside-node round trips of 52-93 us whose pairs
// wander by 35-65% below their medians are one level, not "switch"
// levels; the same medians measured tightly (1% wander) keep the split.
func TestNoiseMakesNoLevel(t *testing.T) {
	names := func(tp *Topology) []string {
		var out []string
		for _, l := range tp.Levels {
			out = append(out, l.Name)
		}
		return out
	}
	tp, err := Infer(noisySurvey(60), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range tp.Levels {
		if strings.HasPrefix(l.Name, "switch") {
			t.Errorf("noisy pairs made levels %v", names(tp))
		}
	}
	tight, err := Infer(noisySurvey(1), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(tight.Levels) <= len(tp.Levels) {
		t.Errorf("tight pairs: levels %v, noisy: %v; want the tight survey to keep more levels", names(tight), names(tp))
	}
}

// TestRestMedian: the binary-search median of all minus a part of it equals
// the median of the rest built and sorted, with ties and both parities.
func TestRestMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 500; trial++ {
		n := 2 + rng.IntN(40)
		all := make([]float64, n)
		for i := range all {
			all[i] = float64(rng.IntN(8)) // ties
		}
		cut := rng.IntN(n - 1) // leave at least one
		perm := rng.Perm(n)
		var sub, rest []float64
		for k, i := range perm {
			if k < cut {
				sub = append(sub, all[i])
			} else {
				rest = append(rest, all[i])
			}
		}
		slices.Sort(all)
		slices.Sort(sub)
		if got, want := restMedian(all, sub), stats.Median(rest); got != want {
			t.Fatalf("all %v minus %v: %v, want %v", all, sub, got, want)
		}
	}
}

// TestWideNetworkKeepsNodes is CI's cyclic survey at 256 KiB on the
// virtual cluster (2 nodes x 2 ranks, 400 Mbit/s links): inside nodes 57
// and 119 us, each wandering 10 us; between nodes 19.0-19.6 ms, wandering
// 9.0-9.8 ms below their medians (a shaped link's queue over 10 ms on
// the wire). The network wandered down (9.8 ms) is still 76x the node
// wandered up (129 us): a level (clearGap), though twice the larger
// wander is wider than the step; taken as noise, it put pair 0-2 in the
// network and made three nodes of two hosts.
func TestWideNetworkKeepsNodes(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 2, Sockets: 1, Cores: 2, Layout: "cyclic", RTT: [4]float64{50, 50, 15000, 15000}, Seed: 1})
	tb := s.Tables[0]
	n := s.N()
	across := []float64{19000, 19512, 19560, 19601}
	wander := []float64{9000, 9710, 9720, 9800}
	k := 0
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			i := survey.TriIndex(n, a, b)
			v, w := 0.0, 10.0
			switch {
			case a == 0 && b == 2:
				v = 119
			case a == 1 && b == 3:
				v = 57
			default:
				v, w = across[k], wander[k]
				k++
			}
			tb.Values[survey.Median][i], tb.Values[survey.Mean][i] = float32(v), float32(v)
			tb.Values[survey.Min][i] = float32(v - w)
		}
	}
	tp, err := Infer(s, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var nodes []int
	for _, r := range tp.Ranks {
		nodes = append(nodes, r.Node)
	}
	if !slices.Equal(nodes, []int{0, 1, 0, 1}) || tp.Layout != LayoutCyclic {
		t.Errorf("nodes %v, layout %q; want [0 1 0 1], cyclic; levels %+v", nodes, tp.Layout, tp.Levels)
	}
}

// TestOutliersAllowForInterference: a node whose links are 4x slower
// than the other node pairs is named when nothing else slowed them, and
// when the survey's concurrent rounds slowed a level's pairs 2x (meta.json's
// fit_factors: 1.5 x 2 = 3x is the bar); not when they slowed them 3x
// (4.5x the bar), as the schedule alone may make such a node. A factor of
// the pairs inside a node, or of another size, does not count.
func TestOutliersAllowForInterference(t *testing.T) {
	slow := func(a, b int) bool { return a == 2 || b == 2 }
	for _, c := range []struct {
		ff    []survey.FitFactor
		named bool
		inter float64
	}{
		{nil, true, 0},
		{[]survey.FitFactor{{SizeBytes: 256 << 10, Level: "network", Factor: 2}}, true, 2},
		{[]survey.FitFactor{{SizeBytes: 256 << 10, Level: "same level-1 switch", Factor: 1.2}, {SizeBytes: 256 << 10, Level: "network", Factor: 3}}, false, 3},
		{[]survey.FitFactor{{SizeBytes: 256 << 10, Level: "same node", Factor: 10}, {SizeBytes: 64, Level: "network", Factor: 10}}, true, 0},
	} {
		for seed := uint64(1); seed <= 3; seed++ {
			s := outlierSurvey(6, seed, slow)
			s.Meta.FitFactors = c.ff
			o, err := FindOutliers(s)
			if err != nil {
				t.Fatal(err)
			}
			named := len(o.SlowNodes) == 1 && o.SlowNodes[0].Host == "node002"
			if named != c.named || len(o.SlowLinks) != 0 || o.Interference != c.inter || o.Ratio != OutlierRatioBandwidth*max(1, c.inter) {
				t.Errorf("fit factors %+v (seed %d): node002 named %v, want %v; interference %v, ratio %v\n%s", c.ff, seed, named, c.named, o.Interference, o.Ratio, strings.Join(o.Lines(), "\n"))
			}
		}
	}
}
