package bench

import (
	"math"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latmap/latmap/mapper/survey"
)

// stopAfter3 runs a survey of 8 fake ranks, sizes 8 and 800 bytes, 40
// round trips a pair in passes of 4 (10 passes a size), that a signal
// stops during its third pass at 8 bytes. It returns the options, the
// options that resume it, and every rank's error.
func stopAfter3(t *testing.T, sched Schedule) (opt, resume Options, errs []error) {
	return stopAfter(t, sched, 3)
}

// stopAfter is stopAfter3 with the signal seen at rank 0's k-th look
// (one a pass, one before the node phase, one before the switch phase).
func stopAfter(t *testing.T, sched Schedule, k int32) (opt, resume Options, errs []error) {
	t.Helper()
	opt = DefaultOptions(filepath.Join(t.TempDir(), "s"))
	opt.Schedule, opt.Repeats, opt.Burst, opt.Warmup = sched, 40, 4, 1
	opt.Sizes = []int{8, 800}
	opt.NodeBandwidth = NodeBWOff
	w := newFakeWorld(8, linearRTT)
	var passes atomic.Int32
	w.stop = func() string {
		if passes.Add(1) >= k {
			return "SIGTERM"
		}
		return ""
	}
	errs, _ = runFakeWorld(t, w, opt)
	resume = opt
	resume.Out, resume.Resume = "", opt.Out
	return opt, resume, errs
}

// TestSurveyStopsEarly: 8 fake ranks, sizes 8 and 800 bytes, 40 round
// trips a pair in passes of 4 (10 passes a size). A signal that comes
// during the third pass at 8 bytes stops the survey after it: every pair
// has 12 round trips at 8 bytes, 800 bytes is not measured, meta.json
// says where and why, and rank 0 returns an error that names the
// directory (a non-zero exit) while the others return none. For the
// sequential schedule too, which has no barrier a round.
func TestSurveyStopsEarly(t *testing.T) {
	for _, sched := range []Schedule{Rounds, Sequential} {
		t.Run(string(sched), func(t *testing.T) {
			opt, _, errs := stopAfter3(t, sched)
			want := "stopped by SIGTERM after 3 of 10 passes over the pairs at 8 bytes (12 round trips a pair); sizes [800] not measured"
			if errs[0] == nil || !strings.Contains(errs[0].Error(), want) || !strings.Contains(errs[0].Error(), opt.Out) {
				t.Fatalf("rank 0: %v, want %q and the directory", errs[0], want)
			}
			for r, err := range errs[1:] {
				if err != nil {
					t.Errorf("rank %d: %v", r+1, err)
				}
			}
			s, err := survey.ReadSurvey(opt.Out, survey.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Tables) != 1 || s.Tables[0].Size != 8 || s.Meta.Stopped != want || len(s.Meta.Sizes) != 1 {
				t.Fatalf("tables %d, sizes %v, stopped %q", len(s.Tables), s.Meta.Sizes, s.Meta.Stopped)
			}
			for a := 0; a < 8; a++ {
				for b := a + 1; b < 8; b++ {
					if got := s.Tables[0].SamplesAt(a, b); got != 12 {
						t.Fatalf("pair (%d,%d): %d round trips, want 12", a, b, got)
					}
				}
			}
			if !strings.Contains(strings.Join(s.Meta.Warnings, "\n"), "the survey was "+want) {
				t.Errorf("warnings %q", s.Meta.Warnings)
			}
		})
	}
}

