package links

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCrossingIndexed: flows added and removed at random on a ring of 8
// nodes (each route the links one way round) leave every rank's links
// with their counts, every link's ranks and every rank's longest link
// the same whether the crossing is indexed (crossing.at) or searched, and
// as a count from the flows still in place says.
func TestCrossingIndexed(t *testing.T) {
	const k, ranks = 8, 12
	tb := &Table{K: k, NL: k, Inv: make([]float64, k), Start: make([]int32, k*k+1)}
	for l := range k {
		tb.Inv[l] = 1 + float64(l)/10
	}
	for i := range k * k {
		for a := i / k; a != i%k; a = (a + 1) % k {
			tb.Links = append(tb.Links, int32(a))
		}
		tb.Start[i+1] = int32(len(tb.Links))
	}
	dense, searched := NewLoads(tb, ranks, false), NewLoads(tb, ranks, false)
	if dense.at == nil {
		t.Fatal("12 ranks x 8 links are not indexed")
	}
	searched.at = nil
	type flow struct{ u, v, a, b int32 }
	var live []flow
	rng := rand.New(rand.NewPCG(3, 5))
	for step := range 2000 {
		if len(live) > 0 && rng.IntN(2) == 0 {
			x := rng.IntN(len(live))
			f := live[x]
			live = slices.Delete(live, x, x+1)
			for _, nl := range []*Loads{dense, searched} {
				nl.Flow(f.u, f.v, f.a, f.b, 1, -1)
			}
		} else {
			f := flow{int32(rng.IntN(ranks)), int32(rng.IntN(ranks)), int32(rng.IntN(k)), int32(rng.IntN(k))}
			live = append(live, f)
			for _, nl := range []*Loads{dense, searched} {
				nl.Flow(f.u, f.v, f.a, f.b, 1, 1)
			}
		}
		want := make([]map[int32]int32, ranks)
		for n := range want {
			want[n] = map[int32]int32{}
		}
		for _, f := range live {
			for _, l := range tb.Path(f.a, f.b) {
				want[f.u][l]++
				want[f.v][l]++
			}
		}
		for n := range int32(ranks) {
			for _, nl := range []*Loads{dense, searched} {
				got := map[int32]int32{}
				for x, l := range nl.rlinks[n] {
					got[l] = *nl.counted(n, l, x)
				}
				if len(got) != len(want[n]) {
					t.Fatalf("step %d, rank %d: links %v, want %v", step, n, got, want[n])
				}
				for l, c := range want[n] {
					if got[l] != c || !slices.Contains(nl.lranks[l], n) {
						t.Fatalf("step %d, rank %d: link %d counted %d, want %d; its ranks %v", step, n, l, got[l], c, nl.lranks[l])
					}
				}
			}
			dt, dl := dense.longest(n)
			st, sl := searched.longest(n)
			if dt != st || dl != sl {
				t.Fatalf("step %d, rank %d: longest %g (link %d) indexed, %g (link %d) searched", step, n, dt, dl, st, sl)
			}
		}
		for l := range k {
			if len(dense.lranks[l]) != len(searched.lranks[l]) {
				t.Fatalf("step %d, link %d: ranks %v indexed, %v searched", step, l, dense.lranks[l], searched.lranks[l])
			}
		}
	}
}

// TestSetFixedReprices: a rank's fixed time changed inside an exchange
// re-prices it when the exchange settles (its bound is the new fixed time
// plus its longest link), and a try's Restore puts the old bound back,
// though nothing else saved the rank (the evaluator saves no rank for
// being on a node the exchange touches).
func TestSetFixedReprices(t *testing.T) {
	const k = 8
	tb := &Table{K: k, NL: k, Inv: make([]float64, k), Start: make([]int32, k*k+1)}
	for l := range k {
		tb.Inv[l] = 1
	}
	for i := range k * k {
		for a := i / k; a != i%k; a = (a + 1) % k {
			tb.Links = append(tb.Links, int32(a))
		}
		tb.Start[i+1] = int32(len(tb.Links))
	}
	nl := NewLoads(tb, 3, false)
	nt := &Net{loads: nl}
	nl.Flow(0, 1, 0, 3, 2, 1) // 2 bytes over links 0-2: 2 s at scale 1
	for u := range int32(3) {
		nl.Price(u, 1)
	}
	if got := nl.Tree.Value(0); got != 2 {
		t.Fatalf("rank 0's bound %g, want 2", got)
	}
	nl.Begin()
	nt.SetFixed(0, 5)
	nt.SetFixed(2, 0) // unchanged: not saved
	nl.Reprice(1)
	if got := nl.Tree.Value(0); got != 7 {
		t.Fatalf("rank 0's bound %g after its fixed time became 5, want 7", got)
	}
	if len(nl.saved) != 1 {
		t.Fatalf("saved %d ranks, want rank 0 alone", len(nl.saved))
	}
	nt.Keep()
	nt.Restore()
	if got := nl.Tree.Value(0); got != 2 || nl.Fixed[0] != 0 {
		t.Fatalf("restored: rank 0's bound %g, fixed %g; want 2 and 0", got, nl.Fixed[0])
	}
}
