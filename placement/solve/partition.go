package solve

import (
	"math/rand/v2"
	"sort"

	"github.com/latmap/latmap/placement/model"
)

// pgraph is an undirected weighted graph for partitioning: vertex weights
// (how many ranks a vertex stands for) and edge weights (what cutting the
// edge costs), adjacency in CSR form with ascending neighbours.
type pgraph struct {
	n    int
	vw   []int32
	xadj []int32
	adj  []int32
	ew   []float64
}

// subgraph builds the graph induced by the ranks in members (weights from
// edgeWeight), numbering vertices in the order of members.
func subgraph(t *model.Traffic, members []int32, edgeWeight func(t *model.Traffic, e int32) float64) *pgraph {
	local := make(map[int32]int32, len(members))
	for i, r := range members {
		local[r] = int32(i)
	}
	g := &pgraph{n: len(members), vw: make([]int32, len(members)), xadj: make([]int32, len(members)+1)}
	for i, r := range members {
		g.vw[i] = 1
		for e := t.Start[r]; e < t.Start[r+1]; e++ {
			if j, ok := local[t.Adj[e]]; ok {
				g.adj = append(g.adj, j)
				g.ew = append(g.ew, edgeWeight(t, e))
			}
		}
		g.xadj[i+1] = int32(len(g.adj))
		// Neighbours are ascending in t; local numbers follow members'
		// order, so sort the row.
		rowSort{g.adj[g.xadj[i]:], g.ew[g.xadj[i]:]}.sort()
	}
	return g
}

// fullGraph is subgraph over all ranks without the map.
func fullGraph(t *model.Traffic, edgeWeight func(t *model.Traffic, e int32) float64) *pgraph {
	g := &pgraph{n: t.N, vw: make([]int32, t.N), xadj: t.Start, adj: t.Adj, ew: make([]float64, len(t.Adj))}
	for i := range g.vw {
		g.vw[i] = 1
	}
	for e := range t.Adj {
		g.ew[e] = edgeWeight(t, int32(e))
	}
	return g
}

type rowSort struct {
	adj []int32
	ew  []float64
}

func (r rowSort) Len() int           { return len(r.adj) }
func (r rowSort) Less(i, j int) bool { return r.adj[i] < r.adj[j] }
func (r rowSort) Swap(i, j int) {
	r.adj[i], r.adj[j] = r.adj[j], r.adj[i]
	r.ew[i], r.ew[j] = r.ew[j], r.ew[i]
}

// sort sorts the row by neighbour: by insertion when short (most rows of
// a communication graph), else with sort.Sort.
func (r rowSort) sort() {
	if len(r.adj) > 32 {
		sort.Sort(r)
		return
	}
	for i := 1; i < len(r.adj); i++ {
		for j := i; j > 0 && r.adj[j] < r.adj[j-1]; j-- {
			r.Swap(j, j-1)
		}
	}
}

// coarsen merges pairs of vertices joined by their heaviest edge (heavy
// edge matching) whose combined weight stays within maxVW. Vertices are
// visited in order (identity when order is nil); ties go to the lighter,
// then the lower-numbered neighbour (the higher-numbered when last), so on
// a regular grid visited in index order the matching pairs whole rows,
// then columns, then layers (layers first when last), and repeated
// coarsening builds boxes. cmap maps each vertex to its coarse vertex,
// numbered in visiting order.
func coarsen(g *pgraph, maxVW int32, order []int32, last bool) (*pgraph, []int32) {
	cmap, nc := matchHeavyEdges(g, maxVW, order, last)
	// Members of each coarse vertex, in coarse order.
	first := make([]int32, nc)
	second := make([]int32, nc)
	for i := range first {
		first[i], second[i] = -1, -1
	}
	for v := int32(0); v < int32(g.n); v++ {
		c := cmap[v]
		if first[c] < 0 {
			first[c] = v
		} else {
			second[c] = v
		}
	}
	// A coarse graph has at most the fine graph's edges.
	cg := &pgraph{n: int(nc), vw: make([]int32, nc), xadj: make([]int32, nc+1),
		adj: make([]int32, 0, len(g.adj)), ew: make([]float64, 0, len(g.adj))}
	pos := make([]int32, nc)
	for i := range pos {
		pos[i] = -1
	}
	for c := int32(0); c < nc; c++ {
		start := int32(len(cg.adj))
		for _, v := range [2]int32{first[c], second[c]} {
			if v >= 0 {
				cg.vw[c] += g.vw[v]
				cg.mergeRow(g, v, c, cmap, pos, start)
			}
		}
		end := int32(len(cg.adj))
		for _, cu := range cg.adj[start:end] {
			pos[cu] = -1
		}
		rowSort{cg.adj[start:end], cg.ew[start:end]}.sort()
		cg.xadj[c+1] = end
	}
	return cg, cmap
}

