package topo

import (
	"fmt"
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
	idx := f.HostIndex()
	var hosts []string
	for h := range m.Routers {
		if _, ok := idx[h]; ok {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) < 4 {
		return nil
	}
	sort.Strings(hosts)
	routes := map[[2]string]map[int32]float64{}
	route := func(a, b string) map[int32]float64 {
		k := [2]string{a, b}
		if r, ok := routes[k]; ok {
			return r
		}
		r := map[int32]float64{}
		f.RouteShares(idx[a], idx[b], func(l int32, share float64) { r[l] += share })
		routes[k] = r
		return r
	}
	// overlap is the most of both flows' bytes one link carries.
	overlap := func(a, b map[int32]float64) float64 {
		most := 0.0
		for l, x := range a {
			if y, ok := b[l]; ok {
				most = max(most, min(x, y))
			}
		}
		return most
	}
	c := &ProbeCheck{Judged: len(s.Shares)}
	type class struct {
		router int
		dst    string
	}
	pairKey := func(a, b class) [2]class {
		if a.router > b.router || a.router == b.router && a.dst > b.dst {
			a, b = b, a
		}
		return [2]class{a, b}
	}
	judged := map[[2]class]bool{}
	for _, r := range s.Shares {
		judged[pairKey(class{m.Routers[r.SrcA], r.DstA}, class{m.Routers[r.SrcB], r.DstB})] = true
		if !hasAll(idx, r.SrcA, r.DstA, r.SrcB, r.DstB) {
			continue
		}
		o := overlap(route(r.SrcA, r.DstA), route(r.SrcB, r.DstB))
		switch {
		case o > 0 && o < 0.5:
			c.Partly++
		case (o >= 0.5) == r.Shared:
			c.Agree++
		default:
			if len(c.Disagree) < maxNamed {
				if r.Shared {
					c.Disagree = append(c.Disagree, fmt.Sprintf("%s -> %s and %s -> %s slowed each other (%.2fx, %.2fx), and their routes share no link",
						r.SrcA, r.DstA, r.SrcB, r.DstB, r.SlowdownA, r.SlowdownB))
				} else {
					c.Disagree = append(c.Disagree, fmt.Sprintf("%s -> %s and %s -> %s share a link in the routes, and moved two at a time neither slowed the other (%.2fx, %.2fx)",
						r.SrcA, r.DstA, r.SrcB, r.DstB, r.SlowdownA, r.SlowdownB))
				}
			}
		}
	}
	if len(hosts)*(len(hosts)-1) > maxProbeFlows {
		c.Cleared = -1
		return c
	}
	// The pairs of classes the routes make share a link, that the probe
	// never moved two at a time: it cleared them.
	type flow struct{ src, dst string }
	onLink := map[int32][]flow{}
	for _, a := range hosts {
		for _, b := range hosts {
			if a != b {
				for l, x := range route(a, b) {
					if x >= 0.5 {
						onLink[l] = append(onLink[l], flow{a, b})
					}
				}
			}
		}
	}
	cleared := map[[2]class]bool{}
	for _, fs := range onLink {
		for i, x := range fs {
			for _, y := range fs[i+1:] {
				if x.src == y.src || x.src == y.dst || x.dst == y.src || x.dst == y.dst {
					continue
				}
				k := pairKey(class{m.Routers[x.src], x.dst}, class{m.Routers[y.src], y.dst})
				if k[0] == k[1] || judged[k] || cleared[k] {
					continue
				}
				cleared[k] = true
				if len(c.Disagree) < maxNamed {
					c.Disagree = append(c.Disagree, fmt.Sprintf("%s -> %s and %s -> %s share a link in the routes, and the probe cleared them (moved at once with others, neither slowed)",
						x.src, x.dst, y.src, y.dst))
				}
			}
		}
	}
	c.Cleared = len(cleared)
	return c
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
