package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/internal/testutil"
)

// BenchmarkScaleOrders is make bench-scale's table (docs/survey.md): it
// writes surveys of 4,096 to 64,000 ranks with its own generator
// (scaleSpec) in several row orders and densities, and 3-D stencil
// matrices, and prints the wall time and max RSS of bin/latmap topo,
// plot, compare, report --html and place on each, as a user runs them,
// with scotch_gmap mapping the same stencil onto the same machine (a
// tleaf of nodes x 2 sockets x cores) in the same run and both mappings'
// summed transfer cost (bytes x distance, Scotch's own figure) computed
// here. Targets (issue 19): topo, plot, compare and report of 16,384 ranks
// under 5 s and 1 GiB; place faster than scotch_gmap from 4,096 ranks at a
// cost at or below its; place of 64,000 ranks under 10 s and 2 GiB.
// LATMAP_SCALE_MAX=RANKS leaves out the larger surveys (a quick look).
func BenchmarkScaleOrders(b *testing.B) {
	gmap, _ := exec.LookPath("scotch_gmap")
	dir := b.TempDir()
	type job struct {
		spec    scaleSpec
		cmds    []string // topo plot compare report place
		stencil [3]int   // place's stencil (x, y, z), zero for none
	}
	all := []string{"topo", "plot", "compare", "report", "place"}
	jobs := []job{
		{scaleSpec{nodes: 64, per: 64, density: "nodes", scope: "nodes", order: "leaders-first", seed: 1}, all, [3]int{16, 16, 16}},
		{scaleSpec{nodes: 64, per: 64, density: "nodes", scope: "", order: "shuffled", seed: 1}, []string{"place"}, [3]int{16, 16, 16}},
		{scaleSpec{nodes: 64, per: 64, density: "all", scope: "all", order: "sorted", seed: 1}, []string{"place"}, [3]int{16, 16, 16}},
		{scaleSpec{nodes: 64, per: 64, density: "all", scope: "all", order: "shuffled", seed: 1}, []string{"topo", "place"}, [3]int{16, 16, 16}},
		{scaleSpec{nodes: 256, per: 64, density: "nodes", scope: "nodes", order: "sorted", seed: 2}, all, [3]int{32, 32, 16}},
		{scaleSpec{nodes: 256, per: 64, density: "nodes", scope: "nodes", order: "leaders-first", seed: 2}, all, [3]int{32, 32, 16}},
		{scaleSpec{nodes: 256, per: 64, density: "nodes", scope: "", order: "shuffled", seed: 2}, all, [3]int{32, 32, 16}},
		{scaleSpec{nodes: 1000, per: 64, density: "nodes", scope: "nodes", order: "leaders-first", seed: 3}, []string{"topo", "place"}, [3]int{40, 40, 40}},
		{scaleSpec{nodes: 1000, per: 64, density: "nodes", scope: "", order: "reversed", seed: 3}, []string{"topo", "place"}, [3]int{40, 40, 40}},
		{scaleSpec{nodes: 1000, per: 64, density: "random:3000", scope: "", order: "shuffled", seed: 4}, []string{"topo", "place"}, [3]int{40, 40, 40}},
	}
	for b.Loop() {
		fmt.Printf("\n%-44s %-8s %8s %9s  %s\n", "survey (nodes x ranks, density, scope, order)", "command", "wall s", "RSS MiB", "note")
		for i, j := range jobs {
			if most, err := strconv.Atoi(os.Getenv("LATMAP_SCALE_MAX")); err == nil && j.spec.nodes*j.spec.per > most {
				continue
			}
			sv := filepath.Join(dir, fmt.Sprintf("s%d", i))
			t0 := time.Now()
			if err := j.spec.write(sv); err != nil {
				b.Fatal(err)
			}
			gen := time.Since(t0).Seconds()
			// compare's second survey: the same machine, rows shuffled.
			other := j.spec
			other.order, other.seed = "shuffled", j.spec.seed+100
			if slices.Contains(j.cmds, "compare") {
				if err := other.write(sv + "-b"); err != nil {
					b.Fatal(err)
				}
			}
			n := j.spec.nodes * j.spec.per
			mx := filepath.Join(dir, fmt.Sprintf("stencil-%d.csv", n))
			if _, err := os.Stat(mx); err != nil {
				if err := writeStencil(mx, j.stencil[0], j.stencil[1], j.stencil[2]); err != nil {
					b.Fatal(err)
				}
			}
			for _, c := range j.cmds {
				args := scaleArgs(c, sv, mx, dir)
				// place and scotch_gmap take turns, five times each up to
				// 16,384 ranks (medians), once above.
				reps := 1
				if c == "place" && n <= 16384 {
					reps = 5
				}
				var walls, gmaps []float64
				var rss float64
				var msg string
				var err error
				if c == "place" && gmap != "" {
					writeScotchInputs(b, j.spec, j.stencil, dir)
				}
				for r := 0; r < reps && err == nil; r++ {
					var secs float64
					secs, _, rss, msg, err = testutil.TimeCommand(b, args...)
					walls = append(walls, secs)
					if errors.Is(err, testutil.ErrNoBinary) {
						testutil.Missing(b, "mpi", "%v", err)
					}
					if c == "place" && err == nil && gmap != "" {
						gmaps = append(gmaps, runScotch(b, gmap, dir))
					}
				}
				secs := stats.Median(walls)
				note := ""
				if err != nil {
					// A clear error is an answer: print its first line.
					note, _, _ = strings.Cut(strings.TrimSpace(msg), "\n")
					note = "error: " + note
				} else if c == "place" {
					note = placeVsScotch(j.spec, j.stencil, filepath.Join(dir, "out.rankfile"), dir, gmaps)
				}
				if gen > 0 {
					note = fmt.Sprintf("(generated in %.1f s) %s", gen, note)
					gen = 0
				}
				fmt.Printf("%-44s %-8s %8.2f %9.0f  %s\n", j.spec.name(), c, secs, rss, note)
				b.ReportMetric(secs, fmt.Sprintf("%s-%d-s", c, i))
			}
			os.RemoveAll(sv)
			os.RemoveAll(sv + "-b")
		}
	}
}

