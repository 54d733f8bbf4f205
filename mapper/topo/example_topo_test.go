package topo_test

import (
	"fmt"

	"github.com/latmap/latmap/mapper/survey/synth"
	"github.com/latmap/latmap/mapper/topo"
)

// Inferring the topology of a made-up machine of 2 nodes x 4 ranks dealt
// round robin.
func ExampleInfer() {
	s := synth.New(synth.Spec{Nodes: 2, Sockets: 1, Cores: 4, Layout: topo.LayoutCyclic,
		RTT: [4]float64{0.7, 0.7, 13, 13}, Noise: 0.05, Seed: 1})
	t, err := topo.Infer(s, topo.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.Description)
	for _, l := range t.Levels {
		fmt.Println(l.Name, l.Pairs)
	}
	// Output:
	// 2 nodes x 4 ranks, cyclic (ranks 0,2,...,6 on node000, 1,3,...,7 on node001)
	// node 12
	// network 16
}
