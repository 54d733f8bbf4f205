package interpose_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/profile"
)

// TestCommMatrices: testdata/mpi/commgrid.c on 8 ranks, a 4 x 2 grid with
// named row and column communicators, a split some ranks leave, a dup of
// MPI_COMM_WORLD and a dup of the rows. Under both MPIs each communicator's
// matrix in world ranks is exactly the exchanges the program makes, keyed by
// its path of creation and named by MPI_Comm_set_name, and the
// communicators' matrices add up to matrix.csv.
func TestCommMatrices(t *testing.T) {
	for _, f := range testutil.Flavors() {
		t.Run(f.Name, func(t *testing.T) {
			f.Require(t)
			dir := t.TempDir()
			prog := f.Build(t, dir, "commgrid", filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", "commgrid.c"))
			p, out := profileRunFlavor(t, f, f.Local(8), []string{"--call-sites"}, prog)
			if !strings.Contains(out, "commgrid ok") {
				t.Fatalf("the program did not finish:\n%s", out)
			}
			checkCommGrid(t, p)
			checkCommSites(t, p)
		})
	}
}

func checkCommGrid(t *testing.T, p *profile.Profile) {
	t.Helper()
	type pair struct{ src, dst int }
	type tr struct{ bytes, msgs int64 }
	want := map[string]map[pair]tr{}
	add := func(comm string, src, dst int, bytes, msgs int64) {
		if want[comm] == nil {
			want[comm] = map[pair]tr{}
		}
		x := want[comm][pair{src, dst}]
		want[comm][pair{src, dst}] = tr{x.bytes + bytes, x.msgs + msgs}
	}
	add("w.0", 0, 2, 11, 1)
	for r := 0; r < 8; r++ {
		add("w.1", r, r^1, 3000, 3)                // rows: the partner in the row
		add("w.2", r, (r+2)%8, 4000, 2)            // cols: the next in the column
		add(profile.CommWorld, r, (r+3)%8, 500, 1) // MPI_COMM_WORLD
		if r%2 == 0 {
			add("w.1.0", r, r+1, 64, 1) // the dup of the rows
		}
	}
	add("w.3", 0, 7, 77, 1)
	wantComms := map[string]profile.Comm{
		profile.CommWorld: {Name: profile.CommWorld, Members: 8, Size: 8},
		"w.0":             {Function: "MPI_Comm_split", Members: 4, Size: 4},
		"w.1":             {Name: "rows", Function: "MPI_Comm_split", Members: 8, Size: 2},
		"w.2":             {Name: "cols", Function: "MPI_Comm_split", Members: 8, Size: 4},
		"w.3":             {Function: "MPI_Comm_dup", Members: 8, Size: 8},
		"w.1.0":           {Function: "MPI_Comm_dup", Members: 8, Size: 2},
	}
	if len(p.Comms) != len(wantComms) {
		t.Errorf("comms.csv: %d communicators, want %d: %+v", len(p.Comms), len(wantComms), p.Comms)
	}
	for _, c := range p.Comms {
		w, ok := wantComms[c.Comm]
		if !ok {
			t.Errorf("comms.csv: unexpected communicator %+v", c)
			continue
		}
		var bytes, msgs int64
		for _, x := range want[c.Comm] {
			bytes += x.bytes
			msgs += x.msgs
		}
		w.Comm, w.Bytes, w.Messages = c.Comm, bytes, msgs
		if c != w {
			t.Errorf("comms.csv: %+v, want %+v", c, w)
		}
	}
	got := map[string]map[pair]tr{}
	for _, x := range p.CommMatrix {
		if got[x.Comm] == nil {
			got[x.Comm] = map[pair]tr{}
		}
		got[x.Comm][pair{x.Src, x.Dst}] = tr{x.Bytes, x.Messages}
	}
	if g, w := fmt.Sprint(got), fmt.Sprint(want); g != w {
		t.Errorf("commmatrix.csv:\n got %s\nwant %s", g, w)
	}
	// By name, and the communicators add up to the whole matrix.
	rows, err := p.FindComm("rows")
	if err != nil || rows.Comm != "w.1" {
		t.Errorf("FindComm(rows) = %+v, %v", rows, err)
	}
	if _, err := p.FindComm("nosuch"); err == nil || !strings.Contains(err.Error(), "cols") {
		t.Errorf("FindComm(nosuch): %v, want an error listing the communicators", err)
	}
	sum := map[pair]tr{}
	for _, m := range got {
		for k, x := range m {
			sum[k] = tr{sum[k].bytes + x.bytes, sum[k].msgs + x.msgs}
		}
	}
	for _, x := range p.Matrix {
		if s := sum[pair{x.Src, x.Dst}]; s.bytes != x.Bytes || s.msgs != x.Messages {
			t.Errorf("pair %d->%d: matrix.csv %d bytes %d messages, communicators %d and %d", x.Src, x.Dst, x.Bytes, x.Messages, s.bytes, s.msgs)
		}
		delete(sum, pair{x.Src, x.Dst})
	}
	if len(sum) != 0 {
		t.Errorf("pairs in the communicators' matrices but not in matrix.csv: %v", sum)
	}
}

// checkCommSites: ring()'s one MPI_Sendrecv call site is kept per
// communicator: on each rank 3 calls of 1000 bytes on the rows (w.1), 2 of
// 2000 on the columns (w.2) and 1 of 500 on MPI_COMM_WORLD.
func checkCommSites(t *testing.T, p *profile.Profile) {
	t.Helper()
	type key struct {
		rank int
		comm string
	}
	got := map[key]profile.CallSite{}
	sites := map[int]bool{}
	for _, c := range p.CallSites {
		if c.Function == "MPI_Sendrecv" {
			got[key{c.Rank, c.Comm}] = c
			sites[c.Site] = true
		}
	}
	if len(sites) != 1 {
		t.Errorf("MPI_Sendrecv from %d call sites, want ring()'s one", len(sites))
	}
	for r := 0; r < 8; r++ {
		for _, w := range []struct {
			comm         string
			calls, bytes int64
		}{{"w.1", 3, 3000}, {"w.2", 2, 4000}, {profile.CommWorld, 1, 500}} {
			c := got[key{r, w.comm}]
			if c.Calls != w.calls || c.BytesSent != w.bytes || c.BytesRecv != w.bytes {
				t.Errorf("rank %d, %s: MPI_Sendrecv site %+v, want %d calls, %d bytes each way", r, w.comm, c, w.calls, w.bytes)
			}
		}
	}
	if len(got) != 24 {
		t.Errorf("%d (rank, communicator) rows of MPI_Sendrecv, want 24", len(got))
	}
}

// TestCommMatricesOverflow: 70 dups of MPI_COMM_WORLD, each carrying one
// 100-byte message (testdata/mpi/commloop.c). latmap keeps 62 of them
// (w.0 ... w.61; "self" takes a place of the 63), counts the rest under
// "other" and says so in meta.json's unmeasured; nothing is lost: the communicators add up to the
// 7,000 bytes sent.
func TestCommMatricesOverflow(t *testing.T) {
	testutil.OpenMPI.Require(t)
	dir := t.TempDir()
	prog := testutil.OpenMPI.Build(t, dir, "commloop", filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", "commloop.c"))
	p, out := profileRunFlavor(t, testutil.OpenMPI, testutil.OpenMPI.Local(2), nil, prog)
	if !strings.Contains(out, "commloop ok") {
		t.Fatalf("the program did not finish:\n%s", out)
	}
	var total, kept int64
	var other *profile.Comm
	for i, c := range p.Comms {
		if c.Comm == profile.CommWorld {
			continue
		}
		total += c.Bytes
		if c.Comm == profile.CommOther {
			other = &p.Comms[i]
		} else if c.Bytes == 100 {
			kept++
		}
	}
	if total != 7000 || other == nil || other.Bytes != 7000-100*kept || kept < 60 {
		t.Errorf("communicators: %d bytes in all, %d kept of 100 bytes each, other %+v; want 7000 bytes, the rest under other", total, kept, other)
	}
	warned := false
	for _, w := range p.Meta.Unmeasured {
		warned = warned || strings.Contains(w, "more than 63 kinds of communicator")
	}
	if !warned {
		t.Errorf("meta.json's unmeasured does not say communicators went past the limit: %q", p.Meta.Unmeasured)
	}
}
