package bench

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latmap/latmap/bench/fit"
	"github.com/latmap/latmap/bench/schedule"
	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/survey"
)

// BenchmarkScopeSchedule16k is make bench-scope: the survey's own schedule
// and gather for 16,384 ranks (256 nodes x 64) without MPI, ranks as
// goroutines of the fake world the tests use, with scope nodes. It prints
//   - the wall time of the whole fake survey (2 round trips a pair, no
//     isolation sample: the fake world's barrier wakes every goroutine);
//   - what rank 0 holds: the gathered reports and the heap growth while
//     assembling them and writing the survey directory;
//   - the modelled duration of a real survey with the default options
//     (100 round trips a pair in passes of 10, 10 warm-up) on a network of
//     1 us round trips inside a node and 2 us between nodes, barriers of
//     log2(N) 2 us steps, for scopes nodes, sample:4 and all.
func BenchmarkScopeSchedule16k(b *testing.B) {
	const n, perNode = 16384, 64
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		opt := DefaultOptions(filepath.Join(dir, "s"))
		opt.Scope, opt.Repeats, opt.Burst, opt.Warmup = survey.ScopeNodes, 2, 2, 0
		opt.IsolatedFraction, opt.NodeBandwidth = 0, NodeBWOff
		host := func(r int) string { return fmt.Sprintf("n%04d", r/perNode) }
		rtt := func(a, b, size int) float64 {
			if a/perNode == b/perNode {
				return 1
			}
			return 2
		}
		w := newFakeWorld(n, rtt)
		w.host = host
		start := time.Now()
		errs, _ := runFakeWorld(b, w, opt)
		wall := time.Since(start)
		noRankErrors(b, errs)
		pairs := 0
		s, err := survey.ReadSurvey(opt.Out, survey.LoadOptions{Metrics: []survey.Metric{survey.Median}})
		if err != nil {
			b.Fatal(err)
		}
		s.Tables[0].Each(func(int, int, int) { pairs++ })
		fi, _ := os.Stat(filepath.Join(opt.Out, survey.PairsFile))
		var gathered int
		for _, g := range w.gathered {
			gathered += len(g)
		}
		l := w.layout()
		reports := w.gathered
		// Only the reports stay: the fake world's millions of channels
		// would otherwise let the heap hold gigabytes of garbage before a
		// collection.
		w, s = nil, nil
		heap := assemblyHeap(b, reports, opt, n)
		fmt.Printf("fake survey, %d ranks (%d nodes x %d), scope nodes: %d pairs measured (all: %d), %d rounds; wall %.1f s (2 round trips a pair, no isolation sample)\n",
			n, n/perNode, perNode, pairs, survey.TriLen(n), newScopePlan(l, 0, 0).Rounds(), wall.Seconds())
		fmt.Printf("  rank 0: gathered reports %.1f MiB; assembling and writing the survey grew the heap by %.1f MiB at most; pairs.csv %.1f MiB\n",
			float64(gathered)/(1<<20), float64(heap)/(1<<20), float64(fi.Size())/(1<<20))
		def := DefaultOptions("")
		for _, sc := range []struct {
			name string
			k    int
		}{{"nodes", 0}, {"sample:4", 4}, {"all", -1}} {
			d, rounds, np := modelledDuration(l, sc.k, def)
			fmt.Printf("  modelled survey with default options, scope %-8s: %8.3f s (%d rounds, %d pairs)\n", sc.name, d, rounds, np)
		}
		// What a reader of this survey meets today: latmap topo fills
		// every cross-node pair from the leaders into a dense triangle.
		if secs, _, rss, ok := testutil.TimeBinary(b, "topo", opt.Out); ok {
			fmt.Printf("  latmap topo of this survey (fills %d pairs): %.1f s, max RSS %.0f MiB\n", survey.TriLen(n)-pairs, secs, rss)
		}
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(float64(heap)/(1<<20), "rank0-heap-MiB")
	}
}

// layout is the fake world's node layout.
func (w *fakeWorld) layout() nodeLayout {
	names := make([]string, w.n)
	for r := range names {
		names[r] = fmt.Sprintf("node%d", r/2)
		if w.host != nil {
			names[r] = w.host(r)
		}
	}
	return newNodeLayout(names)
}

// assemblyHeap is the largest heap growth, sampled every millisecond, while
// rank 0 assembles the gathered reports and writes the survey.
func assemblyHeap(b *testing.B, gathered [][]byte, opt Options, n int) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > base && m.HeapAlloc-base > peak.Load() {
				peak.Store(m.HeapAlloc - base)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	s, _, _, err := assemble(gathered, opt, opt.Repeats, n, true)
	if err != nil {
		b.Fatal(err)
	}
	s.Meta = survey.SurveyMeta{Ranks: n, Sizes: opt.Sizes, Repeats: opt.Repeats, Schedule: string(opt.Schedule), Scope: opt.Scope}
	s.Fits = fit.Survey(s, fit.HostFactors(s))
	opt.Out, opt.Force = filepath.Join(b.TempDir(), "again"), true
	if err := survey.WriteSurvey(opt.Out, s, true); err != nil {
		b.Fatal(err)
	}
	close(done)
	return peak.Load()
}

// modelledDuration models a rounds-schedule survey of layout l with scope
// nodes (k = 0), sample:k (k > 0) or all (k < 0): every round lasts its
// slowest pair's round trips (1 us inside a node, 2 us between nodes)
// plus a barrier of log2(N) steps of 2 us; a pass meets each pair for
// Burst timed round trips and one untimed, and warm-up is one more pass
// of Warmup round trips.
func modelledDuration(l nodeLayout, k int, opt Options) (secs float64, rounds, pairs int) {
	n := len(l.host)
	barrier := math.Ceil(math.Log2(float64(n))) * 2e-6
	passes := (opt.Repeats + opt.Burst - 1) / opt.Burst
	perMeet := float64(opt.Warmup + passes*(opt.Burst+1))
	if k < 0 {
		// Every round of the circle method has a cross-node pair.
		rounds = schedule.CirclePlan{N: n}.Rounds()
		return float64(rounds) * (perMeet*2e-6 + float64(passes+1)*barrier), rounds, survey.TriLen(n)
	}
	p := newScopePlan(l, k, 0)
	rounds = p.Rounds()
	secs = float64(p.intra)*perMeet*1e-6 + float64(rounds-p.intra)*perMeet*2e-6 + float64(rounds*(passes+1))*barrier
	return secs, rounds, p.NumPairs()
}
