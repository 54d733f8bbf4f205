package progress

import (
	"fmt"
	"io"
	"os"
	"time"
)

// Position says where a survey is: which size, phase, repetition and round.
type Position struct {
	Phase           string // "warm-up", "rounds", "sequential", "isolation"
	Size            int    // message size in bytes
	SizeIdx, Sizes  int    // 1-based index of the size, number of sizes
	Rep, Reps       int    // 1-based pass over the pairs, number of passes
	Round, NumRound int    // 1-based round, rounds per repetition
}

// String formats the position as the progress line shows it.
func (p Position) String() string {
	s := fmt.Sprintf("%d B", p.Size)
	if p.Sizes > 1 {
		s += fmt.Sprintf(" (%d/%d)", p.SizeIdx, p.Sizes)
	}
	s += ", " + p.Phase
	if p.Reps > 0 {
		s += fmt.Sprintf(", pass %d/%d", p.Rep, p.Reps)
	}
	unit := "round"
	if p.Phase == "isolation" || p.Phase == "sequential" {
		unit = "pair"
	}
	return s + fmt.Sprintf(", %s %d of %d", unit, p.Round, p.NumRound)
}

// Progress shows how far a survey is on a terminal (one line rewritten in
// place) or, when the output is not a terminal, as a line every few seconds.
type Progress struct {
	w          io.Writer
	tty        bool
	now        func() time.Time
	start      time.Time
	last       time.Time
	every      time.Duration
	total      int
	done       int
	lastLength int
}

// Skip takes n steps that will not run (a time budget lowered the repeats)
// off the total, so that the percentage and the time left stay right.
func (p *Progress) Skip(n int) {
	if p != nil {
		p.total = max(p.total-n, p.done)
	}
}

// NewProgress returns a display of total steps on w. tty selects in-place
// updates; now is the clock (time.Now when nil).
func NewProgress(w io.Writer, tty bool, total int, now func() time.Time) *Progress {
	if now == nil {
		now = time.Now
	}
	p := &Progress{w: w, tty: tty, now: now, total: total, every: 2 * time.Second}
	if tty {
		p.every = 100 * time.Millisecond
	}
	p.start = now()
	p.last = p.start
	return p
}

// IsTerminal reports whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Step records one finished step at pos and prints when it is time to.
func (p *Progress) Step(pos Position) {
	if p == nil {
		return
	}
	p.done++
	t := p.now()
	if t.Sub(p.last) < p.every && p.done < p.total {
		return
	}
	p.last = t
	p.print(pos, t)
}

// Line returns the progress text for pos at time t.
func (p *Progress) Line(pos Position, t time.Time) string {
	el := t.Sub(p.start)
	s := fmt.Sprintf("latmap survey: %s | %d%%, elapsed %s", pos, 100*p.done/max(p.total, 1), Round(el))
	if p.done > 0 && p.done < p.total {
		left := time.Duration(float64(el) * float64(p.total-p.done) / float64(p.done))
		s += ", about " + Round(left).String() + " left"
	}
	return s
}

func (p *Progress) print(pos Position, t time.Time) {
	s := p.Line(pos, t)
	if !p.tty {
		fmt.Fprintln(p.w, s)
		return
	}
	pad := ""
	if n := p.lastLength - len(s); n > 0 {
		pad = fmt.Sprintf("%*s", n, "")
	}
	p.lastLength = len(s)
	fmt.Fprintf(p.w, "\r%s%s", s, pad)
}

// Done ends the display (a newline on a terminal).
func (p *Progress) Done() {
	if p != nil && p.tty && p.lastLength > 0 {
		fmt.Fprintln(p.w)
	}
}

// Round rounds a duration for people: to seconds from a minute, tenths
// from a second, else milliseconds.
func Round(d time.Duration) time.Duration {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}
