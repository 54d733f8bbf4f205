package solve

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
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
	for name, keep := range map[string]bool{"dense": false, "nodes": true} {
		s, err := survey.ReadSurvey(dir, survey.LoadOptions{KeepSparse: keep})
		if err != nil {
			t.Fatal(err)
		}
		if out[name], err = model.MachineFromSurvey(s, model.SurveyCostOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// randomTraffic is n ranks each talking to a few random others, with
// random counts and sizes.
func randomTraffic(t *testing.T, n int, rng *rand.Rand) *model.Traffic {
	t.Helper()
	var flows []profile.Flow
	for a := 0; a < n; a++ {
		for k := 0; k < 4; k++ {
			b := rng.IntN(n)
			flows = append(flows, profile.Flow{Src: a, Dst: b, Messages: float64(1 + rng.IntN(100)), Bytes: float64(rng.IntN(1 << 22))})
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
// exchanges (MinLink, slack, a move's node-uniform part) never skip the
// best one, on every kind of machine, random traffic and placements.
func TestBestPartnerBoundsAreExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for name, m := range pruneMachines(t) {
		md := model.Pairwise(m)
		for trial := 0; trial < 4; trial++ {
			tr := randomTraffic(t, 128, rng)
			place := make([]int32, 128)
			for r, s := range rng.Perm(len(m.Slots))[:128] {
				place[r] = int32(s)
			}
			sw := newSwapper(md, tr, nil, place, 1)
			skipped := 0
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
			}
			if skipped > 2 {
				t.Errorf("%s trial %d: %d ranks got another partner of an equal change", name, trial, skipped)
			}
		}
	}
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
