package interpose_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/plots/report"
)

// equiv builds the expected matrix of --collectives-in-matrix, one
// collective at a time, on a communicator given as the world ranks of its
// members in comm-rank order (docs/profile.md's generic equivalents).
type equiv struct {
	m       map[pair]traffic
	members []int
}

// send adds one message of b bytes from comm rank i to comm rank j; a
// message to itself or of no bytes is not counted.
func (e equiv) send(i, j int, b int64) {
	if i == j || b <= 0 {
		return
	}
	k := pair{e.members[i], e.members[j]}
	x := e.m[k]
	x.bytes += b
	x.msgs++
	e.m[k] = x
}

func (e equiv) size() int { return len(e.members) }

func (e equiv) bcast(root int, b int64) {
	for j := range e.members {
		e.send(root, j, b)
	}
}

func (e equiv) gather(root int, b func(i int) int64) {
	for i := range e.members {
		e.send(i, root, b(i))
	}
}

func (e equiv) alltoall(b func(i, j int) int64) {
	for i := range e.members {
		for j := range e.members {
			e.send(i, j, b(i, j))
		}
	}
}

func (e equiv) allreduce(b int64) {
	e.gather(0, func(int) int64 { return b })
	e.bcast(0, b)
}

func (e equiv) chain(b int64) {
	for i := 0; i+1 < e.size(); i++ {
		e.send(i, i+1, b)
	}
}

// colls is the traffic of testdata/mpi/collmatrix.c's colls on e.
func (e equiv) colls() {
	s := e.size()
	c := func(v int64) func(int) int64 { return func(int) int64 { return v } }
	e.bcast(1%s, 100)                                        // Bcast
	e.gather(s-1, c(3*8))                                    // Reduce
	e.allreduce(5 * 4)                                       // Allreduce
	e.allreduce(2 * 8)                                       // Allreduce in place
	e.gather(0, c(7))                                        // Gather
	e.gather(s-1, func(i int) int64 { return int64(i + 1) }) // Gatherv
	e.bcast(0, 11)                                           // Scatter
	for j := 0; j < s; j++ {                                 // Scatterv from 1%s
		e.send(1%s, j, int64(j+2))
	}
	e.alltoall(func(int, int) int64 { return 13 })                     // Allgather
	e.alltoall(func(int, int) int64 { return 2 * 4 })                  // Allgather in place
	e.alltoall(func(i, _ int) int64 { return int64(i + 3) })           // Allgatherv
	e.alltoall(func(int, int) int64 { return 17 })                     // Alltoall
	e.alltoall(func(i, j int) int64 { return int64(i*10 + j + 1) })    // Alltoallv
	e.alltoall(func(i, j int) int64 { return int64(4 * (i + j + 1)) }) // Alltoallw
	total := int64(s * (s + 1) / 2 * 4)                                // Reduce_scatter: to 0, then rank 0 scatters
	e.gather(0, c(total))
	for j := 0; j < s; j++ {
		e.send(0, j, int64(4*(j+1)))
	}
	e.gather(0, c(int64(2*4*s))) // Reduce_scatter_block
	e.bcast(0, 2*4)
	e.chain(8)                                    // Scan
	e.chain(3 * 4)                                // Exscan
	e.bcast(s-1, 19)                              // Ibcast
	e.allreduce(4 * 8)                            // Iallreduce
	e.alltoall(func(int, int) int64 { return 6 }) // Ialltoall
	e.gather(0, c(9))                             // Igather
	e.chain(2 * 4)                                // Iscan
}

// collmatrixWant is the matrix of collmatrix on np ranks, iter iterations:
// the point-to-point ring, and with coll the collectives' equivalents.
func collmatrixWant(np, iter int, coll bool) map[pair]traffic {
	m := map[pair]traffic{}
	for r := 0; r < np; r++ {
		m[pair{r, (r + 1) % np}] = traffic{int64(8 * (r + 1)), 1}
	}
	if coll {
		world := equiv{m: m}
		for r := 0; r < np; r++ {
			world.members = append(world.members, r)
		}
		world.colls()
		for c := 0; c < 2; c++ { // split by parity, key -rank: decreasing ranks
			sub := equiv{m: m}
			for r := np - 1; r >= 0; r-- {
				if r%2 == c {
					sub.members = append(sub.members, r)
				}
			}
			sub.colls()
		}
		for r := 0; r < np; r++ { // Neighbor_alltoall, Neighbor_allgather on the periodic ring
			for _, b := range []int64{4, 5} {
				world.send(r, (r+np-1)%np, b)
				world.send(r, (r+1)%np, b)
			}
		}
	}
	for k, x := range m {
		m[k] = traffic{x.bytes * int64(iter), x.msgs * int64(iter)}
	}
	return m
}

func TestCollectivesInMatrix(t *testing.T) {
	testutil.Short(t, "MPI runs")
	prog := mpiProgram(t, "collmatrix")
	const np, iter = 6, 3
	for _, tc := range []struct {
		name  string
		flags []string
		coll  bool
	}{
		{"off", nil, false},
		{"on", []string{"--collectives-in-matrix"}, true},
		{"on-slt-collwait", []string{"--collectives-in-matrix", "--slt", "--collective-wait"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := profileRun(t, np, tc.flags, prog, "3")
			if got := slices.Contains(p.Meta.Modes, profile.ModeCollectivesInMatrix); got != tc.coll {
				t.Errorf("meta modes %v: collectives-in-matrix %v, want %v", p.Meta.Modes, got, tc.coll)
			}
			checkMatrix(t, p, collmatrixWant(np, iter, tc.coll))
			if len(p.Meta.Warnings) > 0 {
				t.Errorf("warnings: %v", p.Meta.Warnings)
			}
			// Every row is what its source sent: the matrix's bytes sent
			// and received agree, and the collectives carry no time.
			for _, x := range p.Matrix {
				if x.Dst != (x.Src+1)%np && (x.Time != 0 || x.Late != 0) {
					t.Errorf("collective-only pair %d->%d has time %g late %g", x.Src, x.Dst, x.Time, x.Late)
				}
			}
			var rep strings.Builder
			if err := report.Report(&rep, p, report.Options{Top: 3}); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(rep.String(), "matrix bytes (point-to-point and collectives)"); got != tc.coll {
				t.Errorf("report names the collectives in the matrix: %v, want %v", got, tc.coll)
			}
		})
	}
}

func TestCollectivesInMatrixIntercomm(t *testing.T) {
	testutil.Short(t, "MPI runs")
	prog := mpiProgram(t, "intercoll")
	p, _ := profileRun(t, 4, []string{"--collectives-in-matrix"}, prog)
	// The halves' Allreduce (comm rank 0 is the lower world rank); the
	// intercommunicator's Bcast is left out and said so.
	checkMatrix(t, p, map[pair]traffic{{1, 0}: {4, 1}, {0, 1}: {4, 1}, {3, 2}: {4, 1}, {2, 3}: {4, 1}})
	said := false
	for _, s := range p.Meta.Unmeasured {
		said = said || strings.Contains(s, "intercommunicators are not in the matrix")
	}
	if !said {
		t.Errorf("meta.json does not say that intercommunicator collectives were left out: %q", p.Meta.Unmeasured)
	}
}
