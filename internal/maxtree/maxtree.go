package maxtree

// Tree holds k values (0 at first).
type Tree struct {
	size int
	v    []float64
	at   []int32
}

// New is a tree of k values, all 0.
func New(k int) Tree {
	size := 1
	for size < k {
		size *= 2
	}
	t := Tree{size: size, v: make([]float64, 2*size), at: make([]int32, 2*size)}
	for i := 0; i < size; i++ {
		t.at[size+i] = int32(i)
	}
	for p := size - 1; p >= 1; p-- {
		t.at[p] = t.at[2*p]
	}
	return t
}

// Set sets value i to x.
func (t *Tree) Set(i int, x float64) {
	p := t.size + i
	t.v[p] = x
	for p /= 2; p >= 1; p /= 2 {
		l, r := 2*p, 2*p+1
		if t.v[r] > t.v[l] {
			t.v[p], t.at[p] = t.v[r], t.at[r]
		} else {
			t.v[p], t.at[p] = t.v[l], t.at[l]
		}
	}
}

// Max is the largest value.
func (t *Tree) Max() float64 { return t.v[1] }

// Value is value i.
func (t *Tree) Value(i int) float64 { return t.v[t.size+i] }

// Argmax is where the largest value is (the lowest index of a tie).
func (t *Tree) Argmax() int32 { return t.at[1] }
