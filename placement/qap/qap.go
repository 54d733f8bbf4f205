package qap

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Problem is a Quadratic Assignment Problem: place N facilities on N
// locations minimising sum over terms t, i, j of A_t[i][j] * B_t[p(i)][p(j)].
// Placement is a Problem with two terms (messages x latency, bytes x inverse
// bandwidth); QAPLIB instances have one.
type Problem struct {
	N     int
	Terms []Term
}

// Term is one flow matrix A and one distance matrix B, row-major N x N.
type Term struct {
	A, B []float64
}

// ParseQAPLIB reads an instance in QAPLIB's format: n, then the n x n
// matrix A, then B (whitespace-separated integers or decimals).
func ParseQAPLIB(r io.Reader) (*Problem, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	sc.Split(bufio.ScanWords)
	next := func(what string) (float64, error) {
		if !sc.Scan() {
			if err := sc.Err(); err != nil {
				return 0, err
			}
			return 0, fmt.Errorf("qaplib: file ends before %s", what)
		}
		v, err := strconv.ParseFloat(sc.Text(), 64)
		if err != nil {
			return 0, fmt.Errorf("qaplib: %s: %q is not a number", what, sc.Text())
		}
		return v, nil
	}
	nf, err := next("the size n")
	if err != nil {
		return nil, err
	}
	n := int(nf)
	if float64(n) != nf || n < 1 || n > 4096 {
		return nil, fmt.Errorf("qaplib: size %v is not an integer in 1..4096", nf)
	}
	t := Term{A: make([]float64, n*n), B: make([]float64, n*n)}
	for _, m := range []struct {
		name string
		v    []float64
	}{{"matrix A", t.A}, {"matrix B", t.B}} {
		for i := range m.v {
			if m.v[i], err = next(fmt.Sprintf("%s entry %d", m.name, i+1)); err != nil {
				return nil, err
			}
		}
	}
	return &Problem{N: n, Terms: []Term{t}}, nil
}

// Cost is the objective of permutation p (p[i] = location of facility i).
func (q *Problem) Cost(p []int) float64 {
	n := q.N
	s := 0.0
	for _, t := range q.Terms {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				s += t.A[i*n+j] * t.B[p[i]*n+p[j]]
			}
		}
	}
	return s
}

// swapDelta is the change of Cost when facilities r and s exchange
// locations, in O(N) (Taillard's formula for asymmetric matrices).
func (q *Problem) swapDelta(p []int, r, s int) float64 {
	n := q.N
	pr, ps := p[r], p[s]
	d := 0.0
	for _, t := range q.Terms {
		a, b := t.A, t.B
		d += (a[r*n+r]-a[s*n+s])*(b[ps*n+ps]-b[pr*n+pr]) +
			(a[r*n+s]-a[s*n+r])*(b[ps*n+pr]-b[pr*n+ps])
		for k := 0; k < n; k++ {
			if k == r || k == s {
				continue
			}
			pk := p[k]
			d += (a[k*n+r]-a[k*n+s])*(b[pk*n+ps]-b[pk*n+pr]) +
				(a[r*n+k]-a[s*n+k])*(b[ps*n+pk]-b[pr*n+pk])
		}
	}
	return d
}

// Options tune SolveQAP.
type Options struct {
	// Restarts is the number of independent random starts (default 16).
	Restarts int
	// Iterations is the number of perturb-and-descend steps per start
	// (default 50*N).
	Iterations int
	Seed       uint64
	// Workers run restarts in parallel (default GOMAXPROCS).
	Workers int
	// Start, when set, is the first restart's initial permutation.
	Start []int
}

