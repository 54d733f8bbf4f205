package topo

import (
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

// TestInferByNodes: a sparse nodes-scope survey (12 nodes x 2 sockets x 4
// cores, 3 switches) read node by node gives the levels of the full
// survey: socket and node inside, switch and network between, with the
// same groups for every rank.
func TestInferByNodes(t *testing.T) {
	spec := synth.Spec{Nodes: 12, Sockets: 2, Cores: 4, NodesPerSwitch: 4, RTT: [4]float64{0.5, 1, 4, 8}, Noise: 0.03, Seed: 7}
	full, err := Infer(synth.New(spec), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	spec.Scope = survey.ScopeNodes
	s := synth.New(spec)
	if !s.Sparse() {
		t.Fatal("synthetic nodes survey is not sparse")
	}
	got, err := Infer(s, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var names, want []string
	for _, l := range got.Levels {
		names = append(names, l.Name)
	}
	for _, l := range full.Levels {
		want = append(want, l.Name)
	}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("levels %v, want %v (the full survey's)", names, want)
	}
	for l := range full.Levels {
		if full.Levels[l].Pairs != got.Levels[l].Pairs || full.Levels[l].Groups != got.Levels[l].Groups {
			t.Errorf("level %s: %d pairs in %d groups, want %d in %d", names[l], got.Levels[l].Pairs, got.Levels[l].Groups, full.Levels[l].Pairs, full.Levels[l].Groups)
		}
		// Same partition of the ranks at each level.
		seen := map[[2]int]bool{}
		for r := range full.Group[l] {
			seen[[2]int{full.Group[l][r], got.Group[l][r]}] = true
		}
		if len(seen) != full.Levels[l].Groups {
			t.Errorf("level %s: the groups differ from the full survey's", names[l])
		}
	}
	if got.Nodes != 12 || got.NodeLevel != full.NodeLevel || !got.HostsAgree || got.Layout != full.Layout {
		t.Errorf("nodes %d, node level %d, hosts agree %v, layout %s; want 12, %d, true, %s", got.Nodes, got.NodeLevel, got.HostsAgree, got.Layout, full.NodeLevel, full.Layout)
	}
	if !strings.Contains(strings.Join(got.Notes, "\n"), "read node by node") {
		t.Errorf("notes %q", got.Notes)
	}
}
