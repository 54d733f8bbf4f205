package qap

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// QAPLIB instances with published optima (R. E. Burkard, S. E. Karisch,
// F. Rendl, "QAPLIB - A Quadratic Assignment Problem Library", J. Global
// Optimization 10:391-403, 1997; https://coral.ise.lehigh.edu/data-sets/qaplib/).
// The optima are QAPLIB's; testdata/README.md says where the data
// came from.
var qaplibOptima = map[string]float64{
	"nug12":  578,
	"chr12a": 9552,
	"had12":  1652,
	"tai12a": 224416,
}

func readQAPLIB(t *testing.T, name string) (*Problem, []int) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".dat"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	q, err := ParseQAPLIB(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("testdata", name+".sln"))
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(b))
	var sol []int
	for _, x := range fields[2:] {
		v, err := strconv.Atoi(x)
		if err != nil {
			t.Fatal(err)
		}
		sol = append(sol, v-1)
	}
	return q, sol
}

// TestQAPLIBData checks the embedded instances: QAPLIB's optimal
// permutation costs exactly the published optimum.
func TestQAPLIBData(t *testing.T) {
	for name, opt := range qaplibOptima {
		q, sol := readQAPLIB(t, name)
		if got := q.Cost(sol); got != opt {
			t.Errorf("%s: the .sln permutation costs %v, QAPLIB's optimum is %v (instance data wrong?)", name, got, opt)
		}
	}
}

func TestQAPSwapDelta(t *testing.T) {
	q, _ := readQAPLIB(t, "tai12a")
	rng := rand.New(rand.NewPCG(1, 2))
	p := rng.Perm(q.N)
	for k := 0; k < 200; k++ {
		r, s := rng.IntN(q.N), rng.IntN(q.N)
		if r == s {
			continue
		}
		before := q.Cost(p)
		d := q.swapDelta(p, r, s)
		p[r], p[s] = p[s], p[r]
		if after := q.Cost(p); math.Abs(after-before-d) > 1e-9 {
			t.Fatalf("swap (%d,%d): delta %v, recomputed %v", r, s, d, after-before)
		}
	}
}

// TestSolveQAPReachesOptimum: the iterated local search finds QAPLIB's
// optimum on each n = 12 instance (it is a heuristic; with 16 restarts of
// 600 steps it reaches all four with seed 1).
func TestSolveQAPReachesOptimum(t *testing.T) {
	for name, opt := range qaplibOptima {
		q, _ := readQAPLIB(t, name)
		p, cost := Solve(q, Options{Seed: 1})
		if got := q.Cost(p); got != cost {
			t.Errorf("%s: reported cost %v, permutation costs %v", name, cost, got)
		}
		seen := map[int]bool{}
		for _, x := range p {
			seen[x] = true
		}
		if len(seen) != q.N {
			t.Fatalf("%s: %v is not a permutation", name, p)
		}
		if cost != opt {
			t.Errorf("%s: found %v, optimum %v (gap %.2f%%)", name, cost, opt, 100*(cost/opt-1))
		}
	}
}

func TestSolveQAPDeterministic(t *testing.T) {
	q, _ := readQAPLIB(t, "nug12")
	a, ca := Solve(q, Options{Seed: 7, Restarts: 4, Iterations: 50})
	b, cb := Solve(q, Options{Seed: 7, Restarts: 4, Iterations: 50, Workers: 1})
	if ca != cb {
		t.Fatalf("same seed, different costs: %v vs %v", ca, cb)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, different permutations: %v vs %v", a, b)
		}
	}
}

func TestParseQAPLIBErrors(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{"", "before the size"},
		{"x", "is not a number"},
		{"2.5", "not an integer"},
		{"2\n0 1 1 0\n0 1", "before matrix B entry 3"},
	} {
		if _, err := ParseQAPLIB(strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("ParseQAPLIB(%q) = %v, want %q", c.in, err, c.err)
		}
	}
}

func FuzzParseQAPLIB(f *testing.F) {
	f.Add("2\n0 1\n1 0\n0 3\n3 0\n")
	f.Add("1 5 5")
	f.Fuzz(func(t *testing.T, in string) {
		q, err := ParseQAPLIB(strings.NewReader(in))
		if err != nil {
			return
		}
		if len(q.Terms[0].A) != q.N*q.N || len(q.Terms[0].B) != q.N*q.N {
			t.Fatalf("matrices of wrong size for n=%d", q.N)
		}
	})
}

func BenchmarkQAPSwapDelta(b *testing.B) {
	f, _ := os.Open(filepath.Join("testdata", "tai12a.dat"))
	q, _ := ParseQAPLIB(f)
	f.Close()
	p := rand.New(rand.NewPCG(1, 1)).Perm(q.N)
	for i := 0; i < b.N; i++ {
		q.swapDelta(p, i%q.N, (i+5)%q.N)
	}
}

func TestRunFile(t *testing.T) {
	var buf strings.Builder
	if err := RunFile(&buf, filepath.Join("testdata", "nug12.dat"), Options{Seed: 1, Restarts: 8}, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "n=12 cost 578 ") {
		t.Errorf("output %q, want the optimum 578", buf.String())
	}
	if err := RunFile(&buf, "/nonexistent.dat", Options{}, false); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
}
