package model_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/placement/internal/shapes"
	"github.com/latmap/latmap/placement/model"
)

func TestNewTrafficSymmetrises(t *testing.T) {
	tr, err := model.NewTraffic(4, []profile.Flow{
		{Src: 0, Dst: 1, Bytes: 100, Messages: 1}, {Src: 1, Dst: 0, Bytes: 50, Messages: 2}, // both directions of one pair
		{Src: 0, Dst: 1, Bytes: 10, Messages: 1},  // duplicate row: added
		{Src: 2, Dst: 2, Bytes: 999, Messages: 9}, // self traffic: ignored
		{Src: 3, Dst: 2, Bytes: 7, Messages: 1},
		{Src: 1, Dst: 3, Bytes: 0, Messages: 0}, // nothing: dropped
	})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Pairs() != 2 || tr.SelfFlows != 1 {
		t.Fatalf("pairs %d self %d, want 2 and 1", tr.Pairs(), tr.SelfFlows)
	}
	// Rank 0's only neighbour is 1 with 160 bytes and 4 messages.
	if s, e := tr.Start[0], tr.Start[1]; e-s != 1 || tr.Adj[s] != 1 || tr.Bytes[s] != 160 || tr.Msgs[s] != 4 {
		t.Errorf("rank 0 row: %v %v %v", tr.Adj[s:e], tr.Bytes[s:e], tr.Msgs[s:e])
	}
	// Symmetric: rank 1 sees the same.
	if s := tr.Start[1]; tr.Adj[s] != 0 || tr.Bytes[s] != 160 || tr.Msgs[s] != 4 {
		t.Errorf("rank 1 row: %v %v %v", tr.Adj[s], tr.Bytes[s], tr.Msgs[s])
	}
	m, b := tr.Totals()
	if m != 5 || b != 167 {
		t.Errorf("totals %v messages %v bytes, want 5 and 167", m, b)
	}
}

// TestNewTrafficAgreesWithPairSums: on random flows (duplicates, both
// directions, self and empty flows, ranks without traffic) every row is
// ascending and holds each pair's sums, busier direction and sent share
// as a map of pairs adds them up in the order given.
func TestNewTrafficAgreesWithPairSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 50; trial++ {
		n := 1 + rng.IntN(40)
		var flows []profile.Flow
		for k := rng.IntN(200); k > 0; k-- {
			f := profile.Flow{Src: rng.IntN(n), Dst: rng.IntN(n), Bytes: float64(rng.IntN(5)) * 1.1, Messages: float64(rng.IntN(3)) * 0.7}
			flows = append(flows, f)
		}
		type sums struct{ m, b, mab, bab float64 }
		want := map[[2]int]*sums{}
		for _, f := range flows {
			if f.Src == f.Dst || f.Bytes == 0 && f.Messages == 0 {
				continue
			}
			k := [2]int{min(f.Src, f.Dst), max(f.Src, f.Dst)}
			if want[k] == nil {
				want[k] = &sums{}
			}
			s := want[k]
			s.m, s.b = s.m+f.Messages, s.b+f.Bytes
			if f.Src == k[0] {
				s.mab, s.bab = s.mab+f.Messages, s.bab+f.Bytes
			}
		}
		tr, err := model.NewTraffic(n, flows)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Pairs() != len(want) {
			t.Fatalf("trial %d: %d pairs, want %d", trial, tr.Pairs(), len(want))
		}
		for i := 0; i < n; i++ {
			for e := tr.Start[i]; e < tr.Start[i+1]; e++ {
				j := int(tr.Adj[e])
				if e > tr.Start[i] && tr.Adj[e-1] >= tr.Adj[e] {
					t.Fatalf("trial %d: row %d not ascending: %v", trial, i, tr.Adj[tr.Start[i]:tr.Start[i+1]])
				}
				s := want[[2]int{min(i, j), max(i, j)}]
				if s == nil {
					t.Fatalf("trial %d: pair %d-%d has no traffic", trial, i, j)
				}
				out := s.bab
				if i > j {
					out = s.b - s.bab
				}
				if tr.Msgs[e] != s.m || tr.Bytes[e] != s.b || tr.Out[e] != out ||
					tr.BusyMsgs[e] != math.Max(s.mab, s.m-s.mab) || tr.BusyBytes[e] != math.Max(s.bab, s.b-s.bab) {
					t.Fatalf("trial %d: pair %d-%d: %v %v %v %v %v, want %+v", trial, i, j,
						tr.Msgs[e], tr.Bytes[e], tr.Out[e], tr.BusyMsgs[e], tr.BusyBytes[e], *s)
				}
			}
		}
	}
}

func TestNewTrafficErrors(t *testing.T) {
	for _, c := range []struct {
		n    int
		f    profile.Flow
		want string
	}{
		{4, profile.Flow{Src: 0, Dst: 4, Bytes: 1, Messages: 1}, "outside 0..3"},
		{4, profile.Flow{Src: -1, Dst: 2, Bytes: 1, Messages: 1}, "outside 0..3"},
		{4, profile.Flow{Src: 0, Dst: 1, Bytes: -5, Messages: 1}, "negative"},
		{0, profile.Flow{Src: 0, Dst: 0, Bytes: 1, Messages: 1}, "no ranks"},
	} {
		if _, err := model.NewTraffic(c.n, []profile.Flow{c.f}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("model.NewTraffic(%d, %+v) = %v, want an error with %q", c.n, c.f, err, c.want)
		}
	}
}

func FuzzMatrixToTraffic(f *testing.F) {
	f.Add("src,dst,bytes,messages\n0,1,100,2\n1,0,100,2\n")
	f.Add("# c\nsrc,dst,bytes,messages,x\n3,3,1e9,0\n")
	f.Add("src,dst,bytes,messages\n0,1,-1,2\n")
	f.Fuzz(func(t *testing.T, in string) {
		flows, n, err := profile.ParseMatrix(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, fl := range flows {
			if fl.Src < 0 || fl.Dst < 0 || fl.Src >= n || fl.Dst >= n || fl.Bytes < 0 || fl.Messages < 0 || fl.Bytes != fl.Bytes || fl.Messages != fl.Messages {
				t.Fatalf("accepted bad flow %+v (n=%d)", fl, n)
			}
		}
		if n > 0 && n < 1<<16 {
			if _, err := model.NewTraffic(n, flows); err != nil {
				t.Fatalf("parsed matrix rejected by model.NewTraffic: %v", err)
			}
		}
	})
}

func BenchmarkParseMatrix(b *testing.B) {
	flows, _ := shapes.Halo3D(16, 16, 16, true)
	var sb strings.Builder
	sb.WriteString("src,dst,bytes,messages\n")
	for _, f := range flows {
		sb.WriteString(strings.Join([]string{itoa(f.Src), itoa(f.Dst), "819200", "100"}, ",") + "\n")
	}
	in := sb.String()
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := profile.ParseMatrix(strings.NewReader(in)); err != nil {
			b.Fatal(err)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
