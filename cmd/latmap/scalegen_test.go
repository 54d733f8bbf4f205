package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// scaleSpec is one survey the scale benchmark writes straight to disk, by
// its own code rather than latmap's writer: nodes x per ranks (two sockets
// a node), round trips 0.5 us inside a socket, 0.9 inside a node and 5
// between nodes, in the given row order and density.
type scaleSpec struct {
	nodes, per int
	// density: "all" (every pair), "nodes" (the pairs inside each node and
	// between node leaders), or "random:K" (K random pairs).
	density string
	// scope is meta.json's scope ("" writes none).
	scope string
	// order: "sorted" (by rank_a, rank_b), "leaders-first" (the leader
	// pairs, then each node's pairs), "reversed" or "shuffled".
	order string
	seed  uint64
}

func (c scaleSpec) name() string {
	scope := c.scope
	if scope == "" {
		scope = "none"
	}
	return fmt.Sprintf("%dx%d %s scope=%s %s", c.nodes, c.per, c.density, scope, c.order)
}

// pairs lists the spec's pairs (a < b) in its row order.
func (c scaleSpec) pairs() [][2]int32 {
	n := c.nodes * c.per
	var ps [][2]int32
	rng := rand.New(rand.NewPCG(c.seed, 7))
	switch {
	case c.density == "all":
		ps = make([][2]int32, 0, n*(n-1)/2)
		for a := 0; a < n; a++ {
			for b := a + 1; b < n; b++ {
				ps = append(ps, [2]int32{int32(a), int32(b)})
			}
		}
	case c.density == "nodes":
		for h := 0; h < c.nodes; h++ {
			for g := h + 1; g < c.nodes; g++ {
				ps = append(ps, [2]int32{int32(h * c.per), int32(g * c.per)})
			}
		}
		for h := 0; h < c.nodes; h++ {
			for a := h * c.per; a < (h+1)*c.per; a++ {
				for b := a + 1; b < (h+1)*c.per; b++ {
					ps = append(ps, [2]int32{int32(a), int32(b)})
				}
			}
		}
	case strings.HasPrefix(c.density, "random:"):
		k, _ := strconv.Atoi(strings.TrimPrefix(c.density, "random:"))
		seen := map[[2]int32]bool{}
		for len(ps) < k {
			a, b := int32(rng.IntN(n)), int32(rng.IntN(n))
			if a == b {
				continue
			}
			p := [2]int32{min(a, b), max(a, b)}
			if !seen[p] {
				seen[p] = true
				ps = append(ps, p)
			}
		}
	default:
		panic("density " + c.density)
	}
	switch c.order {
	case "sorted":
		slices.SortFunc(ps, func(x, y [2]int32) int {
			if x[0] != y[0] {
				return int(x[0] - y[0])
			}
			return int(x[1] - y[1])
		})
	case "reversed":
		slices.SortFunc(ps, func(x, y [2]int32) int {
			if x[0] != y[0] {
				return int(y[0] - x[0])
			}
			return int(y[1] - x[1])
		})
	case "shuffled":
		rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	case "leaders-first":
		if c.density != "nodes" {
			panic("leaders-first needs density nodes")
		}
	default:
		panic("order " + c.order)
	}
	return ps
}

// write writes the survey directory (meta.json, ranks.csv, pairs.csv).
func (c scaleSpec) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	n := c.nodes * c.per
	scope := ""
	if c.scope != "" {
		scope = fmt.Sprintf(",\n  \"scope\": %q", c.scope)
	}
	meta := fmt.Sprintf("{\n  \"tool\": \"scale generator\",\n  \"ranks\": %d,\n  \"sizes\": [64],\n  \"repeats\": 100%s\n}\n", n, scope)
	if err := os.WriteFile(filepath.Join(dir, "meta.json"), []byte(meta), 0o644); err != nil {
		return err
	}
	var rk strings.Builder
	rk.WriteString("rank,host,cpu,cpu_end,cpuset,socket,numa,l3,migrated\n")
	for r := 0; r < n; r++ {
		core := r % c.per
		sock := core / (c.per / 2)
		fmt.Fprintf(&rk, "%d,host%04d,%d,%d,%d,%d,%d,%d,false\n", r, r/c.per, core, core, core, sock, sock, sock)
	}
	if err := os.WriteFile(filepath.Join(dir, "ranks.csv"), []byte(rk.String()), 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "pairs.csv"))
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("rank_a,rank_b,size_bytes,samples,rtt_mean_us,rtt_std_us,rtt_min_us,rtt_median_us,rtt_p99_us,rtt_isolated_median_us\n")
	rng := rand.New(rand.NewPCG(c.seed, 11))
	var line []byte
	for _, p := range c.pairs() {
		a, b := int(p[0]), int(p[1])
		rtt := 5.0
		switch {
		case a/c.per == b/c.per && (a%c.per)/(c.per/2) == (b%c.per)/(c.per/2):
			rtt = 0.5
		case a/c.per == b/c.per:
			rtt = 0.9
		}
		v := rtt * (1 + 0.05*rng.Float64())
		line = strconv.AppendInt(line[:0], int64(a), 10)
		line = fmt.Appendf(line, ",%d,64,100,%.3f,%.3f,%.3f,%.3f,%.3f,\n", b, v, v*0.05, v*0.9, v, v*1.3)
		w.Write(line)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
