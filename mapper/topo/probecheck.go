package topo

import (
	"fmt"
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
	// how many of them the routes judge alike; Partly how many the
	// routes spread so that they share a link for part of their bytes
	// (neither verdict is wrong).
	Judged, Agree, Partly int
	// Cleared is how many pairs of classes the routes make share a link
	// that the probe cleared (both moved at once, neither slowed); -1
	// when there were too many flows to walk (maxProbeFlows).
	Cleared int
	// Disagree names the pairs of flows the routes judge otherwise, at
	// most maxNamed.
	Disagree []string
}

// maxProbeFlows bounds the flows CheckProbe walks for the pairs the
// probe cleared: 64 hosts' (4,032 flows).
const maxProbeFlows = 64 * 63

// CheckProbe is s's probe set beside f's routes, nil when s has no
// probe or f none of its hosts. Two flows share a link in f when some
// link carries at least half of each one's bytes (RouteShares), and are
// apart when no link carries any of both.
func CheckProbe(s *survey.Survey, f *fabric.Fabric) *ProbeCheck {
	m := s.Meta.Probe
	if m == nil {
		return nil
	}
	pr := probeRoutes{f: f, idx: f.HostIndex(), routers: m.Routers, routes: map[[2]string]map[int32]float64{}}
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
	c := &ProbeCheck{Judged: len(s.Shares)}
	judged := pr.judge(c, s.Shares)
	if len(hosts)*(len(hosts)-1) > maxProbeFlows {
		c.Cleared = -1
		return c
	}
	pr.cleared(c, hosts, judged)
	return c
}

// probeRoutes is a network's routes between the probe's hosts, each
// walked once, and the probe's classes.
type probeRoutes struct {
	f       *fabric.Fabric
	idx     map[string]int
	routers map[string]int
	routes  map[[2]string]map[int32]float64
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

// route is the share of a's bytes to b each link carries.
func (pr *probeRoutes) route(a, b string) map[int32]float64 {
	k := [2]string{a, b}
	if r, ok := pr.routes[k]; ok {
		return r
	}
	r := map[int32]float64{}
	pr.f.RouteShares(pr.idx[a], pr.idx[b], func(l int32, share float64) { r[l] += share })
	pr.routes[k] = r
	return r
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
		o, rb := 0.0, pr.route(r.SrcB, r.DstB)
		for l, x := range pr.route(r.SrcA, r.DstA) {
			if y, ok := rb[l]; ok {
				o = max(o, min(x, y))
			}
		}
		switch {
		case o > 0 && o < 0.5:
			c.Partly++
		case (o >= 0.5) == r.Shared:
			c.Agree++
		case len(c.Disagree) >= maxNamed:
		case r.Shared:
			c.Disagree = append(c.Disagree, fmt.Sprintf("%s -> %s and %s -> %s slowed each other (%.2fx, %.2fx), and their routes share no link",
				r.SrcA, r.DstA, r.SrcB, r.DstB, r.SlowdownA, r.SlowdownB))
		default:
			c.Disagree = append(c.Disagree, fmt.Sprintf("%s -> %s and %s -> %s share a link in the routes, and moved two at a time neither slowed the other (%.2fx, %.2fx)",
				r.SrcA, r.DstA, r.SrcB, r.DstB, r.SlowdownA, r.SlowdownB))
		}
	}
	return judged
}

// cleared counts the pairs of classes the routes make share a link (at
// least half of each flow's bytes) that the probe never moved two at a
// time: it cleared them.
func (pr *probeRoutes) cleared(c *ProbeCheck, hosts []string, judged map[[2]probeClass]bool) {
	onLink := map[int32][][2]string{}
	for _, a := range hosts {
		for _, b := range hosts {
			if a != b {
				for l, x := range pr.route(a, b) {
					if x >= 0.5 {
						onLink[l] = append(onLink[l], [2]string{a, b})
					}
				}
			}
		}
	}
	links := make([]int32, 0, len(onLink))
	for l := range onLink {
		links = append(links, l)
	}
	slices.Sort(links) // the same pairs named from run to run
	cleared := map[[2]probeClass]bool{}
	for _, l := range links {
		fs := onLink[l]
		for i, x := range fs {
			for _, y := range fs[i+1:] {
				if x[0] == y[0] || x[0] == y[1] || x[1] == y[0] || x[1] == y[1] {
					continue
				}
				k := pr.pair(x, y)
				if k[0] == k[1] || judged[k] || cleared[k] {
					continue
				}
				cleared[k] = true
				if len(c.Disagree) < maxNamed {
					c.Disagree = append(c.Disagree, fmt.Sprintf("%s -> %s and %s -> %s share a link in the routes, and the probe cleared them (moved at once with others, neither slowed)",
						x[0], x[1], y[0], y[1]))
				}
			}
		}
	}
	c.Cleared = len(cleared)
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
	if c.Partly > 0 {
		line += fmt.Sprintf(" (%d more share a link for part of their bytes)", c.Partly)
	}
	switch {
	case c.Cleared < 0:
		line += "; the pairs it cleared were not walked (more than 64 hosts)"
	case c.Cleared > 0:
		line += fmt.Sprintf("; they make %d pairs of classes share a link that the probe cleared", c.Cleared)
	default:
		line += ", and share no link between any two flows it cleared"
	}
	out := []string{line}
	for _, d := range c.Disagree {
		out = append(out, "warning: "+d)
	}
	return out
}

// Agrees reports whether the routes judge every pair as the probe did.
func (c *ProbeCheck) Agrees() bool { return c.Agree+c.Partly == c.Judged && c.Cleared <= 0 }
