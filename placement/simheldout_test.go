package placement

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/ibsim"
)

// heldOutApps are the real 64-rank matrices kept out of every check
// that tuned the model (testdata/matrix, measured on 2026-12-03 under
// Open MPI's PML monitoring; testdata/README.md says how): NPB 3.4's
// BT, SP, LU, CG and MG (class A), LULESH 2.0, miniFE, miniMD and HPCG.
// No threshold, factor or rule of latmap was chosen on them: they judge
// the model out of sample.
func heldOutApps(t testing.TB) []simApp {
	return matrixApps(t, "npb-bt-64", "npb-sp-64", "npb-lu-64", "npb-cg-64", "npb-mg-64", "lulesh-64", "minife-64", "minimd-64", "hpcg-64")
}

// heldOutBuilt are built networks kept out of every check that tuned
// the model, routed by real OpenSM's other engines on ibsim's simulation
// of the sites' switches: Tartu's fabric by dfsssp (which routes 9,180
// of its 20,592 host pairs otherwise than minhop), 16 hosts round robin
// over the leaves of the simulated dump; psmn-infiniband's job on PSMN's
// fabric by updn (2,430 of 7,832 otherwise; mapper/fabric's
// TestOpenSMTables).
var heldOutBuilt = []builtNetwork{
	{"utartu-dfsssp", func(t testing.TB) []string {
		f := ibsim.Route(t, tartuFile(t), "dfsssp")
		return []string{f.Path("fabric.ibnetdiscover"), f.Path("opensm-lfts.dump")}
	}, nil},
	{"psmn-updn", func(t testing.TB) []string { return psmnRouted(t, "updn") }, pickNames(psmnJob)},
}

// builtWithAries are the built networks (builtNetworks), those held out
// (heldOutBuilt) and the Aries fragments (ariesDragonfly, pickAries and
// pickAriesOther), each as a simulated cluster of its own files, with
// their names.
func builtWithAries(t testing.TB) (names []string, clusters []*simCluster) {
	for _, n := range slices.Concat(builtNetworks, heldOutBuilt) {
		names, clusters = append(names, n.name), append(clusters, builtCluster(t, n))
	}
	return append(names, "aries-fragment", "aries-fragment-2"), append(clusters, ariesCluster(t), ariesOtherCluster(t))
}

// heldOutGenerated are SimGrid's generated platforms BenchmarkSimHeldOut
// also replays the held-out matrices on (testdata/sim), with their
// nodes (64 ranks in all): the three the model was first built on and
// four kept aside in earlier rounds.
var heldOutGenerated = []struct {
	platform string
	nodes    int
}{{"fattree-16x4.xml", 16}, {"torus-4x4.xml", 16}, {"dragonfly-16x4.xml", 16},
	{"dragonfly-16x4-2global.xml", 16}, {"torus-4x2x2.xml", 16}, {"fattree-16x4-4to1.xml", 16}, {"dragonfly-32x2-4groups.xml", 32}}

// BenchmarkSimHeldOut is make bench-sim-built's out-of-sample check:
// every built network (builtWithAries) and the generated platforms of
// heldOutGenerated, the survey measured inside the simulation, the
// held-out matrices (heldOutApps) replayed under block, cyclic and the
// proposal, priced from the survey alone and with the network declared
// (its own files; a generated platform's XML): predicted and simulated
// runs, and each miss of the simulated checks' bounds (simMisses).
// LATMAP_SIM_BUILT=NAME runs that network alone (a platform by its file
// name without .xml).
func BenchmarkSimHeldOut(b *testing.B) {
	names, clusters := heldOutClusters(b)
	apps := heldOutApps(b)
	for b.Loop() {
		var misses []string
		for x, c := range clusters {
			if only := os.Getenv("LATMAP_SIM_BUILT"); only != "" && only != "all" && only != names[x] {
				continue
			}
			files := c.declared
			c.declared = nil
			sv := c.survey(b, "all", []int{64, 1 << 20}, 10)
			fmt.Printf("\n%s, 64 ranks, the held-out matrices\n", names[x])
			for _, m := range printSurveyAloneAndDeclared(b, c, sv, apps, 64, files) {
				misses = append(misses, names[x]+" "+m)
			}
			c.declared = files
		}
		fmt.Printf("\nmisses of the simulated checks' bounds: %d\n", len(misses))
		for _, m := range misses {
			fmt.Println("  " + m)
		}
	}
}

// heldOutClusters are BenchmarkSimHeldOut's simulated clusters, with
// their names: the built networks and Aries fragments (builtWithAries)
// and the generated platforms of heldOutGenerated, each declared by its
// platform file.
func heldOutClusters(b testing.TB) (names []string, clusters []*simCluster) {
	names, clusters = builtWithAries(b)
	for _, p := range heldOutGenerated {
		c := newSimCluster(b, p.platform, simHosts(p.nodes), 64/p.nodes)
		c.declared = []string{c.platform}
		names, clusters = append(names, strings.TrimSuffix(p.platform, ".xml")), append(clusters, c)
	}
	return names, clusters
}

// BenchmarkSimKeepSurveys measures BenchmarkSimHeldOut's surveys (the
// survey alone, 64 ranks each) and TestSimFragment64's into
// LATMAP_SIM_KEEP, for network's BenchmarkThresholds to sweep (make
// bench-thresholds); a survey kept there already is not measured again.
func BenchmarkSimKeepSurveys(b *testing.B) {
	if os.Getenv("LATMAP_SIM_KEEP") == "" {
		b.Fatal("set LATMAP_SIM_KEEP to the directory to keep the surveys in")
	}
	names, clusters := heldOutClusters(b)
	frag, _ := fragment64(b)
	names, clusters = append(names, "dragonfly-fragment-64"), append(clusters, frag)
	for b.Loop() {
		for x, c := range clusters {
			c.survey(b, "all", []int{64, 1 << 20}, 10)
			fmt.Printf("%s: surveyed\n", names[x])
		}
	}
}
