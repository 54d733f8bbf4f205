package placement

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
)

// scotchCurrent maps the traffic with scotch_gmap onto nodes x cores
// (a tleaf target, no imbalance allowed) and writes the mapping as an
// Open MPI rankfile for --current: another tool's placement, scored by
// latmap as the current one.
func scotchCurrent(t *testing.T, gmap string, m *model.Machine, tr *model.Traffic, nodes, cores int) string {
	t.Helper()
	dir := t.TempDir()
	grf, tgt, mp := filepath.Join(dir, "g.grf"), filepath.Join(dir, "t.tgt"), filepath.Join(dir, "g.map")
	cost := m.Levels[model.Network]
	if err := writeScotchGraph(grf, tr, func(msgs, bytes float64) float64 { return cost.Cost(msgs, bytes) }); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tgt, []byte(fmt.Sprintf("tleaf 2 %d 100 %d 10\n", nodes, cores)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(gmap, "-b0", grf, tgt, mp).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", gmap, err, out)
	}
	terms, err := testutil.ReadScotchMapping(mp, tr.N)
	if err != nil {
		t.Fatal(err)
	}
	// Terminal k is core k%cores of node k/cores; the machine's slots are
	// host-major, cpus ascending (fakeSurvey's order).
	place := make([]int32, tr.N)
	used := make([]int, nodes)
	for r, k := range terms {
		node := k / cores
		if used[node] == cores {
			t.Fatalf("scotch_gmap -b0 put more than %d ranks on node %d", cores, node)
		}
		place[r] = int32(node*cores + used[node])
		used[node]++
	}
	file := filepath.Join(dir, "scotch.rankfile")
	lf, err := placefile.Write(placefile.FormatOpenMPI, m.RankSlots(place), nil, file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, lf.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestProposalAgainstScotch is issue 8's objective check on 4 nodes x 16
// cores (L = 0.25/0.4/6.5 us, node links from nodebw.csv): for synthetic
// application shapes and the five real matrices of testdata (64 ranks of
// LAMMPS in.melt, eam, chain, peptide and GROMACS water, counted by Open
// MPI's own PML monitoring; one run: summed transfer 0.68-1.00x Scotch's,
// predicted run at or below it), the proposal latmap makes on
// its own (Scotch's mapping is not one of its starts) is predicted no
// slower than the mapping scotch_gmap makes (scored with --current in a
// second run), and its summed transfer stays within 5% of Scotch's, whose
// objective it is, unless its run is faster. (Against block, cyclic or a
// given start the proposal cannot lose: each is a candidate.)
func TestProposalAgainstScotch(t *testing.T) {
	gmap, err := exec.LookPath("scotch_gmap")
	if err != nil {
		testutil.Missing(t, testutil.NeedScotch, "scotch_gmap not installed (apt-get install scotch)")
	}
	const nodes, cores = 4, 16
	sv := fakeSurvey(t, nodes, 1, cores, shapes.TestRTT, nil)
	s := readSurveyT(t, sv)
	for h := 0; h < nodes; h++ {
		s.NodeBandwidth = append(s.NodeBandwidth, survey.NodeBandwidth{Host: fmt.Sprintf("h%d", h), Peer: fmt.Sprintf("h%d", (h+1)%nodes),
			Ranks: cores, Size: 1 << 20, Messages: 16, Seconds: 1, AggregateMBps: 3000, PairMBps: 2500})
	}
	sv = filepath.Join(t.TempDir(), "survey")
	if err := survey.WriteSurvey(sv, s, false); err != nil {
		t.Fatal(err)
	}
	m, err := model.MachineFromSurvey(s, model.SurveyCostOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		flows []profile.Flow
	}{
		{"halo3d-4x4x4", first(shapes.Halo3D(4, 4, 4, false))},
		{"halo3d-periodic-4x4x4", first(shapes.Halo3D(4, 4, 4, true))},
		{"ring-64", first(shapes.Ring(64))},
		{"alltoall-64", first(shapes.AllToAll(64))},
		{"master-worker-64", first(shapes.MasterWorker(64))},
		{"random-sparse-64", first(shapes.RandomSparse(64, 4, 1))},
	}
	// The real matrices (Open MPI's PML monitoring of LAMMPS and GROMACS).
	for _, app := range simRealApps(t) {
		cases = append(cases, struct {
			name  string
			flows []profile.Flow
		}{app.name + " (PML monitoring)", app.flows})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := shapes.MustTraffic(c.flows, 64)
			cur := scotchCurrent(t, gmap, m, tr, nodes, cores)
			mx := writeMatrix(t, c.flows)
			// latmap on its own, then Scotch's mapping scored as current.
			own, err := runReport(Options{Survey: sv, Matrix: mx}, &bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			r, err := runReport(Options{Survey: sv, Matrix: mx, Current: cur}, &bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]placefile.Prediction{}
			for _, p := range r.Predictions {
				got[p.Name] = p
			}
			prop, sc := own.ProposalPrediction(), got["current"]
			if sc.Name != "current" {
				t.Fatalf("no prediction of Scotch's mapping: %+v", r.Predictions)
			}
			if prop.Run > sc.Run*(1+1e-9) {
				t.Errorf("proposal predicted %.6g s, above Scotch's mapping's %.6g s", prop.Run, sc.Run)
			}
			t.Logf("proposal run %.4g s, transfer %.4g s; Scotch's %.4g s, %.4g s (%.3fx)", prop.Run, prop.Transfer, sc.Run, sc.Transfer, prop.Transfer/sc.Transfer)
			if prop.Transfer > sc.Transfer*1.05 && prop.Run >= sc.Run*(1-1e-9) {
				t.Errorf("proposal's summed transfer %.6g s is %.1f%% above Scotch's %.6g s without a faster run", prop.Transfer, 100*(prop.Transfer/sc.Transfer-1), sc.Transfer)
			}
			// The file is Scotch's partition (a stencil in 4 boxes), not a
			// broken one: its run far below cyclic's.
			if c.name == "halo3d-4x4x4" && !(sc.Run < 0.8*got["cyclic"].Run) {
				t.Errorf("Scotch's mapping runs %.4g s, cyclic %.4g s: not Scotch's partition", sc.Run, got["cyclic"].Run)
			}
			t.Logf("run: proposal %.4g s, scotch %.4g, block %.4g, cyclic %.4g; transfer: proposal %.4g s, scotch %.4g (%+.1f%%)",
				prop.Run, sc.Run, got["block"].Run, got["cyclic"].Run, prop.Transfer, sc.Transfer, 100*(prop.Transfer/sc.Transfer-1))
		})
	}
}

func first(f []profile.Flow, _ int) []profile.Flow { return f }
