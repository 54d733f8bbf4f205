package topo

import (
	"cmp"
	"fmt"
	"maps"
	"math"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
)

// ProbeFit is a network found in a survey, or a list of links declared
// without forwarding tables, with its routes chosen to agree with the
// survey's probe of flows at once: the round trips (or the file) tell
// how many hops apart two routers are, not which of the shortest paths
// between them the bytes take; the probe tells which flows slowed each
// other. Each class of flows (its source's router, its destination
// host) takes the one of its shortest paths that agrees with the most
// verdicts, given the others' (a local search from the network's own
// routes and from one path a flow, class after class until none
// moves).
type ProbeFit struct {
	// Fabric is the network with the chosen routes (fabric.Pinned); the
	// network as it was where no route moved or the routes chosen judge
	// no fewer pairs otherwise.
	Fabric *fabric.Fabric `json:"-"`
	// Pairs is the pairs of flows of four distinct hosts the probe
	// judged; Before and After how many of them the routes judge
	// otherwise before and after the choice.
	Pairs  int `json:"pairs"`
	Before int `json:"judged_otherwise_before"`
	After  int `json:"judged_otherwise_after"`
	// Moved is how many classes of flows took another route.
	Moved int `json:"classes_moved"`
	// Unjudged is the probe's pairs of classes neither judged nor
	// cleared, Hosts its hosts where more than MaxFitHosts: where either
	// is set no route is chosen (FitSurveyProbe).
	Unjudged int `json:"unjudged,omitempty"`
	Hosts    int `json:"hosts_over_bound,omitempty"`
	// Guesses is, where the survey has no probe, how many of the
	// ordered pairs of its hosts (GuessPairs looked at, at most
	// maxGuessPairs) have more than one shortest path: their route is
	// a guess, and Line says how to find it.
	Guesses    int `json:"guessed_pairs,omitempty"`
	GuessPairs int `json:"host_pairs,omitempty"`
}

// Line is the fit in words, for place and topo.
func (p *ProbeFit) Line() string {
	if p.Guesses > 0 {
		return fmt.Sprintf("routes a guess: %d of the %d pairs of hosts looked at have more than one shortest path, and "+
			"which the machine takes is not in the round trips (latmap's choice is priced); survey with latmap survey "+
			"--probe on to find it from flows at once, or give the switches' forwarding tables", p.Guesses, p.GuessPairs)
	}
	if p.Unjudged > 0 {
		return fmt.Sprintf("probe of flows at once: no route chosen from it, as it left %d pairs of classes of flows "+
			"unjudged: the pairs it judged are those its random steps could not clear, most of them sharing a link, "+
			"and a choice fitted to them alone crowds the flows together (at 1,024 ranks on a simulated dragonfly "+
			"fragment it predicted a stencil's block run at 1.33x its simulation); probe fewer hosts, or more a router",
			p.Unjudged)
	}
	if p.Hosts > 0 {
		return fmt.Sprintf("probe of flows at once: no route chosen from it, as it probed %d hosts, more than the %d "+
			"whose every pair of flows the fit judges (at 64 hosts it took 30 s)", p.Hosts, MaxFitHosts)
	}
	if p.Moved == 0 {
		return fmt.Sprintf("probe of flows at once: no other shortest path agrees with more of its %d pairs of "+
			"flows than the routes priced (%d judged otherwise)", p.Pairs, p.Before)
	}
	moved := fmt.Sprintf("%d classes of flows (a router to a host) take another of their", p.Moved)
	if p.Moved == 1 {
		moved = "1 class of flows (a router to a host) takes another of its"
	}
	return fmt.Sprintf("probe of flows at once: %s shortest paths, which judges %d of its %d pairs of flows "+
		"otherwise instead of %d", moved, p.After, p.Pairs, p.Before)
}

