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

// TestTriesWalk: exchanges of two ranks' nodes tried on a ring of 8
// nodes (each route the shorter way round), 12 ranks a node with a
// sparse graph and two hubs of more than walkDegree peers each on three
// nodes (their flows one way or both). While trying, a
// rank whose flows moved and has few peers is priced by walking them
// (walking): every rank's longest link and bound after each try are
// those of the same exchange priced with every rank indexed, and after
// the undo every rank's bound and the whole index are as before.
func TestTriesWalk(t *testing.T) {
	const k, ranks = 8, 96
	// Link a leaves node a clockwise, link k+a counter-clockwise.
	tb := &Table{K: k, NL: 2 * k, Inv: make([]float64, 2*k), Start: make([]int32, k*k+1)}
	for l := range 2 * k {
		tb.Inv[l] = 1 + float64(l)/10
	}
	for i := range k * k {
		a, b := i/k, i%k
		for cw := (b - a + k) % k; a != b; {
			if cw <= k/2 {
				tb.Links = append(tb.Links, int32(a))
				a = (a + 1) % k
			} else {
				tb.Links = append(tb.Links, int32(k+a))
				a = (a + k - 1) % k
			}
		}
		tb.Start[i+1] = int32(len(tb.Links))
	}
	rng := rand.New(rand.NewPCG(9, 4))
	type pair struct{ u, v int32 }
	out := map[pair]float64{} // bytes u -> v
	for u := range int32(ranks) {
		for range 2 {
			if v := int32(rng.IntN(ranks)); v != u {
				out[pair{u, v}] += float64(1 + rng.IntN(9))
			}
		}
	}
	for _, hub := range []int32{3, 50} {
		for d := int32(0); d < walkDegree+4; d++ {
			v := (hub + 12 + d) % ranks
			out[pair{hub, v}] += 5
			if d%2 == 0 {
				out[pair{v, hub}] += 2
			}
		}
	}
	adj := make([][]int32, ranks)
	for p := range out {
		for _, e := range [2][2]int32{{p.u, p.v}, {p.v, p.u}} {
			if !slices.Contains(adj[e[0]], e[1]) {
				adj[e[0]] = append(adj[e[0]], e[1])
			}
		}
	}
	start, flat := []int32{0}, []int32{}
	for u := range adj {
		slices.Sort(adj[u])
		flat = append(flat, adj[u]...)
		start = append(start, int32(len(flat)))
	}
	if d := start[4] - start[3]; d <= walkDegree {
		t.Fatalf("hub 3 has %d peers: it would be walked", d)
	}
	node := make([]int32, ranks)
	for u := range node {
		node[u] = int32(u / (ranks / k))
	}
	nodes := func(n int32, buf [][2]int32) [][2]int32 {
		for _, v := range adj[n] {
			if node[v] == node[n] {
				continue
			}
			if out[pair{n, v}] > 0 {
				buf = append(buf, [2]int32{node[n], node[v]})
			}
			if out[pair{v, n}] > 0 {
				buf = append(buf, [2]int32{node[v], node[n]})
			}
		}
		return buf
	}
	indexed, walked := NewLoads(tb, ranks, false), NewLoads(tb, ranks, false)
	walked.nodes = nodes
	both := []*Loads{indexed, walked}
	// flows adds (sign 1) or removes (-1) every flow of ranks i and j once.
	flows := func(i, j int32, sign float64) {
		for p, b := range out {
			if (p.u == i || p.v == i || p.u == j || p.v == j) && node[p.u] != node[p.v] {
				for _, nl := range both {
					nl.Flow(p.u, p.v, node[p.u], node[p.v], b, sign)
				}
			}
		}
	}
	for _, nl := range both {
		nl.Pairs = NewPairs(start, flat)
		for p, b := range out {
			if node[p.u] != node[p.v] {
				nl.Flow(p.u, p.v, node[p.u], node[p.v], b, 1)
			}
		}
		nl.PriceAll(1)
	}
	exchange := func(i, j int32) {
		for _, nl := range both {
			nl.Begin()
		}
		flows(i, j, -1)
		node[i], node[j] = node[j], node[i]
		flows(i, j, 1)
	}
	walkedOnce := 0
	for step := range 300 {
		i, j := int32(rng.IntN(ranks)), int32(rng.IntN(ranks))
		if node[i] == node[j] {
			continue
		}
		before := slices.Clone(indexed.LongT)
		walked.trying = true
		exchange(i, j)
		for _, nl := range both {
			nl.Reprice(1)
		}
		for n := range int32(ranks) {
			if indexed.LongT[n] != walked.LongT[n] || indexed.longL[n] != walked.longL[n] || indexed.Tree.Value(int(n)) != walked.Tree.Value(int(n)) {
				t.Fatalf("step %d, exchange %d-%d: rank %d's longest link %d (%g), bound %g; indexed %d (%g), %g", step, i, j, n,
					walked.longL[n], walked.LongT[n], walked.Tree.Value(int(n)), indexed.longL[n], indexed.LongT[n], indexed.Tree.Value(int(n)))
			}
			if walked.fstamp[n] == walked.epoch && walked.walked(n) {
				walkedOnce++
			}
		}
		for _, nl := range both {
			nl.Keep()
		}
		exchange(i, j) // the undo
		for _, nl := range both {
			nl.Restore()
		}
		walked.trying = false
		if !slices.Equal(indexed.LongT, before) || !slices.Equal(walked.LongT, before) {
			t.Fatalf("step %d: the undo left the ranks' longest links %v and %v, before %v", step, indexed.LongT, walked.LongT, before)
		}
		for n := range int32(ranks) {
			a, b := slices.Sorted(slices.Values(indexed.rlinks[n])), slices.Sorted(slices.Values(walked.rlinks[n]))
			if !slices.Equal(a, b) {
				t.Fatalf("step %d: rank %d's links %v after the try, %v indexed", step, n, b, a)
			}
		}
		if step%4 == 0 { // kept: both indexed
			exchange(i, j)
			for _, nl := range both {
				nl.Reprice(1)
			}
		}
	}
	if walkedOnce == 0 {
		t.Fatal("no rank was walked")
	}
}
