package bench

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/latmap/latmap/bench/journal"
	"github.com/latmap/latmap/mapper/survey"
)

// killAt runs opt on 8 fake ranks that are all killed in rank 0's k-th
// look (one after each pass), as mpirun's SIGKILL ends them: no rank
// writes anything; every rank's journal holds the passes done. It
// checks that every rank failed and no survey was written. A round trip
// takes 5 ms: a pass (7 rounds of 4) 0.14 s, over journal.Every, so every
// pass is written when it ends.
func killAt(t *testing.T, opt Options, k int32) {
	t.Helper()
	w := newFakeWorld(8, linearRTT)
	w.delay = 5 * time.Millisecond
	var looks atomic.Int32
	w.stop = func() string {
		if looks.Add(1) == k {
			w.killNext.Store(true)
		}
		return ""
	}
	before, _ := os.Stat(filepath.Join(opt.Out, "meta.json"))
	errs, _ := runFakeWorld(t, w, opt)
	for r, err := range errs {
		if !errors.Is(err, errKilled) {
			t.Fatalf("rank %d: %v, want killed", r, err)
		}
	}
	if after, _ := os.Stat(filepath.Join(opt.Out, "meta.json")); before == nil && after != nil {
		t.Fatalf("a killed survey wrote %s", opt.Out)
	}
}

// TestSurveyKilledResumes: 8 fake ranks, sizes 8 and 800 bytes, 40
// round trips a pair in passes of 4, killed without a word after the
// third pass at 8 bytes: nothing is written but the ranks' journals,
// and --resume recovers every pair's 12 round trips at 8 bytes from
// them (kept: at least MinBudgetRepeats) and measures 800 bytes. The
// resumed run, killed in its turn after 2 passes at 800 bytes, is
// recovered by the next with the 8 bytes of the survey it was resuming
// (what the first recovery wrote), and that last --resume completes it:
// 12 and 40 round trips a pair (800 bytes' 8 were too few to keep), the
// journals gone.
func TestSurveyKilledResumes(t *testing.T) {
	opt := DefaultOptions(filepath.Join(t.TempDir(), "s"))
	opt.Schedule, opt.Repeats, opt.Burst, opt.Warmup = Rounds, 40, 4, 1
	opt.Sizes, opt.NodeBandwidth = []int{8, 800}, NodeBWOff
	killAt(t, opt, 3)
	again := opt
	again.Out, again.Resume = "", opt.Out
	killAt(t, again, 2)
	s, err := survey.ReadSurvey(opt.Out, survey.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tables) != 1 || s.Tables[0].SamplesAt(0, 7) != 12 || !strings.Contains(s.Meta.Stopped, "recovered from the ranks' journals: 12 round trips a pair at 8 bytes; sizes [800] not measured") {
		t.Fatalf("the first kill, recovered by the second run: sizes %v, stopped %q", s.Sizes(), s.Meta.Stopped)
	}
	second, err := journal.Recover(journal.Dir(opt.Out))
	if err != nil || len(second.Tables) != 1 || second.Tables[0].Size != 800 || second.Tables[0].SamplesAt(3, 4) != 8 {
		t.Fatalf("the second run's journals: %v %v", err, second)
	}
	errs, _ := runFakeWorld(t, newFakeWorld(8, linearRTT), again)
	noRankErrors(t, errs)
	if s, err = survey.ReadSurvey(opt.Out, survey.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	for a := 0; a < 8; a++ {
		for b := a + 1; b < 8; b++ {
			if s.Tables[0].SamplesAt(a, b) != 12 || s.Tables[1].SamplesAt(a, b) != 40 || s.Tables[0].At(survey.Median, a, b) != float64(float32(linearRTT(a, b, 8))) {
				t.Fatalf("pair (%d,%d): %d and %d round trips, median at 8 B %v", a, b, s.Tables[0].SamplesAt(a, b), s.Tables[1].SamplesAt(a, b), s.Tables[0].At(survey.Median, a, b))
			}
		}
	}
	if w := strings.Join(s.Meta.Warnings, "\n"); s.Meta.Stopped != "" || !strings.Contains(w, "sizes [8] kept as measured then, sizes [800] measured now") ||
		!strings.Contains(w, "journals in "+journal.Dir(opt.Out)+" gave sizes [800], with sizes [8] of the survey it was resuming") {
		t.Errorf("stopped %q, warnings %q", s.Meta.Stopped, s.Meta.Warnings)
	}
	if _, err := os.Stat(journal.Dir(opt.Out)); !os.IsNotExist(err) {
		t.Errorf("journals left after the survey was written: %v", err)
	}
}