// guesses is the ProbeFit that says how many ordered pairs of s's hosts
// (those f has, the first maxGuessPairs) f routes by a guess among
// several shortest paths; nil where none.
func guesses(s *survey.Survey, f *fabric.Fabric) *ProbeFit {
	idx := f.HostIndex()
	var hosts []int
	for _, h := range hostNames(s) {
		if i, ok := idx[h]; ok {
			hosts = append(hosts, i)
		}
	}
	fit := &ProbeFit{Fabric: f}
pairs:
	for _, a := range hosts {
		for _, b := range hosts {
			if fit.GuessPairs == maxGuessPairs {
				break pairs
			}
			if a == b {
				continue
			}
			fit.GuessPairs++
			if len(f.Candidates(a, b, 2)) > 1 {
				fit.Guesses++
			}
		}
	}
	if fit.Guesses == 0 {
		return nil
	}
	return fit
}

// maxGuessPairs bounds the pairs of hosts guesses looks at (a job of
// 141 hosts has more).
const maxGuessPairs = 20000

// MaxFitHosts bounds the hosts whose routes FitProbe chooses: it judges
// every pair of their flows (n^2 (n-1)^2 / 2), each on routes spread
// over their shortest paths. Through latmap place on a survey of 64
// hosts on a 4 x 8 torus of routers, the fit took 30 s (0.05 s without
// a probe); a probe of that many hosts leaves pairs unjudged anyway
// (1,594 classes, 795,454 pairs at 1,024 ranks: BenchmarkSimProbe1024).
const MaxFitHosts = 32

// maxCandidates bounds the shortest paths a class of flows chooses among.
const maxCandidates = 16

// Verdict says whether the probe found flows x and y (source and
// destination hosts) to slow each other, and whether it judged them.
type Verdict func(x, y [2]string) (shared, known bool)

// SurveyVerdict is s's probe's verdicts: a pair of classes of flows in
// shares.csv as its row says, any other cleared (apart) where the probe
// judged every pair of classes (no Unjudged); nil without a probe.
func SurveyVerdict(s *survey.Survey) (Verdict, map[string]int, float64) {
	m := s.Meta.Probe
	if m == nil {
		return nil, nil, 0
	}
	pr := &probeRoutes{routers: m.Routers}
	rows := map[[2]probeClass]bool{}
	for _, r := range s.Shares {
		rows[pr.pair([2]string{r.SrcA, r.DstA}, [2]string{r.SrcB, r.DstB})] = r.Shared
	}
	complete := m.Unjudged == 0
	return func(x, y [2]string) (bool, bool) {
		if shared, ok := rows[pr.pair(x, y)]; ok {
			return shared, true
		}
		return false, complete
	}, m.Routers, cmp.Or(m.Threshold, 1.5)
}

// FitSurveyProbe is FitProbe with s's probe; nil where f's routes are
// no guess (forwarding tables, a rule: fabric.Guessed). Without a probe
// it counts the pairs of s's hosts whose route is a guess among several
// shortest paths (Guesses; nil where none is). A probe
// that left pairs of classes unjudged (its bound on pairs moved two at a
// time) chooses nothing: which pairs it judged is no sample of the
// rest, since the random steps cleared the pairs that share nothing
// first; the fit says so (Unjudged) and keeps f.
func FitSurveyProbe(s *survey.Survey, f *fabric.Fabric) *ProbeFit {
	v, routers, threshold := SurveyVerdict(s)
	if !f.Guessed() {
		return nil
	}
	if v == nil {
		return guesses(s, f)
	}
	if u := s.Meta.Probe.Unjudged; u > 0 {
		return &ProbeFit{Fabric: f, Unjudged: u}
	}
	if n := len(routers); n > MaxFitHosts {
		return &ProbeFit{Fabric: f, Hosts: n}
	}
	var hosts []string
	for _, h := range f.Hosts {
		if _, ok := routers[h]; ok {
			hosts = append(hosts, h)
		}
	}
	return FitProbe(f, hosts, routers, threshold, v)
}

