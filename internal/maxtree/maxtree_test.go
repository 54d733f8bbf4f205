package maxtree

import (
	"math/rand/v2"
	"testing"
)

// TestTreeTracksMax: after every change of a random value the tree's
// largest value and its place are a scan's (the lowest index of a tie).
func TestTreeTracksMax(t *testing.T) {
	for _, k := range []int{1, 2, 5, 16, 33} {
		tr, vals := New(k), make([]float64, k)
		rng := rand.New(rand.NewPCG(uint64(k), 1))
		for step := 0; step < 500; step++ {
			i, x := rng.IntN(k), float64(rng.IntN(7))
			tr.Set(i, x)
			vals[i] = x
			best := 0
			for j := range vals {
				if vals[j] > vals[best] {
					best = j
				}
			}
			if tr.Max() != vals[best] || tr.Value(i) != x || tr.Argmax() != int32(best) {
				t.Fatalf("k=%d step %d: max %g at %d, value(%d) %g; want %g at %d", k, step, tr.Max(), tr.Argmax(), i, tr.Value(i), vals[best], best)
			}
		}
	}
}
