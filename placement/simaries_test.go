package placement

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
)

// ariesDragonfly is a list of links of a dragonfly whose groups are
// wired as Cray XC's Aries groups are, smaller: 5 groups of 2 rows of 4
// routers, each router linked to every router of its row (green) and of
// its column (black), so that two routers of a group in neither one row
// nor one column are two hops apart through either of two routers; each
// pair of groups by one global link (blue), cabled on group g's router
// (g + 3h) mod 8 to h's (h + 3g) mod 8; 4 hosts a router (aG.R.H, router
// R = 4 x row + column).
func ariesDragonfly() string {
	var b strings.Builder
	const groups, rows, cols = 5, 2, 4
	for g := 0; g < groups; g++ {
		for r := 0; r < rows*cols; r++ {
			for h := 0; h < 4; h++ {
				fmt.Fprintf(&b, "a%d.%d.%d g%dr%d 10Gbps 0.5us\n", g, r, h, g, r)
			}
			for s := r + 1; s < rows*cols; s++ {
				if r/cols == s/cols || r%cols == s%cols {
					fmt.Fprintf(&b, "g%dr%d g%dr%d 10Gbps 0.5us\n", g, r, g, s)
				}
			}
		}
		for h := g + 1; h < groups; h++ {
			fmt.Fprintf(&b, "g%dr%d g%dr%d 10Gbps 0.5us\n", g, (g+3*h)%8, h, (h+3*g)%8)
		}
	}
	return b.String()
}

// pickAries is a job on ariesDragonfly as a busy machine's scheduler
// leaves it: two hosts on each of two routers of groups 0, 1, 2 and 4,
// in different rows and columns (routers 1 and 6 of groups 0 and 2, 0
// and 7 of 1 and 4): every two of its routers are two hops apart or
// more.
var pickAries = pickRouters("a", func(g, r int) bool {
	return (g == 0 || g == 2) && (r == 1 || r == 6) || (g == 1 || g == 4) && (r == 0 || r == 7)
})

// pickAriesOther is another such job, out of sample for what was tuned
// on pickAries: routers 2 and 4 of group 1, 3 and 4 of 2, 0 and 5 of 3,
// 1 and 6 of 4, each two of a group in different rows and columns, and
// no two of different groups the two ends of a global link.
var pickAriesOther = pickRouters("a", func(g, r int) bool {
	return g == 1 && (r == 2 || r == 4) || g == 2 && (r == 3 || r == 4) || g == 3 && (r == 0 || r == 5) || g == 4 && (r == 1 || r == 6)
})

// ariesCluster is the simulated cluster of pickAries's 16 hosts of 4
// cores on ariesDragonfly, its list of links declared.
func ariesCluster(t testing.TB) *simCluster {
	t.Helper()
	return builtClusterOf(t, "aries-fragment", writeLinks(t, ariesDragonfly()), 4, pickAries)
}

// ariesOtherCluster is ariesCluster on pickAriesOther's hosts.
func ariesOtherCluster(t testing.TB) *simCluster {
	t.Helper()
	return builtClusterOf(t, "aries-fragment-2", writeLinks(t, ariesDragonfly()), 4, pickAriesOther)
}

// BenchmarkSimBuiltAries: 64 ranks (16 hosts of 4 cores) on a fragment
// of a dragonfly whose groups are wired as Cray XC's rows and columns
// (ariesDragonfly, pickAries, routed by shortest paths), the survey
// measured inside the simulation, the real application matrices and two
// shapes replayed under block, cyclic and the proposal, priced from the
// survey alone and with the list of links declared: predicted and
// simulated runs, and each miss of the simulated checks' bounds (make
// bench-sim-built). The survey probes flows at once, as latmap survey's
// default does there (--probe auto); TestSimBuiltAries asserts the
// bounds.
//
// The same on pickAriesOther's fragment, which nothing was tuned on.
func BenchmarkSimBuiltAries(b *testing.B) {
	clusters := []*simCluster{ariesCluster(b), ariesOtherCluster(b)}
	apps := builtApps(b)
	for b.Loop() {
		for x, c := range clusters {
			if len(c.hosts) != 16 {
				b.Fatalf("%d hosts picked, want 16", len(c.hosts))
			}
			files := c.declared
			c.declared = nil
			sv := c.survey(b, "all", []int{64, 1 << 20}, 10)
			fmt.Printf("\nAries-wired dragonfly fragment %d, 64 ranks on 16 hosts of 8 routers of 4 groups\n", x+1)
			misses := printSurveyAloneAndDeclared(b, c, sv, apps, 64, files)
			c.declared = files
			fmt.Printf("misses of the simulated checks' bounds: %d\n", len(misses))
			for _, m := range misses {
				fmt.Println("  " + m)
			}
		}
	}
}

