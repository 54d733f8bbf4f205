package solve

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/placement/model"
	"github.com/latmap/latmap/placement/qap"
)

// Options tune Solve.
type Options struct {
	// Seed makes the randomised trials reproducible.
	Seed uint64
	// Trials is the number of multilevel constructions (trial 0 visits
	// ranks in index order, the others in seeded random orders); default 3.
	Trials int
	// Workers run trials in parallel (default GOMAXPROCS).
	Workers int
	// MaxPasses bounds the pair-swap refinement passes (default 30).
	MaxPasses int
	// Refine is how many of the best starts (multilevel trials, tree
	// constructions, block, cyclic, the given ones) get refined (default
	// 2, those within RefineMargin of the best) above refineFourRanks
	// ranks; up to it, the four best are, and every start up to
	// refineAllRanks.
	Refine int
	// Descent bounds the exchanges priced while lowering the slowest
	// rank (default 4 per rank + 1000).
	Descent int
	// Collectives is each rank's time at small collectives in a
	// placement (their rounds' latencies, model.Predict's; nil: none).
	// The search leaves it out; the candidates are compared with it.
	Collectives func(place []int32) []float64
}

func (opt *Options) defaults(n int) {
	if opt.Trials <= 0 {
		opt.Trials = 3
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if opt.MaxPasses <= 0 {
		opt.MaxPasses = 30
	}
	if opt.Refine <= 0 {
		opt.Refine = 2
	}
	if opt.Descent <= 0 {
		opt.Descent = 4*n + 1000
	}
}

// Candidate is one placement the solver considered (as the advice
// records it).
type Candidate = placefile.Candidate

// CurrentStart names the start that is the placement the application
// runs under today: a proposal that does not beat it is that placement.
const CurrentStart = "current"

// Start is a placement the solver must consider: it is a candidate as it
// is, and a start for refinement.
type Start struct {
	Name  string
	Place []int32
}

// Solution is the solver's proposal.
type Solution struct {
	// Place maps each rank to a machine slot.
	Place []int32
	// Cost is the proposal's summed pairwise transfer time (s), Run its
	// predicted run (s).
	Cost, Run float64
	// Block and Cyclic are the baselines' costs on the same slots.
	Block, Cyclic float64
	// Winner names the candidate that won.
	Winner string
	// FellBack is true when no constructed or refined candidate beat the
	// best baseline (block, cyclic or a given start), which was returned.
	FellBack   bool
	Candidates []Candidate
	// Note says why the solver did not search, when it did not.
	Note string
}

// Pairwise proposes a placement of t's ranks on the given slots with the
// pairwise model and no fixed times: the smallest largest per-rank
// transfer, then the smallest total (see Solve).
func Pairwise(m *model.Machine, t *model.Traffic, slots []int32, opt Options) (*Solution, error) {
	return Solve(model.Pairwise(m), t, nil, slots, nil, opt)
}

// Solve proposes a placement of t's ranks on the given slots (exactly t.N
// of them, from SelectSlots) minimising the predicted run: the slowest
// rank's fixed time (base, nil for none) plus its modelled communication,
// with the summed pairwise transfer as the tie-break. It builds placements
// level by level: a multilevel partition of the communication graph into
// node-sized parts (heavy-edge-matching coarsening, greedy graph growing,
// refinement), then within each node a partition into sockets. The best
// starts (these, block, cyclic and the given starts) are refined by pair
// swaps that lower the total without raising the slowest rank, then by
// exchanges of the slowest rank (or its node's ranks) that lower it. Every
// start is also a candidate as it is, so the proposal is never predicted
// worse than any of them (on a routed network the candidates are
// compared by their prediction, and with opt.Collectives by their runs
// with each one's small collectives, see predictRouted); and a proposal
// predicted less than WorthIt faster than the current placement (the
// start named CurrentStart, else block) is that placement.
func Solve(md *model.Model, t *model.Traffic, base []float64, slots []int32, starts []Start, opt Options) (*Solution, error) {
	if len(slots) != t.N {
		return nil, fmt.Errorf("%d slots for %d ranks", len(slots), t.N)
	}
	for _, s := range starts {
		if len(s.Place) != t.N {
			return nil, fmt.Errorf("start %s places %d ranks, the traffic has %d", s.Name, len(s.Place), t.N)
		}
	}
	opt.defaults(t.N)
	// Where every rank is alike, a placement's objective depends only on
	// the slots it uses: constructing and refining on the same slots is
	// search for nothing (7 of the 8.6 s of place on an all-to-all of
	// 1,024 ranks).
	search := !alike(t, base)
	if !search {
		opt.Trials = 0
	}
	block := model.Block(slots, t.N)
	starts = append([]Start{{"block", block}, {"cyclic", md.Cyclic(slots, t.N)}}, starts...)
	cands, places, blk := buildStarts(md, t, base, slots, starts, opt, search)
	if search {
		cands, places = refineBest(md, t, base, cands, places, opt)
	}
	obj := func(i int) model.Objective { return model.Objective{Run: cands[i].Run, Transfer: cands[i].Cost} }
	bestOf := func() int {
		best := 0
		for i := range cands {
			if clearlyBetter(obj(i), obj(best)) {
				best = i
			}
		}
		return best
	}
	best := bestOf()
	if md.Routes != nil || opt.Collectives != nil {
		byBound := best
		predictRouted(md, t, base, cands, places, opt)
		if best = bestOf(); cands[best].Run > (1-WorthIt)*cands[byBound].Run {
			best = byBound
		}
	}
	// A tie keeps what runs today: the start named "current" when given,
	// else block (what a launcher does by default).
	keep := blk
	if i := slices.IndexFunc(cands, func(c Candidate) bool { return c.Name == CurrentStart }); i >= 0 {
		keep = i
	}
	// A proposal that does not beat what runs today by WorthIt is what
	// runs today: on a simulated 4:1 fat tree two proposals predicted
	// within 1.1% of the current placement (one a tie moved on 2% less
	// summed transfer) ran 11-12% slower.
	if !obj(best).Better(obj(keep)) || cands[best].Run > (1-WorthIt)*cands[keep].Run {
		best = keep
	}
	sol := &Solution{Candidates: cands, Place: places[best], Cost: cands[best].Cost, Run: cands[best].Run, Winner: cands[best].Name,
		FellBack: !cands[best].Refined && !constructed(cands[best].Name)}
	sol.Block, sol.Cyclic = cands[blk].Cost, cands[blk+1].Cost
	if !search {
		sol.Note = NoteAlike
	}
	return sol, nil
}

// predictRouted sets every candidate's run to its prediction, which
// shares a routed network's links flow by flow, where the evaluator the
// search descends on bounds it from below. The verdict's margin is taken
// on predictions: on a simulated two-group dragonfly a proposal bound at
// 20% less than block was predicted 0.5% less, and ran 1% longer. Solve
// keeps the best candidate by the bound unless another is predicted
// WorthIt faster: chosen by the prediction alone, 27 of 180 proposals
// on ten simulated networks of 64 ranks changed and 9 ran slower (up to
// 5.6%, all six changes on two tori among them); with the margin 17
// changed, 13 ran faster (up to 10.3%), 4 slower (up to 2.1%).
//
// With opt.Collectives each candidate's fixed times include its small
// collectives, which the search leaves out, and the same margin holds:
// a candidate whose collectives' rounds cross fewer slow links wins
// only WorthIt faster.
func predictRouted(md *model.Model, t *model.Traffic, base []float64, cands []Candidate, places [][]int32, opt Options) {
	// Candidates that are one placement (block and cyclic with a slot a
	// node, starts refined to the same optimum) are predicted once.
	var uniq []int
	same := make([]int, len(cands))
	for i := range cands {
		same[i] = slices.IndexFunc(uniq, func(j int) bool { return slices.Equal(places[j], places[i]) })
		if same[i] < 0 {
			same[i] = len(uniq)
			uniq = append(uniq, i)
		}
	}
	runs := make([]float64, len(uniq))
	parallel(opt.Workers, len(uniq), func(x int) {
		i := uniq[x]
		b := base
		if opt.Collectives != nil {
			b = slices.Clone(opt.Collectives(places[i]))
			for r := range b {
				if r < len(base) {
					b[r] += base[r]
				}
			}
		}
		runs[x] = model.PredictedRun(md, t, places[i], b)
	})
	for i := range cands {
		cands[i].Run = runs[same[i]]
	}
}

// transferTie is the fraction of summed transfer below which two
// candidates of the same predicted run are a tie, kept by the earlier
// (the constructions in a fixed order, then the starts). On the
// simulated 16 x 4 fat tree, four constructions of the halo's proposal
// were predicted alike and their transfers 0.002% apart: which one won
// changed with the constructions tried (simulated 1.14x or 1.07x over
// block), a choice the model cannot make.
const transferTie = 1e-3

// clearlyBetter reports whether a beats b by more than a tie: a shorter
// run (model.Objective.Better's), or the same run and transferTie less
// summed transfer.
func clearlyBetter(a, b model.Objective) bool {
	if b.Better(a) || !a.Better(b) {
		return false
	}
	if (model.Objective{Run: a.Run}).Better(model.Objective{Run: b.Run}) {
		return true
	}
	return a.Transfer < (1-transferTie)*b.Transfer
}

// NoteAlike is Solution.Note when every rank is alike (see alike).
const NoteAlike = "every rank exchanges the same traffic with every other (an all-to-all of equal messages) and has the same fixed time, so every placement on the same slots is predicted the same: only the starts were priced, nothing searched"

// alike reports whether every rank is like every other to the model:
// the same traffic (messages and bytes, both ways) with every other rank
// and the same fixed time (an all-to-all of equal messages). Exchanging
// two ranks then leaves every slot's load as it was, so every placement
// on the same slots has the same predicted run and transfer.
func alike(t *model.Traffic, base []float64) bool {
	if t.N < 2 || len(t.Adj) != t.N*(t.N-1) {
		return false
	}
	for e := range t.Adj {
		if t.Msgs[e] != t.Msgs[0] || t.Bytes[e] != t.Bytes[0] || t.Out[e] != t.Out[0] ||
			t.BusyMsgs[e] != t.BusyMsgs[0] || t.BusyBytes[e] != t.BusyBytes[0] {
			return false
		}
	}
	for _, b := range base {
		if b != base[0] {
			return false
		}
	}
	return true
}

// buildStarts builds the multilevel trials in parallel (and the tree
// constructions, when search) and prices them with the given starts:
// the candidates, trials first, and the index of the first start.
func buildStarts(md *model.Model, t *model.Traffic, base []float64, slots []int32, starts []Start, opt Options, search bool) ([]Candidate, [][]int32, int) {
	type job struct {
		name  string
		build func() []int32
	}
	var jobs []job
	for tr := 0; tr < opt.Trials; tr++ {
		tr := tr
		name := "multilevel (index order)"
		if tr > 0 {
			name = fmt.Sprintf("multilevel (random order %d)", tr)
		}
		jobs = append(jobs, job{name, func() []int32 {
			var rng *rand.Rand
			if tr > 0 {
				rng = rand.New(rand.NewPCG(opt.Seed, uint64(tr)))
			}
			return construct(md.Machine, t, slots, matching{rng: rng})
		}})
	}
	first := len(jobs)
	for _, s := range starts {
		s := s
		jobs = append(jobs, job{s.Name, func() []int32 { return append([]int32(nil), s.Place...) }})
	}
	if search && len(md.NetGroups) > 0 {
		// Down the switch levels, outermost first (index order, its
		// ties to the last, and below maxKickRanks ranks one seeded
		// order). Coarsened with ties to the last neighbour, a grid
		// pairs its last dimension first: of two tilings that cut as
		// much, the one whose parts all touch the grid's edge loads the
		// busiest node least (the 1,024-rank stencil of make
		// bench-place, 9% faster; in the multilevel construction it
		// never won there). From 4,096 ranks, where place must stay
		// faster than scotch_gmap, a third tree took place on the 16^3
		// stencils from 0.14-0.16 s to 0.16-0.19 s (scotch_gmap
		// 0.16-0.19 s, alternating runs). Without the seeded one the
		// 4,096-rank random sparse graph's proposal is predicted 1.7%
		// slower (0.4609 s against 0.4530; KaHIP's mapping 0.4620).
		trees := []struct {
			name string
			how  matching
		}{
			{"tree (index order)", matching{}},
			{"tree (index order, ties to the last)", matching{last: true}},
			{"tree (random order)", matching{rng: rand.New(rand.NewPCG(opt.Seed, 1<<20))}},
		}
		if t.N >= maxKickRanks {
			trees = trees[:2]
		}
		for _, tr := range trees {
			jobs = append(jobs, job{tr.name, func() []int32 { return constructTree(md.Machine, t, slots, tr.how) }})
		}
	}
	places := make([][]int32, len(jobs))
	cands := make([]Candidate, len(jobs))
	parallel(opt.Workers, len(jobs), func(i int) {
		places[i] = jobs[i].build()
		o := model.NewEvaluator(md, t, base, places[i]).Objective()
		cands[i] = Candidate{Name: jobs[i].name, Cost: o.Transfer, Run: o.Run}
	})
	return cands, places, first
}

// refineBest refines every start up to refineAllRanks ranks, the four
// best up to refineFourRanks, and above, the opt.Refine best that are
// within RefineMargin of the best; each refined placement is a new
// candidate, the start stays one as it is.
func refineBest(md *model.Model, t *model.Traffic, base []float64, cands []Candidate, places [][]int32, opt Options) ([]Candidate, [][]int32) {
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	obj := func(i int) model.Objective { return model.Objective{Run: cands[i].Run, Transfer: cands[i].Cost} }
	sort.SliceStable(order, func(x, y int) bool { return obj(order[x]).Better(obj(order[y])) })
	var pick []int
	switch top := obj(order[0]); {
	case t.N <= refineAllRanks:
		pick = order
	case t.N <= refineFourRanks:
		pick = order[:min(4, len(order))]
	default:
		for _, i := range order[:min(opt.Refine, len(order))] {
			if o := obj(i); o.Run <= (1+RefineMargin)*top.Run && o.Transfer <= (1+RefineMargin)*top.Transfer {
				pick = append(pick, i)
			}
		}
	}
	refined := make([]Candidate, len(pick))
	placed := make([][]int32, len(pick))
	parallel(opt.Workers, len(pick), func(x int) {
		i := pick[x]
		p := append([]int32(nil), places[i]...)
		swaps, o := refine(md, t, base, p, opt, max(1, opt.Workers/len(pick)), uint64(x))
		refined[x] = Candidate{Name: cands[i].Name, Cost: o.Transfer, Run: o.Run, Refined: true, Swaps: swaps}
		placed[x] = p
	})
	for x, i := range pick {
		// A multilevel start is replaced by its refinement (it is not a
		// baseline anyone asked for); a baseline stays, refined beside it.
		if constructed(cands[i].Name) {
			cands[i], places[i] = refined[x], placed[x]
			continue
		}
		refined[x].Name += ", refined"
		cands = append(cands, refined[x])
		places = append(places, placed[x])
	}
	return cands, places
}

// constructed reports whether a candidate is one of the solver's own
// constructions (not a baseline or a given start).
func constructed(name string) bool {
	return strings.HasPrefix(name, "multilevel") || strings.HasPrefix(name, "tree")
}

// refineAllRanks is the job size up to which every start is refined
// (neither Options.Refine nor RefineMargin applies): on a
// four-level machine of 64 ranks, GROMACS's best start (0.117 s
// predicted) refined to 0.0996 s while another start, 14% slower before
// refinement, refined to 0.0863 s, and which one was best depended on
// the seed. At 512 ranks refining every start took 3x as long (2.5 s
// against 0.8 s for a random sparse graph, 0.54 s against 0.16 s for a
// stencil) and found the same proposals.
const refineAllRanks = 128

// refineFourRanks is the job size up to which the four best starts are
// refined, however far above the best: on simulated dragonflies of 144
// and 200 ranks the open halo's best refinement came from the third best
// start (its bound 0.215 s, 0.4% above the best's, refined to 0.167 s;
// the two best to 0.214 and 0.185 s) and from the second (25% above the
// best, refined to 0.135 s; the best stayed at 0.144 s), which the two
// best within RefineMargin missed. At 1,024 ranks on a routed dragonfly
// four took place 2.4 times as long (18.5 s against 7.8 s) and found the
// same proposal.
const refineFourRanks = 512

// RefineMargin: above refineFourRanks ranks, starts whose run or total is
// more than this fraction above the best start's are not refined.
const RefineMargin = 0.10

// WorthIt is the smallest predicted gain (a fraction of the run of what
// runs today) for which a proposal replaces the current placement, a
// chosen policy: below 2% a rerun's noise on a shared cluster is as
// large as the gain, and the model's unpriced effects larger. place's
// verdict uses the same margin.
const WorthIt = 0.02

// parallel runs fn(0..n-1) on up to workers goroutines.
func parallel(workers, n int, fn func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

// levelGap is the weight of cutting traffic between level inner and
// outer: what it costs more to send it over the outer level.
func levelGap(outer, inner model.LinkCost) func(t *model.Traffic, e int32) float64 {
	return func(t *model.Traffic, e int32) float64 {
		return math.Max(0, outer.Cost(t.Msgs[e], t.Bytes[e])-inner.Cost(t.Msgs[e], t.Bytes[e]))
	}
}

// nodeGap is what rank pairs' traffic costs more between two nodes (its
// busier direction on outer) than on one node (both directions on inner):
// model.Machine.EdgeCost's two prices.
func nodeGap(outer, inner model.LinkCost) func(t *model.Traffic, e int32) float64 {
	return func(t *model.Traffic, e int32) float64 {
		return math.Max(0, outer.Cost(t.BusyMsgs[e], t.BusyBytes[e])-inner.Cost(t.Msgs[e], t.Bytes[e]))
	}
}

// construct builds a placement level by level: ranks to nodes, then to
// sockets, then to cores in order.
func construct(m *model.Machine, t *model.Traffic, slots []int32, how matching) []int32 {
	nodes := m.NodeGroups(slots)
	caps := make([]int, len(nodes))
	for i, g := range nodes {
		caps[i] = len(g)
	}
	intra := m.Levels[model.SameNode]
	if intra == (model.LinkCost{}) {
		intra = m.Levels[model.SameSocket]
	}
	g := fullGraph(t, nodeGap(m.Levels[model.Network], intra))
	part := partition(g, caps, how)
	members := make([][]int32, len(nodes))
	for r, p := range part {
		members[p] = append(members[p], int32(r))
	}
	if perm := mapPartsToNodes(m, t, part, nodes); perm != nil {
		moved := make([][]int32, len(nodes))
		for p, x := range perm {
			moved[x] = members[p]
		}
		members = moved
	}
	place := make([]int32, t.N)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for p := range nodes {
		wg.Add(1)
		sem <- struct{}{}
		go func(p int) {
			defer wg.Done()
			defer func() { <-sem }()
			placeInNode(m, t, members[p], nodes[p], place)
		}(p)
	}
	wg.Wait()
	return place
}

// MaxNodeQAP is the largest number of nodes whose inter-node distances the
// solver takes into account when it maps parts to nodes.
const MaxNodeQAP = 128

// lightQAPNodes is the node count above which the parts-to-nodes QAP
// makes one restart of 2 iterations instead of 2 of 8: on four-level
// machines of 1,024 and 4,096 ranks (64 nodes) the search took 85% of
// place (0.54 s of 0.62 at 4,096 ranks) and the lighter one led to the
// same proposals in a third of the time (make bench-place). On such
// machines of switch levels it is now not made at all above it (see
// mapPartsToNodes); the lighter search is for machines whose node pairs
// differ otherwise (a routed network).
const lightQAPNodes = 32

// mapPartsToNodes decides which node each part of the node-level
// partition goes to when the survey measured different costs between
// different node pairs (for example nodes behind different switches): a
// QAP over the parts' traffic and the mean node-to-node costs, solved by
// local search from the identity. It returns nil when there is nothing to
// gain (level costs, fewer than 3 nodes, unequal node sizes, or more than
// MaxNodeQAP nodes), and on a machine of switch levels above
// lightQAPNodes nodes: there the tree constructions map parts down the
// levels, and the QAP took a third of place at 4,096 ranks (64 nodes)
// for the same proposals or worse (make bench-place: the 1,024-rank
// 8 KiB stencil 0.00914 s without it, 0.00987 s with it).
func mapPartsToNodes(m *model.Machine, t *model.Traffic, part []int32, nodes [][]int32) []int {
	k := len(nodes)
	if !m.PerPair() || k < 3 || k > MaxNodeQAP || len(m.NetGroups) > 0 && k > lightQAPNodes {
		return nil
	}
	for _, n := range nodes {
		if len(n) != len(nodes[0]) {
			return nil
		}
	}
	qm, qb := make([]float64, k*k), make([]float64, k*k)
	for i := 0; i < t.N; i++ {
		for e := t.Start[i]; e < t.Start[i+1]; e++ {
			if p, q := part[i], part[t.Adj[e]]; p != q {
				qm[int(p)*k+int(q)] += t.BusyMsgs[e]
				qb[int(p)*k+int(q)] += t.BusyBytes[e]
			}
		}
	}
	lat, ib := make([]float64, k*k), make([]float64, k*k)
	for x := 0; x < k; x++ {
		for y := x + 1; y < k; y++ {
			// The mean over (at most nodeSample x nodeSample) slot pairs;
			// one pair says it when the machine prices node pairs.
			sl, sb := 0.0, 0.0
			sample := nodeSample
			if m.NodeUniform() {
				sample = 1
			}
			xs, ys := nodes[x][:min(sample, len(nodes[x]))], nodes[y][:min(sample, len(nodes[y]))]
			for _, a := range xs {
				for _, b := range ys {
					c := m.Link(int(a), int(b))
					sl += c.Latency
					sb += c.InvBandwidth
				}
			}
			pairs := float64(len(xs) * len(ys))
			lat[x*k+y], lat[y*k+x] = sl/pairs, sl/pairs
			ib[x*k+y], ib[y*k+x] = sb/pairs, sb/pairs
		}
	}
	if uniformOffDiagonal(lat, k) && uniformOffDiagonal(ib, k) {
		return nil // every node pair costs the same: nothing to map
	}
	q := &qap.Problem{N: k, Terms: []qap.Term{{A: qm, B: lat}, {A: qb, B: ib}}}
	ident := make([]int, k)
	for i := range ident {
		ident[i] = i
	}
	opt := qap.Options{Restarts: 2, Iterations: 8, Seed: 1, Workers: 1, Start: ident}
	if k > lightQAPNodes {
		opt.Restarts, opt.Iterations = 1, 2
	}
	perm, cost := qap.Solve(q, opt)
	if cost >= q.Cost(ident) {
		return nil
	}
	return perm
}

// nodeSample is how many slots of each node price a node pair.
const nodeSample = 16

// NodeCostSpread: node-to-node costs within this fraction of each other are
// taken as equal (measurement noise, not switches).
const NodeCostSpread = 0.05

// uniformOffDiagonal reports whether the off-diagonal entries of the k x k
// matrix c lie within NodeCostSpread of each other.
func uniformOffDiagonal(c []float64, k int) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for x := 0; x < k; x++ {
		for y := 0; y < k; y++ {
			if x != y {
				lo, hi = math.Min(lo, c[x*k+y]), math.Max(hi, c[x*k+y])
			}
		}
	}
	return hi-lo <= NodeCostSpread*hi
}

// placeInNode assigns ranks to one node's slots: partitioned into sockets
// when the node has several, then in rank order onto cpus in order.
func placeInNode(m *model.Machine, t *model.Traffic, ranks []int32, slots []int32, place []int32) {
	socks := m.SocketGroups(slots)
	if len(socks) <= 1 || len(ranks) <= 1 {
		for i, r := range ranks {
			place[r] = slots[i]
		}
		return
	}
	caps := make([]int, len(socks))
	for i, s := range socks {
		caps[i] = len(s)
	}
	sub := subgraph(t, ranks, levelGap(m.Levels[model.SameNode], m.Levels[model.SameSocket]))
	sp := partition(sub, caps, matching{})
	next := make([]int, len(socks))
	for i, r := range ranks {
		s := sp[i]
		place[r] = socks[s][next[s]]
		next[s]++
	}
}

// refine improves place in two steps: pair swaps that lower the summed
// transfer without raising the slowest rank (refineSwaps, pricing on up to
// workers goroutines), then exchanges that lower the slowest rank
// (descend), and where nodes differ, kicks (kick) drawn from the random
// stream kickStream+stream of the seed: refineBest gives each start its
// own. It returns the number of swaps and the placement's objective.
func refine(md *model.Model, t *model.Traffic, base []float64, place []int32, opt Options, workers int, stream uint64) (int, model.Objective) {
	sw := newSwapper(md, t, base, place, workers)
	n := sw.refineSwaps(opt.MaxPasses)
	// Descend, then move whole nodes, while that improves the objective.
	// Nodes differ in where they sit only above the node (switch groups,
	// a routed network): elsewhere moving a node whole changes nothing.
	nodesDiffer := len(md.NetGroups) > 0 || md.Routes != nil
	for round := 0; round < maxRounds; round++ {
		before := sw.ev.Objective()
		n += sw.descend(opt.Descent)
		if !nodesDiffer {
			break
		}
		n += sw.exchangeNodes(4 * len(md.Hosts))
		// Where that stalls, whole switch groups (one exchange moves
		// many nodes' ranks, so it is tried last).
		if !sw.ev.Objective().Better(before) {
			g := sw.exchangeGroups(4 * len(md.Hosts))
			if g == 0 {
				break
			}
			n += g
		}
	}
	if nodesDiffer {
		n += sw.kick(kicks(t.N), opt.Descent, rand.New(rand.NewPCG(opt.Seed, kickStream+stream)))
	}
	return n, sw.ev.Objective()
}

// refineSwaps improves the placement by exchanging pairs of ranks. A rank
// is tried against the ranks of the (up to three) node or socket groups it
// sends the most modelled cost to; the change of the summed transfer is
// computed from the two ranks' neighbours only (O(degree)), and the best
// exchange is kept when it does not make the slowest rank slower. Ranks
// whose neighbourhood changed are revisited; at most maxPasses sweeps. It
// returns the number of swaps.
//
// The sweep visits ranks in index order, one at a time, but prices them
// ahead in batches on the swapper's workers: each batch is priced against
// the placement as it stands, and used up to its first swap (after which
// the placement differs from the one priced). The batch doubles while no
// swap comes and shrinks to twice the ranks used when one does, so the
// swaps and the result are those of pricing one rank at a time.
func (sw *swapper) refineSwaps(maxPasses int) int {
	t := sw.t
	active := make([]bool, t.N)
	for i := range active {
		active[i] = true
	}
	swaps, batch := 0, 2
	var todo, best []int32
	for pass := 0; pass < maxPasses; pass++ {
		improved := 0
		for i := int32(0); i < int32(t.N); {
			todo = todo[:0]
			next := i
			for ; next < int32(t.N) && len(todo) < batch; next++ {
				if active[next] {
					todo = append(todo, next)
				}
			}
			best = sw.priceAll(todo, best)
			used := len(todo)
			for x, r := range todo {
				active[r] = false
				j := best[x]
				if j < 0 || !sw.swapUnlessSlower(r, j) {
					continue
				}
				swaps++
				improved++
				for _, u := range [2]int32{r, j} {
					active[u] = true
					for e := t.Start[u]; e < t.Start[u+1]; e++ {
						active[t.Adj[e]] = true
					}
				}
				used, next = x+1, r+1
				break
			}
			if used == len(todo) {
				batch = min(2*batch, maxBatch)
			} else {
				batch = max(2, 2*used)
			}
			i = next
		}
		if improved == 0 {
			break
		}
	}
	return swaps
}

// maxBatch bounds the ranks refineSwaps prices ahead.
const maxBatch = 1024

// priceAll is each rank's bestPartner in todo (into best, reused), on the
// swapper's workers when there are enough ranks to share.
func (sw *swapper) priceAll(todo, best []int32) []int32 {
	best = slices.Grow(best[:0], len(todo))[:len(todo)]
	w := min(len(sw.scratch), len(todo)/minShare)
	if w <= 1 {
		for x, r := range todo {
			best[x] = sw.bestPartner(r, &sw.scratch[0])
		}
		return best
	}
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			for x := k; x < len(todo); x += w {
				best[x] = sw.bestPartner(todo[x], &sw.scratch[k])
			}
		}(k)
	}
	wg.Wait()
	return best
}