// scaleArgs is the command line of one benchmarked command.
func scaleArgs(cmd, sv, mx, dir string) []string {
	switch cmd {
	case "topo":
		return []string{"topo", sv}
	case "plot":
		return []string{"plot", sv, "-o", filepath.Join(dir, "p.png"), "--force"}
	case "compare":
		return []string{"compare", sv, sv + "-b"}
	case "report":
		return []string{"report", "--html", "-o", filepath.Join(dir, "r.html"), "--force", sv}
	case "place":
		return []string{"place", "--survey", sv, "--matrix", mx, "-o", filepath.Join(dir, "out.rankfile"), "--force", "--always-write"}
	}
	panic(cmd)
}

// writeScotchInputs writes scotch_gmap's inputs into dir: the stencil's
// graph (g.grf) and a tleaf of the spec's machine (t.tgt).
func writeScotchInputs(b *testing.B, c scaleSpec, st [3]int, dir string) {
	if err := writeStencilGraph(filepath.Join(dir, "g.grf"), st); err != nil {
		b.Fatal(err)
	}
	// Link costs in proportion to the survey's round trips: 5 us between
	// nodes, 0.9 between sockets, 0.5 inside one.
	if err := os.WriteFile(filepath.Join(dir, "t.tgt"), []byte(fmt.Sprintf("tleaf 3 %d 50 2 9 %d 5\n", c.nodes, c.per/2)), 0o644); err != nil {
		b.Fatal(err)
	}
}

// runScotch runs scotch_gmap on writeScotchInputs' files in dir (writing
// g.map there) and returns its wall time.
func runScotch(b *testing.B, gmap, dir string) float64 {
	t0 := time.Now()
	if out, err := exec.Command(gmap, filepath.Join(dir, "g.grf"), filepath.Join(dir, "t.tgt"), filepath.Join(dir, "g.map")).CombinedOutput(); err != nil {
		b.Fatalf("%s: %v\n%s", gmap, err, out)
	}
	return time.Since(t0).Seconds()
}

