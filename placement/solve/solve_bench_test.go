package solve

import (
	"testing"

	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
)

// BenchmarkRefineSwapsPass runs one pair-swap refinement sweep over the
// 16^3 stencil placed block by block (the solver's inner loop).
func BenchmarkRefineSwapsPass(b *testing.B) {
	flows, n := shapes.Halo3D(16, 16, 16, false)
	tr, err := model.NewTraffic(n, flows)
	if err != nil {
		b.Fatal(err)
	}
	m := model.NewLevelMachine(64, 1, 64, shapes.BenchLevels)
	slots, _ := m.SelectSlots(n, model.SelectOptions{})
	md := model.Pairwise(m)
	for i := 0; i < b.N; i++ {
		p := model.Block(slots, n)
		newSwapper(md, tr, nil, p, 1).refineSwaps(1)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/rank")
}
