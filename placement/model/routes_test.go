package model_test

import (
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
)

// routedModel is shapes.RoutedModel, the test failed on its error.
func routedModel(t *testing.T, nodes, cores int, levels [3]model.LinkCost, build func(hosts []string) (*fabric.Fabric, error)) *model.Model {
	t.Helper()
	md, err := shapes.RoutedModel(nodes, cores, levels, build)
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// ringLevels: 1 us and 1 GB/s between nodes (a pair alone is priced at
// its own bandwidth), shared memory on a node.
var ringLevels = [3]model.LinkCost{model.SameSocket: {Latency: 1e-7, InvBandwidth: 1e-11}, model.SameNode: {Latency: 1e-7, InvBandwidth: 1e-11}, model.Network: {Latency: 1e-6, InvBandwidth: 1e-9}}

// TestRoutedWorkedExample: a ring of 4 nodes (one link of 1 GB/s each
// way to each neighbour, as SimGrid's 1-D torus), one rank per node.
// Rank 0 sends 1e6 B to rank 2 (0 -> 1 -> 2) and rank 1 sends 1e6 B to
// rank 2 (1 -> 2): link 1->2 carries 2e6 B, 2 ms, which bounds ranks 0,
// 1 and 2; rank 3 is silent. Moved so that the two flows share no link
// (rank 1 on node 3: 3 -> 2 is its own link), every rank takes its own
// pair's 1 ms (plus latency), rank 2 too: its two transfers arrive over
// two links at once. The node's links are the fabric's, no longer one
// pair's bandwidth, and a rank's transfers overlap up to what they carry.
func TestRoutedWorkedExample(t *testing.T) {
	md := routedModel(t, 4, 1, ringLevels, func(h []string) (*fabric.Fabric, error) { return fabric.NewTorus(h, []int{4}, 1e9, 1e-6, false) })
	tr := shapes.MustTraffic([]profile.Flow{{Src: 0, Dst: 2, Bytes: 1e6, Messages: 1}, {Src: 1, Dst: 2, Bytes: 1e6, Messages: 1}}, 4)
	p := model.Predict("block", md, tr, []int32{0, 1, 2, 3}, nil)
	// Ranks 0, 1 and 2: the pair's 1 us + 1 ms, raised to link 1->2's
	// 2 ms.
	for r, want := range []float64{2e-3, 2e-3, 2e-3, 0} {
		if !shapes.Near(p.PerRank[r], want) {
			t.Errorf("ring, flows sharing 1->2: rank %d %.6g s, want %.6g", r, p.PerRank[r], want)
		}
	}
	// Latency-bound: 1e4 messages of 1 byte cost 1e4 x 1 us = 10 ms a
	// pair, far above any link's time: a fresh evaluator's run is the
	// slowest rank's (its nodes' runs priced with the pairs' costs).
	lat := shapes.MustTraffic([]profile.Flow{{Src: 0, Dst: 2, Bytes: 1e4, Messages: 1e4}}, 4)
	if got, want := model.NewEvaluator(md, lat, nil, []int32{0, 1, 2, 3}).MaxRun(), model.Predict("block", md, lat, []int32{0, 1, 2, 3}, nil).Run; !shapes.Near(got, want) || want < 0.01 {
		t.Errorf("latency-bound pair: evaluator run %.6g s, prediction %.6g s; want both about 10 ms", got, want)
	}
	q := model.Predict("apart", md, tr, []int32{0, 3, 2, 1}, nil)
	// Rank 2 receives 1e6 B from each side at once.
	for r, want := range []float64{1e-6 + 1e-3, 1e-6 + 1e-3, 1e-6 + 1e-3, 0} {
		if !shapes.Near(q.PerRank[r], want) {
			t.Errorf("ring, flows apart: rank %d %.6g s, want %.6g", r, q.PerRank[r], want)
		}
	}
}

// torusLinks are the neighbour pairs of an x by y torus (x first).
func torusLinks(x, y int) [][2]int32 {
	var links [][2]int32
	for p := 0; p < x*y; p++ {
		for _, q := range []int{p/x*x + (p%x+1)%x, (p + x) % (x * y)} {
			links = append(links, [2]int32{int32(min(p, q)), int32(max(p, q))})
		}
	}
	return links
}

// TestRoutedSpreadExample: on a direct network of 4 x 4 nodes of 2
// cores (a torus found in a survey, one link of 1 GB/s each way between
// neighbours), ranks 0 and 1 on node 0 each send 2e6 B to a rank on
// node 5, one step in x and one in y. Spread evenly over the two
// shortest paths, each link on them carries 2e6 B, 2 ms, as each pair
// alone takes: the ranks take 2 ms. Over one path the two flows would
// share its links: 4 ms.
func TestRoutedSpreadExample(t *testing.T) {
	md := routedModel(t, 16, 2, ringLevels, func(h []string) (*fabric.Fabric, error) { return fabric.NewDirect(h, torusLinks(4, 4), 0, 1e9, 1e-6) })
	tr := shapes.MustTraffic([]profile.Flow{{Src: 0, Dst: 10, Bytes: 2e6, Messages: 1}, {Src: 1, Dst: 11, Bytes: 2e6, Messages: 1}}, 32)
	place := make([]int32, 32)
	for i := range place {
		place[i] = int32(i)
	}
	p := model.Predict("block", md, tr, place, nil)
	for _, r := range []int{0, 1, 10, 11} {
		if !shapes.Near(p.PerRank[r], 1e-6+2e-3) {
			t.Errorf("rank %d: %.6g s, want 2 ms and the latency (half of each flow on each path)", r, p.PerRank[r])
		}
	}
}

// TestRoutedSwapsMatchScratch: on a routed 4 x 4 torus, a dragonfly, a
// direct network and a network of routers whose flows spread over their
// shortest paths, and the torus and the dragonfly routed adaptive,
// tried and kept exchanges leave the incremental evaluator where a fresh
// one is, its critical rank the slowest, and some ranks bound by a link.
func TestRoutedSwapsMatchScratch(t *testing.T) {
	for _, c := range []struct {
		name  string
		nodes int
		build func(h []string) (*fabric.Fabric, error)
	}{
		{"torus 4x4", 16, func(h []string) (*fabric.Fabric, error) { return fabric.NewTorus(h, []int{4, 4}, 1e9, 1e-6, false) }},
		{"dragonfly 2x2x2x2", 16, func(h []string) (*fabric.Fabric, error) {
			return fabric.NewDragonfly(h, fabric.DragonflyShape{Groups: 2, Chassis: 2, Routers: 2, Nodes: 2, Blue: 1, Black: 1, Green: 1}, 1e9, 1e-6, false)
		}},
		{"direct 4x4 (flows spread)", 16, func(h []string) (*fabric.Fabric, error) { return fabric.NewDirect(h, torusLinks(4, 4), 0, 1e9, 1e-6) }},
		{"routers 2x4 (node links, flows spread)", 16, func(h []string) (*fabric.Fabric, error) {
			router := make([]int32, len(h))
			for i := range router {
				router[i] = int32(i / 2)
			}
			f, _, err := fabric.NewRouterNetwork(h, router, 8, torusLinks(4, 2), 0, 1e9, 1e-6, nil)
			return f, err
		}},
		{"torus 4x4 adaptive", 16, func(h []string) (*fabric.Fabric, error) {
			f, err := fabric.NewTorus(h, []int{4, 4}, 1e9, 1e-6, false)
			if err != nil {
				return nil, err
			}
			return f.Routed(fabric.RoutingAdaptive)
		}},
		{"dragonfly 2x2x2x2 adaptive", 16, func(h []string) (*fabric.Fabric, error) {
			f, err := fabric.NewDragonfly(h, fabric.DragonflyShape{Groups: 2, Chassis: 2, Routers: 2, Nodes: 2, Blue: 1, Black: 1, Green: 1}, 1e9, 1e-6, false)
			if err != nil {
				return nil, err
			}
			return f.Routed(fabric.RoutingAdaptive)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			md := routedModel(t, c.nodes, 2, ringLevels, c.build)
			// Large transfers bind ranks to links; small ones of unequal
			// sizes leave each rank's costliest pair off its node its
			// off-node part.
			for _, scale := range []float64{100, 1e-3} {
				flows, n := shapes.RandomSparse(32, 4, 11)
				for i := range flows {
					flows[i].Bytes *= scale
					if scale < 1 {
						flows[i].Bytes *= float64(1 + i%7)
					}
				}
				base := make([]float64, n)
				for i := range base {
					base[i] = float64(i%4) * 1e-4
				}
				if bound := swapsMatchScratch(t, md, shapes.MustTraffic(flows, n), base, swapWalk{rounds: 300, step: 11, off: 3, keep: 4}); scale > 1 && bound == 0 {
					t.Errorf("no rank is bound by a link: the test does not exercise them")
				}
			}
		})
	}
}

// TestRoutedTriesWalkLightRanks: an exchange tried and undone prices a
// rank with few peers by walking its flows and leaves it unindexed
// (links.walking), a hub with more peers by its index: 64 ranks on a
// dragonfly of 16 nodes x 4, a sparse graph with one-way flows and two
// hubs of 40 peers each, every try priced as a fresh evaluator of the
// exchange prices it, and the state after a try as before it.
func TestRoutedTriesWalkLightRanks(t *testing.T) {
	md := routedModel(t, 16, 4, ringLevels, func(h []string) (*fabric.Fabric, error) {
		return fabric.NewDragonfly(h, fabric.DragonflyShape{Groups: 2, Chassis: 2, Routers: 2, Nodes: 2, Blue: 1, Black: 1, Green: 1}, 1e9, 1e-6, false)
	})
	flows, n := shapes.RandomSparse(64, 3, 5)
	for _, hub := range []int{5, 42} {
		for k := 1; k <= 40; k++ {
			flows = append(flows, profile.Flow{Src: hub, Dst: (hub + 3*k) % n, Bytes: float64(1+k%5) * 1e6, Messages: 4})
		}
	}
	for i := range flows {
		flows[i].Bytes *= 100
	}
	if bound := swapsMatchScratch(t, md, shapes.MustTraffic(flows, n), nil, swapWalk{rounds: 300, step: 13, off: 5, keep: 3}); bound == 0 {
		t.Errorf("no rank is bound by a link: the test does not exercise them")
	}
}

// TestRoutedMissingHost: a description that lacks a surveyed host is an
// error naming it.
func TestRoutedMissingHost(t *testing.T) {
	m := model.NewLevelMachine(4, 1, 1, ringLevels)
	md, _ := model.NewModel(m, nil, model.ModelOptions{})
	f, err := fabric.NewTorus([]string{"node0", "node1", "node2", "other"}, []int{4}, 1e9, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	f.Source = "ring.txt"
	_, err = md.AddRoutes(f, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "node3") {
		t.Errorf("error %v, want one naming node3", err)
	}
}

// TestRoutedMeasuredClass: 4 nodes in leaves of 2 (every link 1 GB/s),
// rank 0 sends 1e6 B to rank 2 in the other leaf: 1 us + 1 ms as
// declared. With the switch phase's measure of the leaf uplinks (up-1)
// at 50% of declared, those links carry 0.5 GB/s and bound the flow at
// 2 ms; the network's source says so. A share outside 0.2-1.25 is a
// description that does not match: priced as declared, with a warning.
// Uplinks declared without a bandwidth (a Slurm topology.conf) are
// unlimited, or carry what the switch phase measured out of a group:
// 500 MB/s, 2 ms.
func TestRoutedMeasuredClass(t *testing.T) {
	uplink := 1e9
	tree := func(h []string) (*fabric.Fabric, error) {
		lv := func(name string, per int) fabric.TreeLevel {
			l := fabric.TreeLevel{Name: name}
			for i := range h {
				l.Group = append(l.Group, i/per)
			}
			bw := 1e9
			if per > 1 {
				bw = uplink
			}
			for g := 0; g < len(h)/per; g++ {
				l.Up, l.Down = append(l.Up, bw), append(l.Down, bw)
			}
			return l
		}
		return fabric.NewTree(h, []fabric.TreeLevel{lv("node", 1), lv("leaf", 2)}, false)
	}
	tr := shapes.MustTraffic([]profile.Flow{{Src: 0, Dst: 2, Bytes: 1e6, Messages: 1}}, 4)
	for _, c := range []struct {
		uplink, share, measured float64
		want                    float64
		note                    string
	}{
		{1e9, 0, 0, 1e-6 + 1e-3, ""},
		{1e9, 0.5, 500, 2e-3, "priced as measured: up-1 links 50% of declared"},
		{1e9, 3, 3000, 1e-6 + 1e-3, "does not match the machine surveyed"},
		{0, 0, 0, 1e-6 + 1e-3, "4 of 12 links not priced"},
		{0, 0, 500, 2e-3, "up-1 links (no bandwidth declared) at 500 MB/s"},
	} {
		uplink = c.uplink
		m := model.NewLevelMachine(4, 1, 1, ringLevels)
		md, _ := model.NewModel(m, nil, model.ModelOptions{})
		f, err := tree(m.Hosts)
		if err != nil {
			t.Fatal(err)
		}
		f.Source = "tree"
		var shares []topo.ClassShare
		if c.measured > 0 {
			shares = []topo.ClassShare{{Class: "up-1", Name: "leaf", Level: 1, Groups: 2, MeasuredMBps: c.measured, RoutedMBps: 1000 * c.uplink / 1e9, Share: c.share}}
		}
		notes, err := md.AddRoutes(f, nil, shares)
		if err != nil {
			t.Fatal(err)
		}
		p := model.Predict("block", md, tr, []int32{0, 1, 2, 3}, nil)
		if !shapes.Near(p.PerRank[0], c.want) {
			t.Errorf("share %g: rank 0 %.6g s, want %.6g", c.share, p.PerRank[0], c.want)
		}
		if joined := strings.Join(notes, "\n") + "\n" + md.Routes.Source; c.note != "" && !strings.Contains(joined, c.note) {
			t.Errorf("share %g: notes and source %q, want %q", c.share, joined, c.note)
		}
		if measured := strings.Contains(md.Routes.Source, "measured: up-1"); measured != (c.want == 2e-3) {
			t.Errorf("share %g: source %q", c.share, md.Routes.Source)
		}
	}
}

// TestRoutedNodeLinksTakeShiftRows: node links a description declares
// without a bandwidth (a Slurm topology.conf) take nodebw.csv's node
// phase rates (100 MB/s here), not the fan-out's: node0's fan-out row
// (400 MB/s to two nodes at once) is what it moves over several links,
// no link's rate. Rank 0's 1e6 B to rank 2 leave node0 at 100 MB/s: 10 ms
// (with the fan-out row among node0's rates, their median gave 250 MB/s).
func TestRoutedNodeLinksTakeShiftRows(t *testing.T) {
	m := model.NewLevelMachine(4, 1, 1, ringLevels)
	var rows []survey.NodeBandwidth
	for h := 0; h < 4; h++ {
		rate := 1000.0 // node2 receives from node1 at 1,000 MB/s: node0's link sets the time
		if h == 0 {
			rate = 100
		}
		rows = append(rows, survey.NodeBandwidth{Host: m.Hosts[h], Peer: m.Hosts[(h+1)%4], Ranks: 1, AggregateMBps: rate})
	}
	rows = append(rows, survey.NodeBandwidth{Host: m.Hosts[0], Peer: m.Hosts[1] + survey.FanOutPeers + m.Hosts[2], Ranks: 2, AggregateMBps: 400, PairMBps: 100})
	md, _ := model.NewModel(m, rows, model.ModelOptions{})
	lv := func(name string, per int, bw float64) fabric.TreeLevel {
		l := fabric.TreeLevel{Name: name}
		for i := range m.Hosts {
			l.Group = append(l.Group, i/per)
		}
		for g := 0; g < len(m.Hosts)/per; g++ {
			l.Up, l.Down = append(l.Up, bw), append(l.Down, bw)
		}
		return l
	}
	f, err := fabric.NewTree(m.Hosts, []fabric.TreeLevel{lv("node", 1, 0), lv("leaf", 2, 1e9)}, false)
	if err != nil {
		t.Fatal(err)
	}
	f.Source = "tree"
	if _, err := md.AddRoutes(f, rows, nil); err != nil {
		t.Fatal(err)
	}
	tr := shapes.MustTraffic([]profile.Flow{{Src: 0, Dst: 2, Bytes: 1e6, Messages: 1}}, 4)
	if got := model.Predict("block", md, tr, []int32{0, 1, 2, 3}, nil).PerRank[0]; !shapes.Near(got, 1e-2) {
		t.Errorf("rank 0 %.6g s, want 10 ms (node0's link at its node phase's 100 MB/s)", got)
	}
}

// TestRoutedLinksPricedAtStreams: the declared links are priced at the
// node phase's streams over them where the survey has them, not at the
// pairs' fit of round trips (which also carries what a large message
// costs beyond its bytes). On a ring of 4 nodes of 1 GB/s links whose
// pairs measured 1 GB/s, each node streamed 800 MB/s to the next: rank
// 0's 1e6 B to rank 1 take 1.25 ms over its link at 80%, not the pair's
// 1 us + 1 ms. The network's cross traffic reaches the routed model.
func TestRoutedLinksPricedAtStreams(t *testing.T) {
	tr := shapes.MustTraffic([]profile.Flow{{Src: 0, Dst: 1, Bytes: 1e6, Messages: 1}}, 4)
	for _, c := range []struct {
		stream float64
		want   float64
		note   string
	}{{0, 1e-6 + 1e-3, "the survey's pairs between nodes is 100%"}, {800, 1.25e-3, "the node phase's streams between nodes is 80%"}} {
		m := model.NewLevelMachine(4, 1, 1, ringLevels)
		var rows []survey.NodeBandwidth
		for h := 0; h < 4 && c.stream > 0; h++ {
			rows = append(rows, survey.NodeBandwidth{Host: m.Hosts[h], Peer: m.Hosts[(h+1)%4], Ranks: 1, AggregateMBps: c.stream, PairMBps: c.stream})
		}
		md, _ := model.NewModel(m, rows, model.ModelOptions{})
		f, err := fabric.NewTorus(m.Hosts, []int{4}, 1e9, 1e-6, false)
		if err != nil {
			t.Fatal(err)
		}
		f.Source, f.Reverse = "ring", fabric.CrossTraffic
		notes, err := md.AddRoutes(f, rows, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := model.Predict("block", md, tr, []int32{0, 1, 2, 3}, nil).PerRank[0]; !shapes.Near(got, c.want) {
			t.Errorf("streams %g MB/s: rank 0 %.6g s, want %.6g", c.stream, got, c.want)
		}
		if joined := strings.Join(notes, "\n"); !strings.Contains(joined, c.note) {
			t.Errorf("streams %g MB/s: notes %q, want %q", c.stream, joined, c.note)
		}
		if md.Routes.Reverse != fabric.CrossTraffic || !strings.Contains(md.Routes.Source, "5% of each message on its way back") {
			t.Errorf("streams %g MB/s: the routed model's cross traffic %g (%q), want the network's %g", c.stream, md.Routes.Reverse, md.Routes.Source, fabric.CrossTraffic)
		}
	}
}
