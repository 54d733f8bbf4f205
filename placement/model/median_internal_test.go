package model

import "testing"

// TestPairCostsMedianSharedWeights: the latencies and the bandwidths of
// a level share their weights; a node pair of weight 5 with the lowest
// latency and the highest cost per byte is the weighted median of both,
// entered with the latencies falling, so that the first median reorders
// them (and would the weights, were they not copied).
func TestPairCostsMedianSharedWeights(t *testing.T) {
	pc := &pairCosts{levLat: make([][]float64, 1), levInvB: make([][]float64, 1), levW: make([][]float64, 1)}
	for _, e := range []struct{ lat, inv, w float64 }{{4, 3, 1}, {3, 2, 1}, {2, 1, 1}, {1, 9, 5}} {
		pc.add(0, LinkCost{Latency: e.lat, InvBandwidth: e.inv}, e.w)
	}
	if lat, inv := pc.median(pc.levLat, 0), pc.median(pc.levInvB, 0); lat != 1 || inv != 9 {
		t.Errorf("weighted medians %v s and %v s/B, want 1 and 9 (the pair of weight 5 of 8)", lat, inv)
	}
}