// minShare is the fewest ranks per worker worth a goroutine.
const minShare = 8

// swapUnlessSlower exchanges ranks i and j unless that makes the slowest
// rank slower, and reports whether it did.
func (sw *swapper) swapUnlessSlower(i, j int32) bool {
	before := sw.ev.MaxRun()
	sw.swap(i, j)
	if after := sw.ev.MaxRun(); after > before+model.ObjEps*before {
		sw.swap(i, j)
		return false
	}
	return true
}

// descend lowers the predicted run: it prices exchanging the slowest rank
// (and, when its node's link or memory sets its time, the other ranks of
// that node with the most traffic) with the ranks of the groups it talks
// to most, keeps the best exchange that improves the objective, and
// repeats until none does or budget exchanges were priced. It returns the
// number of swaps.
func (sw *swapper) descend(budget int) int {
	ev := sw.ev
	swaps := 0
	for budget > 0 {
		cur := ev.Objective()
		c := ev.Critical()
		if c < 0 {
			break
		}
		if comm, _ := ev.Comm(c); comm == 0 {
			break // the slowest rank does not communicate
		}
		bi, bj, best := int32(-1), int32(-1), cur
		for _, u := range sw.movers(c) {
			for _, g := range sw.candidateGroups(u, &sw.scratch[0]) {
				for _, s := range sw.groups[g.g] {
					j := sw.slotRank[s]
					if j < 0 || j == u {
						continue
					}
					budget--
					if o := ev.Try(u, j); o.Better(best) {
						bi, bj, best = u, j, o
					}
				}
			}
			if bi >= 0 {
				break
			}
		}
		if bi < 0 {
			break
		}
		sw.swap(bi, bj)
		swaps++
	}
	return swaps
}

