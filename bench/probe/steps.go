package probe

import (
	"math/bits"
	"math/rand/v2"
)

// Prober chooses the probe's steps one at a time, each from what the
// earlier ones showed, and judges the pairs of classes (rank 0 of the
// survey phase; a simulation or a test drives it the same way):
//
//  1. each class's flow alone, Repeats times, its least time kept;
//  2. random matchings of the hosts (Plan.Matching), read by the rule
//     "neither slowed" (Clearer.Step), until Max.Fruitless of them in a
//     row clear no pair more, or Max.Matchings have moved;
//  3. each pair of classes left (Clearer.Left) two at a time: shared
//     when either flow was slowed past Threshold (a flow slowed by its
//     own host's link leaves the common link to the other, so one
//     slowed flow is enough). Noise only slows a flow, so a pair not
//     slowed is judged at once; a slowed one moves again, up to
//     Repeats times, and each flow's least time judges it.
//
// Next gives a step's flows, Record their times in seconds, in turn.
type Prober struct {
	Plan      *Plan
	Threshold float64 // a flow is slowed past this many times its time alone
	Repeats   int     // how many times an alone or pair step moves
	Max       Limits

	c      *Clearer
	alone  []float64
	phase  int // 0 alone, 1 random, 2 pairs, 3 done
	i      int // steps taken in the phase
	cur    []Flow
	random randomSteps
	pairs  pairSteps
	// Judged is the pairs of classes moved two at a time, in order.
	Judged []Judged
	// Steps is how many steps each phase took: alone, random, pairs.
	Steps [3]int
	// ClearedByGroups is how many pairs of classes the random steps
	// cleared.
	ClearedByGroups int
}

// Limits end the probe's phases: Fruitless random steps in a row that
// clear nothing, or Matchings in all, end the random steps; Pairs, when
// above 0, the pairs moved two at a time (Prober.Unjudged: those left).
type Limits struct {
	Fruitless, Matchings, Pairs int
}

// randomSteps is the random steps' state: their source, and how many in
// a row cleared nothing.
type randomSteps struct {
	rng   *rand.Rand
	since int
}

// pairSteps is the pair steps' state: the pairs of classes left, the one
// moving, how many times it moved and its flows' least times so far.
type pairSteps struct {
	left  [][2]int
	pair  int
	rep   int
	least []float64
}

// Judged is a pair of classes moved two at a time: its two flows, each
// one's least time against its class's time alone, and the verdict.
type Judged struct {
	A, B     Flow
	Slowdown [2]float64
	Shared   bool
}

// NewProber is a prober of plan's classes with the usual settings: two
// repeats, at most 8 fruitless random steps in a row and 4 per class
// in all. seed makes its random steps.
func NewProber(plan *Plan, threshold float64, seed uint64) *Prober {
	return &Prober{Plan: plan, Threshold: threshold, Repeats: 2, Max: Limits{Fruitless: 8, Matchings: 4 * max(plan.Classes(), 2)},
		c: plan.NewClearer(), random: randomSteps{rng: rand.New(rand.NewPCG(seed, 69))}, alone: make([]float64, plan.Classes())}
}

// Next is the next step's flows, nil when the probe is done.
func (pr *Prober) Next() []Flow {
	n := pr.Plan.Classes()
	for {
		switch pr.phase {
		case 0:
			if pr.i < n*pr.Repeats {
				pr.cur = []Flow{pr.Plan.classes[pr.i%n]}
				return pr.cur
			}
		case 1:
			if len(pr.Plan.router) >= 4 && pr.i < pr.Max.Matchings && pr.random.since < pr.Max.Fruitless {
				pr.cur = pr.Plan.Matching(pr.random.rng)
				return pr.cur
			}
			pr.pairs.left = pr.c.Left()
		case 2:
			if ps := &pr.pairs; ps.pair < len(ps.left) && (pr.Max.Pairs <= 0 || ps.pair < pr.Max.Pairs) {
				fa, fb, _ := pr.Plan.Pair(ps.left[ps.pair][0], ps.left[ps.pair][1])
				pr.cur = []Flow{fa, fb}
				return pr.cur
			}
		default:
			return nil
		}
		pr.phase, pr.i = pr.phase+1, 0
	}
}

// Record reads the step Next gave: each flow's time in seconds.
func (pr *Prober) Record(secs []float64) {
	pr.Steps[pr.phase]++
	switch pr.phase {
	case 0:
		c := pr.i % pr.Plan.Classes()
		if pr.i < pr.Plan.Classes() || secs[0] < pr.alone[c] {
			pr.alone[c] = secs[0]
		}
	case 1:
		before := pr.c.Count()
		pr.c.Step(pr.cur, pr.slowdowns(pr.cur, secs), pr.Threshold)
		pr.ClearedByGroups = pr.c.Count()
		if pr.ClearedByGroups == before {
			pr.random.since++
		} else {
			pr.random.since = 0
		}
	case 2:
		ps := &pr.pairs
		if ps.rep == 0 {
			ps.least = append(ps.least[:0], secs...)
		}
		for k, s := range secs {
			ps.least[k] = min(ps.least[k], s)
		}
		ps.rep++
		// Noise only slows a flow: a pair not slowed is judged at once,
		// a slowed one moves again, up to Repeats times.
		s := pr.slowdowns(pr.cur, ps.least)
		if shared := max(s[0], s[1]) > pr.Threshold; !shared || ps.rep >= pr.Repeats {
			pr.Judged = append(pr.Judged, Judged{A: pr.cur[0], B: pr.cur[1], Slowdown: [2]float64{s[0], s[1]}, Shared: shared})
			ps.pair, ps.rep = ps.pair+1, 0
		}
	}
	pr.i++
}

// slowdowns is each flow's time against its class's time alone.
func (pr *Prober) slowdowns(flows []Flow, secs []float64) []float64 {
	out := make([]float64, len(flows))
	for k, f := range flows {
		if a := pr.alone[pr.Plan.Class(f)]; a > 0 {
			out[k] = secs[k] / a
		}
	}
	return out
}

// Unjudged is how many pairs of classes the random steps left that were
// not moved two at a time (Max.Pairs stopped them).
func (pr *Prober) Unjudged() int { return len(pr.pairs.left) - len(pr.Judged) }

// Phase is the phase the next step is of: 0 alone, 1 random, 2 pairs,
// 3 done.
func (pr *Prober) Phase() int { return pr.phase }

// Left is how many pairs of classes the random steps left.
func (pr *Prober) Left() int { return len(pr.pairs.left) }

// Alone is each class's least time alone, in class order.
func (pr *Prober) Alone() []float64 { return pr.alone }

// Count is how many pairs of classes are cleared.
func (c *Clearer) Count() int {
	n := 0
	for _, w := range c.cleared {
		n += bits.OnesCount64(w)
	}
	return n
}