// FitProbe chooses the routes between hosts (f's, at most MaxFitHosts)
// that agree best with verdict: two flows slow each other on the
// routes as CheckProbe judges them (PairSlowdown past threshold).
// routers is each host's router (nil: each its own); nil where f has
// fewer than 4 of the hosts or more than MaxFitHosts.
func FitProbe(f *fabric.Fabric, hosts []string, routers map[string]int, threshold float64, verdict Verdict) *ProbeFit {
	pf := newProbeFitter(f, hosts, routers, threshold, verdict)
	if pf == nil {
		return nil
	}
	fit := &ProbeFit{Fabric: f}
	fit.Before, fit.Pairs = pf.wrong(f)
	fit.After = fit.Before
	// Two starts: every class on f's own route, and (where f spreads a
	// flow) on its one path by f's rule. From the spread a class moving
	// alone may not reach a pair's verdict: a flow on one path beside a
	// flow spread over two is slowed 1.5x, not past the threshold.
	for _, start := range []int{0, 1} {
		choice := pf.search(start)
		moved := 0
		for _, k := range choice {
			if k != 0 {
				moved++
			}
		}
		if moved == 0 {
			continue
		}
		route := map[[2]int][]int32{}
		for i, fl := range pf.flows {
			if k := choice[pf.class[i]]; k != 0 {
				route[fl] = pf.paths[i][k]
			}
		}
		g := f.Pinned(func(a, b int) []int32 { return route[[2]int{a, b}] })
		if after, _ := pf.wrong(g); after < fit.After {
			fit.Fabric, fit.After, fit.Moved = g, after, moved
		}
	}
	return fit
}

// probeFitter is FitProbe's search: the flows between the hosts (by
// f's host index), each flow's class and candidate routes (the first
// f's own, spread as f spreads it; then each of its shortest paths
// Candidates gives, as one path), the routes taken now, and which flows
// cross each link.
type probeFitter struct {
	pr      *probeRoutes
	names   []string
	flows   [][2]int
	class   []int
	members [][]int        // each class's flows
	paths   [][][]int32    // each flow's candidates' links (nil: f's own)
	routes  [][]*flowRoute // and their routes, rates alone
	now     []int          // each flow's candidate taken
	on      map[int32][]int
	verdict Verdict
}

func newProbeFitter(f *fabric.Fabric, hosts []string, routers map[string]int, threshold float64, verdict Verdict) *probeFitter {
	idx := f.HostIndex()
	var in []string
	for _, h := range hosts {
		if _, ok := idx[h]; ok {
			in = append(in, h)
		}
	}
	if len(in) < 4 || len(in) > MaxFitHosts {
		return nil
	}
	pf := &probeFitter{pr: newProbeRoutes(f, routers, threshold), names: f.Hosts, verdict: verdict, on: map[int32][]int{}}
	classOf := map[probeClass]int{}
	for _, a := range in {
		for _, b := range in {
			if a == b {
				continue
			}
			r, ok := routers[a]
			if !ok {
				r = -1 - idx[a] // each host its own router
			}
			c, ok := classOf[probeClass{r, b}]
			if !ok {
				c = len(pf.members)
				classOf[probeClass{r, b}] = c
				pf.members = append(pf.members, nil)
			}
			i := len(pf.flows)
			pf.flows = append(pf.flows, [2]int{idx[a], idx[b]})
			pf.class = append(pf.class, c)
			pf.members[c] = append(pf.members[c], i)
			pf.candidates(f, a, b)
			pf.now = append(pf.now, 0)
		}
	}
	for i := range pf.flows {
		pf.place(i, 1)
	}
	return pf
}

// candidates appends flow a -> b's candidates: f's own route, then each
// other shortest path as one path.
func (pf *probeFitter) candidates(f *fabric.Fabric, a, b string) {
	own := pf.pr.route(a, b)
	paths, routes := [][]int32{nil}, []*flowRoute{own}
	for _, p := range f.Candidates(pf.pr.idx[a], pf.pr.idx[b], maxCandidates) {
		r := &flowRoute{links: map[int32]float64{}, rate: math.Inf(1)}
		for _, l := range p {
			r.links[l] = 1
			r.rate = min(r.rate, pf.pr.bandwidth(l))
		}
		if !maps.Equal(r.links, own.links) {
			paths, routes = append(paths, p), append(routes, r)
		}
	}
	pf.paths, pf.routes = append(pf.paths, paths), append(pf.routes, routes)
}

// place adds (sign 1) or removes (-1) flow i from the links of its route.
func (pf *probeFitter) place(i, sign int) {
	for l, share := range pf.routes[i][pf.now[i]].links {
		if share <= 0 {
			continue
		}
		if sign > 0 {
			pf.on[l] = append(pf.on[l], i)
			continue
		}
		fs := pf.on[l]
		for j, x := range fs {
			if x == i {
				fs[j] = fs[len(fs)-1]
				pf.on[l] = fs[:len(fs)-1]
				break
			}
		}
	}
}

