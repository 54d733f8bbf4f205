package plots

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
)

// realProfile is the real 6-rank profile of testdata/profile (splitcoll
// with --slt --collective-wait, see testdata/README.md).
func realProfile(t *testing.T) *profile.Profile {
	t.Helper()
	p, err := profile.ReadProfile(filepath.Join(testutil.RepoRoot(t), "testdata", "profile", "splitcoll-slt-cw"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestProfileGolden(t *testing.T) {
	p := realProfile(t)
	for _, style := range ProfileStyles() {
		t.Run(style, func(t *testing.T) {
			b, err := RenderProfile(p, "png", ProfileOptions{Style: style, Name: "splitcoll-slt-cw/", Width: 6 * vg.Inch, Height: 4.5 * vg.Inch})
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "profile_"+style, b)
		})
	}
}

// TestRankTimes: the stacked parts of the ranks picture are ranks.csv's
// computation and functions.csv's time, send-late and sync per rank.
func TestRankTimes(t *testing.T) {
	p := &profile.Profile{Ranks: make([]profile.Rank, 2), Functions: []profile.Function{
		{Rank: 0, Function: "MPI_Send", Time: 1, Late: 0},
		{Rank: 0, Function: "MPI_Recv", Time: 2, Late: 0.5},
		{Rank: 1, Function: "MPI_Allreduce", Time: 0.25, Sync: 4},
	}}
	p.Ranks[0].Comput, p.Ranks[1].Comput = 10, 20
	comput, mpi, late, sync := RankTimes(p)
	want := [4][]float64{{10, 20}, {3, 0.25}, {0.5, 0}, {0, 4}}
	for i, got := range [4][]float64{comput, mpi, late, sync} {
		if fmt.Sprint(got) != fmt.Sprint(want[i]) {
			t.Errorf("part %d: %v, want %v", i, got, want[i])
		}
	}
}

// halo3D is the profile of a periodic 3-D halo exchange on an x*y*z grid
// of ranks: every rank sends 1 KiB to each of its six neighbours.
func halo3D(x, y, z int) *profile.Profile {
	n := x * y * z
	p := &profile.Profile{Ranks: make([]profile.Rank, n)}
	for r := 0; r < n; r++ {
		p.Ranks[r].Rank.Rank, p.Ranks[r].Host = r, fmt.Sprintf("node%d", r/16)
		i, j, k := r%x, r/x%y, r/(x*y)
		for _, d := range [][3]int{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}} {
			q := (i+d[0]+x)%x + (j+d[1]+y)%y*x + (k+d[2]+z)%z*x*y
			p.Matrix = append(p.Matrix, profile.Transfer{Src: r, Dst: q, Bytes: 1024, Messages: 1})
		}
	}
	return p
}

// TestMatrixShowsHaloBands: the matrix picture of a 4x4x4 halo has traffic
// exactly on the six neighbour bands (offsets +-1, +-4, +-16, wrapped),
// and those cells are coloured while the rest are background.
func TestMatrixShowsHaloBands(t *testing.T) {
	p := halo3D(4, 4, 4)
	g, unit, err := MatrixGrid(p, "bytes", "")
	if err != nil || unit != "bytes" {
		t.Fatal(err, unit)
	}
	neighbour := func(a, b int) bool {
		for _, d := range [][3]int{{1, 0, 0}, {3, 0, 0}, {0, 1, 0}, {0, 3, 0}, {0, 0, 1}, {0, 0, 3}} {
			if (a%4+d[0])%4 == b%4 && (a/4%4+d[1])%4 == b/4%4 && (a/16+d[2])%4 == b/16 {
				return true
			}
		}
		return false
	}
	for a := 0; a < 64; a++ {
		for b := 0; b < 64; b++ {
			v := g.v[a*g.n+b]
			if neighbour(a, b) != (v == v) {
				t.Fatalf("cell (%d, %d) = %v, neighbours %v", a, b, v, neighbour(a, b))
			}
			if v == v && math.Abs(float64(v)-math.Log10(1024)) > 1e-6 {
				t.Fatalf("cell (%d, %d) = %v, want log10(1024)", a, b, v)
			}
		}
	}
	// In the picture, a band cell and an empty cell differ in colour.
	b, err := RenderProfile(p, "png", ProfileOptions{Style: StyleMatrix, Width: 6 * vg.Inch, Height: 5 * vg.Inch})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if n := testutil.Colours(img, 3); n < 3 {
		t.Errorf("the matrix picture has %d colours", n)
	}
	if hb := profileHosts(p); fmt.Sprint(hb.bounds) != "[16 32 48]" || hb.grouped {
		t.Errorf("host boundaries %v (reordered %v), want [16 32 48] (16 ranks a node) in rank order", hb.bounds, hb.grouped)
	}
}

// TestCyclicGroupedByHost: with ranks dealt to hosts in turn, the pictures
// draw them grouped by host (then rank), with one boundary per host
// change, and the matrix's cells follow: rank 1 -> rank 3 (both on b)
// lands inside b's block.
func TestCyclicGroupedByHost(t *testing.T) {
	p := &profile.Profile{Ranks: make([]profile.Rank, 4)}
	for i, h := range []string{"a", "b", "a", "b"} {
		p.Ranks[i].Rank = survey.Rank{Rank: i, Host: h}
	}
	p.Matrix = []profile.Transfer{{Src: 1, Dst: 3, Bytes: 100, Messages: 1}, {Src: 0, Dst: 1, Bytes: 10, Messages: 1}}
	hb := profileHosts(p)
	if fmt.Sprint(hb.order, hb.bounds, hb.names, hb.grouped) != "[0 2 1 3] [2] [a b] true" {
		t.Errorf("order %v, bounds %v, hosts %v, grouped %v; want [0 2 1 3] [2] [a b] true", hb.order, hb.bounds, hb.names, hb.grouped)
	}
	g, _, err := MatrixGrid(p, "bytes", "")
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range g.v {
		want := float32(math.NaN())
		switch i {
		case 2*4 + 3: // rank 1 at position 2, rank 3 at 3
			want = 2
		case 0*4 + 2: // rank 0 at 0, rank 1 at 2
			want = 1
		}
		if !(v == want || v != v && want != want) {
			t.Errorf("cell %d = %v, want %v", i, v, want)
		}
	}
	for _, style := range []string{StyleRanks, StyleMatrix} {
		if _, err := RenderProfile(p, "png", ProfileOptions{Style: style}); err != nil {
			t.Errorf("%s: %v", style, err)
		}
	}
}

// TestMatrixByCommunicator: testdata/profile/commgrid (a real run of
// testdata/mpi/commgrid.c, 8 ranks as a 4 x 2 grid) drawn per
// communicator: "rows" has traffic exactly from each rank to its row
// partner (r^1), "cols" exactly to the next in its column (r+2 mod 8), by
// name or by key; an unknown name is an error that lists the known ones.
func TestMatrixByCommunicator(t *testing.T) {
	p, err := profile.ReadProfile("../testdata/profile/commgrid")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		comm string
		peer func(r int) int
	}{
		{"rows", func(r int) int { return r ^ 1 }},
		{"w.1", func(r int) int { return r ^ 1 }},
		{"cols", func(r int) int { return (r + 2) % 8 }},
	} {
		g, _, err := MatrixGrid(p, "bytes", c.comm)
		if err != nil {
			t.Fatal(err)
		}
		for a := 0; a < 8; a++ {
			for b := 0; b < 8; b++ {
				if v := g.v[a*g.n+b]; (v == v) != (b == c.peer(a)) {
					t.Errorf("%s: cell (%d, %d) = %v", c.comm, a, b, v)
				}
			}
		}
	}
	if _, _, err := MatrixGrid(p, "bytes", "nosuch"); err == nil || !strings.Contains(err.Error(), "cols") {
		t.Errorf("unknown communicator: %v, want an error listing cols", err)
	}
	if _, err := RenderProfile(p, "png", ProfileOptions{Style: StyleMatrix, Comm: "cols"}); err != nil {
		t.Error(err)
	}
}
