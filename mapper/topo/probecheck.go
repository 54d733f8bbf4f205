package topo

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
)

// ProbeCheck sets the survey's probe of flows at once (shares.csv,
// latmap survey --probe on) beside a network's routes: the round trips
// tell how far apart hosts are, the probe which flows slowed each other,
// and a route that sends two flows over one link where the probe found
// them free, or apart where they slowed each other, is not the way the
// bytes went (another routing, adaptive routing, a cable not where the
// description puts it).
type ProbeCheck struct {
	// Judged is the pairs of flows the probe moved two at a time, Agree
	// how many of them the routes judge alike.
	Judged, Agree int
	// Cleared is how many pairs of classes the routes make share a link
	// that the probe cleared (both moved at once, neither slowed); -1
	// when there were too many flows to walk (maxProbeFlows).
	Cleared int
	// Disagree names the pairs of flows the routes judge otherwise, at
	// most maxNamed.
	Disagree []string
	unjudged int // the probe's pairs of classes neither judged nor cleared
}

// maxProbeFlows bounds the flows CheckProbe walks for the pairs the
// probe cleared: 64 hosts' (4,032 flows).
const maxProbeFlows = 64 * 63

// CheckProbe is s's probe set beside f's routes, nil when s has no
// probe or f none of its hosts. Two flows slow each other in f when,
// each alone at its route's narrowest link, moved together and shared
// max-min fair on a link both cross, one goes slower than the probe's
// threshold (PairSlowdown): a common link fast enough for both slows
// neither (PSMN's 4xDDR hosts on its 4xQDR cables).
func CheckProbe(s *survey.Survey, f *fabric.Fabric) *ProbeCheck {
	m := s.Meta.Probe
	if m == nil {
		return nil
	}
	pr := newProbeRoutes(f, m.Routers, cmp.Or(m.Threshold, 1.5))
	var hosts []string
	for h := range m.Routers {
		if _, ok := pr.idx[h]; ok {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) < 4 {
		return nil
	}
	sort.Strings(hosts)
	c := &ProbeCheck{}
	judged := pr.judge(c, s.Shares)
	if len(hosts)*(len(hosts)-1) > maxProbeFlows || m.Unjudged > 0 {
		c.Cleared, c.unjudged = -1, m.Unjudged
		return c
	}
	pr.cleared(c, hosts, judged)
	return c
}

// probeRoutes is a network's routes between the probe's hosts, each
// walked once, and the probe's classes and threshold.
type probeRoutes struct {
	f         *fabric.Fabric
	idx       map[string]int
	routers   map[string]int
	routes    map[[2]string]*flowRoute
	threshold float64
	unknown   float64 // a link's bandwidth where f declares none: its fastest link's
}

func newProbeRoutes(f *fabric.Fabric, routers map[string]int, threshold float64) *probeRoutes {
	pr := &probeRoutes{f: f, idx: f.HostIndex(), routers: routers, routes: map[[2]string]*flowRoute{}, threshold: threshold, unknown: 1}
	for _, l := range f.Links {
		pr.unknown = max(pr.unknown, l.Bandwidth)
	}
	return pr
}

// FlowSlowdown is how many times slower the slower of two flows between
// f's hosts (by index) goes moved together than alone, on f's routes, as
// CheckProbe judges them: fs(a, b, c, d) for flows a -> b and c -> d.
func FlowSlowdown(f *fabric.Fabric) func(a, b, c, d int) float64 {
	pr := newProbeRoutes(f, nil, 0)
	return func(a, b, c, d int) float64 {
		return pr.slowdown(pr.route(f.Hosts[a], f.Hosts[b]), pr.route(f.Hosts[c], f.Hosts[d]))
	}
}

// flowRoute is a flow's route: the links that carry its bytes, in link
// order, each with the share it carries, and its rate alone, at its
// narrowest link.
type flowRoute struct {
	links []linkShare
	rate  float64
}

type linkShare struct {
	link  int32
	share float64
}

// sortLinks puts r's links in link order.
func (r *flowRoute) sortLinks() {
	slices.SortFunc(r.links, func(x, y linkShare) int { return cmp.Compare(x.link, y.link) })
}

// probeClass is a class of flows: its source's router, its destination.
type probeClass struct {
	router int
	dst    string
}

// pair is the pair of classes of flows a and b, in one order.
func (pr *probeRoutes) pair(a, b [2]string) [2]probeClass {
	x, y := probeClass{pr.routers[a[0]], a[1]}, probeClass{pr.routers[b[0]], b[1]}
	if x.router > y.router || x.router == y.router && x.dst > y.dst {
		x, y = y, x
	}
	return [2]probeClass{x, y}
}

// route is flow a -> b's route.
func (pr *probeRoutes) route(a, b string) *flowRoute {
	k := [2]string{a, b}
	if r, ok := pr.routes[k]; ok {
		return r
	}
	shares := map[int32]float64{}
	pr.f.RouteShares(pr.idx[a], pr.idx[b], func(l int32, share float64) { shares[l] += share })
	r := &flowRoute{rate: math.Inf(1)}
	for l, share := range shares {
		if share > 0 {
			r.links = append(r.links, linkShare{l, share})
			r.rate = min(r.rate, pr.bandwidth(l)/share)
		}
	}
	r.sortLinks()
	pr.routes[k] = r
	return r
}

func (pr *probeRoutes) bandwidth(l int32) float64 {
	if b := pr.f.Links[l].Bandwidth; b > 0 {
		return b
	}
	return pr.unknown
}

// slowdown is PairSlowdown on these routes: the most over the links
// both cross.
func (pr *probeRoutes) slowdown(x, y *flowRoute) float64 {
	worst := 1.0
	for i, j := 0, 0; i < len(x.links) && j < len(y.links); {
		a, b := x.links[i], y.links[j]
		switch {
		case a.link < b.link:
			i++
		case a.link > b.link:
			j++
		default:
			worst = max(worst, PairSlowdown(pr.bandwidth(a.link), a.share, b.share, x.rate, y.rate))
			i, j = i+1, j+1
		}
	}
	return worst
}

// PairSlowdown is how many times slower the slower of two flows goes on
// a link of bandwidth b than alone, the link carrying shares sa and sb
// of their bytes and the flows going at rates ra and rb alone: the link
// shared max-min fair (both flows' rates rise together until the link
// is full or a flow reaches its own rate, which the other then
// outgrows).
func PairSlowdown(b, sa, sb, ra, rb float64) float64 {
	if sa*ra+sb*rb <= b*(1+1e-9) {
		return 1
	}
	t := b / (sa + sb) // both flows' rate where they fill the link together
	xa, xb := t, t
	switch {
	case ra <= t:
		xa, xb = ra, min(rb, (b-sa*ra)/sb)
	case rb <= t:
		xa, xb = min(ra, (b-sb*rb)/sa), rb
	}
	return max(ra/xa, rb/xb)
}

// judge sets each row of shares.csv beside the routes: the most of both
// flows' bytes one link carries. It returns the pairs of classes judged.
func (pr *probeRoutes) judge(c *ProbeCheck, rows []survey.Share) map[[2]probeClass]bool {
	judged := map[[2]probeClass]bool{}
	for _, r := range rows {
		judged[pr.pair([2]string{r.SrcA, r.DstA}, [2]string{r.SrcB, r.DstB})] = true
		if !hasAll(pr.idx, r.SrcA, r.DstA, r.SrcB, r.DstB) {
			continue
		}
		c.Judged++
		switch slowed := pr.slowdown(pr.route(r.SrcA, r.DstA), pr.route(r.SrcB, r.DstB)) > pr.threshold; {
		case slowed == r.Shared:
			c.Agree++
		case len(c.Disagree) >= maxNamed:
		case r.Shared:
			c.Disagree = append(c.Disagree, fmt.Sprintf("%s -> %s and %s -> %s slowed each other (%.2fx, %.2fx), and in the routes they do not",
				r.SrcA, r.DstA, r.SrcB, r.DstB, r.SlowdownA, r.SlowdownB))
		default:
			c.Disagree = append(c.Disagree, fmt.Sprintf("%s -> %s and %s -> %s slow each other in the routes, and moved two at a time neither slowed the other (%.2fx, %.2fx)",
				r.SrcA, r.DstA, r.SrcB, r.DstB, r.SlowdownA, r.SlowdownB))
		}
	}
	return judged
}

// cleared counts the pairs of classes whose flows slow each other in
// the routes and that the probe never moved two at a time: it cleared
// them.
func (pr *probeRoutes) cleared(c *ProbeCheck, hosts []string, judged map[[2]probeClass]bool) {
	onLink := map[int32][][2]string{}
	for _, a := range hosts {
		for _, b := range hosts {
			if a != b {
				for _, ls := range pr.route(a, b).links {
					onLink[ls.link] = append(onLink[ls.link], [2]string{a, b})
				}
			}
		}
	}
	links := make([]int32, 0, len(onLink))
	for l := range onLink {
		links = append(links, l)
	}
	slices.Sort(links) // the same pairs named from run to run
	seen := map[[2]probeClass]bool{}
	for _, l := range links {
		fs := onLink[l]
		for i, x := range fs {
			for _, y := range fs[i+1:] {
				if x[0] == y[0] || x[0] == y[1] || x[1] == y[0] || x[1] == y[1] {
					continue
				}
				k := pr.pair(x, y)
				if k[0] == k[1] || judged[k] || seen[k] {
					continue
				}
				if pr.slowdown(pr.route(x[0], x[1]), pr.route(y[0], y[1])) <= pr.threshold {
					continue // another pair of these classes may still slow
				}
				seen[k] = true
				c.Cleared++
				if len(c.Disagree) < maxNamed {
					c.Disagree = append(c.Disagree, fmt.Sprintf("%s -> %s and %s -> %s slow each other in the routes, and the probe cleared them (moved at once with others, neither slowed)",
						x[0], x[1], y[0], y[1]))
				}
			}
		}
	}
}

// hasAll reports whether idx names every host.
func hasAll(idx map[string]int, hosts ...string) bool {
	for _, h := range hosts {
		if _, ok := idx[h]; !ok {
			return false
		}
	}
	return true
}

// Lines is the check in words: a summary, then each disagreement as a
// warning.
func (c *ProbeCheck) Lines() []string {
	line := fmt.Sprintf("probe of flows at once (%s): the routes judge %d of the %d pairs of flows moved two at a time as the probe did",
		survey.SharesFile, c.Agree, c.Judged)
	switch {
	case c.unjudged > 0:
		line += fmt.Sprintf("; the pairs it cleared were not walked (it left %d unjudged, so a pair not in %s is not known cleared)", c.unjudged, survey.SharesFile)
	case c.Cleared < 0:
		line += "; the pairs it cleared were not walked (more than 64 hosts)"
	case c.Cleared > 0:
		line += fmt.Sprintf("; they make %d pairs of classes slow each other that the probe cleared", c.Cleared)
	default:
		line += ", and slow none it cleared"
	}
	out := []string{line}
	for _, d := range c.Disagree {
		out = append(out, "warning: "+d)
	}
	return out
}

// Agrees reports whether the routes judge every pair as the probe did.
func (c *ProbeCheck) Agrees() bool { return c.Agree == c.Judged && c.Cleared <= 0 }
