package bench

import (
	"fmt"
	"io"
	"slices"

	"github.com/latmap/latmap/bench/journal"
	"github.com/latmap/latmap/mapper/survey"
)

// --resume DIR completes a survey that was stopped early (stop.go). Its
// sizes whose every pair has at least MinBudgetRepeats round trips are
// kept as they were measured, as a time budget keeps a size measured with
// fewer round trips than asked; the job measures the other sizes of
// --sizes, the isolation sample and the node and switch phases, and rank
// 0 writes the whole survey over the stopped one, saying what it kept.
// The job must run on the same hosts, rank by rank, with the same scope.
// A survey killed without a word left its ranks' journals instead
// (journal.go): they become the stopped survey first.

// resumed is, on rank 0, the stopped survey and the sizes kept from it.
type resumed struct {
	dir  string
	old  *survey.Survey
	keep []int
	// recovered says what the journals of a killed run gave ("" when
	// the survey stopped on a signal and wrote itself).
	recovered string
}

// resumePlan is what rank 0 tells every rank: the sizes left to measure
// and the scope.
type resumePlan struct {
	Sizes []int
	Scope string
}

// shareResume, on every rank once the hosts are known (names), makes
// rank 0's plan for --resume and gives every rank its sizes and scope
// (opt is changed), or stops every rank with rank 0's reason. It returns
// rank 0's resumed survey (nil elsewhere, or without --resume).
func shareResume(c comm, opt *Options, names []string) (*resumed, error) {
	if opt.Resume == "" {
		return nil, nil
	}
	var st *resumed
	var plan resumePlan
	if err := agree(c, func() error {
		var err error
		if st, plan, err = planResume(*opt, names); err != nil {
			return fmt.Errorf("--resume %s: %w", opt.Resume, err)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := share(c, &plan, "the --resume plan"); err != nil {
		return nil, err
	}
	opt.Sizes, opt.Scope = plan.Sizes, plan.Scope
	return st, nil
}

// planResume reads the stopped survey and decides what is kept and what
// is measured (rank 0).
func planResume(opt Options, names []string) (*resumed, resumePlan, error) {
	recovered, err := recoverKilled(opt.Resume)
	if err != nil {
		return nil, resumePlan{}, err
	}
	old := opt.stopped
	if old == nil || recovered != "" {
		if old, err = survey.ReadSurvey(opt.Resume, survey.LoadOptions{KeepSparse: true}); err != nil {
			return nil, resumePlan{}, err
		}
	}
	scope, err := matchStopped(old, opt, len(names), names)
	if err != nil {
		return nil, resumePlan{}, err
	}
	st := &resumed{dir: opt.Resume, old: old, recovered: recovered}
	for _, t := range old.Tables {
		least := -1
		t.Each(func(a, b, i int) {
			if s := int(t.Samples[i]); least < 0 || s < least {
				least = s
			}
		})
		if least >= MinBudgetRepeats {
			st.keep = append(st.keep, t.Size)
		}
	}
	var sizes []int
	for _, s := range opt.Sizes {
		if !slices.Contains(st.keep, s) {
			sizes = append(sizes, s)
		}
	}
	if len(sizes) == 0 {
		// Every size is kept: measure the last again, with the phases.
		sizes, st.keep = st.keep[len(st.keep)-1:], st.keep[:len(st.keep)-1]
	}
	return st, resumePlan{Sizes: sizes, Scope: scope}, nil
}

// merge puts the kept sizes' tables into the new survey s, in size order.
func (st *resumed) merge(s *survey.Survey) {
	for _, t := range st.old.Tables {
		if slices.Contains(st.keep, t.Size) {
			s.Tables = append(s.Tables, t)
		}
	}
	slices.SortFunc(s.Tables, func(a, b *survey.PairTable) int { return a.Size - b.Size })
}

// note says what the resumed survey kept and measured.
func (st *resumed) note(measured []int) string {
	note := fmt.Sprintf("resumed %s, which was %s: sizes %v kept as measured then, sizes %v measured now", st.dir, st.old.Meta.Stopped, st.keep, measured)
	if st.recovered != "" {
		note += " (" + st.recovered + ")"
	}
	return note
}

// recoverKilled, on rank 0 at --resume dir, turns the journals of a
// killed run beside dir into dir's stopped survey (journal.Restore).
func recoverKilled(dir string) (string, error) {
	return journal.Restore(dir, func(s *survey.Survey) error {
		return finish(s, nil, Options{Out: dir, Force: true, Schedule: Schedule(s.Meta.Schedule)}, io.Discard)
	})
}
