package topo

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
)

// Declared sets a declared network beside the survey: the surveyed
// hosts the description lacks, and per route length (links crossed) the
// surveyed host pairs and their median round trip, with what in them
// contradicts the description.
type Declared struct {
	Source  string     `json:"source"`
	Kind    string     `json:"kind"`
	Shape   string     `json:"shape"`
	Routing string     `json:"routing,omitempty"`
	Missing []string   `json:"missing_hosts,omitempty"`
	Hops    []HopClass `json:"hops"`
	// Contradictions say where longer routes measured faster than
	// shorter ones (by more than ContradictionRatio).
	Contradictions []string `json:"contradictions,omitempty"`
	// Misplaced are hosts whose round trips to the hosts declared
	// nearest them measure as routes further apart do: not where the
	// description puts them. LongRoutes are host pairs that measure as
	// routes further apart than declared do (a slower path, a longer
	// route than its links, a congested link). Each names the hosts.
	Misplaced  []string `json:"misplaced_hosts,omitempty"`
	LongRoutes []string `json:"long_routes,omitempty"`
	// Probe sets the survey's probe of flows at once beside the
	// declared routes (CheckProbe; nil: the survey has none), for Lines
	// to say with the rest.
	Probe *ProbeCheck `json:"probe,omitempty"`
	// ProbeFit is the routes the probe chooses where the description's
	// are a guess among shortest paths (fabric.RoutesShortest: a list of
	// links), as place prices them, or without a probe how many pairs'
	// routes are such a guess (FitSurveyProbe; nil: none).
	ProbeFit *ProbeFit `json:"probe_fit,omitempty"`
}

// HopClass is the host pairs whose declared route crosses Links links.
type HopClass struct {
	Links     int     `json:"links"`
	Pairs     int     `json:"pairs"`
	RTTMedian float64 `json:"rtt_median_us"`
}

// ContradictionRatio: pairs whose routes are longer but whose median
// round trip is below this fraction of shorter routes' contradict the
// description (a chosen policy: 10% is above a survey's noise between
// medians of many pairs).
const ContradictionRatio = 0.9

// CompareDeclared measures f against the survey s: each pair of surveyed
// hosts (their lowest ranks, at size and metric m) by the length of its
// declared route.
func CompareDeclared(s *survey.Survey, f *fabric.Fabric, size int, m survey.Metric) (*Declared, error) {
	d := &Declared{Source: f.Source, Kind: f.Kind, Shape: f.Shape, Routing: f.Routing}
	tab, err := s.Table(size)
	if err != nil {
		return nil, err
	}
	idx := f.HostIndex()
	leader := map[string]int{}
	var hosts []string
	for i, r := range s.Ranks {
		if _, ok := leader[r.Host]; !ok {
			leader[r.Host] = i
			hosts = append(hosts, r.Host)
		}
	}
	d.Missing = f.Missing(hosts, 10)
	byLen := map[int][]float64{}
	var pairs []declaredPair
	for i, a := range hosts {
		fa, ok := idx[a]
		if !ok {
			continue
		}
		for j := i + 1; j < len(hosts); j++ {
			b := hosts[j]
			fb, ok := idx[b]
			if v := tab.At(m, leader[a], leader[b]); ok && !math.IsNaN(v) {
				k := len(f.Path(fa, fb))
				byLen[k] = append(byLen[k], v)
				pairs = append(pairs, declaredPair{a: i, b: j, links: k, rtt: v})
			}
		}
	}
	for k, v := range byLen {
		d.Hops = append(d.Hops, HopClass{Links: k, Pairs: len(v), RTTMedian: stats.Median(v)})
	}
	slices.SortFunc(d.Hops, func(a, b HopClass) int { return a.Links - b.Links })
	d.disagreements(hosts, pairs)
	for i, lo := range d.Hops {
		for _, hi := range d.Hops[i+1:] {
			if hi.RTTMedian < ContradictionRatio*lo.RTTMedian {
				d.Contradictions = append(d.Contradictions, fmt.Sprintf("host pairs %d links apart in %s measure "+
					"%.3g us (median of %d), faster than pairs %d links apart (%.3g us, %d pairs): "+
					"the description does not match where the ranks ran",
					hi.Links, f.Source, hi.RTTMedian, hi.Pairs, lo.Links, lo.RTTMedian, lo.Pairs))
			}
		}
	}
	return d, nil
}

// Lines are the comparison for people.
func (d *Declared) Lines() []string {
	out := []string{fmt.Sprintf("declared network: %s from %s", d.Shape, d.Source)}
	if d.Routing != "" {
		out[0] += "; routes: " + d.Routing
	}
	if len(d.Missing) > 0 {
		out = append(out, "  surveyed hosts it does not describe: "+strings.Join(d.Missing, ", "))
	}
	for _, h := range d.Hops {
		out = append(out, fmt.Sprintf("  %2d links apart: %5d host pairs, median round trip %.3g us", h.Links, h.Pairs, h.RTTMedian))
	}
	for _, c := range d.Contradictions {
		out = append(out, "  warning: "+c)
	}
	for _, c := range append(slices.Clone(d.Misplaced), d.LongRoutes...) {
		out = append(out, "  warning: "+c)
	}
	if d.Probe != nil {
		for _, l := range d.Probe.Lines() {
			out = append(out, "  "+l)
		}
	}
	if d.ProbeFit != nil {
		line := "  " + d.ProbeFit.Line()
		if d.ProbeFit.Moved > 0 {
			line += " (place prices them so)"
		}
		out = append(out, line)
	}
	return out
}

// declaredPair is a surveyed host pair (indexes into the hosts) with its
// declared route's length and its round trip.
type declaredPair struct {
	a, b, links int
	rtt         float64
}

