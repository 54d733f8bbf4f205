package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

// Benchmark100kNodesScope is make bench-scale: a synthetic survey of
// scope nodes of 100,032 ranks (1,563 nodes x 2 sockets x 32 cores, 32
// nodes a switch; 64 B round trips 0.5 / 0.9 / 3 / 5 us), written to disk
// as latmap survey writes it, and a 40 x 50 x 50 3-D stencil's matrix
// (100,000 ranks); it prints the wall time and max RSS of bin/latmap topo,
// plot, place and report --html on them, as a user runs them (targets:
// each under 60 s and 4 GiB).
func Benchmark100kNodesScope(b *testing.B) {
	dir := b.TempDir()
	sv, mx := filepath.Join(dir, "survey"), filepath.Join(dir, "stencil.csv")
	t0 := time.Now()
	s := synth.New(synth.Spec{Nodes: 1563, Sockets: 2, Cores: 32, NodesPerSwitch: 32,
		RTT: [4]float64{0.5, 0.9, 3, 5}, Noise: 0.05, Seed: 42, Scope: survey.ScopeNodes})
	if err := survey.WriteSurvey(sv, s, false); err != nil {
		b.Fatal(err)
	}
	pairs := s.Tables[0].Len()
	s = nil
	if err := writeStencil(mx, 40, 50, 50); err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(sv, survey.PairsFile))
	fmt.Printf("synthetic nodes-scope survey: 100032 ranks, %d pairs measured, pairs.csv %.0f MB; 40x50x50 stencil; made in %.1f s\n",
		pairs, float64(fi.Size())/1e6, time.Since(t0).Seconds())
	for b.Loop() {
		for _, c := range []struct {
			name string
			args []string
		}{
			{"topo", []string{"topo", sv}},
			{"plot", []string{"plot", sv, "-o", filepath.Join(dir, "nodes.png"), "--force"}},
			{"place", []string{"place", "--survey", sv, "--matrix", mx, "-o", filepath.Join(dir, "out.rankfile"), "--force", "--always-write"}},
			{"report", []string{"report", "--html", "-o", filepath.Join(dir, "report.html"), "--force", sv}},
		} {
			secs, cpu, rss, ok := testutil.TimeBinary(b, c.args...)
			if !ok {
				testutil.Missing(b, "mpi", "no bin/latmap (make build)")
			}
			fmt.Printf("  latmap %-6s: %6.1f s wall, %6.1f s cpu, %5.0f MiB max RSS (targets < 60 s, < 4096 MiB)\n", c.name, secs, cpu, rss)
			b.ReportMetric(secs, c.name+"-s")
			b.ReportMetric(rss, c.name+"-MiB")
		}
	}
}

// writeStencil writes the matrix of a 7-point 3-D stencil of x*y*z ranks
// (rank = i + x*(j + y*k), the edges of stencilEdges), 1 MiB and 100
// messages each way between neighbours.
func writeStencil(path string, x, y, z int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "src,dst,bytes,messages")
	stencilEdges([3]int{x, y, z}, func(a, b int) {
		fmt.Fprintf(w, "%d,%d,%d,%d\n%d,%d,%d,%d\n", a, b, 1<<20, 100, b, a, 1<<20, 100)
	})
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
