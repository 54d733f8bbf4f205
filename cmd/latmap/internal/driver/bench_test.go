package driver

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
	"github.com/latmap/latmap/plots"
)

// benchDir holds the benchmarks' survey; TestMain removes it.
var benchDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchSurvey writes a synthetic 4096-rank survey directory (64 nodes x 2
// sockets x 32 cores, 16 nodes a switch; 8.4 million pairs, a 400 MB
// pairs.csv) once per process.
var benchSurvey = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "latmap-bench-4096-")
	if err != nil {
		return "", err
	}
	benchDir = dir
	s := synth.New(synth.Spec{Nodes: 64, Sockets: 2, Cores: 32, NodesPerSwitch: 16,
		RTT: [4]float64{0.5, 0.9, 3, 5}, Noise: 0.08, Seed: 42})
	out := filepath.Join(dir, "survey")
	return out, survey.WriteSurvey(out, s, false)
})

// peakHeap samples the live heap every 10 ms while fn runs.
func peakHeap(fn func() error) (uint64, error) {
	runtime.GC()
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	err := fn()
	close(done)
	wg.Wait()
	return peak, err
}

// BenchmarkPlot4096 reads a 4096-rank survey directory and draws its heat
// map (the latmap plot target: < 5 s and < 1 GiB). It reports the
// in-process time and peak heap, and the built binary's wall time and max
// RSS.
func BenchmarkPlot4096(b *testing.B) {
	dir, err := benchSurvey()
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(b.TempDir(), "plot.png")
	var peak uint64
	start := time.Now()
	for b.Loop() {
		p, err := peakHeap(func() error {
			return Plot(PlotRequest{Input: dir, Output: out, Size: -1, Order: "rank", Style: plots.StyleHeatmap, Force: true})
		})
		if err != nil {
			b.Fatal(err)
		}
		peak = max(peak, p)
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/plot")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	if secs, cpu, rss, ok := testutil.TimeBinary(b, "plot", dir, "-o", out, "-f"); ok {
		b.ReportMetric(secs, "bin-s")
		b.ReportMetric(cpu, "bin-cpu-s")
		b.ReportMetric(rss, "bin-maxrss-MiB")
	}
}

// BenchmarkTopo4096 reads a 4096-rank survey and infers its topology (the
// latmap topo target: < 5 s).
func BenchmarkTopo4096(b *testing.B) {
	dir, err := benchSurvey()
	if err != nil {
		b.Fatal(err)
	}
	var peak uint64
	start := time.Now()
	for b.Loop() {
		p, err := peakHeap(func() error {
			return Topo(TopoRequest{Input: dir, Size: -1, Out: &bytes.Buffer{}})
		})
		if err != nil {
			b.Fatal(err)
		}
		peak = max(peak, p)
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/topo")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	if secs, cpu, rss, ok := testutil.TimeBinary(b, "topo", dir); ok {
		b.ReportMetric(secs, "bin-s")
		b.ReportMetric(cpu, "bin-cpu-s")
		b.ReportMetric(rss, "bin-maxrss-MiB")
	}
}
