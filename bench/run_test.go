package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latmap/latmap/bench/schedule"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/sweep"
)

// fakeWorld stands in for MPI_COMM_WORLD in unit tests: ranks are
// goroutines, messages go through channels, and each timed round trip
// "takes" rtt(a, b, size) microseconds so results can be checked exactly.
type fakeWorld struct {
	n   int
	rtt func(a, b, size int) float64
	// host names each rank's host (nil: "node<rank/2>").
	host func(r int) string
	// stop is every rank's rankEnv.Stop (nil: never).
	stop func() string
	// delay, when set, is the wall time each round trip takes, times
	// slow once slowAfter timed round trips have been made (when slow >
	// 1): the machine got busy during the survey.
	delay     time.Duration
	slow      int
	slowAfter int64
	ch        sync.Map // from*n+to -> chan int carrying the sender's rank, made on first use
	sig       sync.Map // from*n+to -> chan struct{}: the sequential schedule's hand-offs

	mu       sync.Mutex
	cond     *sync.Cond
	arrived  int
	gen      int
	gathered [][]byte
	bcast    []byte
	pings    atomic.Int64
	lastSize atomic.Int64 // the size of the last timed round trips
	errs     []error
	// killed: every rank's next call fails at once, as when the job is
	// killed (kill); killNext kills it in the next broadcast, once every
	// rank is in it.
	killed, killNext atomic.Bool
}

// errKilled is what every call of a killed fake world returns.
var errKilled = fmt.Errorf("killed")

// kill ends the world as SIGKILL would: every rank waiting in a barrier
// and every later call returns errKilled.
func (w *fakeWorld) kill() {
	w.mu.Lock()
	w.killed.Store(true)
	w.cond.Broadcast()
	w.mu.Unlock()
}

func newFakeWorld(n int, rtt func(a, b, size int) float64) *fakeWorld {
	w := &fakeWorld{n: n, rtt: rtt, gathered: make([][]byte, n)}
	w.cond = sync.NewCond(&w.mu)
	return w
}

// link is the channel from rank from to rank to.
func (w *fakeWorld) link(from, to int) chan int { return channel[int](&w.ch, from*w.n+to, 1) }

// signals is the hand-off channel from rank from to rank to; signals are
// eager sends, so a few may wait for their reader.
func (w *fakeWorld) signals(from, to int) chan struct{} {
	return channel[struct{}](&w.sig, from*w.n+to, 64)
}

// channel is m's channel k, made with room for size on first use.
func channel[T any](m *sync.Map, k, size int) chan T {
	if c, ok := m.Load(k); ok {
		return c.(chan T)
	}
	c, _ := m.LoadOrStore(k, make(chan T, size))
	return c.(chan T)
}

func (w *fakeWorld) barrier() {
	w.mu.Lock()
	g := w.gen
	w.arrived++
	if w.arrived == w.n {
		w.arrived = 0
		w.gen++
		w.cond.Broadcast()
	} else {
		for g == w.gen && !w.killed.Load() {
			w.cond.Wait()
		}
	}
	w.mu.Unlock()
}

func (w *fakeWorld) fail(err error) {
	w.mu.Lock()
	w.errs = append(w.errs, err)
	w.mu.Unlock()
}

type fakeComm struct {
	w    *fakeWorld
	rank int
}

func (c *fakeComm) Rank() int { return c.rank }
func (c *fakeComm) Size() int { return c.w.n }

func (c *fakeComm) recv(peer int) {
	ch := c.w.link(peer, c.rank)
	select {
	case from := <-ch:
		if from != peer {
			c.w.fail(fmt.Errorf("rank %d got a message from %d, expected %d", c.rank, from, peer))
		}
		return
	default:
	}
	select {
	case from := <-ch:
		if from != peer {
			c.w.fail(fmt.Errorf("rank %d got a message from %d, expected %d", c.rank, from, peer))
		}
	case <-time.After(10 * time.Second):
		c.w.fail(fmt.Errorf("rank %d waited 10 s for rank %d: the schedule is not symmetric", c.rank, peer))
	}
}

func (c *fakeComm) PingPong(peer int, lo bool, size, warm int, out []float64) error {
	if c.w.killed.Load() {
		return errKilled
	}
	to := c.w.link(c.rank, peer)
	for i := 0; i < warm+len(out); i++ {
		if lo {
			if c.w.delay > 0 {
				d := c.w.delay
				if c.w.slow > 1 && c.w.pings.Load() >= c.w.slowAfter {
					d *= time.Duration(c.w.slow)
				}
				time.Sleep(d)
			}
			to <- c.rank
			c.recv(peer)
		} else {
			c.recv(peer)
			to <- c.rank
		}
	}
	if !lo {
		return nil
	}
	c.w.pings.Add(int64(len(out)))
	if len(out) > 0 {
		c.w.lastSize.Store(int64(size))
	}
	for i := range out {
		out[i] = c.w.rtt(c.rank, peer, size)
	}
	return nil
}