// placeVsScotch prints both mappings' summed transfer cost and
// scotch_gmap's median time (gmaps, empty when it is not installed).
func placeVsScotch(c scaleSpec, st [3]int, rankfile, dir string, gmaps []float64) string {
	n := c.nodes * c.per
	node, sock, err := readRankfileHosts(rankfile, n, c.per)
	if err != nil {
		return "rankfile: " + err.Error()
	}
	latCost := stencilCost(st, node, sock)
	if len(gmaps) == 0 {
		return fmt.Sprintf("cost %.4g; scotch_gmap not installed (apt-get install scotch)", latCost)
	}
	term, err := testutil.ReadScotchMapping(filepath.Join(dir, "g.map"), n)
	if err != nil {
		return "scotch mapping: " + err.Error()
	}
	sn, ss := make([]int, n), make([]int, n)
	for r, p := range term {
		sn[r], ss[r] = p/c.per, (p%c.per)/(c.per/2)
	}
	return fmt.Sprintf("cost %.4g; scotch_gmap %.2f s, cost %.4g (latmap/scotch cost %.4f; medians of %d)", latCost, stats.Median(gmaps), stencilCost(st, sn, ss), latCost/stencilCost(st, sn, ss), len(gmaps))
}

// stencilDist is the distance Scotch's tleaf target gives two ranks.
func stencilDist(node, sock []int, a, b int) float64 {
	switch {
	case node[a] != node[b]:
		return 50
	case sock[a] != sock[b]:
		return 9
	}
	return 5
}

// stencilEdges calls fn for each undirected edge of the 7-point stencil
// (rank = i + x*(j + y*k)).
func stencilEdges(st [3]int, fn func(a, b int)) {
	x, y, z := st[0], st[1], st[2]
	id := func(i, j, k int) int { return i + x*(j+y*k) }
	for k := 0; k < z; k++ {
		for j := 0; j < y; j++ {
			for i := 0; i < x; i++ {
				if i+1 < x {
					fn(id(i, j, k), id(i+1, j, k))
				}
				if j+1 < y {
					fn(id(i, j, k), id(i, j+1, k))
				}
				if k+1 < z {
					fn(id(i, j, k), id(i, j, k+1))
				}
			}
		}
	}
}

// stencilCost is the summed transfer cost of a mapping: every edge's bytes
// (1 MiB each way, writeStencil's) times its distance, in MiB.
func stencilCost(st [3]int, node, sock []int) float64 {
	total := 0.0
	stencilEdges(st, func(a, b int) { total += 2 * stencilDist(node, sock, a, b) })
	return total
}

// writeStencilGraph writes the stencil as a Scotch source graph (unweighted:
// every edge carries the same bytes).
func writeStencilGraph(path string, st [3]int) error {
	n := st[0] * st[1] * st[2]
	adj := make([][]int, n)
	arcs := 0
	stencilEdges(st, func(a, b int) {
		adj[a], adj[b] = append(adj[a], b), append(adj[b], a)
		arcs += 2
	})
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, "0\n%d %d\n0 000\n", n, arcs)
	for _, nb := range adj {
		w.WriteString(strconv.Itoa(len(nb)))
		for _, v := range nb {
			w.WriteString(" " + strconv.Itoa(v))
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readRankfileHosts reads an Open MPI rankfile ("rank R=HOST slot=CPU") of
// the generator's machine: node from the host name (hostNNNN), socket
// from the cpu (the first half of a node's cpus is socket 0).
func readRankfileHosts(path string, n, per int) (node, sock []int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	node, sock = make([]int, n), make([]int, n)
	seen := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r, h, cpu int
		if _, err := fmt.Sscanf(sc.Text(), "rank %d=host%d slot=%d", &r, &h, &cpu); err != nil {
			continue
		}
		if r < 0 || r >= n {
			return nil, nil, fmt.Errorf("rank %d of %d", r, n)
		}
		node[r], sock[r] = h, cpu/(per/2)
		seen++
	}
	if seen != n {
		return nil, nil, fmt.Errorf("%d of %d ranks placed", seen, n)
	}
	return node, sock, sc.Err()
}
