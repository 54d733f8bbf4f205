package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/mapper/survey"
)

// write makes a 3-rank journal in dir: rank 0 measures with 1 and 2,
// rank 1 with 2, rank 2 with none; passes of 2 round trips at sizes 8
// and 64 (rank 0 and 1: passes passes at 8 bytes, then one at 64 on
// rank 0 only). Round trip j of pair (a, b) at size index si is
// 100 si + 10 a + b + j/10.
func write(t *testing.T, dir string, passes int) {
	t.Helper()
	peers := [][]int{{1, 2}, {2}, {}}
	for r := 0; r < 3; r++ {
		w, err := Create(dir, Header{Rank: r, Ranks: 3, Facts: survey.Rank{Rank: r, Host: "n" + string(rune('0'+r))}, Sizes: []int{8, 64}, Repeats: 10, Peers: peers[r], Scope: survey.ScopeAll})
		if err != nil {
			t.Fatal(err)
		}
		// rt[si][i] are peer i's round trips at size index si.
		rt := [2][][]float64{make([][]float64, len(peers[r])), make([][]float64, len(peers[r]))}
		pass := func(si, at int) {
			for i, b := range peers[r] {
				rt[si][i] = append(rt[si][i], float64(100*si+10*r+b)+float64(at)/10, float64(100*si+10*r+b)+float64(at+1)/10)
			}
			if err := w.Add(si, at+2, true, func(i int) []float64 { return rt[si][i] }); err != nil {
				t.Fatal(err)
			}
		}
		for p := 0; p < passes; p++ {
			pass(0, 2*p)
		}
		if r == 0 {
			pass(1, 0)
		}
		w.Close()
	}
}

// TestReadAndRecover: the journals read back as written; the sizes kept
// are those every rank has a pass of (64 bytes: rank 1 has none), each
// pair cut to the round trips every pair has; a record cut short by the
// kill is dropped (rank 1's third pass), and with it every pair's third
// pass; a missing rank or a file that is not a journal is refused with
// its name.
func TestReadAndRecover(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, 3)
	ranks, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := ranks[0].Samples[0][1]; len(got) != 6 || got[5] != 2+0.5 {
		t.Fatalf("rank 0's round trips with rank 2 at 8 bytes: %v", got)
	}
	if ranks[0].Measured(1) != 2 || ranks[1].Measured(1) != 0 || ranks[2].Measured(0) != -1 {
		t.Fatalf("measured at 64 bytes: %d %d, rank 2 %d", ranks[0].Measured(1), ranks[1].Measured(1), ranks[2].Measured(0))
	}
	s, err := Recover(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tables) != 1 || s.Tables[0].SamplesAt(1, 2) != 6 || s.Tables[0].At(survey.Median, 0, 2) != float64(float32(2.25)) || s.Ranks[1].Host != "n1" {
		t.Fatalf("recovered sizes %v, pair (1,2) %d round trips, (0,2) median %v", s.Sizes(), s.Tables[0].SamplesAt(1, 2), s.Tables[0].At(survey.Median, 0, 2))
	}
	if !strings.Contains(s.Meta.Stopped, "6 round trips a pair at 8 bytes; sizes [64] not measured") {
		t.Errorf("stopped %q", s.Meta.Stopped)
	}
	// Rank 1's last record cut 3 bytes short.
	p := path(dir, 1)
	st, _ := os.Stat(p)
	if err := os.Truncate(p, st.Size()-3); err != nil {
		t.Fatal(err)
	}
	if s, err = Recover(dir); err != nil || s.Tables[0].SamplesAt(0, 1) != 4 {
		t.Fatalf("with a record cut short: %v, pair (0,1) %d round trips, want 4", err, s.Tables[0].SamplesAt(0, 1))
	}
	os.Remove(path(dir, 2))
	if _, err := Recover(dir); err == nil || !strings.Contains(err.Error(), "rank-000002") {
		t.Errorf("a missing rank: %v", err)
	}
	os.WriteFile(path(dir, 2), []byte("pairs.csv\n"), 0o644)
	if _, err := Recover(dir); err == nil || !strings.Contains(err.Error(), "not a latmap survey journal") {
		t.Errorf("not a journal: %v", err)
	}
	empty := t.TempDir()
	write(t, empty, 0)
	if _, err := Recover(empty); err == nil || !strings.Contains(err.Error(), "no pass over the pairs at 8 bytes") {
		t.Errorf("no pass: %v", err)
	}
	if Dir("/x/s/") != filepath.Clean("/x/s.journal") {
		t.Errorf("Dir %q", Dir("/x/s/"))
	}
}

// TestAddWritesAtMostEvery: round trips added within Every of the last
// write wait for the next one (or a flush), which writes them all in one
// record; nothing is written twice.
func TestAddWritesAtMostEvery(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, Header{Rank: 0, Ranks: 2, Sizes: []int{8}, Repeats: 100, Peers: []int{1}, Scope: survey.ScopeAll})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rt := make([]float64, 0, 100)
	size := func() int64 { st, _ := os.Stat(path(dir, 0)); return st.Size() }
	head := size()
	add := func(n int, flush bool) {
		for i := 0; i < n; i++ {
			rt = append(rt, float64(len(rt)))
		}
		if err := w.Add(0, len(rt), flush, func(int) []float64 { return rt }); err != nil {
			t.Fatal(err)
		}
	}
	add(10, false)
	add(10, false)
	if size() != head {
		t.Fatalf("written within Every of the start: %d bytes", size()-head)
	}
	add(5, true)
	if got := size() - head; got != recordHead+8*25 {
		t.Fatalf("the flush wrote %d bytes, want one record of 25 round trips (%d)", got, recordHead+8*25)
	}
	add(0, true)
	time.Sleep(Every)
	add(3, false)
	if got := size() - head; got != 2*recordHead+8*28 {
		t.Fatalf("after Every: %d bytes, want a second record of 3", got)
	}
	ranks, err := readRank(path(dir, 0))
	if err != nil || len(ranks.Samples[0][0]) != 28 || ranks.Samples[0][0][27] != 27 {
		t.Fatalf("read back: %v %v", err, ranks.Samples)
	}
}

// BenchmarkAdd prints what the journal costs a round trip: a rank of 63
// peers adding passes of 10 round trips each, flushed every pass (the
// most it ever writes), in ns per round trip kept.
func BenchmarkAdd(b *testing.B) {
	const peers, burst = 63, 10
	h := Header{Rank: 0, Ranks: peers + 1, Sizes: []int{8}, Repeats: 1 << 30, Scope: survey.ScopeAll}
	for i := 1; i <= peers; i++ {
		h.Peers = append(h.Peers, i)
	}
	w, err := Create(b.TempDir(), h)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	rt := make([][]float64, peers)
	for i := range rt {
		rt[i] = make([]float64, b.N*burst)
	}
	b.ResetTimer()
	upto := 0
	for n := 0; n < b.N; n++ {
		upto += burst
		if err := w.Add(0, upto, true, func(i int) []float64 { return rt[i] }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(upto*peers), "ns/round-trip")
}