// matchHeavyEdges matches each vertex (in order, index order when nil)
// with its unmatched neighbour of the heaviest edge whose weights together
// fit maxVW (the lighter on ties, then the first, or the last when last);
// it returns each vertex's coarse vertex and their number.
func matchHeavyEdges(g *pgraph, maxVW int32, order []int32, last bool) ([]int32, int32) {
	cmap := make([]int32, g.n)
	for i := range cmap {
		cmap[i] = -1
	}
	nc := int32(0)
	visit := func(v int32) {
		if cmap[v] >= 0 {
			return
		}
		best := int32(-1)
		bw := -1.0
		for e := g.xadj[v]; e < g.xadj[v+1]; e++ {
			u := g.adj[e]
			if cmap[u] >= 0 || u == v || g.vw[u]+g.vw[v] > maxVW {
				continue
			}
			w := g.ew[e]
			if w > bw || (w == bw && best >= 0 && (g.vw[u] < g.vw[best] || last && g.vw[u] == g.vw[best])) {
				best, bw = u, w
			}
		}
		cmap[v] = nc
		if best >= 0 {
			cmap[best] = nc
		}
		nc++
	}
	if order == nil {
		for v := int32(0); v < int32(g.n); v++ {
			visit(v)
		}
	} else {
		for _, v := range order {
			visit(v)
		}
	}
	return cmap, nc
}

// mergeRow adds fine vertex v's edges to coarse vertex c's row (begun at
// start): edges inside c vanish, edges to the same coarse neighbour add
// up (pos[cu] is cu's place in the row, or below start).
func (cg *pgraph) mergeRow(g *pgraph, v, c int32, cmap, pos []int32, start int32) {
	for e := g.xadj[v]; e < g.xadj[v+1]; e++ {
		cu := cmap[g.adj[e]]
		if cu == c {
			continue
		}
		if p := pos[cu]; p >= start {
			cg.ew[p] += g.ew[e]
		} else {
			pos[cu] = int32(len(cg.adj))
			cg.adj = append(cg.adj, cu)
			cg.ew = append(cg.ew, g.ew[e])
		}
	}
}

// matching is how partition's coarsening pairs vertices: in the order of
// rng's permutations (index order when nil), ties to the last neighbour
// when last (see coarsen).
type matching struct {
	rng  *rand.Rand
	last bool
}

// partition splits g into len(caps) parts, part p holding vertices of total
// weight caps[p] (sum(caps) must equal the total weight). It coarsens by
// heavy edge matching while the coarse vertices fit the smallest part,
// grows the parts greedily on the coarsest graph, then projects back,
// improving with moves at every level and restoring exact sizes at the
// finest. m.rng == nil visits vertices in index order.
func partition(g *pgraph, caps []int, m matching) []int32 {
	k := len(caps)
	part := make([]int32, g.n)
	if k <= 1 {
		return part
	}
	minCap := caps[0]
	for _, c := range caps {
		minCap = min(minCap, c)
	}
	graphs := []*pgraph{g}
	var maps [][]int32
	cur := g
	for cur.n > k && len(graphs) < 64 {
		var order []int32
		if m.rng != nil {
			order = make([]int32, cur.n)
			for i, v := range m.rng.Perm(cur.n) {
				order[i] = int32(v)
			}
		}
		cg, cmap := coarsen(cur, int32(minCap), order, m.last)
		if cg.n > cur.n-cur.n/20 {
			break
		}
		graphs = append(graphs, cg)
		maps = append(maps, cmap)
		cur = cg
	}
	cpart := growParts(cur, caps)
	for lvl := len(graphs) - 1; lvl >= 0; lvl-- {
		gl := graphs[lvl]
		if lvl < len(graphs)-1 {
			cmap := maps[lvl]
			fine := make([]int32, gl.n)
			for v := range fine {
				fine[v] = cpart[cmap[v]]
			}
			cpart = fine
		}
		limit := make([]int, k)
		for q, c := range caps {
			limit[q] = c + max(1, int(partSlack*float64(c)+0.999))
		}
		newMover(gl, cpart, limit).unloadAll()
		fmRefine(gl, cpart, limit)
	}
	refineMoves(g, cpart, caps, true)
	return cpart
}

