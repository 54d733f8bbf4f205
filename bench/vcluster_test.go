package bench_test

import (
	"path/filepath"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/internal/vcluster"
	"github.com/latmap/latmap/mapper/survey"
)

// TestSurveyVirtualCluster surveys 2 nodes x 2 ranks of network namespaces:
// ranks on one node talk through shared memory, across nodes through TCP, so
// the survey must see two levels.
func TestSurveyVirtualCluster(t *testing.T) {
	testutil.RequireMPI(t)
	bin := testutil.LatmapBin(t)
	c := vcluster.Start(t, 2, 2)
	dir := t.TempDir()
	// Medians of the first tens of milliseconds of a run are still noisy on
	// a shared 2-core machine; 200 round trips per pair take under a second.
	repeats := "200"

	// Sequential: one pair at a time, as mmpi measured.
	seq := filepath.Join(dir, "seq")
	runSurvey(t, c.MpirunArgs(4), bin, seq, "--schedule", "sequential", "--repeats", repeats)
	s := checkSurvey(t, seq, 4, 200)
	// By-slot mapping fills the first node first.
	want := []string{c.Nodes[0], c.Nodes[0], c.Nodes[1], c.Nodes[1]}
	for i, r := range s.Ranks {
		if r.Host != want[i] {
			t.Errorf("rank %d ran on %q, want %q", i, r.Host, want[i])
		}
	}
	tb := s.Tables[0]
	maxSame, minCross := 0.0, 1e18
	for a := 0; a < 4; a++ {
		for b := a + 1; b < 4; b++ {
			m := tb.At(survey.Median, a, b)
			if s.Ranks[a].Host == s.Ranks[b].Host {
				maxSame = max(maxSame, m)
			} else {
				minCross = min(minCross, m)
			}
		}
	}
	t.Logf("sequential: slowest same-node median %.2f us, fastest cross-node median %.2f us", maxSame, minCross)
	if !(2*maxSame <= minCross) {
		t.Errorf("same-node medians (up to %.2f us) are not at least 2x lower than cross-node ones (from %.2f us)", maxSame, minCross)
	}
	if s.Meta.Interference != nil {
		t.Errorf("sequential survey reports interference %v", *s.Meta.Interference)
	}

	// Rounds: the interference figure is reported.
	rounds := filepath.Join(dir, "rounds")
	runSurvey(t, c.MpirunArgs(4), bin, rounds, "--repeats", repeats)
	r := checkSurvey(t, rounds, 4, 200)
	if r.Meta.Interference == nil || !(*r.Meta.Interference > 0) || r.Meta.IsolatedPairs != 4 {
		t.Fatalf("rounds survey: interference %v over %d pairs, want a figure over 4 pairs", r.Meta.Interference, r.Meta.IsolatedPairs)
	}
	isolated := 0
	for a := 0; a < 4; a++ {
		for b := a + 1; b < 4; b++ {
			if v := r.Tables[0].At(survey.Isolated, a, b); v > 0 {
				isolated++
			}
		}
	}
	if isolated != 4 {
		t.Errorf("%d pairs have an isolated median, want 4", isolated)
	}
	t.Logf("rounds: interference %.3f", *r.Meta.Interference)
}