// maxNamed bounds the hosts and pairs a comparison names one by one.
const maxNamed = 8

// hopCompare sets each surveyed pair's round trip beside the medians of
// the declared route lengths (without the pairs of hosts found
// misplaced, skip).
type hopCompare struct {
	pairs   []declaredPair
	nearest []int           // per host: its shortest declared route length
	near    [][]float64     // per host: its round trips to the hosts declared nearest
	med     map[int]float64 // per length: the median round trip
	spread  map[int]float64 // per length: the median absolute deviation
	skip    map[int]bool
}

// disagreements finds the hosts and host pairs whose round trips say
// otherwise than the description: each value is set beside the route
// lengths' medians (d.Hops) and belongs to the length whose median is
// nearest (by ratio). A host whose median round trip to the hosts
// declared nearest it belongs to a longer length, by more than
// ContradictionRatio, is misplaced; the medians are then taken again
// without its pairs, so that one misplaced host does not blur them, and
// the pairs of hosts in place that belong to a longer length, past the
// length's noise, are named as long routes.
func (d *Declared) disagreements(hosts []string, pairs []declaredPair) {
	if len(d.Hops) < 2 {
		return
	}
	hc := &hopCompare{pairs: pairs, nearest: make([]int, len(hosts))}
	for i := range hc.nearest {
		hc.nearest[i] = math.MaxInt
	}
	for _, p := range pairs {
		hc.nearest[p.a], hc.nearest[p.b] = min(hc.nearest[p.a], p.links), min(hc.nearest[p.b], p.links)
	}
	hc.near = make([][]float64, len(hosts))
	for _, p := range pairs {
		for _, h := range [2]int{p.a, p.b} {
			if p.links == hc.nearest[h] {
				hc.near[h] = append(hc.near[h], p.rtt)
			}
		}
	}
	for range 2 {
		hc.medians()
		hc.skip = hc.misplaced()
	}
	hc.medians()
	var names []int
	for h := range hc.skip {
		names = append(names, h)
	}
	slices.Sort(names)
	for _, h := range names[:min(len(names), maxNamed)] {
		near := hc.near[h]
		v, links := stats.Median(near), hc.nearest[h]
		k, _ := hc.longer(links, v)
		d.Misplaced = append(d.Misplaced, fmt.Sprintf("host %s: its round trips to the %d hosts declared %d links "+
			"away measure %.3g us (median), as hosts %d links apart do (%.3g us), not %d (%.3g us): "+
			"it is not where %s puts it",
			hosts[h], len(near), links, v, k, hc.med[k], links, hc.med[links], d.Source))
	}
	if len(names) > maxNamed {
		d.Misplaced = append(d.Misplaced, fmt.Sprintf("%d more hosts are not where %s puts them", len(names)-maxNamed, d.Source))
	}
	d.longRoutes(hosts, hc)
}

// longRoutes names the pairs of hosts in place that measure as a longer
// route does, past their own length's noise (3 standard deviations of a
// normal sample, by its median absolute deviation).
func (d *Declared) longRoutes(hosts []string, hc *hopCompare) {
	long := 0
	for _, p := range hc.pairs {
		if hc.skip[p.a] || hc.skip[p.b] {
			continue
		}
		k, far := hc.longer(p.links, p.rtt)
		if !far || p.rtt <= hc.med[p.links]+3*1.4826*hc.spread[p.links] {
			continue
		}
		if long++; long <= maxNamed {
			d.LongRoutes = append(d.LongRoutes, fmt.Sprintf("hosts %s and %s, declared %d links apart, "+
				"measure %.3g us, as hosts %d links apart do (%.3g us, against %.3g us): "+
				"a longer or slower route than %s declares",
				hosts[p.a], hosts[p.b], p.links, p.rtt, k, hc.med[k], hc.med[p.links], d.Source))
		}
	}
	if long > maxNamed {
		d.LongRoutes = append(d.LongRoutes, fmt.Sprintf("%d more host pairs measure as routes longer than declared", long-maxNamed))
	}
}

// medians takes each length's median and spread over the pairs of hosts
// not skipped.
func (hc *hopCompare) medians() {
	by := map[int][]float64{}
	for _, p := range hc.pairs {
		if !hc.skip[p.a] && !hc.skip[p.b] {
			by[p.links] = append(by[p.links], p.rtt)
		}
	}
	hc.med, hc.spread = map[int]float64{}, map[int]float64{}
	for k, v := range by {
		m := stats.Median(v)
		dev := make([]float64, len(v))
		for i, x := range v {
			dev[i] = math.Abs(x - m)
		}
		hc.med[k], hc.spread[k] = m, stats.Median(dev)
	}
}

// longer is the length, longer than links, whose median v is nearest
// (by ratio), when v is past ContradictionRatio of links' own.
func (hc *hopCompare) longer(links int, v float64) (int, bool) {
	own, ok := hc.med[links]
	if !ok || v*ContradictionRatio <= own {
		return 0, false
	}
	best, dist := links, math.Abs(math.Log(v/own))
	for k, mk := range hc.med {
		if x := math.Abs(math.Log(v / mk)); k > links && mk > 0 && x < dist {
			best, dist = k, x
		}
	}
	return best, best != links
}

// misplaced are the hosts whose round trips to the hosts declared
// nearest them belong to a longer length.
func (hc *hopCompare) misplaced() map[int]bool {
	out := map[int]bool{}
	for h := range hc.nearest {
		if v := hc.near[h]; len(v) > 0 {
			if _, far := hc.longer(hc.nearest[h], stats.Median(v)); far {
				out[h] = true
			}
		}
	}
	return out
}