func (c *fakeComm) Wait(bool) error {
	c.w.barrier()
	if c.w.killed.Load() {
		return errKilled
	}
	return nil
}

func (c *fakeComm) Idle() error { c.w.barrier(); return nil }

// Exchange passes count messages to each of dst and takes as many from
// each of src, one each way with each partner at a time; it "takes"
// count*size/1e8 s a destination on even ranks and 3 times that on odd
// ones, so the node bandwidth rows can be checked exactly.
func (c *fakeComm) Exchange(dst, src []int, size, count int) (float64, error) {
	for i := 0; i < count; i++ {
		for _, d := range dst {
			c.w.link(c.rank, d) <- c.rank
		}
		for _, s := range src {
			c.recv(s)
		}
	}
	return float64(count*size*max(len(dst), 1)) / 1e8 * float64(1+2*(c.rank%2)), nil
}

func (c *fakeComm) Signal(peer int) error {
	c.w.signals(c.rank, peer) <- struct{}{}
	return nil
}

func (c *fakeComm) Await(peer int) error {
	select {
	case <-c.w.signals(peer, c.rank):
	case <-time.After(10 * time.Second):
		c.w.fail(fmt.Errorf("rank %d waited 10 s for rank %d's signal", c.rank, peer))
	}
	return nil
}

func (c *fakeComm) Gather(b []byte) ([][]byte, error) {
	c.w.mu.Lock()
	c.w.gathered[c.rank] = b
	c.w.mu.Unlock()
	c.w.barrier()
	var out [][]byte
	if c.rank == 0 {
		out = append(out, c.w.gathered...)
	}
	c.w.barrier()
	if c.w.killed.Load() {
		return nil, errKilled
	}
	return out, nil
}

func (c *fakeComm) Bcast(b []byte) ([]byte, error) {
	if c.rank == 0 {
		c.w.bcast = b
	}
	c.w.barrier()
	out := c.w.bcast
	if c.w.killNext.Load() {
		c.w.kill()
	}
	c.w.barrier()
	if c.w.killed.Load() {
		return nil, errKilled
	}
	return out, nil
}

func (c *fakeComm) Abort(code int) { c.w.fail(fmt.Errorf("abort %d", code)) }

// runFake runs a survey on n goroutine ranks and returns each rank's error.
func runFake(t *testing.T, n int, opt Options, rtt func(a, b, size int) float64) ([]error, *fakeWorld, string) {
	t.Helper()
	w := newFakeWorld(n, rtt)
	errs, stderr := runFakeWorld(t, w, opt)
	return errs, w, stderr
}

// noRankErrors fails the test for the first rank that returned an error.
func noRankErrors(t testing.TB, errs []error) {
	t.Helper()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
}

// runFakeWorld runs a survey on w's ranks and returns each rank's error
// and rank 0's stderr.
func runFakeWorld(t testing.TB, w *fakeWorld, opt Options) ([]error, string) {
	t.Helper()
	if err := opt.Validate(); err != nil {
		t.Fatal(err)
	}
	n := w.n
	var stderr bytes.Buffer
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := 0; r < n; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			env := rankEnv{
				MPIVersion: "fake MPI", Launcher: "test", Wtick: 1e-9,
				Facts: func() survey.Rank {
					host := fmt.Sprintf("node%d", r/2)
					if w.host != nil {
						host = w.host(r)
					}
					return survey.Rank{Host: host, CPU: r % 2, CPUSet: "0-1", Socket: 0, NUMA: 0, L3: 0}
				},
				CPU:  func() int { return r%2 + r/3 }, // ranks 3, 4 and 5 "move"
				Stop: w.stop,
			}
			if r == 0 {
				env.Stderr = &stderr
			}
			errs[r] = measure(context.Background(), &fakeComm{w: w, rank: r}, opt, env)
		}(r)
	}
	wg.Wait()
	for _, err := range w.errs {
		t.Error(err)
	}
	return errs, stderr.String()
}

// linearRTT makes pair (a, b) at size s take 10a + b + s/100 us, whatever
// the repetition, so every statistic of a pair is that number.
func linearRTT(a, b, size int) float64 {
	if a > b {
		a, b = b, a
	}
	return float64(10*a+b) + float64(size)/100
}

