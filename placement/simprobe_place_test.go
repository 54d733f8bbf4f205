package placement

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/latmap/latmap/bench"
	"github.com/latmap/latmap/mapper/survey"
)

// BenchmarkSimProbePlace: what the routes chosen by the probe of flows
// at once (topo.FitProbe) do to place's predictions, on the built
// networks whose graph of routers place finds in the survey (the 4 x 4
// HyperX, the site-wired dragonfly and the dragonfly fragment): the
// survey measured inside the simulation, priced alone and again with a
// probe of every pair of flows of four distinct hosts moved two at a
// time inside the same simulation (probeEveryPair's, judged at
// bench.ProbeSlowed, each host its own router: the most a probe tells),
// every application replayed under block, cyclic and the proposal.
// Prints predicted and simulated runs and the misses of the simulated
// checks' bounds of each. The applications' traffic is not the probe's
// (many ranks a node, many flows at once): the probe is judged out of
// sample. Run it with go test -run '^$' -bench SimProbePlace -benchtime
// 1x ./placement/.
func BenchmarkSimProbePlace(b *testing.B) {
	var nets []builtNetwork
	for _, n := range builtNetworks {
		if n.name == "hyperx-4x4" || n.name == "dragonfly-site-wired" || n.name == "dragonfly-fragment" {
			nets = append(nets, n)
		}
	}
	for b.Loop() {
		for _, n := range nets {
			c := builtCluster(b, n)
			c.declared = nil
			sv := c.survey(b, "all", []int{64, 1 << 20}, 10)
			flows, lf := buildFlows(b, c)
			probed := withProbe(b, sv, c.hosts, flows, pairSlowdowns(b, c.run(b, c.hosts, "flows", lf)))
			apps := builtApps(b)
			fmt.Printf("\n%s\n", n.name)
			alone := printPricedOn(b, c, sv, apps, 64, []pricedOn{{"survey alone", nil}})
			with := printPricedOn(b, c, probed, apps, 64, []pricedOn{{"survey and probe", nil}})
			fmt.Printf("%s: misses of the simulated checks' bounds: %d from the survey alone, %d with the probe\n", n.name, len(alone), len(with))
			for _, m := range alone {
				fmt.Printf("  survey alone: %s\n", m)
			}
			for _, m := range with {
				fmt.Printf("  with the probe: %s\n", m)
			}
		}
	}
}

// withProbe is a copy of the survey sv with a probe of every pair of
// flows between hosts (by index, slow: each pair's slowdown) in its
// shares.csv and meta.json, each host its own router.
func withProbe(b testing.TB, sv string, hosts []string, flows [][2]int, slow map[[2]int]float64) string {
	b.Helper()
	s, err := survey.ReadSurvey(sv, survey.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	m := &survey.ProbeMeta{Routers: map[string]int{}, Planned: "hosts", Classes: len(flows), Threshold: bench.ProbeSlowed}
	for i, h := range hosts {
		m.Routers[h] = i
	}
	s.Shares = nil
	for i, x := range flows {
		for j := i + 1; j < len(flows); j++ {
			y := flows[j]
			if !disjointFlows(x, y) {
				continue
			}
			d := slow[[2]int{i, j}]
			r := survey.Share{SrcA: hosts[x[0]], DstA: hosts[x[1]], SrcB: hosts[y[0]], DstB: hosts[y[1]], SlowdownA: d, SlowdownB: d, Shared: d > bench.ProbeSlowed}
			s.Shares = append(s.Shares, r)
			m.Judged++
			if r.Shared {
				m.Shared++
			}
		}
	}
	s.Meta.Probe = m
	dir := filepath.Join(b.TempDir(), "probed")
	if err := survey.WriteSurvey(dir, s, false); err != nil {
		b.Fatal(err)
	}
	return dir
}

// TestSimProbeFragment: on the dragonfly fragment (builtNetworks), the
// survey measured inside the simulation with a probe of every pair of
// flows moved two at a time (withProbe), every application priced from
// them is held to checkSimCase's bounds, and the proposals' simulated
// gains over block are, over the applications (geometric mean), at least
// 5% above those priced from the survey alone: the routes the probe
// chose (topo.FitProbe) are where the gains come from. make
// test-sim-built runs it (make test leaves it: SIM_BUILT_ONLY).
func TestSimProbeFragment(t *testing.T) {
	t.Parallel() // simulated time: see simMemo
	var n builtNetwork
	for _, b := range builtNetworks {
		if b.name == "dragonfly-fragment" {
			n = b
		}
	}
	c := builtCluster(t, n)
	c.declared = nil
	sv := c.survey(t, "all", []int{64, 1 << 20}, 10)
	flows, lf := buildFlows(t, c)
	probed := withProbe(t, sv, c.hosts, flows, pairSlowdowns(t, c.run(t, c.hosts, "flows", lf)))
	apps := builtApps(t)
	var logGain [2]float64 // without the probe, with it
	for _, app := range apps {
		for k, s := range []string{sv, probed} {
			sc := placeAndSimulate(t, c, s, n.name+" "+app.name+[]string{" (survey alone)", " (survey and probe)"}[k], app.flows, 64, app.iters())
			if k == 1 {
				checkSimCase(t, sc)
			}
			logGain[k] += math.Log(sc.simulated["block"] / sc.simulated["proposal"])
		}
	}
	without, with := math.Exp(logGain[0]/float64(len(apps))), math.Exp(logGain[1]/float64(len(apps)))
	t.Logf("proposals' simulated gain over block, geometric mean of %d applications: %.3fx from the survey alone, %.3fx with the probe", len(apps), without, with)
	if with < 1.05*without {
		t.Errorf("with the probe the proposals gain %.3fx over block in the simulation (geometric mean), not 5%% above the survey alone's %.3fx", with, without)
	}
}
