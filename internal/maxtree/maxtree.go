package maxtree

// Tree holds k values (0 at first).
type Tree struct {
	size, k int
	v       []float64
	at      []int32
}

// New is a tree of k values, all 0.
func New(k int) Tree {
	size := 1
	for size < k {
		size *= 2
	}
	t := Tree{size: size, k: k, v: make([]float64, 2*size), at: make([]int32, 2*size)}
	for i := 0; i < size; i++ {
		t.at[size+i] = int32(i)
	}
	for p := size - 1; p >= 1; p-- {
		t.at[p] = t.at[2*p]
	}
	return t
}

// Set sets value i to x. It climbs only while a node's maximum changes:
// above a node left as it was, every node is too (the evaluator sets
// thousands of ranks an exchange on a dragonfly, most of them below
// their subtree's maximum: the full climb was 10% of place's CPU on
// 102,400 ranks).
func (t *Tree) Set(i int, x float64) {
	p := t.size + i
	t.v[p] = x
	for p /= 2; p >= 1; p /= 2 {
		v, at := t.v[2*p], t.at[2*p]
		if t.v[2*p+1] > v {
			v, at = t.v[2*p+1], t.at[2*p+1]
		}
		if t.v[p] == v && t.at[p] == at {
			return
		}
		t.v[p], t.at[p] = v, at
	}
}

// Max is the largest value.
func (t *Tree) Max() float64 { return t.v[1] }

// Value is value i.
func (t *Tree) Value(i int) float64 { return t.v[t.size+i] }

// Argmax is where the largest value is (the lowest index of a tie).
func (t *Tree) Argmax() int32 { return t.at[1] }

// Above calls visit with each index whose value is above x, in index
// order, until visit returns false. It descends only into subtrees
// whose largest value is above x, so it costs the indexes it visits
// times log k, not k.
func (t *Tree) Above(x float64, visit func(i int32) bool) {
	t.above(1, x, visit)
}

// above is Above from tree node p; false when visit said to stop.
func (t *Tree) above(p int, x float64, visit func(int32) bool) bool {
	if t.v[p] <= x {
		return true
	}
	if p >= t.size {
		return p-t.size >= t.k || visit(int32(p-t.size))
	}
	return t.above(2*p, x, visit) && t.above(2*p+1, x, visit)
}
