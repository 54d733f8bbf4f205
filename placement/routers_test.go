package placement

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
	"github.com/latmap/latmap/placement/solve"
)

// routerSurvey is a survey of 16 nodes of one rank, two behind each of
// 8 routers (switches.csv's level 1), whose round trips are 4 us behind
// one router and 4 + 3 us a hop between routers, hops(a, b) between
// routers a and b.
func routerSurvey(t *testing.T, hops func(a, b int) int) string {
	t.Helper()
	return routerSurveyOf(t, hops, 1)
}

// routerSurveyOf is routerSurvey with cores ranks a node.
func routerSurveyOf(t *testing.T, hops func(a, b int) int, cores int) string {
	t.Helper()
	s := synth.New(synth.Spec{Nodes: 16, Sockets: 1, Cores: cores, NodesPerSwitch: 2, RTT: [4]float64{0.5, 0.8, 4, 9}, Seed: 1})
	s.Switches = nil
	for h := 0; h < 16; h++ {
		s.Switches = append(s.Switches, survey.HostGroup{Host: fmt.Sprintf("node%03d", h), Level: 1, Group: h / 2})
	}
	tb := s.Tables[0]
	tb.Each(func(a, b, i int) {
		if na, nb := a/cores, b/cores; na != nb {
			v := float32(4 + 3*hops(na/2, nb/2))
			for m := range tb.Values {
				if len(tb.Values[m]) > 0 {
					tb.Values[m][i] = v
				}
			}
		}
	})
	return writeSurvey(t, s)
}

// TestPlaceRouterNetworkFromSurvey: where the round trips between the
// level-1 switches show a direct network (8 routers in a ring), place
// routes over it: the two nodes of router 0 each sending B to a node of
// router 1 share the one link between the routers, and block is
// predicted at twice its run with one of the two flows. On a tree of
// the same size (every router one hop from every other: no direct
// network) the two flows are priced at their own node links alone, as
// the one flow is.
func TestPlaceRouterNetworkFromSurvey(t *testing.T) {
	ring := func(a, b int) int { d := (a - b + 8) % 8; return min(d, 8-d) }
	tree := func(a, b int) int { return map[bool]int{true: 0, false: 2}[a == b] }
	one := writeMatrix(t, []profile.Flow{{Src: 0, Dst: 2, Bytes: 1e8, Messages: 10}})
	two := writeMatrix(t, []profile.Flow{{Src: 0, Dst: 2, Bytes: 1e8, Messages: 10}, {Src: 1, Dst: 3, Bytes: 1e8, Messages: 10}})
	for _, c := range []struct {
		name   string
		hops   func(a, b int) int
		ratio  float64
		routed bool
	}{{"ring", ring, 2, true}, {"tree", tree, 1, false}} {
		sv := routerSurvey(t, c.hops)
		r1, _ := blockRun(t, Options{Survey: sv, Matrix: one})
		r2, out := blockRun(t, Options{Survey: sv, Matrix: two})
		if got := strings.Contains(out, "direct network of 8 routers of 16 nodes") && strings.Contains(out, "8 links between them"); got != c.routed {
			t.Errorf("%s: found the direct network of routers: %v, want %v\n%s", c.name, got, c.routed, out)
		}
		if math.Abs(r2/r1-c.ratio) > 0.05*c.ratio {
			t.Errorf("%s: block with both flows predicted at %.4g s, %.3gx its %.4g s with one; want %gx", c.name, r2, r2/r1, r1, c.ratio)
		}
	}
}

// ringSurvey is a survey of 8 nodes of one rank, node pos[p] at place p
// of a ring (4 us + 3 us a hop between nodes), each driving two links
// at once (nodebw.csv's fan-out: twice its rate to one node).
func ringSurvey(t *testing.T, pos []int) string {
	t.Helper()
	s := synth.New(synth.Spec{Nodes: 8, Sockets: 1, Cores: 1, RTT: [4]float64{0.5, 0.8, 4, 4}, Seed: 1})
	place := make([]int, 8)
	for p, h := range pos {
		place[h] = p
	}
	setRTT(s, func(a, b int) float32 {
		d := (place[a] - place[b] + 8) % 8
		return float32(4 + 3*min(d, 8-d))
	})
	for h := range 8 {
		name := func(p int) string { return fmt.Sprintf("node%03d", pos[(place[h]+p+8)%8]) }
		s.NodeBandwidth = append(s.NodeBandwidth, survey.NodeBandwidth{Host: name(0), Peer: name(1) + survey.FanOutPeers + name(-1),
			Ranks: 1, Size: 1 << 20, Messages: 10, Seconds: 0.01, AggregateMBps: 2000, PairMBps: 1000})
	}
	return writeSurvey(t, s)
}

