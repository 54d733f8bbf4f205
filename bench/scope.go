package bench

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/latmap/latmap/bench/schedule"
	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/survey"
)

// ScopeAuto chooses the scope by size: every pair up to AutoAllRanks
// ranks (or on one host), else sample:AutoSampleK.
const (
	ScopeAuto    = "auto"
	AutoAllRanks = 2048
	AutoSampleK  = 4
)

// resolveScope turns --scope (auto, all, nodes, sample:K) into the scope
// the survey runs for n ranks on the given layout.
func resolveScope(spec string, n int, l nodeLayout, mmpi bool) (kind string, k int, name string) {
	if spec == ScopeAuto || spec == "" {
		if n <= AutoAllRanks || len(l.members) < 2 || mmpi {
			return survey.ScopeAll, 0, survey.ScopeAll
		}
		return survey.ScopeSample, AutoSampleK, fmt.Sprintf("%s:%d", survey.ScopeSample, AutoSampleK)
	}
	kind, k, _ = survey.ParseScope(spec) // Validate checked it
	return kind, k, spec
}

// scopePlan measures the pairs of the nodes and sample scopes in
// concurrent rounds: first every pair inside each node, all nodes at once
// (circle rounds over the node's ranks), then every pair of node leaders
// (circle rounds over the nodes), then the sample's cross-node pairs
// (greedy rounds). Partner is O(1) but for the sample rounds, where it
// only answers for the rank the plan was made for.
type scopePlan struct {
	l      nodeLayout
	intra  int                 // rounds inside the nodes
	inter  schedule.CirclePlan // over the nodes
	sample []schedule.Pair     // the sample's pairs, in round order
	nsr    int                 // number of sample rounds
	mine   map[int]int         // sample round -> partner, for rank self
	self   int
	// offsets[h] is the index of node h's first pair in the plan's pair
	// numbering (PairOf): node pairs first, then leader pairs, then the
	// sample.
	offsets []int
}

func newScopePlan(l nodeLayout, k, self int) *scopePlan {
	p := &scopePlan{l: l, inter: schedule.CirclePlan{N: len(l.members)}, self: self, mine: map[int]int{}}
	p.offsets = make([]int, len(l.members)+1)
	for h, m := range l.members {
		if len(m) >= 2 {
			p.intra = max(p.intra, schedule.CirclePlan{N: len(m)}.Rounds())
		}
		p.offsets[h+1] = p.offsets[h] + len(m)*(len(m)-1)/2
	}
	if k > 0 {
		p.sample = samplePairs(l, k)
		next := map[int]int{}
		for _, q := range p.sample {
			r := max(next[q.A], next[q.B])
			next[q.A], next[q.B] = r+1, r+1
			p.nsr = max(p.nsr, r+1)
			if o := q.Other(self); o >= 0 {
				p.mine[r] = o
			}
		}
	}
	return p
}

// interRounds is the rounds between node leaders: none on one node.
func (p *scopePlan) interRounds() int {
	if p.inter.N < 2 {
		return 0
	}
	return p.inter.Rounds()
}

// Rounds is the rounds inside the nodes, between leaders and of the
// sample.
func (p *scopePlan) Rounds() int { return p.intra + p.interRounds() + p.nsr }

// Partner returns rank's partner in round r, or -1.
func (p *scopePlan) Partner(r, rank int) int {
	l := p.l
	if r < p.intra {
		m := l.members[l.host[rank]]
		cp := schedule.CirclePlan{N: len(m)}
		if len(m) < 2 || r >= cp.Rounds() {
			return -1
		}
		if q := cp.Partner(r, l.local[rank]); q >= 0 {
			return m[q]
		}
		return -1
	}
	r -= p.intra
	if r < p.interRounds() {
		if l.local[rank] != 0 {
			return -1
		}
		if q := p.inter.Partner(r, l.host[rank]); q >= 0 {
			return l.members[q][0]
		}
		return -1
	}
	r -= p.interRounds()
	if rank != p.self {
		panic("scopePlan: sample partner asked for another rank")
	}
	if q, ok := p.mine[r]; ok {
		return q
	}
	return -1
}

// NumPairs is how many pairs the plan measures.
func (p *scopePlan) NumPairs() int {
	h := len(p.l.members)
	return p.offsets[h] + h*(h-1)/2 + len(p.sample)
}

// PairOf is the plan's k-th pair (0 <= k < NumPairs): node 0's pairs in
// (0,1), (0,2) ... order, node 1's ..., then the leader pairs, then the
// sample.
func (p *scopePlan) PairOf(k int) schedule.Pair {
	nh := len(p.l.members)
	if k < p.offsets[nh] {
		h := sort.Search(nh, func(h int) bool { return p.offsets[h+1] > k })
		m := p.l.members[h]
		q := schedule.PairAt(len(m), k-p.offsets[h])
		return schedule.Pair{A: m[q.A], B: m[q.B]}
	}
	k -= p.offsets[nh]
	if k < nh*(nh-1)/2 {
		q := schedule.PairAt(nh, k)
		return schedule.Pair{A: p.l.members[q.A][0], B: p.l.members[q.B][0]}
	}
	return p.sample[k-nh*(nh-1)/2]
}

// peers lists the ranks above self that self measures with, increasing.
func (p *scopePlan) peers() []int {
	out := []int{} // not nil: nil means every rank above (scope all)
	l := p.l
	m := l.members[l.host[p.self]]
	for _, r := range m[l.local[p.self]+1:] {
		out = append(out, r)
	}
	if l.local[p.self] == 0 {
		for _, o := range l.members[l.host[p.self]+1:] {
			out = append(out, o[0])
		}
	}
	for _, q := range p.mine {
		if q > p.self {
			out = append(out, q)
		}
	}
	sort.Ints(out)
	return out
}

