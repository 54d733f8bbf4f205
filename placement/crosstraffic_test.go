package placement

import (
	"math"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
)

// withBothWays is survey directory sv with nodebw.csv's both-ways row
// (bench/bothways.go): node000 and node001 sending to each other at once
// moved each MB/s each way, one alone alone MB/s.
func withBothWays(t *testing.T, sv string, each, alone float64) string {
	t.Helper()
	s, err := survey.ReadSurvey(sv, survey.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.NodeBandwidth = append(s.NodeBandwidth, survey.NodeBandwidth{Host: "node000", Peer: survey.BothWaysPeer + "node001", Ranks: 1, Size: 1 << 20, Messages: 16,
		Seconds: 16 * (1 << 20) / each / 1e6, AggregateMBps: each, PairMBps: alone})
	return writeSurvey(t, s)
}

// TestCrossTrafficFound: on networks found in the survey alone, the
// both-ways row's cross traffic is priced. On a ring found in the round
// trips (links priced at the pairs' rate, measured one way at a time),
// two neighbours sending to each other at once take 1.25x the time one
// takes alone where both ways moved 800 MB/s against 1,000 alone; 1x
// where they moved within 2% of it (and with no row). On a fat tree found
// in the switch levels, whose node links the node phase measured at
// 1,000 MB/s with every node receiving as it sent, a node sending alone
// moves 1,250 MB/s (0.8 of the time without the row), and two sending to
// each other each move the 1,000 MB/s the phase measured.
func TestCrossTrafficFound(t *testing.T) {
	one := []profile.Flow{{Src: 0, Dst: 1, Bytes: 1e8, Messages: 10}}
	both := []profile.Flow{{Src: 0, Dst: 1, Bytes: 1e8, Messages: 10}, {Src: 1, Dst: 0, Bytes: 1e8, Messages: 10}}
	run := func(sv string, flows []profile.Flow) (float64, string) {
		return blockRun(t, Options{Survey: sv, Matrix: writeMatrix(t, flows)})
	}
	ring := ringSurvey(t, []int{0, 1, 2, 3, 4, 5, 6, 7})
	for _, c := range []struct {
		each, ratio float64
		priced      string
	}{{800, 1.25, "25% of each message on its way back (measured both ways, nodebw.csv)"}, {990, 1, "within 2%, so a message's way back is priced as carrying nothing"}} {
		sv := withBothWays(t, ring, c.each, 1000)
		r1, _ := run(sv, one)
		r2, out := run(sv, both)
		if math.Abs(r2/r1-c.ratio) > 0.02*c.ratio || !strings.Contains(out, c.priced) {
			t.Errorf("ring, both ways at %g MB/s: the pair both ways predicted %.3gx one way, want %gx; report (want %q):\n%s", c.each, r2/r1, c.ratio, c.priced, out)
		}
	}
	r1, _ := run(ring, one)
	if r2, _ := run(ring, both); math.Abs(r2/r1-1) > 0.02 {
		t.Errorf("ring without the both-ways row: both ways %.3gx one way, want 1x", r2/r1)
	}

	tree := treeSurvey(t, 2000)
	cross := []profile.Flow{{Src: 0, Dst: 4, Bytes: 1e8, Messages: 10}}
	back := []profile.Flow{{Src: 0, Dst: 4, Bytes: 1e8, Messages: 10}, {Src: 4, Dst: 0, Bytes: 1e8, Messages: 10}}
	plain, _ := run(tree, cross)
	sv := withBothWays(t, tree, 800, 1000)
	alone, out := run(sv, cross)
	twoWays, _ := run(sv, back)
	if math.Abs(alone/plain-0.8) > 0.02 || math.Abs(twoWays/plain-1) > 0.02 || !strings.Contains(out, "FAT_TREE") {
		t.Errorf("fat tree found, 25%% cross traffic: one way %.3gx, both ways %.3gx the run without it; want 0.8x and 1x (routed as a fat tree)\n%s", alone/plain, twoWays/plain, out)
	}
}