// maxMovers is how many ranks of the slowest rank's node descend tries
// when the node's link or memory sets that rank's time.
const maxMovers = 8

// movers is the slowest rank c, then, when its node sets its time, the
// other ranks of its node with the most pairwise transfer time.
func (sw *swapper) movers(c int32) []int32 {
	ev := sw.ev
	out := []int32{c}
	if _, bound := ev.Comm(c); !bound {
		return out
	}
	others := append([]int32(nil), ev.Members(ev.Node(c))...)
	sort.Slice(others, func(x, y int) bool {
		a, b := others[x], others[y]
		return ev.Pairwise(a) > ev.Pairwise(b)
	})
	for _, u := range others {
		if u != c && len(out) < maxMovers {
			out = append(out, u)
		}
	}
	return out
}

// swapper holds what refineSwaps needs to price exchanging two ranks: who
// sits on each slot, and the slots grouped by node and by (node, socket).
type swapper struct {
	m         *model.Machine
	ev        *model.Evaluator
	t         *model.Traffic
	place     []int32 // rank -> slot, changed by swap
	slotRank  []int32 // slot -> rank, -1 when free
	nodeGroup []int32 // slot -> its node's group
	sockGroup []int32 // slot -> its (node, socket) group
	groups    [][]int32
	// uniform[g]: every slot of group g costs the same for a rank outside
	// it (a level machine, and the group is a socket or a node whose slots
	// share a socket), so moving a rank there is priced once per group.
	uniform []bool
	// scratch holds one worker's scratch per worker (at least one).
	scratch []scratch
	// low is each rank's least possible pairwise time: its traffic priced
	// at the machine's MinLink. A rank whose pairwise time is within s of
	// low cannot gain more than s by moving, which lets bestPartner skip
	// the exchanges that cannot beat the best one found.
	low []float64
	// minLink is the machine's MinLink, nodeUniform its NodeUniform.
	minLink     model.LinkCost
	nodeUniform bool
	// kicked counts the exchanges made since a kick began (while
	// kicking).
	kicking bool
	kicked  int
}