// SolveQAP searches for a low-cost permutation by iterated local search:
// each restart descends with best-improvement pair swaps, then repeatedly
// perturbs the current permutation with a few random swaps and descends
// again, keeping the result when it is no worse. It is a heuristic: it
// returns the best permutation found, deterministic for a given Seed.
func Solve(q *Problem, opt Options) ([]int, float64) {
	if opt.Restarts <= 0 {
		opt.Restarts = 16
	}
	if opt.Iterations <= 0 {
		opt.Iterations = 50 * q.N
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	type result struct {
		p    []int
		cost float64
	}
	res := make([]result, opt.Restarts)
	var wg sync.WaitGroup
	jobs := make(chan int)
	for w := 0; w < opt.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range jobs {
				rng := rand.New(rand.NewPCG(opt.Seed, uint64(r)))
				var start []int
				if r == 0 && len(opt.Start) == q.N {
					start = append([]int(nil), opt.Start...)
				}
				p, c := q.iteratedLocalSearch(rng, start, opt.Iterations)
				res[r] = result{p, c}
			}
		}()
	}
	for r := 0; r < opt.Restarts; r++ {
		jobs <- r
	}
	close(jobs)
	wg.Wait()
	best := 0
	for r := range res {
		if res[r].cost < res[best].cost {
			best = r
		}
	}
	return res[best].p, res[best].cost
}

func (q *Problem) iteratedLocalSearch(rng *rand.Rand, start []int, iters int) ([]int, float64) {
	n := q.N
	cur := start
	if cur == nil {
		cur = rng.Perm(n)
	}
	q.descend(cur)
	curCost := q.Cost(cur)
	best := append([]int(nil), cur...)
	bestCost := curCost
	trial := make([]int, n)
	for it := 0; it < iters && n > 2; it++ {
		copy(trial, cur)
		k := 2 + rng.IntN(max(1, n/4))
		for j := 0; j < k; j++ {
			a, b := rng.IntN(n), rng.IntN(n)
			trial[a], trial[b] = trial[b], trial[a]
		}
		q.descend(trial)
		c := q.Cost(trial)
		if c <= curCost+1e-9*math.Abs(curCost) {
			copy(cur, trial)
			curCost = c
			if c < bestCost-1e-9*math.Abs(bestCost) {
				copy(best, cur)
				bestCost = c
			}
		}
	}
	return best, bestCost
}

// descend applies the best improving pair swap until none improves.
func (q *Problem) descend(p []int) {
	n := q.N
	for {
		bd, br, bs := 0.0, -1, -1
		for r := 0; r < n; r++ {
			for s := r + 1; s < n; s++ {
				if d := q.swapDelta(p, r, s); d < bd-1e-12 {
					bd, br, bs = d, r, s
				}
			}
		}
		if br < 0 {
			return
		}
		p[br], p[bs] = p[bs], p[br]
	}
}

// Result is what latmap place --qaplib prints.
type Result struct {
	File string  `json:"file"`
	N    int     `json:"n"`
	Cost float64 `json:"cost"`
	// Permutation is 1-based like QAPLIB's .sln files: facility i goes to
	// location Permutation[i].
	Permutation []int   `json:"permutation"`
	Restarts    int     `json:"restarts"`
	Seconds     float64 `json:"seconds"`
}

// SolveFile solves a QAPLIB instance file with SolveQAP.
func SolveFile(path string, opt Options) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("qaplib: %w", err)
	}
	defer f.Close()
	q, err := ParseQAPLIB(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t0 := time.Now()
	p, c := Solve(q, opt)
	r := &Result{File: path, N: q.N, Cost: c, Restarts: opt.Restarts, Seconds: time.Since(t0).Seconds()}
	for _, x := range p {
		r.Permutation = append(r.Permutation, x+1)
	}
	return r, nil
}

// RunFile solves a QAPLIB instance file and prints its cost and
// permutation to w (latmap place --qaplib), or the Result as JSON.
func RunFile(w io.Writer, path string, opt Options, asJSON bool) error {
	r, err := SolveFile(path, opt)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	perm := make([]string, len(r.Permutation))
	for i, x := range r.Permutation {
		perm[i] = strconv.Itoa(x)
	}
	_, err = fmt.Fprintf(w, "%s: n=%d cost %g (best of %d restarts, seed %d, %.2f s)\n%s\n", r.File, r.N, r.Cost, opt.Restarts, opt.Seed, r.Seconds, strings.Join(perm, " "))
	return err
}