// checkFakeSweep checks the size sweep of a fake survey of 5 ranks (two
// a host, one socket) and returns its timed round trips: rank 0 with
// rank 1 on its socket and with the first ranks of the second and last
// hosts, at 64 B to 1 MiB doubling and the survey's 8 and 800 bytes,
// each row the fake's round trip.
func checkFakeSweep(t *testing.T, s *survey.Survey) int {
	t.Helper()
	want := map[[2]int]string{{0, 1}: sweep.Socket, {0, 2}: sweep.Network, {0, 4}: sweep.Network}
	perPair := map[[2]int]int{}
	trips := 0
	for _, r := range s.Sweep {
		k := [2]int{r.A, r.B}
		if want[k] != r.Where {
			t.Errorf("sweep row %+v: want the pairs %v", r, want)
		}
		if rtt := linearRTT(r.A, r.B, r.Size); math.Abs(r.MedianUs-rtt) > 1e-3 || math.Abs(r.MinUs-rtt) > 1e-3 {
			t.Errorf("sweep row %+v: want min and median %g", r, rtt)
		}
		perPair[k]++
		trips += r.Count
	}
	for k := range want {
		if perPair[k] != 17 {
			t.Errorf("pair %v has %d sizes in the sweep, want 17 (64 B-1 MiB doubling, and 8 and 800)", k, perPair[k])
		}
	}
	return trips
}

func TestSurveyFake(t *testing.T) {
	for _, sched := range []Schedule{Rounds, Sequential} {
		t.Run(string(sched), func(t *testing.T) {
			dir := t.TempDir()
			opt := DefaultOptions(filepath.Join(dir, "survey"))
			opt.Schedule = sched
			opt.Repeats = 5
			opt.Warmup = 2
			opt.Burst = 2 // 3 passes, the last one of 1 round trip
			opt.Sizes = []int{800, 8}
			opt.Mmpi = filepath.Join(dir, "survey.mmpi")
			opt.Progress = true
			n := 5
			errs, w, stderr := runFake(t, n, opt, linearRTT)
			noRankErrors(t, errs)
			pairs := n * (n - 1) / 2
			iso := n // 5% of 10 pairs is 1, at least N = 5
			s, err := survey.ReadSurvey(opt.Out, survey.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			swept := checkFakeSweep(t, s)
			if want := 2*opt.Repeats*(pairs+iso) + swept; int(w.pings.Load()) != want {
				t.Errorf("%d timed round trips, want %d", w.pings.Load(), want)
			}
			if got := s.Sizes(); len(got) != 2 || got[0] != 8 || got[1] != 800 {
				t.Fatalf("sizes %v", got)
			}
			isolated := 0
			for _, tb := range s.Tables {
				for a := 0; a < n; a++ {
					for b := a + 1; b < n; b++ {
						want := linearRTT(a, b, tb.Size)
						if got := tb.SamplesAt(a, b); got != opt.Repeats {
							t.Errorf("size %d pair (%d,%d): %d samples, want %d", tb.Size, a, b, got, opt.Repeats)
						}
						for _, m := range []survey.Metric{survey.Mean, survey.Min, survey.Median, survey.P99} {
							if got := tb.At(m, a, b); math.Abs(got-want) > 1e-3 {
								t.Errorf("size %d pair (%d,%d) %s = %v, want %v", tb.Size, a, b, m, got, want)
							}
						}
						if iv := tb.At(survey.Isolated, a, b); !math.IsNaN(iv) {
							isolated++
							if math.Abs(iv-want) > 1e-3 {
								t.Errorf("pair (%d,%d) isolated %v, want %v", a, b, iv, want)
							}
						}
					}
				}
			}
			if isolated != 2*iso {
				t.Errorf("%d isolated values, want %d", isolated, 2*iso)
			}
			m := s.Meta
			if m.Ranks != n || m.Repeats != 5 || m.Warmup != 2 || m.Schedule != string(sched) || m.MPIVersion != "fake MPI" || m.Scope != "all" {
				t.Errorf("meta %+v", m)
			}
			// Both schedules re-measure a sample alone; concurrent and
			// isolated times are equal here, so exactly 1.
			if m.Interference == nil || *m.Interference != 1 || m.IsolatedPairs != n {
				t.Errorf("interference %v over %d pairs, want 1 over %d", m.Interference, m.IsolatedPairs, n)
			}
			if s.Ranks[3].Host != "node1" || !s.Ranks[3].Migrated || s.Ranks[1].Migrated {
				t.Errorf("ranks %+v", s.Ranks)
			}
			// The fake ranks may run on cpus 0-1 (unbound) and 3 and 4
			// moved: both are said.
			if len(m.Warnings) != 2 || !strings.Contains(m.Warnings[0], "ranks 3, 4") || !strings.Contains(m.Warnings[1], "ranks 0-4 are not bound") {
				t.Errorf("warnings %q, want the migrated ranks and the unbound ones", m.Warnings)
			}
			// Two sizes: one fit per pair; the fake's one-way time is
			// (10a+b)/2 + s/200 us, so L = (10a+b)/2 and B = 200 MB/s.
			if len(s.Fits) != pairs {
				t.Fatalf("%d fits, want %d", len(s.Fits), pairs)
			}
			for _, f := range s.Fits {
				if math.Abs(f.Latency-float64(10*f.A+f.B)/2) > 1e-3 || math.Abs(f.Bandwidth-200) > 0.1 {
					t.Errorf("fit %+v", f)
				}
			}
			log, err := os.ReadFile(opt.Mmpi)
			if err != nil {
				t.Fatal(err)
			}
			// The mmpi log is of the smallest size, 8 bytes = 2 MPI_INTs.
			for _, line := range []string{
				"# Testing Hostname: node0\n# Processors: 5 MsgLen 2 Repeats: 5\n",
				"node0 000  node0 000       0.00    0.00\n",
				"node0 001  node1 003      13.08    0.00\n",
				"node1 003  node2 004      34.08    0.00\n",
			} {
				if !strings.Contains(string(log), line) {
					t.Errorf("mmpi log lacks %q:\n%s", line, log)
				}
			}
			if !strings.Contains(stderr, "100%") {
				t.Errorf("progress on stderr: %q", stderr)
			}
		})
	}
}

func TestSurveyFakeRefusals(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "exists")
	os.Mkdir(out, 0o755)
	opt := DefaultOptions(out)
	errs, w, _ := runFake(t, 3, opt, linearRTT)
	if errs[0] == nil || !errors.Is(errs[0], os.ErrExist) && !strings.Contains(errs[0].Error(), "--force") {
		t.Errorf("rank 0: %v, want a refusal naming --force", errs[0])
	}
	for r := 1; r < 3; r++ {
		if !errors.Is(errs[r], errReported) {
			t.Errorf("rank %d: %v, want errReported", r, errs[r])
		}
	}
	if w.pings.Load() != 0 {
		t.Errorf("%d round trips measured before refusing", w.pings.Load())
	}

	opt = DefaultOptions(filepath.Join(dir, "one"))
	errs, _, _ = runFake(t, 1, opt, linearRTT)
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "at least 2 ranks") {
		t.Errorf("one rank: %v", errs[0])
	}
	if _, err := os.Stat(opt.Out); err == nil {
		t.Error("one rank: the output directory was created")
	}

	opt = DefaultOptions(filepath.Join(dir, "new"))
	opt.Mmpi = filepath.Join(dir, "exists")
	errs, _, _ = runFake(t, 2, opt, linearRTT)
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "--mmpi") {
		t.Errorf("existing --mmpi file: %v", errs[0])
	}
}