// TestPlaceTorusInOrderFromSurvey: where the round trips show a ring of
// 8 nodes (a torus of one dimension) with the nodes in ring order, place
// routes it as a torus routes by default, in dimension order, a tie at
// half the ring one way round: two flows across half the ring, from
// places 0 and 2, share two links, and block is predicted at twice its
// run with one of them. With --routing adaptive, or with the nodes out
// of ring order (no torus in their order: the routing is not known),
// each flow is spread over both ways round, and the two cost what one
// does.
func TestPlaceTorusInOrderFromSurvey(t *testing.T) {
	inOrder, shuffled := []int{0, 1, 2, 3, 4, 5, 6, 7}, []int{0, 3, 6, 1, 4, 7, 2, 5}
	for _, c := range []struct {
		name    string
		pos     []int
		routing string
		ratio   float64
		torus   bool
	}{{"in order", inOrder, "", 2, true}, {"in order, adaptive", inOrder, "adaptive", 1, true}, {"shuffled", shuffled, "", 1, false}} {
		sv := ringSurvey(t, c.pos)
		flow := func(from, to int) profile.Flow {
			return profile.Flow{Src: c.pos[from], Dst: c.pos[to], Bytes: 1e8, Messages: 10}
		}
		opt := Options{Survey: sv, Model: model.ModelOptions{Routing: c.routing}}
		opt.Matrix = writeMatrix(t, []profile.Flow{flow(0, 4)})
		r1, _ := blockRun(t, opt)
		opt.Matrix = writeMatrix(t, []profile.Flow{flow(0, 4), flow(2, 6)})
		r2, out := blockRun(t, opt)
		if got := strings.Contains(out, "those of a 8 torus with the nodes in the survey's order"); got != c.torus {
			t.Errorf("%s: routed as a torus in order: %v, want %v\n%s", c.name, got, c.torus, out)
		}
		if math.Abs(r2/r1-c.ratio) > 0.05*c.ratio {
			t.Errorf("%s: block with both flows predicted at %.4g s, %.3gx its %.4g s with one; want %gx", c.name, r2, r2/r1, r1, c.ratio)
		}
	}
}

// treeSurvey is a survey of 16 nodes of one rank behind 4 leaf switches
// of 4 (switches.csv's level 1; 4 us behind one leaf, 9 us across), each
// node's link 1,000 MB/s (nodebw.csv) and each leaf sending leafMBps out
// to the other leaves (switchbw.csv).
func treeSurvey(t *testing.T, leafMBps float64) string {
	t.Helper()
	s := synth.New(synth.Spec{Nodes: 16, Sockets: 1, Cores: 1, RTT: [4]float64{0.5, 0.8, 4, 9}, Seed: 1})
	setRTT(s, func(a, b int) float32 { return map[bool]float32{true: 4, false: 9}[a/4 == b/4] })
	for h := 0; h < 16; h++ {
		name := fmt.Sprintf("node%03d", h)
		s.Switches = append(s.Switches, survey.HostGroup{Host: name, Level: 1, Group: h / 4})
		s.NodeBandwidth = append(s.NodeBandwidth, survey.NodeBandwidth{Host: name, Peer: fmt.Sprintf("node%03d", (h+1)%16), Ranks: 1, Size: 1 << 20, Messages: 10, Seconds: 0.01, AggregateMBps: 1000, PairMBps: 1000})
	}
	for g := 0; g < 4; g++ {
		s.SwitchBandwidth = append(s.SwitchBandwidth, survey.SwitchBandwidth{Level: 1, Group: g, PeerGroup: g, Hosts: 4, Ranks: 4, Size: 1 << 20, Messages: 10, Seconds: 0.02, AggregateMBps: leafMBps})
	}
	return writeSurvey(t, s)
}

