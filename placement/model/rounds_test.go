package model_test

import (
	"math"
	"testing"

	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
	"github.com/latmap/latmap/placement/model/rounds"
)

// TestCollectiveLatency: 2 nodes x 2 slots, 1 us a message on a node and
// 10 us between nodes; a collective of 4 ranks takes 2 rounds. A barrier
// (partners r+1, then r+2): block (ranks 0, 1 on node 0) has a rank
// sending to the other node in both rounds, 10 + 10 = 20 us; ranks 0, 2
// on node 0 cross in the first round only, 10 + 1 = 11 us. Recursive
// doubling (partners r^1, then r^2): 1 + 10 = 11 us for block, 10 + 1 for
// the other. All on one slot: 0; 3 ranks: the rounds of the partners
// that exist.
func TestCollectiveLatency(t *testing.T) {
	levels := [3]model.LinkCost{model.SameSocket: {Latency: 1e-6, InvBandwidth: 1e-10}, model.SameNode: {Latency: 1e-6, InvBandwidth: 1e-10}, model.Network: {Latency: 10e-6, InvBandwidth: 1e-8}}
	m := model.NewLevelMachine(2, 1, 2, levels)
	for _, c := range []struct {
		kind  int
		place []int32
		want  float64
	}{{rounds.Dissemination, []int32{0, 1, 2, 3}, 20e-6}, {rounds.Dissemination, []int32{0, 2, 1, 3}, 11e-6}, {rounds.Dissemination, []int32{0, 0, 0, 0}, 0},
		{rounds.Dissemination, []int32{0, 2, 1}, 20e-6}, {rounds.Doubling, []int32{0, 1, 2, 3}, 11e-6}, {rounds.Doubling, []int32{0, 2, 1, 3}, 11e-6}, {rounds.Doubling, []int32{0, 2, 1}, 11e-6}} {
		if got := m.CollectiveLatency(c.kind, c.place); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("kind %d, place %v: %g s, want %g", c.kind, c.place, got, c.want)
		}
	}
}

// TestRoundCollectives: a profile's barriers and small allreduces are
// counted per rank and left out of its measured communication; a large
// allreduce stays in it, and so does every collective when the profile
// put them in its matrix. Predict adds each rank's rounds in the layout
// (TestCollectiveLatency's machine): 60 barriers and 40 allreduces take
// 60 x 20 + 40 x 11 us in block, 60 x 11 + 40 x 11 us with ranks 0, 2 on
// one node.
func TestRoundCollectives(t *testing.T) {
	p := &profile.Profile{Meta: profile.Meta{Ranks: 4, Modes: []string{profile.ModeBasic}}, Ranks: make([]profile.Rank, 4)}
	for r := range 4 {
		p.Functions = append(p.Functions,
			profile.Function{Rank: r, Function: "MPI_Barrier", Calls: 60, Time: 0.5},
			profile.Function{Rank: r, Function: "MPI_Allreduce", Calls: 40, Time: 0.25, BytesSent: 40 * 8, BytesRecv: 40 * 8},
			profile.Function{Rank: r, Function: "MPI_Allreduce", Calls: 1, Time: 2, BytesSent: 1 << 20, BytesRecv: 1 << 20},
			profile.Function{Rank: r, Function: "MPI_Waitall", Calls: 10, Time: 1})
	}
	rt := model.TimesFromProfile(p)
	for r := range 4 {
		if rt.Rounds[rounds.Dissemination][r] != 60 || rt.Rounds[rounds.Doubling][r] != 40 || rt.Comm[r] != 3 || rt.MPI[r] != 3.75 {
			t.Fatalf("rank %d: rounds %v, comm %g s, MPI %g s: want 60 barriers, 40 allreduces, 3 s (the large allreduce and waitall), 3.75 s", r, rt.Rounds, rt.Comm[r], rt.MPI[r])
		}
	}
	p.Meta.Modes = append(p.Meta.Modes, profile.ModeCollectivesInMatrix)
	if in := model.TimesFromProfile(p); in.Rounds[rounds.Dissemination][0]+in.Rounds[rounds.Doubling][0] != 0 || in.Comm[0] != 3.75 {
		t.Fatalf("collectives in the matrix: rounds %v, comm %g s: want none, 3.75 s", in.Rounds, in.Comm[0])
	}
	levels := [3]model.LinkCost{model.SameSocket: {Latency: 1e-6, InvBandwidth: 1e-10}, model.SameNode: {Latency: 1e-6, InvBandwidth: 1e-10}, model.Network: {Latency: 10e-6, InvBandwidth: 1e-8}}
	md, _ := model.NewModel(model.NewLevelMachine(2, 1, 2, levels), nil, model.ModelOptions{})
	tr := shapes.MustTraffic([]profile.Flow{{Src: 0, Dst: 1, Bytes: 1, Messages: 1}}, 4)
	without := model.Predict("x", md, tr, []int32{0, 1, 2, 3}, &model.RankTimes{Comput: make([]float64, 4), Sync: make([]float64, 4), Late: make([]float64, 4)})
	for _, c := range []struct {
		place []int32
		per   float64
	}{{[]int32{0, 1, 2, 3}, 1640e-6}, {[]int32{0, 2, 1, 3}, 1100e-6}} {
		pr := model.Predict("x", md, tr, c.place, rt)
		base := model.Predict("x", md, tr, c.place, &model.RankTimes{Comput: make([]float64, 4), Sync: make([]float64, 4), Late: make([]float64, 4)})
		if math.Abs(pr.Collectives-c.per) > 1e-12 || math.Abs(pr.Run-base.Run-c.per) > 1e-12 {
			t.Errorf("place %v: run %g s (%g without collectives), collectives %g s: want %g s more", c.place, pr.Run, base.Run, pr.Collectives, c.per)
		}
	}
	if without.Collectives != 0 {
		t.Errorf("no rounds: collectives %g s", without.Collectives)
	}
}
