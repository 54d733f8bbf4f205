package shapes

import (
	"fmt"
	"math"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
	"github.com/latmap/latmap/mapper/topo"
	"github.com/latmap/latmap/placement/model"
)

// WorkedLevels are docs/place.md's worked example: shared memory 4.4 us
// and 9.2 GB/s inside a node, 20 us and 49.8 MB/s between nodes.
var WorkedLevels = [3]model.LinkCost{
	model.SameSocket: {Latency: 4.4e-6, InvBandwidth: 1 / 9.2e9},
	model.SameNode:   {Latency: 4.4e-6, InvBandwidth: 1 / 9.2e9},
	model.Network:    {Latency: 20e-6, InvBandwidth: 1 / 49.8e6},
}

// RoutedModel is a level machine of nodes x cores (hosts node0, ...)
// priced over the fabric build makes of its hosts (the same names).
func RoutedModel(nodes, cores int, levels [3]model.LinkCost, build func(hosts []string) (*fabric.Fabric, error)) (*model.Model, error) {
	m := model.NewLevelMachine(nodes, 1, cores, levels)
	md, _ := model.NewModel(m, nil, model.ModelOptions{})
	f, err := build(m.Hosts)
	if err != nil {
		return nil, err
	}
	f.Source = "test"
	if _, err := md.AddRoutes(f, nil, nil); err != nil {
		return nil, err
	}
	return md, nil
}

// SwitchedModel is the model of a synthetic survey of nodes x 2 cores
// behind switches of perSwitch nodes (round trips 0.5 / 0.8 us in a node,
// 4 us behind one switch, 9 us across), with switches.csv from latmap's
// own SwitchGroups and rows as switchbw.csv, and the notes of pricing its
// uplinks (Model.AddSwitches).
func SwitchedModel(nodes, perSwitch int, rows []survey.SwitchBandwidth) (*model.Model, []string, error) {
	m, err := SwitchMachine(synth.Spec{Nodes: nodes, Sockets: 1, Cores: 2, NodesPerSwitch: perSwitch, RTT: [4]float64{0.5, 0.8, 4, 9}, Seed: 1})
	if err != nil {
		return nil, nil, err
	}
	md, _ := model.NewModel(m, nil, model.ModelOptions{})
	return md, md.AddSwitches(rows), nil
}

// SwitchMachine is the machine of spec's synthetic survey with the
// switch groups latmap's own SwitchGroups finds in it (an error where
// it finds none).
func SwitchMachine(spec synth.Spec) (*model.Machine, error) {
	s := synth.New(spec)
	var note string
	if s.Switches, _, note = topo.SwitchGroups(s); len(s.Switches) == 0 {
		return nil, fmt.Errorf("no switch groups: %s", note)
	}
	return model.MachineFromSurvey(s, model.SurveyCostOptions{})
}

