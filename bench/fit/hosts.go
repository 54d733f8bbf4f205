package fit

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/survey"
)

// SlowHostFactor is how many times its level's transfer time a host's
// pairs must take at the largest size (the median of its pairs', and
// the lower quartile too) for the host to count as linked slower than
// the others. Below it a host's median is noise: over the 240 pairs a
// host of 4 ranks has among 16 hosts, the hosts of one link speed
// scattered by 10% in a simulated survey.
const SlowHostFactor = 1.25

// MinHostPairs is how many pairs a host must have at a level for its
// factor there to count: the fake MPI's 5 ranks on 3 hosts, 3 pairs a
// host, made one host "slow" by its pairs' ranks' latencies.
const MinHostPairs = 8

// HostFactors are, per host (survey.HostIndex's numbering), how many
// times longer than their level's its pairs' transfer times were (the
// round trip at the largest size less the one at the smallest: the
// bytes' part), where that is above SlowHostFactor, else 1; nil when
// no host is slower. A host's factor is, at each level between nodes
// where it has MinHostPairs pairs, the median over its pairs of each
// one's transfer time over the level's median (its lower quartile
// above SlowHostFactor too: nearly every pair through it is slower),
// and the smallest of those over the levels: a slower adapter or a link
// trained at a lower width or speed slows every pair through the host
// at every level, while uplinks shared by the concurrent rounds slow
// only the levels above them. A pair through such a host is as slow in
// the concurrent rounds as alone: its own link, not what else ran,
// bounds it. On PSMN's fabric (3 hosts of 4xDDR among 13 of 4xQDR,
// simulated) the DDR hosts' pairs took 1.96-1.99x their level's median,
// the others' 0.97-1.06x. A host with MinIsolatedHostPairs pairs in the
// isolation sample is judged on them instead (isolatedFactor). Where
// some hosts are found slow, every host is judged again against the
// pairs through none of them: among 4 hosts, one of them linked at a
// quarter of the others' rate holds half the pairs between nodes, and
// the median of them all put it at 1.6x. Where half of a level's pairs
// or more run through slow hosts, the level's median is theirs and none
// is found.
func HostFactors(s *survey.Survey) []float64 {
	if len(s.Tables) < 2 {
		return nil
	}
	hostIdx, nh := survey.HostIndex(s.Ranks)
	conc, iso := levelTimes(s, hostIdx, nh, nil)
	cm, im := medians(conc.all, nil), medians(iso.all, nil)
	out := judgeHosts(conc.byHost, iso.byHost, cm, im)
	if out == nil {
		return nil
	}
	// Every host again, against the pairs through none found slow.
	fc, fi := levelTimes(s, hostIdx, 0, func(ha, hb int) bool { return out[ha] == 1 && out[hb] == 1 })
	return judgeHosts(conc.byHost, iso.byHost, medians(fc.all, cm), medians(fi.all, im))
}

// judgeHosts are HostFactors' factors from each host's transfer times in
// the concurrent rounds and alone (by level, by host: levelTimes) and
// the levels' references (cm, im): nil where none is above
// SlowHostFactor.
func judgeHosts(concHost, isoHost [][][]float32, cm, im []float64) []float64 {
	out, slow := make([]float64, len(concHost[0])), false
	for h := range out {
		f := isolatedFactor(isoHost, im, h)
		if math.IsNaN(f) {
			f = concurrentFactor(concHost, cm, h)
		}
		out[h] = 1
		if f > SlowHostFactor && !math.IsInf(f, 1) {
			out[h], slow = f, true
		}
	}
	if !slow {
		return nil
	}
	return out
}

// hostTimes are transfer times of pairs between nodes: each level's (by
// the survey's PairLevels), and each host's at each level (nil: not
// kept).
type hostTimes struct {
	all    [][]float32
	byHost [][][]float32
}

// add keeps v, the time of a pair of hosts ha and hb at level l, where
// positive.
func (h *hostTimes) add(l, ha, hb int, v float32) {
	if !(v > 0) {
		return
	}
	h.all[l] = append(h.all[l], v)
	if h.byHost != nil {
		h.byHost[l][ha], h.byHost[l][hb] = append(h.byHost[l][ha], v), append(h.byHost[l][hb], v)
	}
}

// levelTimes are the transfer times of s's pairs between nodes that keep
// allows (nil: all), in one pass over the largest size: the round trip
// less the median at the smallest size (the bytes' part), in the
// concurrent rounds (its median) and alone (the isolation sample); with
// nh > 0 each host's too.
func levelTimes(s *survey.Survey, hostIdx []int, nh int, keep func(ha, hb int) bool) (conc, iso hostTimes) {
	lo, t := s.Tables[0], s.Tables[len(s.Tables)-1]
	level, names := s.PairLevels()
	for _, h := range []*hostTimes{&conc, &iso} {
		h.all = make([][]float32, len(names))
		if nh > 0 {
			h.byHost = make([][][]float32, len(names))
			for l := range h.byHost {
				h.byHost[l] = make([][]float32, nh)
			}
		}
	}
	t.Each(func(a, b, _ int) {
		ha, hb := hostIdx[a], hostIdx[b]
		if ha == hb || keep != nil && !keep(ha, hb) {
			return
		}
		l, small := level(a, b), lo.At(survey.Median, a, b)
		conc.add(l, ha, hb, float32(t.At(survey.Median, a, b)-small))
		iso.add(l, ha, hb, float32(t.At(survey.Isolated, a, b)-small))
	})
	return conc, iso
}