// judged is the probe's verdict on flows i and j where it judged them
// and they are of four distinct hosts in distinct classes.
func (pf *probeFitter) judged(i, j int) (shared, ok bool) {
	x, y := pf.flows[i], pf.flows[j]
	if pf.class[i] == pf.class[j] || x[0] == y[0] || x[0] == y[1] || x[1] == y[0] || x[1] == y[1] {
		return false, false
	}
	n := pf.names
	return pf.verdict([2]string{n[x[0]], n[x[1]]}, [2]string{n[y[0]], n[y[1]]})
}

// slowed reports whether flow i on its candidate k and flow j on its
// route now slow each other past the threshold.
func (pf *probeFitter) slowed(i, k, j int) bool {
	return pf.pr.slowdown(pf.routes[i][k], pf.routes[j][pf.now[j]]) > pf.pr.threshold
}

// wrong counts the judged pairs of flows that g's routes judge
// otherwise, as CheckProbe does (each flow spread as g spreads it), and
// the judged pairs. Each pair's verdict is asked again each time: kept
// for the fit's three counts (431,520 pairs at 32 hosts), latmap place
// took 1.48 s against 1.36 s (medians of 5, alternated).
func (pf *probeFitter) wrong(g *fabric.Fabric) (wrong, pairs int) {
	pr := newProbeRoutes(g, nil, pf.pr.threshold)
	n := pf.names
	for i, x := range pf.flows {
		for j := i + 1; j < len(pf.flows); j++ {
			shared, ok := pf.judged(i, j)
			if !ok {
				continue
			}
			pairs++
			y := pf.flows[j]
			if pr.slowdown(pr.route(n[x[0]], n[x[1]]), pr.route(n[y[0]], n[y[1]])) > pr.threshold != shared {
				wrong++
			}
		}
	}
	return wrong, pairs
}

// maxSweeps bounds the search's passes over the classes.
const maxSweeps = 20

// search moves each class of flows, one after another, to the
// candidate route that agrees with the most verdicts given the routes
// the others take now (ties keep the route taken), until a pass over
// the classes moves none, from every class on its candidate start (or
// its last). It returns each class's candidate.
func (pf *probeFitter) search(start int) []int {
	choice := make([]int, len(pf.members))
	for c, mem := range pf.members {
		for _, i := range mem {
			pf.place(i, -1)
			pf.now[i] = min(start, len(pf.routes[i])-1)
			choice[c] = pf.now[i]
			pf.place(i, 1)
		}
	}
	seen := make([]int, len(pf.flows))
	stamp := 0
	for range maxSweeps {
		moved := false
		for c, mem := range pf.members {
			n := maxCandidates + 1
			for _, i := range mem {
				n = min(n, len(pf.routes[i]))
			}
			best, least := choice[c], math.MaxInt
			for k := range n {
				cost := 0
				for _, i := range mem {
					stamp++
					cost += pf.cost(i, k, seen, stamp)
				}
				if cost < least || cost == least && k == choice[c] {
					best, least = k, cost
				}
			}
			if best == choice[c] {
				continue
			}
			for _, i := range mem {
				pf.place(i, -1)
				pf.now[i] = best
				pf.place(i, 1)
			}
			choice[c], moved = best, true
		}
		if !moved {
			break
		}
	}
	return choice
}

// cost is how flow i on its candidate k fares against the verdicts on
// the flows it meets on a link (the others meet it nowhere, and are
// apart whatever it takes): one for each it slows that the probe found
// apart, less one for each it slows that the probe found shared. seen
// marks the flows counted, at stamp.
func (pf *probeFitter) cost(i, k int, seen []int, stamp int) int {
	cost := 0
	for l, share := range pf.routes[i][k].links {
		if share <= 0 {
			continue
		}
		for _, j := range pf.on[l] {
			if seen[j] == stamp {
				continue
			}
			seen[j] = stamp
			shared, ok := pf.judged(i, j)
			if !ok || !pf.slowed(i, k, j) {
				continue
			}
			if shared {
				cost--
			} else {
				cost++
			}
		}
	}
	return cost
}
