package placement

import (
	"fmt"
	"os"
	"testing"
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

// builtWithAries are the built networks (builtNetworks) and the Aries
// fragment (ariesDragonfly, pickAries), each as a simulated cluster of
// its own files, with their names.
func builtWithAries(t testing.TB) (names []string, clusters []*simCluster) {
	for _, n := range builtNetworks {
		names, clusters = append(names, n.name), append(clusters, builtCluster(t, n))
	}
	c := builtClusterOf(t, "aries-fragment", writeLinks(t, ariesDragonfly()), 4, pickAries)
	return append(names, "aries-fragment"), append(clusters, c)
}

// BenchmarkSimHeldOut is make bench-sim-built's out-of-sample check:
// every built network (builtWithAries), the survey measured inside the
// simulation, the held-out matrices (heldOutApps) replayed under block,
// cyclic and the proposal, priced from the survey alone and with the
// network declared in its own files: predicted and simulated runs, and
// each miss of the simulated checks' bounds (simMisses).
// LATMAP_SIM_BUILT=NAME runs that network alone.
func BenchmarkSimHeldOut(b *testing.B) {
	names, clusters := builtWithAries(b)
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
			fmt.Printf("\n%s, 64 ranks on 16 hosts of 4 cores, the held-out matrices\n", names[x])
			for _, m := range printSurveyAloneAndDeclared(b, c, sv, apps, 64, files) {
				misses = append(misses, names[x]+" "+m)
			}
		}
		fmt.Printf("\nmisses of the simulated checks' bounds: %d\n", len(misses))
		for _, m := range misses {
			fmt.Println("  " + m)
		}
	}
}