// samplePairs draws, with a fixed seed so every rank draws the same, k
// cross-node pairs for each node: one of its ranks and a rank of another
// node, leader pairs (measured anyway) and repeats left out. It returns
// them with A < B.
func samplePairs(l nodeLayout, k int) []schedule.Pair {
	nh := len(l.members)
	if nh < 2 {
		return nil
	}
	rng := rand.New(rand.NewPCG(schedule.Seed, uint64(len(l.host))*31+uint64(k)))
	seen := map[schedule.Pair]bool{}
	var out []schedule.Pair
	for h, m := range l.members {
		for tries, got := 0, 0; got < k && tries < 4*k; tries++ {
			o := rng.IntN(nh - 1)
			if o >= h {
				o++
			}
			om := l.members[o]
			a, b := m[rng.IntN(len(m))], om[rng.IntN(len(om))]
			q := schedule.Pair{A: min(a, b), B: max(a, b)}
			if seen[q] || (l.local[a] == 0 && l.local[b] == 0) {
				continue
			}
			seen[q] = true
			out = append(out, q)
			got++
		}
	}
	return out
}

// scopeSeqPlan measures a scope's pairs one at a time, in PairOf order
// (the sequential schedule).
type scopeSeqPlan struct{ p *scopePlan }

func (s scopeSeqPlan) Rounds() int { return s.p.NumPairs() }

func (s scopeSeqPlan) Partner(k, rank int) int {
	return s.p.PairOf(k).Other(rank)
}

func (s scopeSeqPlan) PairOfRound(k int) schedule.Pair { return s.p.PairOf(k) }

// scopeIsolation samples a scope plan's pairs for the isolation
// re-measurement as IsolationSample does.
func scopeIsolation(p *scopePlan, n int, frac float64) []schedule.Pair {
	return schedule.IsolationPairs(p.NumPairs(), n, frac, uint64(n)+1, p.PairOf)
}

// checkSample compares each sampled cross-node pair's median round trip at
// the smallest size with its nodes' leader pair, records the comparison in
// meta.json and warns when a pair is off by more than
// survey.ScopeCheckRatio: then a node's leader does not speak for all its
// ranks, and the filled pairs are wrong.
func checkSample(s *survey.Survey, sample []schedule.Pair) {
	if len(sample) == 0 {
		return
	}
	lead := survey.Leaders(s.Ranks)
	t := s.Tables[0]
	var ratios []float64
	chk := &survey.ScopeCheck{}
	for _, q := range sample {
		v, l := t.At(survey.Median, q.A, q.B), t.At(survey.Median, lead[q.A], lead[q.B])
		if !(v > 0) || !(l > 0) {
			continue
		}
		x := v / l
		ratios = append(ratios, x)
		chk.MaxRatio = max(chk.MaxRatio, x, 1/x)
		if x > survey.ScopeCheckRatio || x < 1/survey.ScopeCheckRatio {
			chk.Off = append(chk.Off, fmt.Sprintf("%d-%d: %.2f", q.A, q.B, x))
		}
	}
	if len(ratios) == 0 {
		return
	}
	chk.Pairs, chk.MedianRatio = len(ratios), stats.Median(ratios)
	s.Meta.ScopeCheck = chk
	if len(chk.Off) > 0 {
		s.Meta.Warnings = append(s.Meta.Warnings, fmt.Sprintf(
			"%d of %d sampled cross-node pairs differ from their nodes' leader pair by more than %.1fx (%s): "+
				"the leaders do not speak for every rank of their node, so the pairs filled from them are off; survey those nodes with --scope all",
			len(chk.Off), len(ratios), survey.ScopeCheckRatio, strings.Join(firstN(chk.Off, 5), ", ")))
	}
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "...")
	}
	return s
}

// RoundsOf is the rounds schedule of a survey of ranks on hosts (a host
// name per rank) with scope all or nodes, as latmap survey runs it:
// partners[round][rank] is the rank's partner in the round, -1 when it
// sits out. It lets a driver outside latmap (the survey's measuring core
// inside a simulator, testdata/sim/simsurvey.c) measure the same pairs in
// the same concurrent rounds.
func RoundsOf(hosts []string, scope string) ([][]int, error) {
	n := len(hosts)
	var plan schedule.Plan
	switch scope {
	case survey.ScopeAll:
		plan = schedule.CirclePlan{N: n}
	case survey.ScopeNodes:
		plan = newScopePlan(newNodeLayout(hosts), 0, 0)
	default:
		return nil, fmt.Errorf("rounds of scope %q: want %s or %s", scope, survey.ScopeAll, survey.ScopeNodes)
	}
	out := make([][]int, plan.Rounds())
	for r := range out {
		out[r] = make([]int, n)
		for k := range out[r] {
			out[r][k] = plan.Partner(r, k)
		}
	}
	return out, nil
}

// IsolationOf is the isolation sample latmap survey re-measures after the
// rounds of scope (all or nodes) for ranks on hosts, each pair alone, with
// the fraction frac (Options.IsolatedFraction).
func IsolationOf(hosts []string, scope string, frac float64) ([]schedule.Pair, error) {
	n := len(hosts)
	switch scope {
	case survey.ScopeAll:
		return schedule.IsolationSample(n, frac), nil
	case survey.ScopeNodes:
		return scopeIsolation(newScopePlan(newNodeLayout(hosts), 0, 0), n, frac), nil
	}
	return nil, fmt.Errorf("isolation sample of scope %q: want %s or %s", scope, survey.ScopeAll, survey.ScopeNodes)
}