// scratch is what one worker prices ranks with: candidateGroups' list,
// and mark[k] == i+1 when rank k is a neighbour of rank i (bestPartner's
// current rank).
type scratch struct {
	cand []groupWeight
	mark []int32
	on   []onEdge // prepareMove's edges
}

// groupWeight is a group of slots and the modelled cost a rank sends there.
type groupWeight struct {
	g int32
	w float64
}

// newSwapper prepares the exchanges of ranks among the slots of place,
// priced on up to workers goroutines.
func newSwapper(md *model.Model, t *model.Traffic, base []float64, place []int32, workers int) *swapper {
	m := md.Machine
	slots := append([]int32(nil), place...)
	sw := &swapper{m: m, ev: model.NewEvaluator(md, t, base, place), t: t, place: place, slotRank: make([]int32, len(m.Slots)),
		nodeGroup: make([]int32, len(m.Slots)), sockGroup: make([]int32, len(m.Slots))}
	for i := range sw.slotRank {
		sw.slotRank[i] = -1
	}
	for r, s := range place {
		sw.slotRank[s] = int32(r)
	}
	nodeID := map[[2]int]int32{}
	sockID := map[[2]int]int32{}
	group := func(ids map[[2]int]int32, k [2]int, s int32) int32 {
		g, ok := ids[k]
		if !ok {
			g = int32(len(sw.groups))
			ids[k] = g
			sw.groups = append(sw.groups, nil)
		}
		sw.groups[g] = append(sw.groups[g], s)
		return g
	}
	for _, s := range slots {
		sl := &m.Slots[s]
		sw.nodeGroup[s] = group(nodeID, [2]int{sl.Node, -1}, s)
		sw.sockGroup[s] = group(sockID, [2]int{sl.Node, sl.Socket}, s)
	}
	sw.minLink, sw.nodeUniform = m.MinLink(), m.NodeUniform()
	sw.low, sw.scratch = make([]float64, t.N), make([]scratch, max(workers, 1))
	for k := range sw.scratch {
		sw.scratch[k].mark = make([]int32, t.N)
	}
	for r := int32(0); r < int32(t.N); r++ {
		for e := t.Start[r]; e < t.Start[r+1]; e++ {
			sw.low[r] += sw.minLink.Cost(t.BusyMsgs[e], t.BusyBytes[e])
		}
	}
	sw.uniform = make([]bool, len(sw.groups))
	if !m.PerPair() {
		for g, sl := range sw.groups {
			sw.uniform[g] = true
			for _, s := range sl {
				sw.uniform[g] = sw.uniform[g] && m.Slots[s].Socket == m.Slots[sl[0]].Socket
			}
		}
	}
	return sw
}

