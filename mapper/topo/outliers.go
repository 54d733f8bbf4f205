package topo

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/survey"
)

// Outlier thresholds: how many times slower than its own level a node or
// a link must be to be named. A survey with a bandwidth-bound size (64 KiB
// or more) is judged on that size, where a slow link shows plainly; a
// latency-only survey needs twice the level (NVIDIA ClusterKit's bar is
// 2.1x its best pair): small round trips also carry distance, and on Blue
// Waters' torus one node sat at 1.45x the others by distance alone.
const (
	OutlierRatioBandwidth = 1.5
	OutlierRatioLatency   = 2.0
	// bandwidthSize is the smallest message size judged as bandwidth-bound.
	bandwidthSize = 64 << 10
)

// Outliers are the nodes and links that are slow within their own level.
type Outliers struct {
	// Metric and SizeBytes say what was compared; Ratio is the threshold.
	Metric    string  `json:"metric"`
	SizeBytes int     `json:"size_bytes"`
	Ratio     float64 `json:"ratio"`
	// Interference is, when above 1, the most the survey's concurrent
	// rounds slowed the node pairs of one level at SizeBytes (meta.json's
	// fit_factors, their medians): Ratio is the threshold times it for
	// the pairs between nodes, as a pair that much slower than its level
	// may be the schedule's doing (pairs measured together sharing a
	// link), not its link's.
	Interference float64 `json:"interference,omitempty"`
	// SlowNodes: nodes whose links to every other node are slow (their
	// median to the others against the median of the pairs of the rest).
	SlowNodes []SlowNode `json:"slow_nodes"`
	// SlowLinks: single node pairs slow against the other node pairs,
	// neither end being a slow node.
	SlowLinks []SlowLink `json:"slow_links"`
	// SlowInside: nodes whose own pairs (inside the node) are slow
	// against the other nodes' inside pairs.
	SlowInside []SlowNode `json:"slow_inside"`
}

// SlowNode is a node named slow: its median round trip (us) and the
// reference it is compared with.
type SlowNode struct {
	Host      string  `json:"host"`
	MedianUs  float64 `json:"median_us"`
	LevelUs   float64 `json:"level_median_us"`
	Slowdown  float64 `json:"slowdown"`
	PairCount int     `json:"pairs"`
}

// SlowLink is a node pair named slow.
type SlowLink struct {
	A        string  `json:"a"`
	B        string  `json:"b"`
	MedianUs float64 `json:"median_us"`
	LevelUs  float64 `json:"level_median_us"`
	Slowdown float64 `json:"slowdown"`
}

// FindOutliers names the slow nodes and links of a survey, each judged
// against its own level from the ranks' host names: node pairs against
// node pairs, the pairs inside a node against those inside the other
// nodes. It uses the largest size of 64 KiB or more when the survey has
// one, else the smallest, and the pairs' minimum round trip when the survey
// has it, and returns nil for a survey of one host.
func FindOutliers(s *survey.Survey) (*Outliers, error) {
	t, ratio := outlierTable(s)
	// The best round trip of each pair when the survey has it: what the
	// link allows, free of the cpu sharing and other jobs that swell
	// medians; else the median, else the mean.
	want := survey.Metric(-1)
	if t.HasValues(survey.Min) {
		want = survey.Min
	}
	m, err := ChooseMetric(t, want)
	if err != nil {
		return nil, err
	}
	host, nh := survey.HostIndex(s.Ranks)
	if nh < 2 {
		return nil, nil
	}
	names := make([]string, nh)
	for r, h := range host {
		names[h] = s.Ranks[r].Host
	}
	cross, inside := hostPairValues(t, m, host, nh)
	o := &Outliers{Metric: m.String(), SizeBytes: t.Size, Ratio: ratio}
	if f := crossInterference(s.Meta.FitFactors, t.Size); f > 1 {
		o.Interference, o.Ratio = f, ratio*f
	}
	hp := medians(cross)
	slow := o.slowNodes(hp, names, o.Ratio)
	o.slowLinks(hp, names, slow, o.Ratio)
	o.slowInside(inside, names, ratio)
	return o, nil
}

