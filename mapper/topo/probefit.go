package topo

import (
	"cmp"
	"fmt"

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
	// cleared: where set no route is chosen (FitSurveyProbe).
	Unjudged int `json:"unjudged,omitempty"`
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

// maxCandidates bounds the shortest paths a class of flows chooses among.
const maxCandidates = 16

// Verdict says whether the probe found flows x and y (source and
// destination hosts) to slow each other, and whether it judged them.
// The probe judges classes of flows (a router's hosts to a host):
// FitProbe asks once a pair of classes, with one flow of each of four
// distinct hosts.
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
	var hosts []string
	for _, h := range f.Hosts {
		if _, ok := routers[h]; ok {
			hosts = append(hosts, h)
		}
	}
	return FitProbe(f, hosts, routers, threshold, v)
}

// FitProbe chooses the routes between hosts (f's) that agree best with
// verdict: two flows slow each other on the routes as CheckProbe judges
// them (PairSlowdown past threshold). routers is each host's router
// (nil: each its own); the verdict is asked once a pair of classes of
// flows (a router's hosts to a host), as the probe judges them. nil
// where f has fewer than 4 of the hosts or they make more than
// MaxFitClasses classes.
func FitProbe(f *fabric.Fabric, hosts []string, routers map[string]int, threshold float64, verdict Verdict) *ProbeFit {
	pf := newProbeFitter(f, hosts, routers, threshold, verdict)
	if pf == nil {
		return nil
	}
	fit := &ProbeFit{Fabric: f, Pairs: pf.pairs}
	fit.Before = pf.wrong()
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
		if after := pf.wrong(); after < fit.After {
			fit.Fabric, fit.After, fit.Moved = f.Pinned(pf.routes()), after, moved
		}
	}
	return fit
}