// groupOf is the group of slot b as seen from slot a: b's node when they
// are on different nodes, b's socket when on different sockets, else -1.
func (sw *swapper) groupOf(a, b int32) int32 {
	sa, sb := &sw.m.Slots[a], &sw.m.Slots[b]
	if sa.Node != sb.Node {
		return sw.nodeGroup[b]
	}
	if sa.Socket != sb.Socket {
		return sw.sockGroup[b]
	}
	return -1
}

// moveGain is the change of rank i's costs if it sat on slot to, leaving
// out its traffic with rank skip, and the sum of the absolute costs (the
// scale against which a change counts as real).
func (sw *swapper) moveGain(i int32, to int32, skip int32) (float64, float64) {
	t, from := sw.t, sw.place[i]
	d, abs := 0.0, 0.0
	for e := t.Start[i]; e < t.Start[i+1]; e++ {
		k := t.Adj[e]
		if k == skip {
			continue
		}
		c := sw.place[k]
		x, y := sw.m.EdgeCost(to, c, t, e), sw.m.EdgeCost(from, c, t, e)
		d += x - y
		abs += x + y
	}
	return d, abs
}

// candidateGroups returns the (up to three) node or socket groups rank i
// sends the most modelled cost to, largest first.
func (sw *swapper) candidateGroups(i int32, sc *scratch) []groupWeight {
	t, a := sw.t, sw.place[i]
	cand := sc.cand[:0]
	for e := t.Start[i]; e < t.Start[i+1]; e++ {
		b := sw.place[t.Adj[e]]
		g := sw.groupOf(a, b)
		if g < 0 {
			continue
		}
		w := sw.m.EdgeCost(a, b, t, e)
		found := false
		for x := range cand {
			if cand[x].g == g {
				cand[x].w += w
				found = true
				break
			}
		}
		if !found {
			cand = append(cand, groupWeight{g, w})
		}
	}
	sort.Slice(cand, func(x, y int) bool {
		if cand[x].w != cand[y].w {
			return cand[x].w > cand[y].w
		}
		return cand[x].g < cand[y].g
	})
	sc.cand = cand
	return cand[:min(len(cand), 3)]
}