// gainHeap is a max-heap of (gain, vertex) with lazy deletion, typed
// (container/heap's interface boxed every item). Its order is total
// (gain, then vertex), so the items come out in the same order however
// the heap was built.
type gainItem struct {
	gain float64
	v    int32
}
type gainHeap []gainItem

func (h gainHeap) Len() int { return len(h) }
func (h gainHeap) less(i, j int) bool {
	if h[i].gain != h[j].gain {
		return h[i].gain > h[j].gain
	}
	return h[i].v < h[j].v
}

// init orders the items in place (O(n), not n pushes).
func (h gainHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *gainHeap) push(it gainItem) {
	*h = append(*h, it)
	s := *h
	for j := len(s) - 1; j > 0; {
		i := (j - 1) / 2
		if !s.less(j, i) {
			break
		}
		s[i], s[j] = s[j], s[i]
		j = i
	}
}

func (h *gainHeap) pop() gainItem {
	s := *h
	n := len(s) - 1
	top := s[0]
	s[0] = s[n]
	*h = s[:n]
	h.down(0)
	return top
}

func (h gainHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		j := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			j = r
		}
		if !h.less(j, i) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// growParts fills parts one after the other by greedy graph growing: a
// part starts at the unassigned vertex most connected to the parts already
// grown (so parts grow next to each other) and adds the frontier vertex
// most connected to it while it fits. What fits nowhere goes to the part
// with the most room (refineMoves restores sizes at the finest level).
func growParts(g *pgraph, caps []int) []int32 {
	part := make([]int32, g.n)
	for i := range part {
		part[i] = -1
	}
	toAssigned := make([]float64, g.n)
	conn := make([]float64, g.n)
	load := make([]int, len(caps))
	unassigned := g.n
	for p := range caps {
		room := caps[p]
		h := &gainHeap{}
		var touched []int32
		add := func(v int32) {
			part[v] = int32(p)
			room -= int(g.vw[v])
			load[p] += int(g.vw[v])
			unassigned--
			for e := g.xadj[v]; e < g.xadj[v+1]; e++ {
				u := g.adj[e]
				toAssigned[u] += g.ew[e]
				if part[u] < 0 {
					if conn[u] == 0 {
						touched = append(touched, u)
					}
					conn[u] += g.ew[e]
					h.push(gainItem{conn[u], u})
				}
			}
		}
		for room > 0 && unassigned > 0 {
			if h.Len() == 0 {
				seed := int32(-1)
				for v := int32(0); v < int32(g.n); v++ {
					if part[v] < 0 && int(g.vw[v]) <= room && (seed < 0 || toAssigned[v] > toAssigned[seed]) {
						seed = v
					}
				}
				if seed < 0 {
					break
				}
				add(seed)
				continue
			}
			it := h.pop()
			v := it.v
			if part[v] >= 0 || it.gain != conn[v] || int(g.vw[v]) > room {
				continue
			}
			add(v)
		}
		for _, u := range touched {
			conn[u] = 0
		}
	}
	for v := int32(0); v < int32(g.n); v++ {
		if part[v] >= 0 {
			continue
		}
		best := 0
		for p := range caps {
			if caps[p]-load[p] > caps[best]-load[best] {
				best = p
			}
		}
		part[v] = int32(best)
		load[best] += int(g.vw[v])
	}
	return part
}