// MustSwitchMachine is SwitchMachine for a test, which fails where it
// finds no switch groups.
func MustSwitchMachine(t testing.TB, spec synth.Spec) *model.Machine {
	t.Helper()
	m, err := SwitchMachine(spec)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// SwitchRows are switchbw.csv's rows of SwitchedModel's switches: each
// group (of perSwitch nodes x 2 cores) sends at up MB/s (by group) to the
// next group.
func SwitchRows(perSwitch int, up []float64) []survey.SwitchBandwidth {
	var rows []survey.SwitchBandwidth
	for g, mbps := range up {
		rows = append(rows, survey.SwitchBandwidth{Level: 1, Group: g, PeerGroup: (g + 1) % len(up), Hosts: perSwitch, Ranks: 2 * perSwitch,
			Size: 1 << 20, Messages: 16, Seconds: 1, AggregateMBps: mbps})
	}
	return rows
}

// RoutedTorus is RoutedModel of nodes x cores with BenchLevels on a
// torus of dims (links of bw bytes/s and 1 us), and its first n slots
// (SelectSlots).
func RoutedTorus(nodes, cores int, dims []int, bw float64, n int) (*model.Model, []int32, error) {
	md, err := RoutedModel(nodes, cores, BenchLevels, func(h []string) (*fabric.Fabric, error) { return fabric.NewTorus(h, dims, bw, 1e-6, false) })
	if err != nil {
		return nil, nil, err
	}
	slots, err := md.SelectSlots(n, model.SelectOptions{})
	return md, slots, err
}

// TestRTT are the round trips (us) of Survey's usual tests: same socket,
// same node, network.
var TestRTT = [3]float64{0.5, 0.8, 13}

// Pairs: ranks 0-1 and 2-3 exchange iter messages of size bytes each way.
func Pairs(iter int, size float64) []profile.Flow {
	var f []profile.Flow
	for _, p := range [][2]int{{0, 1}, {1, 0}, {2, 3}, {3, 2}} {
		f = append(f, profile.Flow{Src: p[0], Dst: p[1], Bytes: float64(iter) * size, Messages: float64(iter)})
	}
	return f
}

// Survey is a survey of hosts x sockets x cores ranks (host names h0, h1,
// ...; cpu = socket*cores + core) with round trips rtt[level] in
// microseconds at 64 bytes. drop(a, b) leaves a pair unmeasured.
func Survey(hosts, sockets, cores int, rtt [3]float64, drop func(a, b int) bool) *survey.Survey {
	var ranks []survey.Rank
	for h := 0; h < hosts; h++ {
		for so := 0; so < sockets; so++ {
			for c := 0; c < cores; c++ {
				cpu := so*cores + c
				ranks = append(ranks, survey.Rank{Rank: len(ranks), Host: fmt.Sprintf("h%d", h), CPU: cpu, CPUEnd: cpu,
					CPUSet: fmt.Sprint(cpu), Socket: so, NUMA: so, L3: so})
			}
		}
	}
	return fill(ranks, func(a, b int) (float64, bool) {
		if drop != nil && drop(a, b) {
			return 0, false
		}
		ra, rb := ranks[a], ranks[b]
		l := model.Network
		if ra.Host == rb.Host {
			l = model.SameNode
			if ra.Socket == rb.Socket {
				l = model.SameSocket
			}
		}
		return rtt[l], true
	})
}

// HostsSurvey is a survey of the given hosts with cpus 0..cpus-1 each (one
// socket), 0.7 us inside a host and 13 us between, for runs on real or
// virtual nodes.
func HostsSurvey(hosts []string, cpus int) *survey.Survey {
	var ranks []survey.Rank
	for _, h := range hosts {
		for c := 0; c < cpus; c++ {
			ranks = append(ranks, survey.Rank{Rank: len(ranks), Host: h, CPU: c, CPUEnd: c, CPUSet: fmt.Sprint(c)})
		}
	}
	return fill(ranks, func(a, b int) (float64, bool) {
		if ranks[a].Host != ranks[b].Host {
			return 13, true
		}
		return 0.7, true
	})
}

// fill makes the all-pairs survey of ranks at 64 bytes, each pair's round
// trip rtt(a, b) (none when not ok).
func fill(ranks []survey.Rank, rtt func(a, b int) (float64, bool)) *survey.Survey {
	n := len(ranks)
	s := &survey.Survey{Meta: survey.SurveyMeta{Tool: "latmap", Ranks: n, Sizes: []int{64}, Repeats: 10, Schedule: "rounds", Scope: "all"}, Ranks: ranks}
	tab := survey.NewPairTable(n, 64)
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			if v, ok := rtt(a, b); ok {
				tab.Set(&survey.PairStats{A: a, B: b, Size: 64, Samples: 10, Mean: v, Min: v, Median: v, P99: v, Isolated: math.NaN()})
			}
		}
	}
	s.Tables = []*survey.PairTable{tab}
	return s
}

// MustTraffic is model.NewTraffic of generated flows, which cannot fail
// unless the generator is wrong: then it panics.
func MustTraffic(flows []profile.Flow, n int) *model.Traffic {
	tr, err := model.NewTraffic(n, flows)
	if err != nil {
		panic(err)
	}
	return tr
}

// Near reports whether a and b agree to 1e-9 of the larger.
func Near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// Near32 reports whether a and b agree to 1e-6 of the larger: the float32
// storage of surveyed pair costs.
func Near32(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(math.Abs(a), math.Abs(b)) }