// bestPartner returns the rank in i's candidate groups whose exchange with
// rank i lowers the modelled cost the most, or -1 when none does. It only
// reads the swapper (and writes sc), so workers call it at once. An
// exchange with a rank j that is not i's neighbour changes the cost by
// i's move plus j's, and j's move gains at most j's slack (its pairwise
// time above its least possible one): j is skipped when i's move minus
// that slack cannot beat the best exchange so far. The skipped exchanges
// could not have been chosen, so the result is the one without skipping.
func (sw *swapper) bestPartner(i int32, sc *scratch) int32 {
	cand := sw.candidateGroups(i, sc)
	t, a := sw.t, sw.place[i]
	for e := t.Start[i]; e < t.Start[i+1]; e++ {
		sc.mark[t.Adj[e]] = i + 1
	}
	pwI := sw.ev.Pairwise(i)
	bj, bd := int32(-1), 0.0
	for _, c := range cand {
		sl := sw.groups[c.g]
		mv := sw.prepareMove(i, sl[0], sc)
		gi, gabs := 0.0, 0.0
		if sw.uniform[c.g] {
			gi, gabs = sw.moveGain(i, sl[0], -1)
		}
		lowI := mv.low - pwI
		for _, s := range sl {
			j := sw.slotRank[s]
			if j == i || j < 0 {
				continue
			}
			var d, abs float64
			if sc.mark[j] != i+1 {
				slackJ, scale := sw.slack(j), pwI+sw.ev.Pairwise(j)
				if cannotBeat(lowI-slackJ, bd, scale) {
					continue
				}
				di, ai := gi, gabs
				if !sw.uniform[c.g] {
					di, ai = sw.moveTo(mv, s, sc)
				}
				if cannotBeat(di-slackJ, bd, scale+math.Abs(di)) {
					continue
				}
				dj, aj := sw.moveGain(j, a, -1)
				d, abs = di+dj, ai+aj
			} else {
				di, ai := sw.moveGain(i, s, j)
				dj, aj := sw.moveGain(j, a, i)
				d, abs = di+dj, ai+aj
			}
			if d < bd && d < -1e-12*abs {
				bj, bd = j, d
			}
		}
	}
	return bj
}

