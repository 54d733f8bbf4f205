package shapes

import (
	"math/rand/v2"

	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/placement/model"
)

// Communication patterns of real applications, generated with fixed seeds
// (rather than committed as files) for the solver tests and benchmarks.
// Every flow is directed; neighbours exchange in both directions.

const (
	HaloBytes = 8192 * 100 // 8 KiB x 100 messages per neighbour
	HaloMsgs  = 100
)

func Idx3(x, y, z, nx, ny int) int { return x + nx*(y+ny*z) }

// Halo3D is a 7-point stencil on an nx x ny x nz grid of ranks (rank =
// x + nx*(y + ny*z)), periodic or not.
func Halo3D(nx, ny, nz int, periodic bool) ([]profile.Flow, int) {
	var flows []profile.Flow
	dims := [3]int{nx, ny, nz}
	for z := 0; z < nz; z++ {
		for y := 0; y < ny; y++ {
			for x := 0; x < nx; x++ {
				c := [3]int{x, y, z}
				for d := 0; d < 3; d++ {
					if dims[d] == 1 {
						continue
					}
					for _, s := range [2]int{-1, 1} {
						o := c
						o[d] += s
						if o[d] < 0 || o[d] >= dims[d] {
							if !periodic || dims[d] == 2 {
								continue
							}
							o[d] = (o[d] + dims[d]) % dims[d]
						}
						flows = append(flows, profile.Flow{Src: Idx3(x, y, z, nx, ny), Dst: Idx3(o[0], o[1], o[2], nx, ny), Bytes: HaloBytes, Messages: HaloMsgs})
					}
				}
			}
		}
	}
	return flows, nx * ny * nz
}

// Halo2D is a 5-point stencil on an nx x ny grid.
func Halo2D(nx, ny int, periodic bool) ([]profile.Flow, int) { return Halo3D(nx, ny, 1, periodic) }

// Ring: each rank talks to its two neighbours on a Ring.
func Ring(n int) ([]profile.Flow, int) {
	var flows []profile.Flow
	for i := 0; i < n; i++ {
		flows = append(flows, profile.Flow{Src: i, Dst: (i + 1) % n, Bytes: 1 << 20, Messages: 1000})
		flows = append(flows, profile.Flow{Src: (i + 1) % n, Dst: i, Bytes: 1 << 20, Messages: 1000})
	}
	return flows, n
}

// AllToAll: every rank sends the same to every other.
func AllToAll(n int) ([]profile.Flow, int) {
	var flows []profile.Flow
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j {
				flows = append(flows, profile.Flow{Src: i, Dst: j, Bytes: 4096, Messages: 10})
			}
		}
	}
	return flows, n
}

// MasterWorker: rank 0 exchanges with everyone, workers rarely talk.
func MasterWorker(n int) ([]profile.Flow, int) {
	var flows []profile.Flow
	for i := 1; i < n; i++ {
		flows = append(flows, profile.Flow{Src: 0, Dst: i, Bytes: 1 << 16, Messages: 50})
		flows = append(flows, profile.Flow{Src: i, Dst: 0, Bytes: 1 << 12, Messages: 50})
		if i+1 < n && i%4 == 1 {
			flows = append(flows, profile.Flow{Src: i, Dst: i + 1, Bytes: 1 << 10, Messages: 2})
		}
	}
	return flows, n
}

// RandomSparse: each rank talks to deg random others with random volumes.
func RandomSparse(n, deg int, seed uint64) ([]profile.Flow, int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	var flows []profile.Flow
	for i := 0; i < n; i++ {
		for d := 0; d < deg; d++ {
			j := rng.IntN(n)
			flows = append(flows, profile.Flow{Src: i, Dst: j, Bytes: float64(rng.IntN(1 << 20)), Messages: float64(1 + rng.IntN(200))})
		}
	}
	return flows, n
}

// ShuffledPairs: ranks 2k and 2k+1 talk, nobody else (the pairs are split
// apart by block numbering when shuffled).
func ShuffledPairs(n int, seed uint64) ([]profile.Flow, int) {
	rng := rand.New(rand.NewPCG(seed, 3))
	perm := rng.Perm(n)
	var flows []profile.Flow
	for k := 0; k+1 < n; k += 2 {
		a, b := perm[k], perm[k+1]
		flows = append(flows, profile.Flow{Src: a, Dst: b, Bytes: 1 << 20, Messages: 100}, profile.Flow{Src: b, Dst: a, Bytes: 1 << 20, Messages: 100})
	}
	return flows, n
}

// BenchLevels are the costs: L = 1/10 us, B = 10/1 GB/s inside /
// between nodes.
var BenchLevels = [3]model.LinkCost{
	model.SameSocket: {Latency: 1e-6, InvBandwidth: 1 / 10e9},
	model.SameNode:   {Latency: 1e-6, InvBandwidth: 1 / 10e9},
	model.Network:    {Latency: 10e-6, InvBandwidth: 1 / 1e9},
}

// CubePlacement puts each 4x4x4 box of an n^3 grid on one node of a
// level machine with 64 slots per node.
func CubePlacement(n int) []int32 {
	b := n / 4
	place := make([]int32, n*n*n)
	next := make([]int32, b*b*b)
	for z := 0; z < n; z++ {
		for y := 0; y < n; y++ {
			for x := 0; x < n; x++ {
				node := int32(x/4 + b*(y/4+b*(z/4)))
				place[Idx3(x, y, z, n, n)] = node*64 + next[node]
				next[node]++
			}
		}
	}
	return place
}
