package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgress(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	var b bytes.Buffer
	p := NewProgress(&b, false, 4, clock)
	pos := Position{Phase: "rounds", Size: 64, SizeIdx: 1, Sizes: 1, Rep: 1, Reps: 2, Round: 1, NumRound: 2}
	now = now.Add(time.Second)
	p.Step(pos) // 1 s < 2 s: nothing printed yet
	if b.Len() != 0 {
		t.Fatalf("printed before the interval: %q", b.String())
	}
	now = now.Add(2 * time.Second)
	pos.Round = 2
	p.Step(pos) // 2 of 4 steps in 3 s: 3 s left
	want := "latmap survey: 64 B, rounds, pass 1/2, round 2 of 2 | 50%, elapsed 3s, about 3s left\n"
	if b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	pos.Rep, pos.Round = 2, 1
	p.Step(pos)
	pos.Round = 2
	p.Step(pos) // the last step always prints
	if !strings.Contains(b.String(), "100%, elapsed 3s\n") {
		t.Fatalf("last step: %q", b.String())
	}

	// On a terminal the line is rewritten in place.
	b.Reset()
	tp := NewProgress(&b, true, 2, clock)
	now = now.Add(time.Second)
	tp.Step(Position{Phase: "isolation", Size: 1024, SizeIdx: 2, Sizes: 3, Rep: 1, Reps: 1, Round: 1, NumRound: 2})
	tp.Done()
	got := b.String()
	if !strings.HasPrefix(got, "\rlatmap survey: 1024 B (2/3), isolation, pass 1/1, pair 1 of 2 | 50%") || !strings.HasSuffix(got, "\n") {
		t.Fatalf("terminal line %q", got)
	}
	var nilP *Progress
	nilP.Step(pos) // a nil Progress (rank != 0) does nothing
	nilP.Done()
}

// TestProgressSkip: steps a budget took away leave the total, never below
// what is done.
func TestProgressSkip(t *testing.T) {
	var b strings.Builder
	p := NewProgress(&b, false, 100, nil)
	for i := 0; i < 10; i++ {
		p.Step(Position{})
	}
	p.Skip(40)
	if p.total != 60 {
		t.Errorf("total %d after skipping 40 of 100, want 60", p.total)
	}
	p.Skip(1000)
	if p.total != 10 {
		t.Errorf("total %d, want the 10 done", p.total)
	}
	var nilp *Progress
	nilp.Skip(3) // rank != 0: no display
}