// TestPlaceFatTreeFromSurvey: where the switch levels are a fat tree's
// (4 leaves of 4 nodes, each leaf's 2,000 MB/s out two node links'
// worth), place routes it d-mod-k in the survey's order: nodes 0 and 1
// sending to nodes 4 and 6 (even positions) share one uplink, and block
// is predicted at twice its run with one flow; to nodes 4 and 5 they
// take one each, as they do with --routing adaptive (a leaf's uplinks as
// one of 2,000 MB/s) and where the leaves' rate is no whole number of
// links (1,500 MB/s: the uplinks as one, 4/3 of one flow's time, and
// the note says why).
func TestPlaceFatTreeFromSurvey(t *testing.T) {
	for _, c := range []struct {
		name    string
		leaf    float64
		routing string
		dst     int
		ratio   float64
		routed  string
	}{
		{"same uplink", 2000, "", 6, 2, "SimGrid's FAT_TREE 2;4,4;1,2;1,1"},
		{"two uplinks", 2000, "", 5, 1, "SimGrid's FAT_TREE 2;4,4;1,2;1,1"},
		{"adaptive", 2000, "adaptive", 6, 1, ""},
		{"1.5 links", 1500, "", 6, 4.0 / 3, "1.50 times a node's link (1000 MB/s): not a whole number of links"},
	} {
		opt := Options{Survey: treeSurvey(t, c.leaf), Model: model.ModelOptions{Routing: c.routing}}
		opt.Matrix = writeMatrix(t, []profile.Flow{{Src: 0, Dst: 4, Bytes: 1e8, Messages: 10}})
		r1, _ := blockRun(t, opt)
		opt.Matrix = writeMatrix(t, []profile.Flow{{Src: 0, Dst: 4, Bytes: 1e8, Messages: 10}, {Src: 1, Dst: c.dst, Bytes: 1e8, Messages: 10}})
		r2, out := blockRun(t, opt)
		if c.routed == "" && strings.Contains(out, "FAT_TREE") || c.routed != "" && !strings.Contains(out, c.routed) {
			t.Errorf("%s: want the report to say %q\n%s", c.name, c.routed, out)
		}
		if math.Abs(r2/r1-c.ratio) > 0.05*c.ratio {
			t.Errorf("%s: block with both flows predicted at %.4g s, %.3gx its %.4g s with one; want %gx", c.name, r2, r2/r1, r1, c.ratio)
		}
	}
}

// setRTT sets every metric of survey s's first table, for each pair of
// ranks a, b, to rtt(a, b).
func setRTT(s *survey.Survey, rtt func(a, b int) float32) {
	tb := s.Tables[0]
	tb.Each(func(a, b, i int) {
		v := rtt(a, b)
		for _, m := range []survey.Metric{survey.Mean, survey.Min, survey.Median, survey.P99} {
			if len(tb.Values[m]) > 0 {
				tb.Values[m][i] = v
			}
		}
	})
}