// crossInterference is the largest of the fit factors at size of the
// levels between nodes (FitFactor.BetweenNodes): how much
// measuring pairs at the same time slowed a level's round trips (0 when
// none was recorded). On a simulated dragonfly of 32 nodes, the rounds
// slowed the pairs between its groups 16.5x at 1 MiB, each pair by
// which others it was measured beside: judged against the median alone,
// 18 nodes and 24 links were named slow, all alike but for the
// schedule.
func crossInterference(ff []survey.FitFactor, size int) float64 {
	f := 0.0
	for _, x := range ff {
		if x.SizeBytes == size && x.BetweenNodes() {
			f = max(f, x.Factor)
		}
	}
	return f
}

// outlierTable is the table judged and its threshold.
func outlierTable(s *survey.Survey) (*survey.PairTable, float64) {
	var best *survey.PairTable
	for _, t := range s.Tables {
		if t.Size >= bandwidthSize && (best == nil || t.Size > best.Size) {
			best = t
		}
	}
	if best != nil {
		return best, OutlierRatioBandwidth
	}
	small := s.Tables[0]
	for _, t := range s.Tables {
		if t.Size < small.Size {
			small = t
		}
	}
	return small, OutlierRatioLatency
}

// hostPairValues groups the measured pairs by host pair (cross[a][b], a <
// b) and by host (inside[h]).
func hostPairValues(t *survey.PairTable, m survey.Metric, host []int, nh int) (map[[2]int][]float64, [][]float64) {
	cross := map[[2]int][]float64{}
	inside := make([][]float64, nh)
	vals := t.Values[m]
	// Only measured pairs: a nodes-scope survey's filled pairs repeat
	// their leaders' and would outvote the node's own.
	t.Each(func(a, b, i int) {
		v := float64(vals[i])
		if math.IsNaN(v) || v <= 0 {
			return
		}
		ha, hb := host[a], host[b]
		if ha == hb {
			inside[ha] = append(inside[ha], v)
			return
		}
		if ha > hb {
			ha, hb = hb, ha
		}
		cross[[2]int{ha, hb}] = append(cross[[2]int{ha, hb}], v)
	})
	return cross, inside
}

func medians(groups map[[2]int][]float64) map[[2]int]float64 {
	out := make(map[[2]int]float64, len(groups))
	for k, v := range groups {
		out[k] = stats.Median(v)
	}
	return out
}

// exactRestNodes is the largest number of nodes for which slowNodes
// compares a node with the median of exactly the other nodes' links.
const exactRestNodes = 256

// slowNodes names each node whose median link is ratio times the median
// of the links between the other nodes. It needs 3 nodes: with 2 there is
// one link and no telling which end is slow.
func (o *Outliers) slowNodes(hp map[[2]int]float64, names []string, ratio float64) map[int]bool {
	slow := map[int]bool{}
	if len(names) < 3 {
		return slow
	}
	mine := make([][]float64, len(names))
	all := make([]float64, 0, len(hp))
	for k, v := range hp {
		mine[k[0]] = append(mine[k[0]], v)
		mine[k[1]] = append(mine[k[1]], v)
		all = append(all, v)
	}
	// The other nodes' links, exactly up to exactRestNodes nodes; beyond,
	// all links: one node's share of them is too small to move the median.
	slices.Sort(all)
	allMedian := stats.MedianSorted(all)
	for n := range names {
		if len(mine[n]) == 0 || len(mine[n]) == len(hp) {
			continue
		}
		slices.Sort(mine[n])
		rm := allMedian
		if len(names) <= exactRestNodes {
			rm = restMedian(all, mine[n])
		}
		mm := stats.MedianSorted(mine[n])
		if mm >= ratio*rm {
			slow[n] = true
			o.SlowNodes = append(o.SlowNodes, SlowNode{Host: names[n], MedianUs: mm, LevelUs: rm, Slowdown: mm / rm, PairCount: len(mine[n])})
		}
	}
	return slow
}

// restMedian is the median of the multiset all minus sub (both sorted, sub
// a part of all), in O(log^2) by binary search over all: the count of the
// rest up to all[i] is the count of all less that of sub.
func restMedian(all, sub []float64) float64 {
	m := len(all) - len(sub)
	if m <= 0 {
		return math.NaN()
	}
	upper := func(x []float64, v float64) int {
		return sort.Search(len(x), func(i int) bool { return x[i] > v })
	}
	kth := func(k int) float64 { // 0-based
		i := sort.Search(len(all), func(i int) bool { return upper(all, all[i])-upper(sub, all[i]) >= k+1 })
		return all[min(i, len(all)-1)]
	}
	if m%2 == 1 {
		return kth(m / 2)
	}
	return (kth(m/2-1) + kth(m/2)) / 2
}

