package placement

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// The simulations do not benchmark the computation between MPI calls
// (smpi/simulate-computation:no), so a program simulated again on the
// same platform, with the same ranks' hosts and inputs, gives the same
// result to the last bit. simMemo keeps each one for the rest of the go
// test process: a replay of block or cyclic that several tests make (the
// network declared and from the survey alone) and the survey's phases
// that do not depend on the declared network are simulated once. The sim
// tests also run in parallel with one another (t.Parallel: after the
// package's real runs, which are measured alone), two simulations on the
// 2 cores of the test machine.
var simMemo struct {
	sync.Mutex
	entries map[string]*simEntry
	dir     string // runInto's results (TestMain removes it)
}

// simEntry is one memoised simulation: its result once done; mu is held
// while it is simulated, so a second test asking for it waits.
type simEntry struct {
	mu   sync.Mutex
	done bool
	val  string
}

// memoSim returns what run returned for key in this process, running it
// if nothing has (or if an earlier run failed its test).
func memoSim(key string, run func() string) string {
	simMemo.Lock()
	if simMemo.entries == nil {
		simMemo.entries = map[string]*simEntry{}
	}
	e := simMemo.entries[key]
	if e == nil {
		e = &simEntry{}
		simMemo.entries[key] = e
	}
	simMemo.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.done {
		e.val = run() // t.Fatal inside leaves e undone, for the next asker
		e.done = true
	}
	return e.val
}

// simKey is a memo key of parts; a part that names a file stands for the
// file's contents (the inputs live in each test's own directory).
func simKey(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		if b, err := os.ReadFile(p); err == nil && strings.HasPrefix(p, "/") {
			h.Write(b)
		} else {
			h.Write([]byte(p))
		}
		h.Write([]byte{0})
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:12])
}

// simProcessDir is a directory that lives as long as the test process,
// for memoised results that outlive the test that simulated them.
func simProcessDir(t testing.TB) string {
	simMemo.Lock()
	defer simMemo.Unlock()
	if simMemo.dir == "" {
		d, err := os.MkdirTemp("", "latmap-sim-")
		if err != nil {
			t.Fatal(err)
		}
		simMemo.dir = d
	}
	return simMemo.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	closeShaped()
	if simMemo.dir != "" {
		os.RemoveAll(simMemo.dir)
	}
	os.Exit(code)
}

// TestMemoSim: memoSim runs a key's simulation once, has a second asker
// wait for it rather than run it too, and runs it again for the next
// asker when the first run failed its test.
func TestMemoSim(t *testing.T) {
	runs := 0
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v := memoSim("memo-test", func() string { runs++; return "x" }); v != "x" {
				t.Errorf("memoSim gave %q", v)
			}
		}()
	}
	wg.Wait()
	if runs != 1 {
		t.Errorf("4 askers ran the simulation %d times, want once", runs)
	}
	done := make(chan bool)
	go func() {
		defer close(done)
		memoSim("memo-fail", func() string { runtime.Goexit(); return "" })
	}()
	<-done
	if v := memoSim("memo-fail", func() string { return "again" }); v != "again" {
		t.Errorf("after a failed run memoSim gave %q, want the second run's", v)
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, f := range []string{a, b} {
		if err := os.WriteFile(f, []byte("same"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if simKey("p", a) != simKey("p", b) || simKey("p", a) == simKey("q", a) {
		t.Errorf("simKey: files of the same contents must key alike, other parts apart")
	}
}
