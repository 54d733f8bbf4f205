package placement

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/network"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
	"github.com/latmap/latmap/mapper/topo"
)

// TestTopoAndPlaceAgree: on surveys of a dragonfly with its nodes in
// order (fitted), the same shuffled (a graph of routers), a 4 x 4 torus
// of nodes, a tree of switches and Blue Gene/L's real mmpi log (an 8 x 4
// mesh), the network place prices where none is declared is the one
// latmap topo names: of the kind each network is, and topo's notes carry
// place's network's description word for word.
func TestTopoAndPlaceAgree(t *testing.T) {
	const k = 32
	f, err := fabric.NewDragonfly(simHosts(k), fabric.DragonflyShape{Groups: 4, Chassis: 2, Routers: 4, Nodes: 1, Blue: 1, Black: 1, Green: 1}, 1e9, 1e-6, false)
	if err != nil {
		t.Fatal(err)
	}
	perm := rand.New(rand.NewPCG(1, 2)).Perm(k)
	dragonfly := func(order []int) *survey.Survey {
		s := synth.New(synth.Spec{Nodes: k, Sockets: 1, Cores: 1, RTT: [4]float64{0.5, 0.8, 4, 9}, Seed: 1})
		s.Switches = nil
		setRTT(s, func(a, b int) float32 {
			a, b = order[a], order[b]
			return float32(4 + 3*float64(len(f.Path(a, b))+len(f.Path(b, a))-4)/2)
		})
		return s
	}
	torus := synth.New(synth.Spec{Nodes: 16, Sockets: 1, Cores: 1, RTT: [4]float64{0.5, 0.8, 4, 4}, Seed: 1})
	torus.Switches = nil
	setRTT(torus, func(a, b int) float32 {
		h := 0
		for _, x := range []int{(a%4 - b%4 + 4) % 4, (a/4 - b/4 + 4) % 4} {
			h += min(x, 4-x)
		}
		return float32(4 + 3*h)
	})
	tree := synth.New(synth.Spec{Nodes: 16, Sockets: 1, Cores: 2, NodesPerSwitch: 4, RTT: [4]float64{0.5, 0.8, 3, 5}, Seed: 1})
	tree.Switches = nil
	host, _ := survey.HostIndex(tree.Ranks)
	for r, h := range host {
		if r == 0 || host[r-1] != h {
			tree.Switches = append(tree.Switches, survey.HostGroup{Host: tree.Ranks[r].Host, Level: 1, Group: h / 4})
		}
	}
	bgl, err := survey.ReadMMPIFile(filepath.Join("..", "testdata", "mmpi", "blue_gene_ammpi_32_64_100.dat"), survey.MMPIOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := make([]int, k)
	for i := range in {
		in[i] = i
	}
	for _, c := range []struct {
		name string
		s    *survey.Survey
		want network.Kind
	}{
		{"dragonfly in order", dragonfly(in), network.KindDragonfly},
		{"dragonfly shuffled", dragonfly(perm), network.KindRouters},
		{"4x4 torus", torus, network.KindRouters},
		{"tree", tree, network.KindTree},
		{"Blue Gene/L", bgl, network.KindRouters},
	} {
		dir := writeSurvey(t, c.s)
		s := readSurveyT(t, dir)
		flows := []profile.Flow{{Src: 0, Dst: 1, Bytes: 1e6, Messages: 10}}
		pin, err := loadInputs(Options{Survey: dir, Matrix: writeMatrix(t, flows), Ranks: s.N()})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if pin.found == nil || pin.found.Kind != c.want {
			t.Errorf("%s: place found %v, want a %v", c.name, pin.found, c.want)
			continue
		}
		tp, err := topo.Infer(s, topo.DefaultOptions())
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		named := slices.ContainsFunc(tp.Notes, func(n string) bool {
			return strings.HasPrefix(n, "direct network") || strings.HasPrefix(n, "dragonfly")
		})
		if d := pin.found.Describe(); c.want == network.KindTree {
			if named {
				t.Errorf("%s: place found a tree of switches, topo's notes name another network: %q", c.name, tp.Notes)
			}
		} else if !slices.Contains(tp.Notes, d) {
			t.Errorf("%s: place's network %q is not in topo's notes %q", c.name, d, tp.Notes)
		}
	}
}