// slowLinks names each node pair, between nodes not named slow, whose
// median is ratio times the median of those links.
func (o *Outliers) slowLinks(hp map[[2]int]float64, names []string, slow map[int]bool, ratio float64) {
	var keys [][2]int
	var vals []float64
	for k, v := range hp {
		if !slow[k[0]] && !slow[k[1]] {
			keys = append(keys, k)
			vals = append(vals, v)
		}
	}
	if len(vals) < 3 {
		return // one or two links: nothing to compare them with
	}
	ref := stats.Median(vals)
	// And far out of the links' own spread: median + 5 MADs (scaled to a
	// standard deviation), so that a network whose links spread widely
	// (distances on a torus, a noisy mean of few repeats) names none.
	dev := make([]float64, len(vals))
	for i, v := range vals {
		dev[i] = math.Abs(v - ref)
	}
	bar := math.Max(ratio*ref, ref+5*1.4826*stats.Median(dev))
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		if v := hp[k]; v >= bar {
			o.SlowLinks = append(o.SlowLinks, SlowLink{A: names[k[0]], B: names[k[1]], MedianUs: v, LevelUs: ref, Slowdown: v / ref})
		}
	}
}

// minInsidePairs is how many pairs inside a node (3 ranks) it takes to
// judge the node: one pair's round trip on a busy node says more about
// what else ran there (124 us against 40 us, with 2 ranks a node on this
// 2-core machine) than about the node.
const minInsidePairs = 3

// slowInside names each node whose inside pairs' median is ratio times the
// median over the other nodes' inside medians.
func (o *Outliers) slowInside(inside [][]float64, names []string, ratio float64) {
	med := make([]float64, len(inside))
	for h, v := range inside {
		med[h] = math.NaN()
		if len(v) >= minInsidePairs {
			med[h] = stats.Median(v)
		}
	}
	for h, m := range med {
		var rest []float64
		for g, x := range med {
			if g != h && !math.IsNaN(x) {
				rest = append(rest, x)
			}
		}
		if math.IsNaN(m) || len(rest) < 2 {
			continue
		}
		if rm := stats.Median(rest); m >= ratio*rm {
			o.SlowInside = append(o.SlowInside, SlowNode{Host: names[h], MedianUs: m, LevelUs: rm, Slowdown: m / rm, PairCount: len(inside[h])})
		}
	}
}

// Lines says the outliers in words, one line each ("none" when there are
// none).
func (o *Outliers) Lines() []string {
	if o == nil {
		return nil
	}
	what := fmt.Sprintf("%s round trip at %d B, %.1fx its level", o.Metric, o.SizeBytes, o.Ratio)
	if o.Interference > 1 {
		what = fmt.Sprintf("%s round trip at %d B, %.2gx its level inside nodes, %.1fx between them: "+
			"%.2gx the %.1fx the survey's concurrent rounds slowed a level's pairs; latmap survey --schedule sequential measures each pair alone",
			o.Metric, o.SizeBytes, o.Ratio/o.Interference, o.Ratio, o.Ratio/o.Interference, o.Interference)
	}
	var out []string
	for _, n := range o.SlowNodes {
		out = append(out, fmt.Sprintf("slow node %s: its links take %.4g us against %.4g us between the other nodes (%.1fx, %d node pairs)",
			n.Host, n.MedianUs, n.LevelUs, n.Slowdown, n.PairCount))
	}
	for _, l := range o.SlowLinks {
		out = append(out, fmt.Sprintf("slow link %s - %s: %.4g us against %.4g us for the other node pairs (%.1fx)", l.A, l.B, l.MedianUs, l.LevelUs, l.Slowdown))
	}
	for _, n := range o.SlowInside {
		out = append(out, fmt.Sprintf("slow inside node %s: its own pairs take %.4g us against %.4g us inside the other nodes (%.1fx)", n.Host, n.MedianUs, n.LevelUs, n.Slowdown))
	}
	if len(out) == 0 {
		return []string{"outliers (" + what + "): none"}
	}
	for i := range out {
		out[i] = "outlier (" + what + "): " + out[i]
	}
	return out
}
