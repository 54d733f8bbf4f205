package compare

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
	"github.com/latmap/latmap/mapper/topo"
)

func TestCompareBlockCyclic(t *testing.T) {
	spec := synth.Spec{Nodes: 2, Sockets: 2, Cores: 4, RTT: [4]float64{0.6, 0.9, 12, 12}, Noise: 0.05, Seed: 11}
	block := synth.New(spec)
	spec.Layout, spec.Seed = topo.LayoutCyclic, 12
	cyclic := synth.New(spec)
	c, err := Compare(block, cyclic, "by-core", "by-node", topo.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c.A.Topology.Layout != topo.LayoutBlock || c.B.Topology.Layout != topo.LayoutCyclic {
		t.Fatalf("layouts %q and %q, want block and cyclic", c.A.Topology.Layout, c.B.Topology.Layout)
	}
	// Block: 1 of 15 neighbour pairs crosses nodes (7|8); cyclic: all 15.
	if c.A.Neighbour.OffNode != 1 || c.B.Neighbour.OffNode != 15 {
		t.Errorf("neighbour pairs off-node %d and %d, want 1 and 15", c.A.Neighbour.OffNode, c.B.Neighbour.OffNode)
	}
	// Halving (i, i+8): all cross nodes in block, none in cyclic.
	if c.A.Halving.OffNode != 8 || c.B.Halving.OffNode != 0 {
		t.Errorf("halving pairs off-node %d and %d, want 8 and 0", c.A.Halving.OffNode, c.B.Halving.OffNode)
	}
	var buf bytes.Buffer
	if err := c.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"layouts differ: by-core is block, by-node is cyclic",
		"neighbour exchanges (i, i+1): by-node pays", "halving exchanges (i, i+N/2): by-core pays",
		"level node", "level network"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCompareDifferentN(t *testing.T) {
	dir := filepath.Join(testutil.RepoRoot(t), "testdata", "mmpi")
	a, err := survey.ReadMMPIFile(filepath.Join(dir, "bw_4x32_ammpi_128_64_100.dat"), survey.MMPIOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := survey.ReadMMPIFile(filepath.Join(dir, "stampede_2x16_ammpi_32_64_100.dat"), survey.MMPIOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare(a, b, "bw", "stampede", topo.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c.SameN || !strings.Contains(c.Findings[0], "different numbers of ranks (128 and 32): compared level by level") {
		t.Errorf("findings %q", c.Findings)
	}
	names := map[string]bool{}
	for _, l := range c.Levels {
		names[l.Name] = l.A != nil && l.B != nil
	}
	// Both have node and network levels (see TestInferTopologyRealLogs).
	if !names[topo.LevelNode] || !names[topo.LevelNetwork] {
		t.Errorf("levels %+v: want node and network in both", c.Levels)
	}
}