// refineMoves moves vertices to the neighbouring part they are most
// connected to when that lowers the cut and the part has room; at the
// finest level it first empties overfull parts into parts with room at the
// least cut increase.
func refineMoves(g *pgraph, part []int32, caps []int, finest bool) {
	r := newMover(g, part, caps)
	if finest {
		r.unloadAll()
	}
	for pass := 0; pass < 4; pass++ {
		moved := 0
		for v := int32(0); v < int32(g.n); v++ {
			p := part[v]
			r.connOf(v)
			bq, bg := int32(-1), 1e-12*r.conn[p]
			for _, q := range r.touched {
				if q == p || r.load[q]+int(g.vw[v]) > caps[q] {
					continue
				}
				if gain := r.conn[q] - r.conn[p]; gain > bg {
					bq, bg = q, gain
				}
			}
			if bq >= 0 {
				r.move(v, bq)
				moved++
			}
		}
		if moved == 0 {
			break
		}
	}
}

// mover moves vertices between parts, keeping each part's load and one
// vertex's connection to each part.
type mover struct {
	g    *pgraph
	part []int32
	caps []int
	load []int
	// conn[q] is the last connOf vertex's edge weight into part q, for the
	// parts in touched (0 elsewhere).
	conn    []float64
	touched []int32
	heap    gainHeap // an FM pass's
}

func newMover(g *pgraph, part []int32, caps []int) *mover {
	r := &mover{g: g, part: part, caps: caps, load: make([]int, len(caps)), conn: make([]float64, len(caps))}
	for v, p := range part {
		r.load[p] += int(g.vw[v])
	}
	return r
}

// connOf sets conn and touched to v's edge weight into each part. A run
// of neighbours in one part is summed in a register (in the same order,
// so to the same sum): the part's entry is read and written once a run.
func (r *mover) connOf(v int32) {
	for _, p := range r.touched {
		r.conn[p] = 0
	}
	r.touched = r.touched[:0]
	g := r.g
	lo, hi := g.xadj[v], g.xadj[v+1]
	if lo == hi {
		return
	}
	ew := g.ew[lo:hi]
	last := r.part[g.adj[lo]]
	acc := r.conn[last]
	r.touched = append(r.touched, last)
	for i, u := range g.adj[lo:hi] {
		if q := r.part[u]; q != last {
			r.conn[last] = acc
			if acc = r.conn[q]; acc == 0 {
				r.touched = append(r.touched, q)
			}
			last = q
		}
		acc += ew[i]
	}
	r.conn[last] = acc
}

// move puts v in part q.
func (r *mover) move(v, q int32) {
	p := r.part[v]
	r.part[v] = q
	r.load[p] -= int(r.g.vw[v])
	r.load[q] += int(r.g.vw[v])
}

// unloadAll unloads every part over its capacity, in order (unload). A
// part over its capacity receives no vertex (a move needs room), and a
// part within it never goes over, so each part's members are listed in
// one walk over the vertices, before any move.
func (r *mover) unloadAll() {
	over := false
	for p := range r.caps {
		over = over || r.load[p] > r.caps[p]
	}
	if !over {
		return
	}
	members := make([][]int32, len(r.caps))
	for v := int32(0); v < int32(r.g.n); v++ {
		if p := r.part[v]; r.load[p] > r.caps[p] {
			members[p] = append(members[p], v)
		}
	}
	for p := range r.caps {
		r.unload(int32(p), members[p])
	}
}

// unload moves vertices out of part p (its members, ascending) while it
// is over its capacity: each time the vertex whose move loses the least
// connection, to a neighbouring part with room, or else to any part with
// room (gain -conn[p]).
func (r *mover) unload(p int32, members []int32) {
	for r.load[p] > r.caps[p] {
		anyRoom := int32(-1)
		for q := range r.caps {
			if int32(q) != p && r.load[q] < r.caps[q] {
				anyRoom = int32(q)
				break
			}
		}
		bv, bq, bg := int32(-1), int32(-1), 0.0
		for _, v := range members {
			if r.part[v] != p {
				continue
			}
			r.connOf(v)
			vw := int(r.g.vw[v])
			for _, q := range r.touched {
				if q == p || r.load[q]+vw > r.caps[q] {
					continue
				}
				if gain := r.conn[q] - r.conn[p]; bv < 0 || gain > bg {
					bv, bq, bg = v, q, gain
				}
			}
			if anyRoom >= 0 && r.load[anyRoom]+vw <= r.caps[anyRoom] {
				if gain := -r.conn[p]; bv < 0 || gain > bg {
					bv, bq, bg = v, anyRoom, gain
				}
			}
		}
		if bv < 0 {
			return
		}
		r.move(bv, bq)
	}
}
