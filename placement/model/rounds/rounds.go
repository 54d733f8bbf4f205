package rounds

import (
	"math"
	"slices"

	"github.com/latmap/latmap/mapper/profile"
)

// MaxBytes is the most a collective call moves (its mean bytes sent and
// received a call) to be priced by its rounds' latency alone.
const MaxBytes = 4096

// The partners of a round, by the collectives' usual algorithms.
const (
	// None: not priced by rounds.
	None = iota
	// Dissemination: in round k every rank sends to rank (r + 2^k) mod
	// n (Open MPI's and SimGrid's barrier of more than a few ranks).
	Dissemination
	// Doubling: in round k rank r and rank r XOR 2^k exchange (recursive
	// doubling: small allreduces; a binomial tree's broadcast or reduce
	// joins the same pairs, one way).
	Doubling
	Kinds
)

// Kind says whether f's calls are small collectives the model prices by
// their rounds, and which rounds: a barrier (Dissemination); an
// allreduce, reduce or broadcast of at most MaxBytes a call (Doubling).
// Larger collectives move enough data that their time is their
// bandwidth's, and stay in the measured communication.
func Kind(f profile.Function) int {
	switch {
	case f.Calls <= 0:
		return None
	case f.Function == "MPI_Barrier":
		return Dissemination
	case f.Function == "MPI_Allreduce" || f.Function == "MPI_Reduce" || f.Function == "MPI_Bcast":
		if (f.BytesSent+f.BytesRecv)/f.Calls <= MaxBytes {
			return Doubling
		}
	}
	return None
}

// Latency is the modelled time of one small collective of kind over the
// ranks placed at place (rank r on slot place[r]), lat the latency of a
// message between two slots: ceil(log2 n) rounds, each as long as its
// slowest message. On SimGrid's 4 x 4 x 4 torus, one rank a node, a
// barrier of 64 ranks took 15 us; on its 16 x 4 fat tree 48 us (block:
// every round has a pair across leaves, some rank next to a leaf's edge)
// and 33 us (cyclic: two rounds stay on the nodes).
func Latency(kind int, place []int32, lat func(a, b int32) float64) float64 {
	n := len(place)
	total := 0.0
	for d := 1; d < n; d *= 2 {
		worst := 0.0
		for r := range n {
			q := (r + d) % n
			if kind == Doubling {
				q = r ^ d
			}
			if a := place[r]; q < n && a != place[q] {
				worst = math.Max(worst, lat(a, place[q]))
			}
		}
		total += worst
	}
	return total
}

// NewCalls is a count of calls of each kind for n ranks.
func NewCalls(n int) (c [Kinds][]float64) {
	for k := range c {
		c[k] = make([]float64, n)
	}
	return c
}

// Add adds to base (each rank's fixed time) each rank's calls of each
// kind times one call's latency, cost(kind) (asked only of the kinds some
// rank calls), and returns what it added to each rank.
func Add(base []float64, calls *[Kinds][]float64, cost func(kind int) float64) []float64 {
	added := make([]float64, len(base))
	for k := range calls {
		if !slices.ContainsFunc(calls[k], func(c float64) bool { return c > 0 }) {
			continue
		}
		one := cost(k)
		for i := 0; i < len(base) && i < len(calls[k]); i++ {
			base[i] += calls[k][i] * one
			added[i] += calls[k][i] * one
		}
	}
	return added
}
