package mapper_test

import (
	"fmt"
	"strings"

	"github.com/latmap/latmap/mapper"
)

// An mmpi log read from the right: processor names may hold spaces.
func ExampleReadMMPI() {
	log := `# Testing Hostname: node a
# Processors: 3 MsgLen 64 Repeats: 100
# ProcName1:rank   ProcName2:rank   AvgCommTime(usecs) StdDev
node a 000  node a 001       2.00    0.10
node a 000  node b 002      12.00    0.50
node a 001  node b 002      12.50    0.40
`
	s, err := mapper.ReadMMPI(strings.NewReader(log), mapper.MMPIOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	t := s.Tables[0]
	fmt.Println(s.N(), "ranks,", t.Size, "bytes")
	fmt.Println(s.Ranks[2].Host, t.At(mapper.Mean, 0, 2), t.At(mapper.Std, 0, 2))
	// Output:
	// 3 ranks, 256 bytes
	// node b 12 5
}

// Inferring the topology of a made-up machine of 2 nodes x 4 ranks dealt
// round robin.
func ExampleInferTopology() {
	s := mapper.Synthetic(mapper.SyntheticSpec{Nodes: 2, Sockets: 1, Cores: 4, Layout: mapper.LayoutCyclic,
		RTT: [4]float64{0.7, 0.7, 13, 13}, Noise: 0.05, Seed: 1})
	topo, err := mapper.InferTopology(s, mapper.DefaultTopoOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(topo.Description)
	for _, l := range topo.Levels {
		fmt.Println(l.Name, l.Pairs)
	}
	// Output:
	// 2 nodes x 4 ranks, cyclic (ranks 0,2,...,6 on node000, 1,3,...,7 on node001)
	// node 12
	// network 16
}