// blockRun is place's predicted run of the block layout with opt, and
// its report.
func blockRun(t *testing.T, opt Options) (float64, string) {
	t.Helper()
	var out bytes.Buffer
	a, err := runReport(opt, &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range a.Predictions {
		if p.Name == "block" {
			return p.Run, out.String()
		}
	}
	t.Fatalf("no block prediction")
	return 0, ""
}

// TestKeepRouted: a proposal searched with the uplinks as one and
// predicted routed less than solve.WorthIt faster than block (1%) is
// block, and the solver's note says so; 10% faster stays; with a current
// placement, the current one is what is kept.
func TestKeepRouted(t *testing.T) {
	slots, prop, cur := []int32{0, 1, 2, 3}, []int32{3, 2, 1, 0}, []int32{1, 0, 3, 2}
	in := &inputs{t: shapes.MustTraffic([]profile.Flow{{Src: 0, Dst: 1, Bytes: 1e6, Messages: 1}}, 4)}
	for _, c := range []struct {
		name    string
		current []int32
		run     float64
		kept    string
	}{{"1% faster", nil, 0.99, "block"}, {"10% faster", nil, 0.9, ""}, {"1% faster than current", cur, 0.99, solve.CurrentStart}} {
		in.current = c.current
		a := &placefile.Advice{Predicted: placefile.Predicted{Predictions: []placefile.Prediction{{Name: "block", Run: 1}, {Name: "cyclic", Run: 2}, {Name: "proposal", Run: c.run}}}}
		if c.current != nil {
			a.Predictions = append([]placefile.Prediction{{Name: solve.CurrentStart, Run: 1}}, a.Predictions...)
		}
		sol := &solve.Solution{Place: slices.Clone(prop)}
		changed := keepRouted(a, sol, in, slots)
		want := map[string][]int32{"": prop, "block": slots, solve.CurrentStart: cur}[c.kept]
		if changed != (c.kept != "") || !slices.Equal(sol.Place, want) || a.Solver.Winner != c.kept || changed && !strings.Contains(a.Solver.Note, c.kept+" kept") {
			t.Errorf("%s: changed %v, place %v, winner %q, note %q; want %v kept", c.name, changed, sol.Place, a.Solver.Winner, a.Solver.Note, want)
		}
	}
}

// TestPlaceRouterGroupsMinimal: 8 routers in a ring (routerSurvey) in
// three groups at switch level 2 ({0,1,2}, {3,4,5}, {6,7}), each joined
// by its own links and every two by one. A flow from router 2 to router
// 6 has two shortest paths, through group 1 (2-3-4-5-6) and minimal
// (2-1-0-7-6); a second flow, from router 3 to router 4, crosses link
// 3-4 alone where the first is routed minimally. So block with both
// flows is priced routed minimally at its run with the second alone,
// and with --routing adaptive (half the first over 3-4) slower; which
// path the first takes is not in the round trips, and the prediction is
// the slower of the two (model.Model.Either).
func TestPlaceRouterGroupsMinimal(t *testing.T) {
	sv := groupedRingSurvey(t)
	// Node 2h is router h's first node.
	second := []profile.Flow{{Src: 6, Dst: 8, Bytes: 1e8, Messages: 10}}
	both := writeMatrix(t, append([]profile.Flow{{Src: 4, Dst: 12, Bytes: 1e8, Messages: 10}}, second...))
	alone := writeMatrix(t, second)
	r1, _ := blockRun(t, Options{Survey: sv, Matrix: alone})
	r2, out := blockRun(t, Options{Survey: sv, Matrix: both})
	if !strings.Contains(out, "minimal routing, the outermost switch level's 3 groups") {
		t.Errorf("not routed minimally in the 3 groups:\n%s", out)
	}
	in, err := loadInputs(Options{Survey: sv, Matrix: both})
	if err != nil || in.md.Either == nil {
		t.Fatalf("err %v; the prediction is not the slower of two routings", err)
	}
	minimal := *in.md
	minimal.Either = nil
	slots, _, err := selectSlots(Options{}, in)
	if err != nil {
		t.Fatal(err)
	}
	if rm := model.Predict("", &minimal, in.t, model.Block(slots, in.t.N), nil).Run; math.Abs(rm/r1-1) > 0.02 {
		t.Errorf("minimal: block with both flows %.4g s, %.3gx its %.4g s with the second alone; want 1x", rm, rm/r1, r1)
	}
	ra, _ := blockRun(t, Options{Survey: sv, Matrix: both, Model: model.ModelOptions{Routing: "adaptive"}})
	if ra < 1.1*r1 {
		t.Errorf("adaptive: block with both flows %.4g s, %.3gx its %.4g s with the second alone; want over 1.1x (half the first on link 3-4)", ra, ra/r1, r1)
	}
	if math.Abs(r2/ra-1) > 1e-9 {
		t.Errorf("block with both flows predicted %.4g s, routed adaptively %.4g s: want the slower of the two routings", r2, ra)
	}
}

// groupedRingSurvey is routerSurvey's ring of 8 routers, the routers in
// three groups at switch level 2: {0, 1, 2}, {3, 4, 5} and {6, 7}.
func groupedRingSurvey(t *testing.T) string {
	t.Helper()
	return groupedRingSurveyOf(t, 1)
}

// groupedRingSurveyOf is groupedRingSurvey with cores ranks a node.
func groupedRingSurveyOf(t *testing.T, cores int) string {
	t.Helper()
	ring := func(a, b int) int { d := (a - b + 8) % 8; return min(d, 8-d) }
	s, err := survey.ReadSurvey(routerSurveyOf(t, ring, cores), survey.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for h := 0; h < 16; h++ {
		s.Switches = append(s.Switches, survey.HostGroup{Host: fmt.Sprintf("node%03d", h), Level: 2, Group: []int{0, 0, 0, 1, 1, 1, 2, 2}[h/2]})
	}
	return writeSurvey(t, s)
}

// TestKeepOnEitherRouting: on groupedRingSurvey's routers, found in the
// round trips and routed minimally, with TestPlaceRouterGroupsMinimal's
// two flows (node 4 to node 12, routers 2 to 6; node 6 to node 8, routers
// 3 to 4), place keeps the network with every flow spread over its
// shortest paths beside it (none with --routing adaptive). Spread, half
// the first flow shares link 3-4 with the second under block. A proposal
// moving rank 12 to router 1 (swapped with rank 2: the first flow one
// hop, no link shared) is predicted faster spread, and stays; one
// moving rank 4 to router 3 (swapped with rank 7: the first flow's one
// shortest path, 3-4-5-6, all of it over link 3-4 with the second)
// slower, and is block, with the solver's note saying why. So is the
// first beside a flow 20 times heavier between two nodes of router 7:
// it sets the run of both, and the proposal is predicted no faster
// spread (under solve.WorthIt).
func TestKeepOnEitherRouting(t *testing.T) {
	sv := groupedRingSurvey(t)
	flows := []profile.Flow{{Src: 4, Dst: 12, Bytes: 1e8, Messages: 10}, {Src: 6, Dst: 8, Bytes: 1e8, Messages: 10}}
	mx := writeMatrix(t, flows)
	if in, err := loadInputs(Options{Survey: sv, Matrix: mx, Ranks: 16, Model: model.ModelOptions{Routing: "adaptive"}}); err != nil || in.spread != nil {
		t.Fatalf("--routing adaptive: err %v, a spread model kept: %v", err, in != nil && in.spread != nil)
	}
	heavy := writeMatrix(t, append(flows, profile.Flow{Src: 14, Dst: 15, Bytes: 2e9, Messages: 10}))
	for _, c := range []struct {
		name   string
		matrix string
		i, j   int // the proposal: block with ranks i and j swapped
		kept   string
	}{{"rank 12 to router 1", mx, 12, 2, ""}, {"rank 4 to router 3", mx, 4, 7, "slower than block"},
		{"rank 12 to router 1, beside a flow 20 times heavier", heavy, 12, 2, "only 0.0% faster than block"}} {
		in, err := loadInputs(Options{Survey: sv, Matrix: c.matrix, Ranks: 16})
		if err != nil || in.spread == nil {
			t.Fatalf("err %v; no spread model kept", err)
		}
		slots, _, err := selectSlots(Options{}, in)
		if err != nil {
			t.Fatal(err)
		}
		block := model.Block(slots, in.t.N)
		prop := slices.Clone(block)
		prop[c.i], prop[c.j] = prop[c.j], prop[c.i]
		a := &placefile.Advice{}
		sol := &solve.Solution{Place: slices.Clone(prop)}
		changed := keepOnEitherRouting(a, sol, in, slots, slots)
		p, b := model.Predict("", in.spread, in.t, prop, nil).Run, model.Predict("", in.spread, in.t, block, nil).Run
		want := map[bool][]int32{true: block, false: prop}[c.kept != ""]
		if changed != (c.kept != "") || !slices.Equal(sol.Place, want) || !strings.Contains(a.Solver.Note, c.kept+" with every flow spread over its shortest paths") && c.kept != "" {
			t.Errorf("%s (spread %.4g s, block %.4g s): changed %v, place %v, note %q; want kept: %q", c.name, p, b, changed, sol.Place, a.Solver.Note, c.kept)
		}
		t.Logf("%s: spread %.4g s, block %.4g s; %s", c.name, p, b, a.Solver.Note)
	}
}

// TestKeepOnEitherRoutingCyclic: a proposal keepOnEitherRouting holds
// back gives way to cyclic over the usable nodes where a's predictions
// and the spread routing both price cyclic solve.WorthIt faster than
// block, and only then. On a ring of 8 routers of two nodes of 2 cores
// (routerSurveyOf), 16 ranks each exchanging 100 MB with the rank 8
// above it: block puts two ranks a node on routers 0-3, every flow
// between routers 0-1 and 2-3, over the one link between routers 1 and
// 2; cyclic one rank a node on all 16 nodes, the flows four routers
// apart, over both ways round the ring. Spread, cyclic is held to the
// same solve.WorthIt against what is kept.
func TestKeepOnEitherRoutingCyclic(t *testing.T) {
	in, slots, usable := pairedRingInputs(t)
	block, cyc := model.Block(slots, in.t.N), in.md.Cyclic(usable, in.t.N)
	run := func(md *model.Model, place []int32) float64 { return model.Predict("", md, in.t, place, nil).Run }
	if b, c := run(in.md, block), run(in.md, cyc); c > (1-solve.WorthIt)*b {
		t.Fatalf("cyclic %.4g s, block %.4g s routed: want cyclic faster", c, b)
	}
	if b, c := run(in.spread, block), run(in.spread, cyc); c > (1-solve.WorthIt)*b {
		t.Fatalf("cyclic %.4g s, block %.4g s spread: want cyclic faster", c, b)
	}
	// The proposal held back: block with ranks 0 and 8 swapped (the same
	// flows, as slow as block both ways).
	prop := slices.Clone(block)
	prop[0], prop[8] = prop[8], prop[0]
	for _, c := range []struct {
		name       string
		cyclicRun  float64 // a's cyclic prediction, as a share of block's
		wantCyclic bool
	}{{"cyclic predicted faster", run(in.md, cyc) / run(in.md, block), true}, {"cyclic predicted as fast as block", 1, false}} {
		a := &placefile.Advice{Predicted: placefile.Predicted{Predictions: []placefile.Prediction{{Name: "block", Run: 1}, {Name: "cyclic", Run: c.cyclicRun}}}}
		sol := &solve.Solution{Place: slices.Clone(prop)}
		if !keepOnEitherRouting(a, sol, in, slots, usable) {
			t.Fatalf("%s: the proposal (as slow as block spread) was not held back", c.name)
		}
		want, winner := block, "block"
		if c.wantCyclic {
			want, winner = cyc, "cyclic"
		}
		if !slices.Equal(sol.Place, want) || a.Solver.Winner != winner || c.wantCyclic != strings.Contains(a.Solver.Note, "cyclic is predicted faster than it on both") {
			t.Errorf("%s: winner %s, note %q; want %s", c.name, a.Solver.Winner, a.Solver.Note, winner)
		}
	}
	// Spread, cyclic must be solve.WorthIt faster than what is kept: not
	// against a kept run of its own.
	a := &placefile.Advice{Predicted: placefile.Predicted{Predictions: []placefile.Prediction{{Name: "block", Run: 1}, {Name: "cyclic", Run: 0.5}}}}
	for _, k := range []struct {
		run  float64
		want bool
	}{{run(in.spread, block), true}, {run(in.spread, cyc), false}} {
		if _, ok := cyclicOnBoth(a, in, usable, block, "block", k.run); ok != k.want {
			t.Errorf("cyclic spread %.4g s against a kept %.4g s: taken %v, want %v", run(in.spread, cyc), k.run, ok, k.want)
		}
	}
}

// pairedRingInputs are place's inputs on groupedRingSurveyOf's ring of
// routers with two cores a node, 16 ranks each sending 100 MB to the
// rank 8 away, a spread model kept, and the slots and usable slots.
func pairedRingInputs(t *testing.T) (in *inputs, slots, usable []int32) {
	t.Helper()
	sv := groupedRingSurveyOf(t, 2)
	var flows []profile.Flow
	for r := 0; r < 8; r++ {
		flows = append(flows, profile.Flow{Src: r, Dst: r + 8, Bytes: 1e8, Messages: 10}, profile.Flow{Src: r + 8, Dst: r, Bytes: 1e8, Messages: 10})
	}
	in, err := loadInputs(Options{Survey: sv, Matrix: writeMatrix(t, flows), Ranks: 16})
	if err != nil || in.spread == nil {
		t.Fatalf("err %v; no spread model kept", err)
	}
	if slots, usable, err = selectSlots(Options{}, in); err != nil {
		t.Fatal(err)
	}
	return in, slots, usable
}

// TestPlaceShortcutLinks: 32 nodes of one rank whose round trips are
// SimGrid's routes of a dragonfly of 4 groups x 2 chassis x 4 routers
// (fabric.NewDragonfly, one node a router; 4 + 3 us a link crossed, there
// and back averaged). SimGrid routes two routers of chassis 1 over their
// green link and chassis 0's black link, so their round trip is two
// links each way: the threshold graph lacks their link, and would route
// node 4's flow to node 5 through chassis 0 (4, 0, 1, 5), over the link
// node 0's flow to node 1 takes. network.FindDirect adds the 24 links
// (linkShortcuts), and place routes over them: the two flows share no
// link, and block with both is predicted at the run of one alone, not
// twice it (as without the added links).
func TestPlaceShortcutLinks(t *testing.T) {
	const k = 32
	f, err := fabric.NewDragonfly(simHosts(k), fabric.DragonflyShape{Groups: 4, Chassis: 2, Routers: 4, Nodes: 1, Blue: 1, Black: 1, Green: 1}, 1e9, 1e-6, false)
	if err != nil {
		t.Fatal(err)
	}
	// The hosts' order shuffled: no dragonfly in that order explains the
	// round trips (addDragonfly), and the graph of routers is found.
	perm := rand.New(rand.NewPCG(1, 2)).Perm(k)
	at := make([]int, k) // node n's place in the hosts' order
	for i, p := range perm {
		at[p] = i
	}
	survey := func(order []int) string {
		s := synth.New(synth.Spec{Nodes: k, Sockets: 1, Cores: 1, RTT: [4]float64{0.5, 0.8, 4, 9}, Seed: 1})
		s.Switches = nil
		setRTT(s, func(a, b int) float32 {
			// The links between routers, there and back, halved (each
			// way's route starts and ends on a node's own link).
			a, b = order[a], order[b]
			return float32(4 + 3*float64(len(f.Path(a, b))+len(f.Path(b, a))-4)/2)
		})
		return writeSurvey(t, s)
	}
	flows := func(order []int, pairs ...[2]int) string {
		var fl []profile.Flow
		for _, p := range pairs {
			fl = append(fl, profile.Flow{Src: order[p[0]], Dst: order[p[1]], Bytes: 1e8, Messages: 10})
		}
		return writeMatrix(t, fl)
	}
	in := []int{}
	for n := range k {
		in = append(in, n)
	}
	for _, c := range []struct {
		name       string
		order, pos []int
		want       []string
	}{
		{"in order", in, in, []string{"dragonfly of 4 groups x 2 chassis x 4 routers x 1 nodes", "DRAGONFLY 4,1;2,1;4,1;1"}},
		{"shuffled", perm, at, []string{"70 links", "24 of them added"}},
	} {
		sv := survey(c.order)
		r1, _ := blockRun(t, Options{Survey: sv, Matrix: flows(c.pos, [2]int{0, 1})})
		r2, out := blockRun(t, Options{Survey: sv, Matrix: flows(c.pos, [2]int{0, 1}, [2]int{4, 5})})
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: want %q:\n%s", c.name, w, out)
			}
		}
		if math.Abs(r2/r1-1) > 0.05 {
			t.Errorf("%s: block with both flows predicted at %.4g s, %.3gx its %.4g s with one: want 1x (no link shared)\n%s", c.name, r2, r2/r1, r1, out)
		}
	}
}
