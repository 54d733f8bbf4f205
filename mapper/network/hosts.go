package network

import (
	"fmt"
	"math"
	"slices"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/survey"
)

// FromSurvey is what Discover reads of survey s: the latency between
// every two of its hosts (HostLatency), the node phase's fan-out
// (FanOut) and the switch levels of switches.csv. It is an error only
// where switches.csv does not name every host's group.
func FromSurvey(s *survey.Survey) (Input, error) {
	host, k := survey.HostIndex(s.Ranks)
	in := Input{Hosts: k}
	in.Ports, _ = FanOut(s.NodeBandwidth)
	if len(s.Switches) > 0 {
		names := make([]string, k)
		for r, h := range host {
			names[h] = s.Ranks[r].Host
		}
		of, ok := survey.SwitchLevels(s.Switches, names)
		if !ok {
			return in, fmt.Errorf("%s does not name every host's group at every level; re-run latmap survey", survey.SwitchesFile)
		}
		in.Switches = make([][]int32, len(of))
		for l, groups := range of {
			in.Switches[l] = make([]int32, len(groups))
			for h, g := range groups {
				in.Switches[l][h] = int32(g)
			}
		}
	}
	in.Latency, in.Unmeasured = HostLatency(s)
	return in, nil
}

// HostLatency is a message's one-way latency between every two of
// survey s's hosts, in seconds, as the cost model prices a rank pair
// (fit.csv's latency where positive, else half the round trip of the
// smallest size, its median, or its mean where medians were not kept):
// between the hosts' first ranks where the survey measured every rank
// pair, else the median of the pairs measured between the two hosts (a
// survey of scope nodes or a sparse one). Nil, and why, where some
// host pair was not measured at all.
func HostLatency(s *survey.Survey) (func(a, b int) float64, string) {
	host, k := survey.HostIndex(s.Ranks)
	if k < 2 || len(s.Tables) == 0 {
		return nil, fmt.Sprintf("the survey measured %d host(s)", k)
	}
	tab := s.Tables[0]
	metric := survey.Median
	if !tab.HasValues(survey.Median) {
		metric = survey.Mean
	}
	fits := map[[2]int]float64{}
	for _, f := range s.Fits {
		if f.Latency > 0 && f.A != f.B {
			fits[[2]int{min(f.A, f.B), max(f.A, f.B)}] = f.Latency
		}
	}
	latency := func(a, b int, rtt float64) float64 {
		if l, ok := fits[[2]int{min(a, b), max(a, b)}]; ok {
			return l * 1e-6
		}
		if math.IsNaN(rtt) || rtt <= 0 {
			return math.NaN()
		}
		return rtt / 2 * 1e-6
	}
	lat := make([]float64, k*k)
	set := func(a, b int, v float64) { lat[a*k+b], lat[b*k+a] = v, v }
	missing := 0
	if !tab.Sparse() {
		first := make([]int, k)
		for r := len(host) - 1; r >= 0; r-- {
			first[host[r]] = r
		}
		for a := 0; a < k; a++ {
			for b := a + 1; b < k; b++ {
				v := latency(first[a], first[b], tab.At(metric, first[a], first[b]))
				if math.IsNaN(v) {
					missing++
				}
				set(a, b, v)
			}
		}
		if missing == 0 {
			return func(a, b int) float64 { return lat[a*k+b] }, ""
		}
	}
	// The median of the pairs measured between each two hosts (where
	// the first ranks' pair was not), laid out by byHostPair (a map of
	// slices took 0.3 s for a 1,000-host survey's host pairs).
	vals := tab.Values[metric]
	var got []hostRead
	tab.Each(func(a, b, i int) {
		ha, hb := host[a], host[b]
		if ha == hb || !tab.Sparse() && !math.IsNaN(lat[ha*k+hb]) {
			return
		}
		if v := latency(a, b, float64(vals[i])); !math.IsNaN(v) {
			got = append(got, hostRead{survey.TriIndex(k, ha, hb), v})
		}
	})
	start, between := byHostPair(k, got)
	missing = 0
	for a := 0; a < k; a++ {
		for b := a + 1; b < k; b++ {
			if !tab.Sparse() && !math.IsNaN(lat[a*k+b]) {
				continue
			}
			p := survey.TriIndex(k, a, b)
			if start[p] == start[p+1] {
				missing++
				continue
			}
			set(a, b, stats.MedianInPlace(between[start[p]:start[p+1]]))
		}
	}
	if missing > 0 {
		return nil, fmt.Sprintf("%d of the %d host pairs were not measured, so no network is looked for in the round trips", missing, k*(k-1)/2)
	}
	return func(a, b int) float64 { return lat[a*k+b] }, ""
}

// hostRead is a latency read between two hosts (their pair's index in
// the packed triangle of k hosts).
type hostRead struct {
	pair int
	v    float64
}

// byHostPair lays the reads out host pair by host pair, each pair's in
// the order read (a counting sort): pair p's are vals[start[p]:start[p+1]].
func byHostPair(k int, got []hostRead) (start []int32, vals []float64) {
	start = make([]int32, survey.TriLen(k)+1)
	for _, g := range got {
		start[g.pair+1]++
	}
	for p := range survey.TriLen(k) {
		start[p+1] += start[p]
	}
	vals, next := make([]float64, len(got)), slices.Clone(start)
	for _, g := range got {
		vals[next[g.pair]] = g.v
		next[g.pair]++
	}
	return start, vals
}