func TestInterferenceWarning(t *testing.T) {
	// The main phase of 4 ranks, 1 size and 3 repetitions times 3 x 6 =
	// 18 round trips, all before the isolation phase starts (a barrier
	// separates them): make those take twice as long as the ones after.
	// Rounds and sequential both report it, each with its own advice.
	for sched, advice := range map[Schedule]string{Rounds: "--schedule sequential", Sequential: "fewer ranks than cpus"} {
		t.Run(string(sched), func(t *testing.T) {
			opt := DefaultOptions(filepath.Join(t.TempDir(), "s"))
			opt.Repeats, opt.Schedule, opt.Sizes = 3, sched, []int{DefaultSize}
			var mu sync.Mutex
			pings := 0
			rtt := func(a, b, size int) float64 {
				mu.Lock()
				defer mu.Unlock()
				pings++
				if pings <= 18 {
					return 20
				}
				return 10
			}
			errs, _, stderr := runFake(t, 4, opt, rtt)
			noRankErrors(t, errs)
			s, err := survey.ReadSurvey(opt.Out, survey.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if s.Meta.Interference == nil || *s.Meta.Interference != 2 || s.Meta.IsolatedPairs != 4 {
				t.Fatalf("interference %v over %d pairs, want 2 over 4", s.Meta.Interference, s.Meta.IsolatedPairs)
			}
			if !strings.Contains(stderr, advice) || !strings.Contains(strings.Join(s.Meta.Warnings, " "), "interference 2.00") {
				t.Errorf("no interference warning with %q: stderr %q, meta warnings %q", advice, stderr, s.Meta.Warnings)
			}
		})
	}
}

func TestSpread(t *testing.T) {
	pairs := schedule.IsolationSample(40, 0.05) // 40 pairs
	got := schedule.Spread(pairs, seqIsolationMax)
	if len(pairs) != 40 || len(got) != 16 || got[0] != pairs[0] || got[15] != pairs[37] {
		t.Errorf("spread of %d pairs: %v", len(pairs), got)
	}
	if short := schedule.Spread(pairs[:3], 16); len(short) != 3 {
		t.Errorf("spread of 3 pairs kept %d", len(short))
	}
}
