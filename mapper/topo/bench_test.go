package topo

import (
	"testing"

	"github.com/latmap/latmap/mapper/survey/synth"
)

// BenchmarkInferTopology4096 times inference alone on a survey in memory.
func BenchmarkInferTopology4096(b *testing.B) {
	s := synth.New(synth.Spec{Nodes: 64, Sockets: 2, Cores: 32, NodesPerSwitch: 16,
		RTT: [4]float64{0.5, 0.9, 3, 5}, Noise: 0.08, Seed: 42})
	for b.Loop() {
		tp, err := Infer(s, DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		if tp.Nodes != 64 {
			b.Fatalf("inferred %d nodes, want 64", tp.Nodes)
		}
	}
}
