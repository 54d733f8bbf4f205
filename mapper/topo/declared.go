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
	Missing []string   `json:"missing_hosts,omitempty"`
	Hops    []HopClass `json:"hops"`
	// Contradictions say where longer routes measured faster than
	// shorter ones (by more than ContradictionRatio).
	Contradictions []string `json:"contradictions,omitempty"`
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
	d := &Declared{Source: f.Source, Kind: f.Kind, Shape: f.Shape}
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
	for i, a := range hosts {
		fa, ok := idx[a]
		if !ok {
			continue
		}
		for _, b := range hosts[i+1:] {
			fb, ok := idx[b]
			if v := tab.At(m, leader[a], leader[b]); ok && !math.IsNaN(v) {
				k := len(f.Path(fa, fb))
				byLen[k] = append(byLen[k], v)
			}
		}
	}
	for k, v := range byLen {
		d.Hops = append(d.Hops, HopClass{Links: k, Pairs: len(v), RTTMedian: stats.Median(v)})
	}
	slices.SortFunc(d.Hops, func(a, b HopClass) int { return a.Links - b.Links })
	for i, lo := range d.Hops {
		for _, hi := range d.Hops[i+1:] {
			if hi.RTTMedian < ContradictionRatio*lo.RTTMedian {
				d.Contradictions = append(d.Contradictions, fmt.Sprintf("host pairs %d links apart in %s measure %.3g us (median of %d), faster than pairs %d links apart (%.3g us, %d pairs): the description does not match where the ranks ran",
					hi.Links, f.Source, hi.RTTMedian, hi.Pairs, lo.Links, lo.RTTMedian, lo.Pairs))
			}
		}
	}
	return d, nil
}

// Lines are the comparison for people.
func (d *Declared) Lines() []string {
	out := []string{fmt.Sprintf("declared network: %s from %s", d.Shape, d.Source)}
	if len(d.Missing) > 0 {
		out = append(out, "  surveyed hosts it does not describe: "+strings.Join(d.Missing, ", "))
	}
	for _, h := range d.Hops {
		out = append(out, fmt.Sprintf("  %2d links apart: %5d host pairs, median round trip %.3g us", h.Links, h.Pairs, h.RTTMedian))
	}
	for _, c := range d.Contradictions {
		out = append(out, "  warning: "+c)
	}
	return out
}