// move is rank i's traffic split for moving it to the slots of one node
// (prepareMove): on a node-uniform machine, its traffic with ranks on
// other nodes costs the same from any of those slots and is summed once
// (at its cost from there, x, and from where i sits, y); the traffic with
// ranks on that node (all of it on other machines) is kept edge by edge
// in the scratch's on.
type move struct {
	x, y float64
	// low is a lower bound of i's pairwise time on any of the slots: x,
	// and the edges in on at the machine's MinLink.
	low float64
}

// onEdge is one of rank i's edges whose cost depends on the slot i moves
// to: the neighbour's slot, the traffic, and its cost from where i sits.
type onEdge struct {
	k, e int32
	y    float64
}

// prepareMove splits rank i's traffic for moves to the node of slot to
// (into sc.on).
func (sw *swapper) prepareMove(i, to int32, sc *scratch) move {
	t, a := sw.t, sw.place[i]
	node := sw.m.Slots[to].Node
	var mv move
	sc.on = sc.on[:0]
	for e := t.Start[i]; e < t.Start[i+1]; e++ {
		k := sw.place[t.Adj[e]]
		y := sw.m.EdgeCost(a, k, t, e)
		if sw.nodeUniform && sw.m.Slots[k].Node != node {
			mv.x += sw.m.EdgeCost(to, k, t, e)
			mv.y += y
			continue
		}
		sc.on = append(sc.on, onEdge{k, e, y})
		mv.low += sw.minLink.Cost(t.BusyMsgs[e], t.BusyBytes[e])
	}
	mv.low += mv.x
	return mv
}