// checkRanges: from the survey alone, on a fragment whose routers are
// far apart, every placement's prediction comes with its range over the
// networks the round trips allow (Prediction.Low, High: the switch
// levels above the routers priced and not, and the links the round
// trips fit where they fit some), around the predicted run; and the
// simulated block, cyclic and proposal runs are within the checks' raw
// bounds (0.75-1.33) of the range. On the second fragment GROMACS's
// block run simulated at 0.0442 s, predicted 0.0646 s (1.46x, outside
// the bounds) in a range from 0.0396 s. Over all 14 applications on both
// fragments (make test-sim-built) 65 of the 84 runs fell inside the
// range itself, all 84 within its bounds, 71 within the predicted run's.
func checkRanges(t *testing.T, sc simCase) {
	t.Helper()
	for name, p := range sc.predicted {
		r, ok := sc.ranges[name]
		if !ok || !(r[0] <= p*(1+1e-9) && p <= r[1]*(1+1e-9)) {
			t.Errorf("%s %s: predicted %.5f s, range %v: want a range around it", sc.name, name, p, r)
		}
	}
	if r := sc.ranges["block"]; !(r[0] < r[1]) {
		t.Errorf("%s: block's range %v is one point: the models the round trips allow price it alike", sc.name, r)
	}
	for _, layout := range []string{"block", "cyclic", "proposal"} {
		if r, s := sc.ranges[layout], sc.simulated[layout]; s < r[0]/1.33 || s > r[1]/0.75 {
			t.Errorf("%s %s: simulated %.5f s, outside the raw bounds of its range %.5f-%.5f s", sc.name, layout, s, r[0], r[1])
		}
	}
}

// TestSimBuiltAries: on the Aries fragments (ariesDragonfly, pickAries
// and pickAriesOther), the survey measured inside the simulation as
// latmap survey's default measures it: its routers are two hops apart or
// more through routers outside the job, so it probes flows at once
// (--probe auto, bench.ProbeWanted), and place prices the links the
// probe found shared (topo.ProbeShared). From the survey every case is
// held to checkSimCase's bounds, and to a range around each prediction
// over the other networks the round trips allow (checkRanges); declared
// as a list of links, to checkSimCase's. go test alone runs LAMMPS
// peptide, GROMACS and NPB SP on the first fragment and GROMACS on the
// second; make test-sim-built (LATMAP_SIM_BUILT=all) every application
// and the held-out matrices on both: 32 cases from the survey. Priced on
// the switch levels instead, 19 of the held-out matrices' lines missed
// the bounds; with the links covering only pairs of classes the probe
// found sharing (none it cannot judge, as of one destination host), 5;
// held to the other networks, no case missed but SP's and BT's
// proposals gave way to block. make test leaves the test to make
// test-sim-built, which CI runs after it, for make test's 15-minute
// bound.
func TestSimBuiltAries(t *testing.T) {
	t.Parallel() // simulated time: see simMemo
	for x, c := range []*simCluster{ariesCluster(t), ariesOtherCluster(t)} {
		fragment := []string{"aries-fragment", "aries-fragment-2"}[x]
		files := c.declared
		c.declared = nil
		sv := c.survey(t, "all", []int{64, 1 << 20}, 10)
		checkAutoProbe(t, sv)
		apps := builtApps(t)
		switch {
		case os.Getenv("LATMAP_SIM_BUILT") != "":
			apps = append(apps, heldOutApps(t)...)
		case x == 0:
			apps = []simApp{apps[3], apps[4], matrixApps(t, "npb-sp-64")[0]} // lammps-peptide, gromacs-water, npb-sp-64
		default:
			apps = []simApp{apps[4]} // gromacs-water
		}
		for _, declared := range [][]string{nil, files} {
			c.declared = declared
			for _, app := range apps {
				name := fragment + " " + app.name + map[bool]string{true: " (declared)", false: " (survey)"}[declared != nil]
				sc := placeAndSimulate(t, c, sv, name, app.flows, 64, app.iters())
				checkSimCase(t, sc)
				if declared == nil {
					checkRanges(t, sc)
				}
			}
		}
	}
}

// checkAutoProbe fails where the survey sv has no probe of flows at
// once that latmap survey's default (--probe auto) took and judged in
// full: shares.csv's verdicts are what place prices the fragment on.
func checkAutoProbe(t *testing.T, sv string) {
	t.Helper()
	s, err := survey.ReadSurvey(sv, survey.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	auto := slices.ContainsFunc(s.Meta.Warnings, func(w string) bool { return strings.HasPrefix(w, "--probe auto: flows at once probed") })
	if p := s.Meta.Probe; p == nil || p.Unjudged > 0 || p.Shared == 0 || !auto {
		t.Fatalf("%s: probe %+v, warnings %q: want --probe auto's probe, every pair of classes judged", sv, p, s.Meta.Warnings)
	}
}
