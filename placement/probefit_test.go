package placement

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
)

// TestPlaceFitsProbe: on the ring of 8 routers (routerSurvey), a flow
// from router 0 to router 4 and one from router 1 to router 5 each have
// two shortest paths, and the round trips do not tell which the bytes
// take: spread over both, the two flows load no link more than their
// node links, and block with both is predicted as with one. A probe of
// flows at once that found them slowing each other (shares.csv) puts
// both on one way round (topo.FitProbe): the links they share carry
// both, and block with both is predicted at twice its run with one;
// place says the routes moved. A probe that found them apart leaves
// them spread.
func TestPlaceFitsProbe(t *testing.T) {
	ring := func(a, b int) int { d := (a - b + 8) % 8; return min(d, 8-d) }
	one := writeMatrix(t, []profile.Flow{{Src: 0, Dst: 8, Bytes: 1e8, Messages: 10}})
	two := writeMatrix(t, []profile.Flow{{Src: 0, Dst: 8, Bytes: 1e8, Messages: 10}, {Src: 2, Dst: 10, Bytes: 1e8, Messages: 10}})
	for _, c := range []struct {
		name   string
		shared bool
		ratio  float64
	}{{"slowed", true, 2}, {"apart", false, 1}, {"no probe", false, 1}} {
		sv := routerSurvey(t, ring)
		if c.name != "no probe" {
			slow := map[bool]float64{true: 2, false: 1.02}[c.shared]
			sv = withShares(t, sv, survey.Share{SrcA: "node000", DstA: "node008", SrcB: "node002", DstB: "node010", SlowdownA: slow, SlowdownB: slow})
		}
		checkTwoFlows(t, c.name, Options{Survey: sv}, one, two, c.ratio,
			"shortest paths, which judges 0 of its 12 pairs of flows otherwise instead of 1", c.shared)
	}
}

// TestPlaceFitsProbeDeclared: the same ring of 8 routers declared as a
// list of links (routed by shortest paths: which of two is the file's
// guess). The guess sends the flow from router 0 to router 4 and the
// one from router 1 to router 5 (node003 -> node011) the same way
// round, sharing three links: block with both is predicted at twice
// its run with one. A probe that found them apart sends one the other
// way round, and block with both is predicted as with one.
func TestPlaceFitsProbeDeclared(t *testing.T) {
	topology := filepath.Join("..", "mapper", "fabric", "testdata", "ring8x2.links")
	ring := func(a, b int) int { d := (a - b + 8) % 8; return min(d, 8-d) }
	one := writeMatrix(t, []profile.Flow{{Src: 0, Dst: 8, Bytes: 1e8, Messages: 10}})
	two := writeMatrix(t, []profile.Flow{{Src: 0, Dst: 8, Bytes: 1e8, Messages: 10}, {Src: 3, Dst: 11, Bytes: 1e8, Messages: 10}})
	for _, c := range []struct {
		name  string
		probe bool
		ratio float64
	}{{"no probe", false, 2}, {"apart", true, 1}} {
		sv := routerSurvey(t, ring)
		if c.probe {
			sv = withShares(t, sv, survey.Share{SrcA: "node000", DstA: "node008", SrcB: "node003", DstB: "node011", SlowdownA: 1.02, SlowdownB: 1.02})
		}
		checkTwoFlows(t, c.name, Options{Survey: sv, Topology: []string{topology}}, one, two, c.ratio, "shortest paths, which judges 0 of its", c.probe)
	}
}

// checkTwoFlows checks that block with the flows of matrix two is
// predicted at ratio times its run with matrix one's (within 5%), opt
// priced, and that place says moved (its line on the routes the probe
// moved) where moved is true, and not where it is false.
func checkTwoFlows(t *testing.T, name string, opt Options, one, two string, ratio float64, moved string, want bool) {
	t.Helper()
	opt.Matrix = one
	r1, _ := blockRun(t, opt)
	opt.Matrix = two
	r2, out := blockRun(t, opt)
	if math.Abs(r2/r1-ratio) > 0.05*ratio {
		t.Errorf("%s: block with both flows predicted at %.4g s, %.3gx its %.4g s with one; want %gx\n%s", name, r2, r2/r1, r1, ratio, out)
	}
	if got := strings.Contains(out, moved); got != want {
		t.Errorf("%s: place says the routes moved: %v, want %v\n%s", name, got, want, out)
	}
}

// withShares is a copy of the survey sv with a probe of flows at once
// between row's four hosts alone (two hosts a router of routerSurvey's
// ring: node%03d), complete: row's pair of flows judged (slowed past
// 1.5x), every other pair of flows between the four cleared.
func withShares(t *testing.T, sv string, row survey.Share) string {
	t.Helper()
	routers := map[string]int{}
	for _, h := range []string{row.SrcA, row.DstA, row.SrcB, row.DstB} {
		var n int
		if _, err := fmt.Sscanf(h, "node%d", &n); err != nil {
			t.Fatal(err)
		}
		routers[h] = n / 2
	}
	row.Shared = max(row.SlowdownA, row.SlowdownB) > 1.5
	return editedSurvey(t, sv, "probed", func(s *survey.Survey) {
		s.Meta.Probe = &survey.ProbeMeta{Routers: routers, Planned: "latencies", Threshold: 1.5, Judged: 1}
		s.Shares = []survey.Share{row}
	})
}

// editedSurvey is a copy of the survey sv, edited, in a new directory
// name of the test's.
func editedSurvey(t *testing.T, sv, name string, edit func(*survey.Survey)) string {
	t.Helper()
	s, err := survey.ReadSurvey(sv, survey.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	edit(s)
	dir := filepath.Join(t.TempDir(), name)
	if err := survey.WriteSurvey(dir, s, false); err != nil {
		t.Fatal(err)
	}
	return dir
}