// TestSurveyStopsInLaterPhases: a signal during the isolation sample
// (mpirun kills the ranks 1 s after passing it on, too soon to wait for
// the sample's end) stops the survey after the sample's pass: every pair
// keeps its 40 round trips at 8 bytes, the sample is dropped. One after
// every pass (the 8-byte and 800-byte schedules and isolation samples, 10
// passes each) stops it before the node phase: both sizes are whole.
func TestSurveyStopsInLaterPhases(t *testing.T) {
	for _, c := range []struct {
		k     int32
		want  string
		sizes int
	}{
		{12, "stopped by SIGTERM in the isolation sample at 8 bytes, after every pair's 40 round trips (the sample dropped); sizes [800] not measured", 1},
		{41, "stopped by SIGTERM after every pair was measured, before the node and switch phases", 2},
	} {
		opt, _, errs := stopAfter(t, Rounds, c.k)
		if errs[0] == nil || !strings.Contains(errs[0].Error(), c.want) {
			t.Fatalf("look %d: rank 0: %v, want %q", c.k, errs[0], c.want)
		}
		s, err := survey.ReadSurvey(opt.Out, survey.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Meta.Stopped != c.want || len(s.Tables) != c.sizes {
			t.Fatalf("look %d: stopped %q, %d sizes", c.k, s.Meta.Stopped, len(s.Tables))
		}
		if got := s.Tables[0].SamplesAt(2, 5); got != 40 {
			t.Errorf("look %d: pair (2,5) has %d round trips at 8 bytes, want 40", c.k, got)
		}
		iso := 0
		for a := 0; a < 8; a++ {
			for b := a + 1; b < 8; b++ {
				if !math.IsNaN(s.Tables[0].At(survey.Isolated, a, b)) {
					iso++
				}
			}
		}
		if (iso > 0) != (c.sizes == 2) {
			t.Errorf("look %d: %d pairs at 8 bytes have an isolated median", c.k, iso)
		}
	}
}

// TestSurveyResumes: the survey TestSurveyStopsEarly stops (8 ranks,
// every pair 12 of 40 round trips at 8 bytes, 800 bytes not measured),
// resumed with --resume on the same hosts: 8 bytes is kept as measured
// (12 round trips, the same values), 800 bytes measured now (40), the
// survey is no longer stopped and says what it kept. A complete survey,
// or other hosts, are refused with a line saying why.
func TestSurveyResumes(t *testing.T) {
	opt, again, _ := stopAfter3(t, Rounds)
	stopped, err := survey.ReadSurvey(opt.Out, survey.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs, _ := runFakeWorld(t, newFakeWorld(8, linearRTT), again)
	noRankErrors(t, errs)
	s, err := survey.ReadSurvey(opt.Out, survey.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Meta.Stopped != "" || len(s.Tables) != 2 || s.Tables[0].Size != 8 || s.Tables[1].Size != 800 {
		t.Fatalf("resumed: stopped %q, sizes %v", s.Meta.Stopped, s.Sizes())
	}
	for a := 0; a < 8; a++ {
		for b := a + 1; b < 8; b++ {
			if s.Tables[0].SamplesAt(a, b) != 12 || s.Tables[1].SamplesAt(a, b) != 40 || s.Tables[0].At(survey.Median, a, b) != stopped.Tables[0].At(survey.Median, a, b) {
				t.Fatalf("pair (%d,%d): %d and %d round trips, median at 8 B %v (stopped: %v)", a, b, s.Tables[0].SamplesAt(a, b), s.Tables[1].SamplesAt(a, b),
					s.Tables[0].At(survey.Median, a, b), stopped.Tables[0].At(survey.Median, a, b))
			}
		}
	}
	if !strings.Contains(strings.Join(s.Meta.Warnings, "\n"), "sizes [8] kept as measured then, sizes [800] measured now") {
		t.Errorf("warnings %q", s.Meta.Warnings)
	}
	// The survey is complete now: nothing to resume.
	errs, _ = runFakeWorld(t, newFakeWorld(8, linearRTT), again)
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "not stopped early: nothing to resume") {
		t.Errorf("resuming a complete survey: %v", errs[0])
	}
	// Stopped again, resumed on other hosts: refused.
	_, again, _ = stopAfter3(t, Rounds)
	other := newFakeWorld(8, linearRTT)
	other.host = func(r int) string { return "elsewhere" }
	errs, _ = runFakeWorld(t, other, again)
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "rank 0 ran on node0, and runs on elsewhere now") {
		t.Errorf("resuming on other hosts: %v", errs[0])
	}
}

// TestSurveyStopsInsidePass: a signal during a pass that takes 0.7 s (8
// fake ranks, 7 rounds of 4 round trips of 20 ms; the sequential
// schedule's 28 rounds of 5 ms ones) stops the survey at the next look
// inside the pass (from the second pass on), keeping the passes before
// it: 4 round trips a pair of 12. Without looks inside, it would stop
// after the pass: 8 round trips.
func TestSurveyStopsInsidePass(t *testing.T) {
	for _, c := range []struct {
		sched Schedule
		delay time.Duration
	}{{Rounds, 20 * time.Millisecond}, {Sequential, 5 * time.Millisecond}} {
		opt := DefaultOptions(filepath.Join(t.TempDir(), "s"))
		opt.Schedule, opt.Repeats, opt.Burst, opt.Warmup, opt.Sizes, opt.NodeBandwidth = c.sched, 12, 4, 0, []int{8}, NodeBWOff
		w := newFakeWorld(8, linearRTT)
		w.delay = c.delay
		w.stop = func() string {
			if w.pings.Load() > 28*4+40 { // inside the second pass
				return "SIGTERM"
			}
			return ""
		}
		errs, _ := runFakeWorld(t, w, opt)
		want := "stopped by SIGTERM after 1 of 3 passes over the pairs at 8 bytes (4 round trips a pair)"
		if errs[0] == nil || !strings.Contains(errs[0].Error(), want) {
			t.Fatalf("%s: rank 0: %v, want %q", c.sched, errs[0], want)
		}
		s, err := survey.ReadSurvey(opt.Out, survey.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Tables[0].SamplesAt(1, 6); got != 4 {
			t.Errorf("%s: pair (1,6): %d round trips, want 4", c.sched, got)
		}
	}
}

// TestSurveyStopsInsideFirstPass: with 130 fake ranks (129 rounds a
// pass), the first pass of a size looks every 2 rounds. A signal in the
// first pass at 800 bytes keeps 8 bytes whole and drops 800; one in the
// first pass at 8 bytes leaves nothing to write, and rank 0 says so.
func TestSurveyStopsInsideFirstPass(t *testing.T) {
	for _, c := range []struct {
		at   int64
		want string
	}{
		{800, "stopped by SIGTERM inside the first pass over the pairs at 800 bytes; sizes [800] not measured"},
		{8, "stopped by SIGTERM inside the first pass over the pairs at 8 bytes: nothing measured, nothing written"},
	} {
		opt := DefaultOptions(filepath.Join(t.TempDir(), "s"))
		opt.Repeats, opt.Burst, opt.Warmup, opt.Sizes, opt.NodeBandwidth = 4, 4, 0, []int{8, 800}, NodeBWOff
		w := newFakeWorld(130, linearRTT)
		w.stop = func() string {
			if w.lastSize.Load() == c.at {
				return "SIGTERM"
			}
			return ""
		}
		errs, _ := runFakeWorld(t, w, opt)
		if errs[0] == nil || !strings.Contains(errs[0].Error(), c.want) {
			t.Fatalf("stop at %d bytes: rank 0: %v, want %q", c.at, errs[0], c.want)
		}
		s, err := survey.ReadSurvey(opt.Out, survey.LoadOptions{})
		if c.at == 8 {
			if err == nil {
				t.Errorf("a survey was written although nothing was measured")
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Tables) != 1 || s.Tables[0].Size != 8 || s.Tables[0].SamplesAt(0, 129) != 4 {
			t.Errorf("stop at 800 bytes: sizes %v, pair (0,129) %d round trips at 8 bytes, want 8 bytes only with 4", s.Sizes(), s.Tables[0].SamplesAt(0, 129))
		}
	}
}
