package topo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

func readTestLog(t testing.TB, name string, opt survey.MMPIOptions) *survey.Survey {
	t.Helper()
	s, err := survey.ReadMMPIFile(filepath.Join("..", "..", "testdata", "mmpi", name), opt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// hostGroups numbers hosts in order of their first rank.
func hostGroups(s *survey.Survey) []int {
	idx := map[string]int{}
	out := make([]int, s.N())
	for i, r := range s.Ranks {
		if _, ok := idx[r.Host]; !ok {
			idx[r.Host] = len(idx)
		}
		out[i] = idx[r.Host]
	}
	return out
}

func inferredNodes(tp *Topology) []int {
	out := make([]int, len(tp.Ranks))
	for i, r := range tp.Ranks {
		out[i] = r.Node
	}
	return out
}

func TestInferTopologyRealLogs(t *testing.T) {
	tests := []struct {
		file         string
		layout       string
		ranksPerNode []int
		// desc is the start of the expected description.
		desc string
	}{
		{"bw_4x32_ammpi_128_64_100.dat", LayoutBlock, []int{32, 32, 32, 32}, "4 nodes x 32 ranks, block (ranks 0-31 on nid23543, 32-63 on nid23496"},
		{"stampede_2x16_ammpi_32_64_100.dat", LayoutBlock, []int{16, 16}, "2 nodes x 16 ranks, block (ranks 0-15 on c420-002"},
		{"bw_32x1_ammpi_32_64_100.dat", LayoutOnePerNode, nil, "32 nodes x 1 rank, one-per-node"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			s := readTestLog(t, tc.file, survey.MMPIOptions{})
			// The host names of these logs are node names (see
			// ../shared/data/README.md), so they are the truth; the
			// inference itself sees no host names, so
			// only the latencies can separate the nodes.
			truth := hostGroups(s)
			blind := *s
			blind.Ranks = append([]survey.Rank(nil), s.Ranks...)
			for i := range blind.Ranks {
				blind.Ranks[i].Host = ""
			}
			tb, err := Infer(&blind, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if got := inferredNodes(tb); !reflect.DeepEqual(got, truth) {
				t.Errorf("inferred nodes from latencies alone\n%v\nwant (host names)\n%v", got, truth)
			}
			if tb.Layout != tc.layout {
				t.Errorf("layout from latencies alone %q, want %q", tb.Layout, tc.layout)
			}
			// With the host names, they check the result and name nodes.
			tp, err := Infer(s, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if got := inferredNodes(tp); !reflect.DeepEqual(got, truth) {
				t.Errorf("inferred nodes\n%v\nwant (host names)\n%v", got, truth)
			}
			if !tp.HostsAgree || len(tp.Disagreements) != 0 {
				t.Errorf("hosts agree = %v, disagreements %q", tp.HostsAgree, tp.Disagreements)
			}
			if tp.Layout != tc.layout {
				t.Errorf("layout %q, want %q", tp.Layout, tc.layout)
			}
			if tc.ranksPerNode != nil && !reflect.DeepEqual(tp.RanksPerNode, tc.ranksPerNode) {
				t.Errorf("ranks per node %v, want %v", tp.RanksPerNode, tc.ranksPerNode)
			}
			if !strings.HasPrefix(tp.Description, tc.desc) {
				t.Errorf("description %q, want it to start with %q", tp.Description, tc.desc)
			}
			checkLevelsConsistent(t, tp, s.N())
		})
	}
}

// checkLevelsConsistent checks invariants every topology must satisfy.
func checkLevelsConsistent(t *testing.T, tp *Topology, n int) {
	t.Helper()
	pairs := 0
	for i, l := range tp.Levels {
		pairs += l.Pairs
		if l.RTTMin > l.RTTMedian || l.RTTMedian > l.RTTMax {
			t.Errorf("level %s: min %v median %v max %v out of order", l.Name, l.RTTMin, l.RTTMedian, l.RTTMax)
		}
		if i > 0 && l.RTTMedian < tp.Levels[i-1].RTTMedian {
			t.Errorf("level %s median %v below the level under it (%v)", l.Name, l.RTTMedian, tp.Levels[i-1].RTTMedian)
		}
	}
	if pairs != n*(n-1)/2 {
		t.Errorf("levels hold %d pairs, want %d", pairs, n*(n-1)/2)
	}
}

// TestInferTopologyBlueGene records what inference says on the two Blue
// Gene logs, where latencies cannot tell nodes apart: Mira's 2 x 16 ranks
// all talk in 17-21 us (the messaging unit is used within a node too), so
// the host names decide, and Blue Gene/L runs one rank per torus node.
func TestInferTopologyBlueGene(t *testing.T) {
	mira := readTestLog(t, "mira_2x16_ammpi_32_64_100.dat", survey.MMPIOptions{HostPattern: regexp.MustCompile(`R\d+-M\d+-N\d+-J\d+`)})
	tp, err := Infer(mira, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	// One level only: latencies cannot tell, so the host names decide and
	// a note says so.
	if tp.Nodes != 2 || tp.Layout != LayoutBlock || !tp.HostsAgree || len(tp.Notes) == 0 ||
		!strings.Contains(tp.Notes[0], "nodes are taken from the host names") {
		t.Errorf("Mira: %s (hosts agree %v), notes %q; want 2 nodes x 16 block from the host names, with the note", tp.Description, tp.HostsAgree, tp.Notes)
	}
	// Without the pattern every processor name differs: one rank per node.
	raw := readTestLog(t, "mira_2x16_ammpi_32_64_100.dat", survey.MMPIOptions{})
	if tp, err := Infer(raw, DefaultOptions()); err != nil || tp.Layout != LayoutOnePerNode {
		t.Errorf("Mira without --host-pattern: %v, %v; want one-per-node", tp, err)
	}
	t.Logf("Mira: %s; levels %+v; %q", tp.Description, tp.Levels, tp.Notes)
	bg := readTestLog(t, "blue_gene_ammpi_32_64_100.dat", survey.MMPIOptions{})
	tp, err = Infer(bg, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	// Blue Gene/L torus coordinates <x,y,z,t> with t = 0 everywhere: one
	// rank per node.
	if tp.Layout != LayoutOnePerNode || !tp.HostsAgree {
		t.Errorf("Blue Gene/L: layout %q, hosts agree %v; want one-per-node and agreement", tp.Layout, tp.HostsAgree)
	}
	t.Logf("Blue Gene/L: %s; levels %+v", tp.Description, tp.Levels)
}

func TestInferTopologySynthetic(t *testing.T) {
	tests := []struct {
		name   string
		spec   synth.Spec
		levels []string
		layout string
	}{
		{"4 nodes x 2 sockets x 8, two switches", synth.Spec{Nodes: 4, Sockets: 2, Cores: 8, NodesPerSwitch: 2, RTT: [4]float64{0.6, 1.0, 4, 7}, Noise: 0.05, Seed: 1},
			[]string{LevelSocket, LevelNode, LevelSwitch, LevelNetwork}, LayoutBlock},
		{"8 nodes x 1 socket x 16, one switch", synth.Spec{Nodes: 8, Sockets: 1, Cores: 16, RTT: [4]float64{0.7, 0.7, 13, 13}, Noise: 0.1, Seed: 2},
			[]string{LevelNode, LevelNetwork}, LayoutBlock},
		{"cyclic 4 x 2 x 4", synth.Spec{Nodes: 4, Sockets: 2, Cores: 4, Layout: LayoutCyclic, RTT: [4]float64{0.5, 0.8, 3, 3}, Noise: 0.05, Seed: 3},
			[]string{LevelSocket, LevelNode, LevelNetwork}, LayoutCyclic},
		{"heavy noise 6 x 12", synth.Spec{Nodes: 6, Sockets: 1, Cores: 12, RTT: [4]float64{2, 2, 6, 6}, Noise: 0.25, Seed: 4},
			[]string{LevelNode, LevelNetwork}, LayoutBlock},
		{"one node, two sockets", synth.Spec{Nodes: 1, Sockets: 2, Cores: 6, RTT: [4]float64{0.4, 0.9, 0, 0}, Noise: 0.05, Seed: 5},
			[]string{LevelSocket, LevelNode}, LayoutBlock},
		{"one per node, flat network", synth.Spec{Nodes: 24, Sockets: 1, Cores: 1, RTT: [4]float64{0, 0, 5, 5}, Noise: 0.1, Seed: 6},
			[]string{LevelNetwork}, LayoutOnePerNode},
		{"one per node, two switches", synth.Spec{Nodes: 24, Sockets: 1, Cores: 1, NodesPerSwitch: 12, RTT: [4]float64{0, 0, 5, 6.5}, Noise: 0.05, Seed: 7},
			[]string{LevelSwitch, LevelNetwork}, LayoutOnePerNode},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := synth.New(tc.spec)
			tp, err := Infer(s, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, l := range tp.Levels {
				names = append(names, l.Name)
			}
			if !reflect.DeepEqual(names, tc.levels) {
				t.Errorf("levels %v, want %v (%+v)", names, tc.levels, tp.Levels)
			}
			if got, want := inferredNodes(tp), hostGroups(s); !reflect.DeepEqual(got, want) {
				t.Errorf("nodes %v, want %v", got, want)
			}
			if tp.Layout != tc.layout {
				t.Errorf("layout %q, want %q (%s)", tp.Layout, tc.layout, tp.Description)
			}
			// Every level's pairs are the pairs of the matching true level.
			checkLevelsConsistent(t, tp, s.N())
		})
	}
}

func TestInferTopologySlowCore(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 4, Sockets: 1, Cores: 8, RTT: [4]float64{1, 1, 8, 8}, Noise: 0.03, Seed: 9})
	// Rank 5 on node000: everything it does takes 12 us longer.
	tab := s.Tables[0]
	for q := 0; q < s.N(); q++ {
		if q != 5 {
			i := survey.TriIndex(s.N(), 5, q)
			tab.Values[survey.Median][i] += 12
			tab.Values[survey.Mean][i] += 12
		}
	}
	tp, err := Infer(s, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if tp.HostsAgree {
		t.Fatalf("a rank 12 us slower than its node-mates passed the host check: %+v", tp)
	}
	found := false
	for _, d := range tp.Disagreements {
		found = found || strings.HasPrefix(d, "rank 5 is on host node000")
	}
	if !found {
		t.Errorf("no disagreement names rank 5: %q", tp.Disagreements)
	}
}

func TestClassifyLayout(t *testing.T) {
	tests := []struct {
		node []int
		want string
	}{
		{[]int{0, 0, 1, 1}, LayoutBlock},
		{[]int{0, 0, 0, 1}, LayoutBlock},
		{[]int{0, 1, 0, 1}, LayoutCyclic},
		{[]int{0, 1, 2, 0, 1, 2, 0}, LayoutCyclic},
		{[]int{0, 0, 1, 1, 0, 0, 1, 1}, LayoutCyclic}, // cyclic in blocks of 2
		{[]int{0, 1, 1, 0}, LayoutIrregular},
		{[]int{0, 1, 2, 3}, LayoutOnePerNode},
		{[]int{0, 0, 0}, LayoutBlock},
	}
	for _, tc := range tests {
		if got := ClassifyLayout(tc.node); got != tc.want {
			t.Errorf("ClassifyLayout(%v) = %q, want %q", tc.node, got, tc.want)
		}
	}
}

func TestFormatRanks(t *testing.T) {
	tests := []struct {
		in   []int
		want string
	}{
		{[]int{3}, "3"},
		{[]int{0, 1, 2, 3}, "0-3"},
		{[]int{0, 2, 4, 6, 8}, "0,2,...,8"},
		{[]int{1, 4, 5}, "1,4-5"},
		{[]int{0, 2, 4}, "0,2,4"},
	}
	for _, tc := range tests {
		if got := FormatRanks(tc.in); got != tc.want {
			t.Errorf("FormatRanks(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDescribeLayoutCyclic(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 2, Sockets: 1, Cores: 4, Layout: LayoutCyclic, RTT: [4]float64{1, 1, 9, 9}, Seed: 1})
	got := DescribeLayout([]int{0, 1, 0, 1, 0, 1, 0, 1}, s.Ranks)
	want := "2 nodes x 4 ranks, cyclic (ranks 0,2,...,6 on node000, 1,3,...,7 on node001)"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestAverageLinkageMissingPairs(t *testing.T) {
	// Two groups {0,1,2} and {3,4}; pair (0,1) unmeasured.
	d := [][]float64{
		{0, math.NaN(), 1, 9, 9},
		{0, 0, 1, 9, 9},
		{0, 0, 0, 9, 9},
		{0, 0, 0, 0, 1},
	}
	dg := AverageLinkage(5, func(a, b int) float64 { return d[a][b] })
	if got := dg.CutMerges(3); fmt.Sprint(got) != "[0 0 0 1 1]" {
		t.Errorf("three merges give %v, want [0 0 0 1 1]", got)
	}
	if h := dg.Merges[3].Height; h != 9 {
		t.Errorf("last merge at %v, want 9", h)
	}
}

// TestInferTopologyTorus puts 2, 3 and 4 ranks on each node of the real
// Blue Waters 32 x 1 network (its measured node-to-node round trips, 4.2 to
// 45 us, as the network) with 2.6 us within a node, the Blue Waters
// median, and 10% lognormal noise: the nearest nodes are then barely 1.6x
// the intra-node round trip and single pairs overlap, which one threshold
// or merge heights alone cannot separate. The inferred nodes must be
// exactly the nodes.
func TestInferTopologyTorus(t *testing.T) {
	net := readTestLog(t, "bw_32x1_ammpi_32_64_100.dat", survey.MMPIOptions{})
	for _, ppn := range []int{2, 3, 4} {
		n := 32 * ppn
		rng := rand.New(rand.NewPCG(uint64(ppn), 7))
		s := &survey.Survey{Meta: survey.SurveyMeta{Ranks: n}}
		for r := 0; r < n; r++ {
			s.Ranks = append(s.Ranks, survey.Rank{Rank: r, Host: fmt.Sprintf("n%02d", r/ppn)})
		}
		tab := survey.NewPairTable(n, 64, survey.Mean)
		for a := 0; a < n; a++ {
			for b := a + 1; b < n; b++ {
				v := 2.6
				if a/ppn != b/ppn {
					v = net.Tables[0].At(survey.Mean, a/ppn, b/ppn)
				}
				tab.Set(&survey.PairStats{A: a, B: b, Samples: 1, Mean: v * math.Exp(0.1*rng.NormFloat64())})
			}
		}
		s.Tables = []*survey.PairTable{tab}
		tp, err := Infer(s, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if got, want := inferredNodes(tp), hostGroups(s); !reflect.DeepEqual(got, want) {
			t.Errorf("%d ranks a node: %s; nodes %v", ppn, tp.Description, got)
		}
	}
}

// TestInferTopologyCyclicReferences: 1024 ranks dealt round robin over 8
// nodes. The profile's reference ranks are a sample at this size; a fixed
// stride of 1024/128 = 8 would put them all on node 0.
func TestInferTopologyCyclicReferences(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 8, Sockets: 2, Cores: 64, NodesPerSwitch: 2, Layout: LayoutCyclic,
		RTT: [4]float64{0.5, 0.9, 3, 5}, Noise: 0.08, Seed: 3})
	tp, err := Infer(s, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := inferredNodes(tp), hostGroups(s); !reflect.DeepEqual(got, want) || tp.Layout != LayoutCyclic {
		t.Fatalf("%s", tp.Description)
	}
	// Pairs per level: 8 nodes x 2 sockets x C(64, 2) on a socket, 8 x 64 x
	// 64 across sockets, 4 switches x 128 x 128 across a switch's nodes.
	want := map[string]int{LevelSocket: 8 * 2 * 64 * 63 / 2, LevelNode: 8 * 64 * 64, LevelSwitch: 4 * 128 * 128}
	for _, l := range tp.Levels {
		if w, ok := want[l.Name]; ok && l.Pairs != w {
			t.Errorf("level %s has %d pairs, want %d", l.Name, l.Pairs, w)
		}
	}
}

// TestInferTopologyMissingPairs leaves a fifth of the pairs unmeasured
// (NaN, as a partial survey has): the rest still place every rank.
func TestInferTopologyMissingPairs(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 4, Sockets: 2, Cores: 4, NodesPerSwitch: 2, RTT: [4]float64{0.6, 1.0, 4, 7}, Noise: 0.05, Seed: 21})
	rng := rand.New(rand.NewPCG(5, 5))
	tab := s.Tables[0]
	missing := 0
	for i := range tab.Samples {
		if rng.Float64() < 0.2 {
			for _, m := range []survey.Metric{survey.Mean, survey.Median, survey.Std, survey.Min, survey.P99} {
				tab.Values[m][i] = float32(math.NaN())
			}
			tab.Samples[i] = 0
			missing++
		}
	}
	tp, err := Infer(s, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := inferredNodes(tp), hostGroups(s); !reflect.DeepEqual(got, want) {
		t.Errorf("with %d of %d pairs missing: %s", missing, len(tab.Samples), tp.Description)
	}
	checkLevelsConsistent(t, tp, s.N())
}

// TestInferTopologyOversubscribedNode: 4 ranks on one host whose shared
// memory round trips are 2 us (an oversubscribed 2-core machine, as make
// demo measures): one level only, so the host names decide: one node.
func TestInferTopologyOversubscribedNode(t *testing.T) {
	s := &survey.Survey{}
	tab := survey.NewPairTable(4, 64)
	for i := 0; i < 4; i++ {
		s.Ranks = append(s.Ranks, survey.Rank{Rank: i, Host: "vm", CPU: i % 2})
		for j := i + 1; j < 4; j++ {
			v := 2 + 0.05*float64(i+j) // 2.05 .. 2.25 us
			tab.Set(&survey.PairStats{A: i, B: j, Size: 64, Samples: 100, Mean: v, Median: v, Min: v, P99: v, Std: 0.1, Isolated: math.NaN()})
		}
	}
	s.Tables = []*survey.PairTable{tab}
	tp, err := Infer(s, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if tp.Nodes != 1 || !tp.HostsAgree {
		t.Errorf("%s, hosts agree %v, disagreements %q; want 1 node x 4 ranks", tp.Description, tp.HostsAgree, tp.Disagreements)
	}
}

// TestOneHostSlowSharedMemory: an oversubscribed host (every round trip
// 3 us, too slow for latencies alone to call it one node) is one node from
// its host name, and its only level is the node, not a network.
func TestOneHostSlowSharedMemory(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 1, Sockets: 1, Cores: 4, RTT: [4]float64{3, 3, 3, 3}, Noise: 0.02, Seed: 4})
	tp, err := Infer(s, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if tp.Nodes != 1 || len(tp.Levels) != 1 || tp.Levels[0].Name != LevelNode || tp.NodeLevel != 0 {
		t.Errorf("one host: %d nodes, levels %+v (node level %d), want one node whose level is %q", tp.Nodes, tp.Levels, tp.NodeLevel, LevelNode)
	}
}

// TestOneRankPerHost: 16 hosts of one rank, 4 behind each switch (4 us
// round trips behind one, 8 us across). Nothing runs inside a node, so
// the quickest level is the switches', whose 4 us the latencies alone
// take for a node; the host names (each switch's ranks on 4 hosts) make
// each host its node and the 4 groups a switch level. With two ranks a
// host, where a level inside the hosts shows, the nodes are the hosts'
// all the same; named a host a rank (a processor's name for each core),
// their 0.5 us round trips are shared memory and stay nodes.
func TestOneRankPerHost(t *testing.T) {
	s := synth.New(synth.Spec{Nodes: 16, Sockets: 1, Cores: 2, NodesPerSwitch: 4, RTT: [4]float64{0.5, 0.5, 4, 8}, Noise: 0.02, Seed: 3})
	for r := range s.Ranks {
		s.Ranks[r].Host = fmt.Sprintf("core%d", r)
	}
	if tp, err := Infer(s, DefaultOptions()); err != nil || tp.Nodes != 16 {
		t.Errorf("a host name a rank, nodes at 0.5 us: %v, %+v; want the latencies' 16 nodes of 2", err, tp)
	}
	for _, cores := range []int{1, 2} {
		s := synth.New(synth.Spec{Nodes: 16, Sockets: 1, Cores: cores, NodesPerSwitch: 4, RTT: [4]float64{0.5, 0.5, 4, 8}, Noise: 0.02, Seed: 3})
		tp, err := Infer(s, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, l := range tp.Levels {
			names = append(names, fmt.Sprintf("%s %d", l.Name, l.Groups))
		}
		t.Logf("%d a host: %s; levels %v; notes %q", cores, tp.Description, names, tp.Notes)
		if tp.Nodes != 16 || !tp.HostsAgree || !slices.Contains(names, "switch 4") {
			t.Errorf("%d ranks a host: %d nodes (hosts agree %v), levels %v; want the 16 hosts as nodes under 4 switches", cores, tp.Nodes, tp.HostsAgree, names)
		}
		if byHosts := slices.ContainsFunc(tp.Notes, func(n string) bool { return strings.Contains(n, "the nodes are the 16 hosts") }); byHosts != (cores == 1) {
			t.Errorf("%d ranks a host: notes %q; want the host names to overrule the latencies' nodes only with one rank a host", cores, tp.Notes)
		}
	}
}
