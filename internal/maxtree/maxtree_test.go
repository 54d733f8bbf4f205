package maxtree

import (
	"fmt"
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

// TestAbove: Above visits exactly the indexes whose value is above x, in
// index order (a scan's), and stops when told.
func TestAbove(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, k := range []int{1, 3, 16, 37} {
		tr, vals := New(k), make([]float64, k)
		for i := range vals {
			vals[i] = float64(rng.IntN(9)) - 2
			tr.Set(i, vals[i])
		}
		for x := -3.0; x <= 7; x++ {
			var got, want []int32
			tr.Above(x, func(i int32) bool { got = append(got, i); return true })
			for i, v := range vals {
				if v > x {
					want = append(want, int32(i))
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("k=%d above %g: visited %v, want %v", k, x, got, want)
			}
			n := 0
			tr.Above(x, func(int32) bool { n++; return n < 2 })
			if n != min(2, len(want)) {
				t.Fatalf("k=%d above %g: %d visits after a stop at the second, want %d", k, x, n, min(2, len(want)))
			}
		}
	}
}