// medians are each level's median of times (reordered), or else's where
// it has none (nil: 0).
func medians(times [][]float32, orElse []float64) []float64 {
	med := make([]float64, len(times))
	for l, v := range times {
		switch {
		case len(v) > 0:
			med[l] = stats.MedianInPlace(v)
		case orElse != nil:
			med[l] = orElse[l]
		}
	}
	return med
}

// concurrentFactor is host h's factor from its pairs' transfer times in
// the concurrent rounds (byHost: by level; med: each level's reference):
// at each level where it has MinHostPairs pairs, their median over the
// level's if their lower quartile is over SlowHostFactor too, else 1;
// the least over the levels (+Inf: none).
func concurrentFactor(byHost [][][]float32, med []float64, h int) float64 {
	f := math.Inf(1)
	for l, v := range byHost {
		if len(v[h]) >= MinHostPairs {
			if q := float64(stats.Select(v[h], len(v[h])/4)) / med[l]; q > SlowHostFactor {
				f = min(f, stats.MedianInPlace(v[h])/med[l])
			} else {
				f = 1
			}
		}
	}
	return f
}

// MinIsolatedHostPairs is how many of a host's pairs between nodes the
// isolation sample must hold at the largest size for HostFactors to
// judge the host on them alone. Fewer, a host among slow ones could
// have most of its few pairs through them.
const MinIsolatedHostPairs = 6

// isolatedFactor is host h's factor from its pairs between nodes
// measured alone at the largest size (byHost: by level; med: each
// level's reference): the median over them of each one's transfer time
// over its level's, where their lower quartile is over SlowHostFactor
// too, else 1; NaN for a host with fewer than MinIsolatedHostPairs such
// pairs. Measured
// alone, a pair's time is its path's, not what else ran in its round:
// on PSMN's fabric (simulated; two 4xDDR hosts on a leaf of their own,
// one more elsewhere, among 4xQDR) the DDR hosts' pairs took 1.92x the
// others' alone, but 1.53x the level's median in the concurrent rounds
// at their leaf, where the level's other pairs shared their hosts'
// links with more of the round than the two DDR hosts did with each
// other.
func isolatedFactor(byHost [][][]float32, med []float64, h int) float64 {
	var r []float64
	for l, v := range byHost {
		for _, x := range v[h] {
			r = append(r, float64(x)/med[l])
		}
	}
	if len(r) < MinIsolatedHostPairs {
		return math.NaN()
	}
	if stats.Select(r, len(r)/4) > SlowHostFactor {
		return stats.MedianInPlace(r)
	}
	return 1
}

// SlowHosts are the names of the hosts HostFactors finds slower (nil
// when none is).
func SlowHosts(s *survey.Survey) map[string]bool {
	f := HostFactors(s)
	if f == nil {
		return nil
	}
	hostIdx, _ := survey.HostIndex(s.Ranks)
	out := map[string]bool{}
	for r, h := range hostIdx {
		if f[h] > 1 {
			out[s.Ranks[r].Host] = true
		}
	}
	return out
}

// SlowHostsWarning says which hosts HostFactors found slower (factors,
// by survey.HostIndex's numbering), and what it means; "" when none.
func SlowHostsWarning(s *survey.Survey, factors []float64) string {
	if factors == nil {
		return ""
	}
	hostIdx, nh := survey.HostIndex(s.Ranks)
	names := make([]string, nh)
	for r, h := range hostIdx {
		names[h] = s.Ranks[r].Host
	}
	var slow []string
	lo, hi := math.Inf(1), 0.0
	for h, f := range factors {
		if f > 1 {
			slow = append(slow, names[h])
			lo, hi = min(lo, f), max(hi, f)
		}
	}
	slices.Sort(slow)
	size := s.Tables[len(s.Tables)-1].Size
	rng := fmt.Sprintf("%.2fx", lo)
	if hi > lo*1.01 {
		rng = fmt.Sprintf("%.2f-%.2fx", lo, hi)
	}
	list := strings.Join(slow, ", ")
	if len(slow) > 8 {
		list = strings.Join(slow[:8], ", ") + fmt.Sprintf(" and %d more", len(slow)-8)
	}
	return fmt.Sprintf("slow hosts: every pair through %s took %s the transfer time of its level's pairs at %d B (median): "+
		"a slower adapter or a link trained at a lower width or speed (check with ibstat, or ethtool); "+
		"their pairs are fitted at that share of the level's bandwidth", list, rng, size)
}