// moveTo is moveGain(i, s, -1) from i's split traffic (prepareMove for
// s's node): the change of i's costs and the sum of the absolute costs.
func (sw *swapper) moveTo(mv move, s int32, sc *scratch) (float64, float64) {
	d, abs := mv.x-mv.y, mv.x+mv.y
	for _, o := range sc.on {
		x := sw.m.EdgeCost(s, o.k, sw.t, o.e)
		d += x - o.y
		abs += x + o.y
	}
	return d, abs
}

// slack is how much rank r's pairwise time could fall at most.
func (sw *swapper) slack(r int32) float64 {
	return max(0, sw.ev.Pairwise(r)-sw.low[r])
}

// cannotBeat reports whether a change bounded below by lb cannot beat the
// best change bd (<= 0), with a margin for the rounding of sums of the
// given scale.
func cannotBeat(lb, bd, scale float64) bool {
	return lb > bd+1e-12*scale
}

// swap exchanges the slots of ranks i and j.
func (sw *swapper) swap(i, j int32) {
	if sw.kicking {
		sw.kicked++
	}
	sw.ev.Swap(i, j) // swaps sw.place too
	sw.slotRank[sw.place[i]] = i
	sw.slotRank[sw.place[j]] = j
}

// swapAll exchanges the slots of each pair of ranks in turn, priced
// once after the last (Evaluator.SwapAll).
func (sw *swapper) swapAll(pairs [][2]int32) {
	if sw.kicking {
		sw.kicked += len(pairs)
	}
	sw.ev.SwapAll(pairs)
	for _, p := range pairs {
		sw.slotRank[sw.place[p[0]]] = p[0]
		sw.slotRank[sw.place[p[1]]] = p[1]
	}
}
