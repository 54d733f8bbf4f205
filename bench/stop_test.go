package bench

import (
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
)

// stopAfter3 runs a survey of 8 fake ranks, sizes 8 and 800 bytes, 40
// round trips a pair in passes of 4 (10 passes a size), that a signal
// stops during its third pass at 8 bytes. It returns the options, the
// options that resume it, and every rank's error.
func stopAfter3(t *testing.T, sched Schedule) (opt, resume Options, errs []error) {
	t.Helper()
	opt = DefaultOptions(filepath.Join(t.TempDir(), "s"))
	opt.Schedule, opt.Repeats, opt.Burst, opt.Warmup = sched, 40, 4, 1
	opt.Sizes = []int{8, 800}
	opt.NodeBandwidth = NodeBWOff
	w := newFakeWorld(8, linearRTT)
	var passes atomic.Int32
	w.stop = func() string {
		if passes.Add(1) >= 3 {
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
