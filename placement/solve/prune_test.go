package solve

import (
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/sweep"
	"github.com/latmap/latmap/mapper/survey/synth"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
)

// pruneMachines are the three kinds of machine the swapper prices: level
// costs, a dense per-pair table, and a sparse survey priced node pair by
// node pair (16 nodes x 2 sockets x 4 cores, noisy costs).
func pruneMachines(t *testing.T) map[string]*model.Machine {
	t.Helper()
	spec := synth.Spec{Nodes: 16, Sockets: 2, Cores: 4, NodesPerSwitch: 4, RTT: [4]float64{1, 2, 10, 14}, Noise: 0.3, Seed: 9, Scope: survey.ScopeNodes}
	dir := filepath.Join(t.TempDir(), "s")
	if err := survey.WriteSurvey(dir, synth.New(spec), false); err != nil {
		t.Fatal(err)
	}
	out := map[string]*model.Machine{"levels": model.NewLevelMachine(16, 2, 4, shapes.BenchLevels)}
	for name, keep := range map[string]bool{"dense": false, "nodes": true, "nodes, swept": true} {
		s, err := survey.ReadSurvey(dir, survey.LoadOptions{KeepSparse: keep})
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(name, "swept") {
			fastSweep(s)
		}
		if out[name], err = model.MachineFromSurvey(s, model.SurveyCostOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// fastSweep gives s a size sweep in which every size takes 1 us each way,
// on a socket, on a node and between nodes: most sizes cost less than
// the line through the survey's sizes, so the sweep prices transfers
// below the machine's least link.
func fastSweep(s *survey.Survey) {
	for _, p := range []sweep.Pair{{A: 0, B: 1, Where: sweep.Socket}, {A: 0, B: 4, Where: sweep.Node}, {A: 0, B: 8, Where: sweep.Network}} {
		for _, size := range sweep.Sizes(s.Sizes()) {
			s.Sweep = append(s.Sweep, sweep.Row{A: p.A, B: p.B, Where: p.Where, Size: size, Count: 20, MinUs: 2, MedianUs: 2})
		}
	}
}

// pruneModels are the pairwise models of pruneMachines, and of two of
// them with a quarter of the latency between nodes (a what-if): bounds
// on the machine's links must hold below them too.
func pruneModels(t *testing.T) map[string]*model.Model {
	t.Helper()
	out := map[string]*model.Model{}
	for name, m := range pruneMachines(t) {
		out[name] = model.Pairwise(m)
		if name == "levels" || name == "nodes" {
			fast, _, err := model.Pairwise(m).WithLinks("all", 1, 0.25)
			if err != nil {
				t.Fatal(err)
			}
			out[name+", latency x0.25"] = fast
		}
	}
	return out
}

// randomTraffic is n ranks each talking to a few random others, with
// random counts and sizes.
func randomTraffic(t *testing.T, n int, rng *rand.Rand) *model.Traffic {
	t.Helper()
	return randomTrafficUpTo(t, n, 1<<22, rng)
}

// randomTrafficUpTo is randomTraffic with up to maxBytes bytes a pair.
func randomTrafficUpTo(t *testing.T, n, maxBytes int, rng *rand.Rand) *model.Traffic {
	t.Helper()
	var flows []profile.Flow
	for a := 0; a < n; a++ {
		for k := 0; k < 4; k++ {
			b := rng.IntN(n)
			flows = append(flows, profile.Flow{Src: a, Dst: b, Messages: float64(1 + rng.IntN(100)), Bytes: float64(rng.IntN(maxBytes))})
		}
	}
	tr, err := model.NewTraffic(n, flows)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// bruteBestPartner is bestPartner without the bounds: every rank of i's
// candidate groups priced in full. It returns the partner and the change.
func bruteBestPartner(sw *swapper, i int32) (int32, float64) {
	a := sw.place[i]
	bj, bd := int32(-1), 0.0
	for _, c := range sw.candidateGroups(i, &sw.scratch[0]) {
		for _, s := range sw.groups[c.g] {
			j := sw.slotRank[s]
			if j == i || j < 0 {
				continue
			}
			di, ai := sw.moveGain(i, s, j)
			dj, aj := sw.moveGain(j, a, i)
			if d := di + dj; d < bd && d < -1e-12*(ai+aj) {
				bj, bd = j, d
			}
		}
	}
	return bj, bd
}

// exchangeGain is the exact change of exchanging i and j (0 for j < 0).
func exchangeGain(sw *swapper, i, j int32) float64 {
	if j < 0 {
		return 0
	}
	di, _ := sw.moveGain(i, sw.place[j], j)
	dj, _ := sw.moveGain(j, sw.place[i], i)
	return di + dj
}

// TestBestPartnerBoundsAreExact: the bounds with which bestPartner skips
// exchanges (the machine's floors, slack, the rise of leaving a node, a
// move's node-uniform part) never skip the best one, on every kind of
// machine (with a size sweep priced below its least link, and with the
// latency between nodes scaled down), random traffic, and placements at
// random and half refined (where most exchanges are skipped). The
// sorted order of the machines fixes the random draws: in it, a level
// machine's socket priced on a neighbour's slot (its traffic with that
// neighbour at no cost) chose a partner of no gain.
func TestBestPartnerBoundsAreExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	models := pruneModels(t)
	for _, name := range slices.Sorted(maps.Keys(models)) {
		md := models[name]
		if plain := models["nodes"]; strings.Contains(name, "swept") {
			tr, place := randomTraffic(t, 128, rng), randomPlace(len(md.Slots), 128, rng)
			if a, b := md.Cost(tr, place), plain.Cost(tr, place); !(a < b) {
				t.Fatalf("%s: priced %g, no lower than without the sweep: no factor below 1 tested", name, a)
			}
		}
		maxBytes := 1 << 22
		if strings.Contains(name, "latency") { // small messages: their latency counts
			maxBytes = 1 << 10
		}
		for trial := 0; trial < 10; trial++ {
			tr, place := randomTrafficUpTo(t, 128, maxBytes, rng), randomPlace(len(md.Slots), 128, rng)
			sw := newSwapper(md, tr, nil, place, 1)
			if trial%2 == 1 {
				sw.refineSwaps(1)
			}
			skipped, found := 0, 0
			for i := int32(0); i < 128; i++ {
				want, wd := bruteBestPartner(sw, i)
				got := sw.bestPartner(i, &sw.scratch[0])
				gd := exchangeGain(sw, i, got)
				if math.Abs(gd-wd) > 1e-9*math.Abs(wd) {
					t.Fatalf("%s trial %d rank %d: bestPartner %d (change %g), pricing every exchange finds %d (change %g)", name, trial, i, got, gd, want, wd)
				}
				if want != got {
					skipped++
				}
				if want >= 0 {
					found++
				}
			}
			if trial%2 == 0 && skipped > 2 { // half refined, ties abound
				t.Errorf("%s trial %d: %d ranks got another partner of an equal change", name, trial, skipped)
			}
			if found == 0 {
				t.Errorf("%s trial %d: no rank has a partner that gains: nothing was compared", name, trial)
			}
		}
	}
}

// randomPlace is n ranks on distinct slots of slots, at random.
func randomPlace(slots, n int, rng *rand.Rand) []int32 {
	place := make([]int32, n)
	for r, s := range rng.Perm(slots)[:n] {
		place[r] = int32(s)
	}
	return place
}

// refineOneByOne is refineSwaps pricing one rank at a time (as it did
// before it priced ahead in batches).
func refineOneByOne(sw *swapper, maxPasses int) int {
	t := sw.t
	active := make([]bool, t.N)
	for i := range active {
		active[i] = true
	}
	swaps := 0
	for pass := 0; pass < maxPasses; pass++ {
		improved := 0
		for i := int32(0); i < int32(t.N); i++ {
			if !active[i] {
				continue
			}
			active[i] = false
			j := sw.bestPartner(i, &sw.scratch[0])
			if j < 0 || !sw.swapUnlessSlower(i, j) {
				continue
			}
			swaps++
			improved++
			for _, r := range [2]int32{i, j} {
				active[r] = true
				for e := t.Start[r]; e < t.Start[r+1]; e++ {
					active[t.Adj[e]] = true
				}
			}
		}
		if improved == 0 {
			break
		}
	}
	return swaps
}

// randomCase is the pairwise model of m, random traffic of 128 ranks and
// a random placement of them on m's slots.
func randomCase(t *testing.T, m *model.Machine, rng *rand.Rand) (*model.Model, *model.Traffic, []int32) {
	t.Helper()
	tr := randomTraffic(t, 128, rng)
	place := make([]int32, 128)
	for r, s := range rng.Perm(len(m.Slots))[:128] {
		place[r] = int32(s)
	}
	return model.Pairwise(m), tr, place
}

// TestRefineSwapsSameOnAnyWorkers: pricing ranks ahead in batches, on one
// worker or several, gives the swaps (and placement) of pricing one rank
// at a time.
func TestRefineSwapsSameOnAnyWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for name, m := range pruneMachines(t) {
		md, tr, start := randomCase(t, m, rng)
		ref := slices.Clone(start)
		places := [][]int32{ref}
		swaps := []int{refineOneByOne(newSwapper(md, tr, nil, ref, 1), 30)}
		for _, w := range []int{1, 2, 5} {
			p := slices.Clone(start)
			swaps = append(swaps, newSwapper(md, tr, nil, p, w).refineSwaps(30))
			places = append(places, p)
		}
		if swaps[0] == 0 {
			t.Fatalf("%s: no swaps from a random start: nothing compared", name)
		}
		for k := 1; k < len(places); k++ {
			if swaps[k] != swaps[0] || !slices.Equal(places[k], places[0]) {
				t.Errorf("%s: %d swaps one rank at a time, %d in batches (run %d), placements equal %v", name, swaps[0], swaps[k], k, slices.Equal(places[k], places[0]))
			}
		}
	}
}
