package topo

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/survey"
)

// Level names used by topology inference, finest first: socket and up
// are survey's words, the ones latmap place uses too.
const (
	LevelCore    = "core"
	LevelNUMA    = "numa"
	LevelSocket  = survey.WordSocket
	LevelNode    = survey.WordNode
	LevelSwitch  = survey.WordSwitch
	LevelNetwork = survey.WordNetwork
)

// Layout names.
const (
	LayoutBlock      = "block"
	LayoutCyclic     = "cyclic"
	LayoutIrregular  = "irregular"
	LayoutOnePerNode = "one-per-node"
)

// Options control topology inference.
type Options struct {
	// Size is the message size to use; < 0 means the smallest measured.
	Size int
	// Metric is the statistic clustered; < 0 picks the median when the
	// survey has it, else the mean.
	Metric survey.Metric
	// LevelRatio is the smallest jump between successive merge heights
	// that separates two levels (default 1.15).
	LevelRatio float64
	// NodeRatio is the smallest jump that separates ranks sharing a node
	// from ranks talking over the network (default 1.5).
	NodeRatio float64
	// ProfileWeight is how much unlike rows of the latency matrix add to
	// the dissimilarity of two ranks (default 1; < 0 turns it off).
	ProfileWeight float64
	// NodeMaxUs is the largest median round trip of ranks sharing a node
	// (default 5 us: shared memory takes 0.3-3 us) unless the step to the
	// level above is at least StrongNodeRatio: a group slower than this
	// with a modest step above it is a part of the network.
	NodeMaxUs float64
	// StrongNodeRatio is a step between successive levels' medians that
	// separates nodes whatever their own round trips (default 2.5: on an
	// oversubscribed machine shared memory can take 10 us, the network 40).
	StrongNodeRatio float64
	// NetworkUs is the smallest round trip taken for a network: a jump
	// that reaches NodeRatio separates nodes only when the pairs above it
	// have a median of at least this (else it is taken for sockets of one
	// node); when no jump separates nodes, all ranks share one node if the
	// median round trip is below this, else each is on its own node
	// (default 1.5 us: shared memory between sockets takes 0.3-1.2 us,
	// the fastest networks about 2 us).
	NetworkUs float64
}

// DefaultOptions returns the defaults.
func DefaultOptions() Options {
	return Options{Size: -1, Metric: -1, LevelRatio: 1.15, NodeRatio: 1.5, NetworkUs: 1.5, ProfileWeight: 1, NodeMaxUs: 5, StrongNodeRatio: 2.5}
}

// Topology is what latency alone says about a machine; it is what
// latmap topo --json prints.
type Topology struct {
	// Levels from the closest pairs (e.g. core) to the farthest (network).
	Levels []Level `json:"levels"`
	// Ranks gives each rank's inferred node.
	Ranks []Rank `json:"ranks"`
	// Layout is block, cyclic, irregular or one-per-node.
	Layout string `json:"layout"`
	// Nodes is the number of inferred nodes.
	Nodes int `json:"nodes"`
	// RanksPerNode counts the ranks of each inferred node.
	RanksPerNode []int `json:"ranks_per_node"`
	// Description says the layout in words, for example
	// "4 nodes x 32 ranks, block (ranks 0-31 on nid00670, ...)".
	Description string `json:"description"`
	// Metric and SizeBytes say which statistic of which size was used.
	Metric    string `json:"metric"`
	SizeBytes int    `json:"size_bytes"`
	// HostsAgree is true when the inferred nodes are exactly the hosts.
	HostsAgree bool `json:"hosts_agree"`
	// Disagreements between the inferred nodes and the host names.
	Disagreements []string `json:"disagreements,omitempty"`
	// Notes are other findings (outlier ranks, how the node level was
	// chosen).
	Notes []string `json:"notes,omitempty"`
	// Outliers are the nodes and links slow within their own level (nil
	// for a survey of one host).
	Outliers *Outliers `json:"outliers,omitempty"`
	// Declared is the network description given with --topology, set
	// beside the survey (nil without one).
	Declared *Declared `json:"declared,omitempty"`

	// Group[l][r] is the cluster of rank r at level l (0-based, numbered
	// in order of each cluster's lowest rank). Not in the JSON.
	Group [][]int `json:"-"`
	// NodeLevel is the index of the node level in Levels, -1 when every
	// rank is on its own node.
	NodeLevel int `json:"-"`
}

// Level is one level of the inferred hierarchy: the pairs of ranks that
// first share a group at this level.
type Level struct {
	Name   string  `json:"name"`
	RTTMin float64 `json:"rtt_min_us"`
	RTTMax float64 `json:"rtt_max_us"`
	// RTTMedian is the median round trip of the level's pairs.
	RTTMedian float64 `json:"rtt_median_us"`
	// Pairs is how many rank pairs belong to the level.
	Pairs int `json:"pairs"`
	// Groups is how many groups the ranks form at this level.
	Groups int `json:"groups"`
}

// Rank is one rank's line of the topology.
type Rank struct {
	Rank int    `json:"rank"`
	Host string `json:"host"`
	Node int    `json:"node"`
}

// ChooseMetric returns the statistic to analyse in t: want when it is >= 0
// and present, else the median when t has it, else the mean.
func ChooseMetric(t *survey.PairTable, want survey.Metric) (survey.Metric, error) {
	if want >= 0 {
		if !t.HasValues(want) {
			return 0, fmt.Errorf("the survey has no %s values at %d bytes", want, t.Size)
		}
		return want, nil
	}
	for _, m := range []survey.Metric{survey.Median, survey.Mean, survey.Min} {
		if t.HasValues(m) {
			return m, nil
		}
	}
	return 0, fmt.Errorf("the survey has no latencies at %d bytes", t.Size)
}

// Infer groups ranks into levels from the latency matrix alone.
//
// Ranks are clustered by average linkage: two groups merge at the average,
// over all their members, of a dissimilarity that is the round trip raised
// by how unlike the two ranks' rows of the matrix are (ranks on one node
// have the same round trips to everyone else). Single pairs whose round
// trips overlap with another level, common on real machines, do not decide;
// the whole matrix does. Where the sorted merge heights jump by LevelRatio
// or more, a level may end; neighbouring levels whose median round trips
// differ by less than LevelRatio are joined. The largest step between
// successive levels' medians, when it reaches NodeRatio, goes to NetworkUs
// or more and starts below NodeMaxUs (or reaches StrongNodeRatio),
// separates ranks sharing a node from the network. A level made only of single ranks joining late
// (a slow core) is folded into the level below and reported as a note.
// Host names are used afterwards, to check, and to overrule nodes that
// hold ranks of several hosts where each host's ranks lie in one node
// (hostsBound: one rank a host behind one switch).
func Infer(s *survey.Survey, opt Options) (*Topology, error) {
	opt = opt.withDefaults()
	t, err := s.Table(opt.Size)
	if err != nil {
		return nil, err
	}
	m, err := ChooseMetric(t, opt.Metric)
	if err != nil {
		return nil, err
	}
	n := s.N()
	if n < 2 {
		return nil, fmt.Errorf("topology needs at least 2 ranks, the survey has %d", n)
	}
	if t.Sparse() {
		tp, err := inferByNodes(s, t, m, opt)
		if err == nil {
			tp.noteFound(s)
		}
		return tp, err
	}
	vals := t.Values[m]
	dg := cluster(n, vals, opt.ProfileWeight)
	topo := &Topology{Metric: m.String(), SizeBytes: t.Size, NodeLevel: -1}
	if note := s.FillNote(); note != "" {
		topo.Notes = append(topo.Notes, note)
	}
	h := make([]float64, len(dg.Merges))
	for i, mg := range dg.Merges {
		h[i] = mg.Height
	}
	lca := dg.pairMerges()
	grouped, start := pairsByMerge(vals, lca, len(h))
	lm := &levelMedians{grouped: grouped, start: start}
	var noise *levelMedians
	if spread := pairSpread(t); spread != nil {
		g, st := pairsByMerge(spread, lca, len(h))
		noise = &levelMedians{grouped: g, start: st}
	}
	bounds, med := levelBounds(h, lm, noise, opt.LevelRatio)
	nodeBound, byHosts := hostsBound(nodeBoundary(bounds, med, opt), bounds, med, dg, s.Ranks, opt.NetworkUs)
	// Fold levels made only of single ranks joining a group.
	bounds, outliers := foldOutlierLevels(dg, bounds, nodeBound, vals)
	// Levels: merges (bounds[i-1], bounds[i]]; the last level ends at the
	// last merge.
	ends := append(append([]int(nil), bounds...), len(h)-1)
	groups := make([][]int, len(ends))
	for i, e := range ends {
		groups[i] = dg.CutMerges(e + 1)
	}
	median := math.NaN() // of all known pairs, needed only without nodes
	if nodeBound < 0 {
		median = lm.of([]int{len(h) - 1})[0]
	}
	names := levelNames(ends, groups, nodeBound, median < opt.NetworkUs && byHosts == "")
	topo.Group = groups
	topo.setLevels(names, groups, levelStats(dg, lm, ends))
	node := topo.nodes(names, groups, s.Ranks, opt, median, byHosts)
	topo.setNodes(node, s.Ranks)
	if topo.Nodes == 1 && topo.NodeLevel < 0 {
		// The host names put every rank on one node: its pairs are all
		// inside that node, whatever the latencies alone would call them.
		for i := range topo.Levels {
			if topo.Levels[i].Name == LevelNetwork {
				topo.Levels[i].Name = LevelNode
				topo.NodeLevel = i
			}
		}
	}
	for _, r := range outliers {
		topo.Notes = append(topo.Notes, fmt.Sprintf("rank %d (%s) joins its group late (%.2f us average round trip to it): "+
			"a slow core or a busy one", r.rank, s.Ranks[r.rank].Host, r.height))
	}
	topo.noteFound(s)
	topo.HostsAgree, topo.Disagreements = CheckHosts(node, s.Ranks, vals)
	if topo.Outliers, err = FindOutliers(s); err != nil {
		return nil, err
	}
	return topo, nil
}

// withDefaults fills the options left zero (or out of range) with
// DefaultOptions' values.
func (opt Options) withDefaults() Options {
	def := DefaultOptions()
	if opt.LevelRatio <= 1 {
		opt.LevelRatio = def.LevelRatio
	}
	if opt.NodeRatio <= 1 {
		opt.NodeRatio = def.NodeRatio
	}
	if opt.NetworkUs <= 0 {
		opt.NetworkUs = def.NetworkUs
	}
	if opt.ProfileWeight == 0 {
		opt.ProfileWeight = def.ProfileWeight
	}
	if opt.NodeMaxUs <= 0 {
		opt.NodeMaxUs = def.NodeMaxUs
	}
	if opt.StrongNodeRatio <= 1 {
		opt.StrongNodeRatio = def.StrongNodeRatio
	}
	return opt
}

// cluster merges the n ranks by average linkage on their dissimilarity:
// their round trip, raised when their rows of the matrix differ (weight
// wgt). Ranks on one node have the same round trips to everyone else,
// which tells nodes apart where single round trips within and between
// nodes overlap.
func cluster(n int, vals []float32, wgt float64) *Dendrogram {
	prof := newRowProfiles(n, vals)
	return AverageLinkage(n, func(a, b int) float64 {
		v := float64(vals[survey.TriIndex(n, a, b)])
		if wgt > 0 {
			v *= 1 + wgt*prof.distance(a, b)
		}
		return v
	})
}

// pairSpread is each pair's median minus its minimum round trip: how much
// its own round trips wander (robust to the rare spike a standard
// deviation swells with), or nil when the table lacks either.
func pairSpread(t *survey.PairTable) []float32 {
	if !t.HasValues(survey.Median) || !t.HasValues(survey.Min) {
		return nil
	}
	md, mn := t.Values[survey.Median], t.Values[survey.Min]
	out := make([]float32, len(md))
	for i := range md {
		out[i] = md[i] - mn[i]
	}
	return out
}

// levelBounds returns the level boundaries, indices k such that merges
// [0, k] are below the boundary and merge k+1 above, where the merge
// heights h jump by ratio, and the levels' median round trips. Levels
// whose round trips are alike are one level: the boundary between the two
// most alike is dropped until every step between successive levels'
// medians is at least ratio and, when noise gives the levels' median
// pair spread (median - min), at least twice the larger spread of the two:
// a step the pairs' own round trips wander across is noise, not a level
// (8 ranks on 4 virtual nodes sharing 2 cpus made "switch" levels at 52
// and 93 us inside nodes whose pairs wander by 35 us and more). A step
// whose upper level, wandered down, is still clearGap times the lower
// level wandered up is a level whatever the spreads: a shaped link's
// 19.5 ms round trips wander 9.7 ms down to the wire's 10 ms, and twice
// that outweighed the step from 119 us inside a node, which put the
// node's pair in the network. (The two spreads added, not twice the
// larger, fixed that but made a "core" level at 144 us under a node's
// 327 us on 4 virtual nodes x 2.)
func levelBounds(h []float64, lm, noise *levelMedians, ratio float64) (bounds []int, med []float64) {
	for k := 0; k+1 < len(h); k++ {
		if h[k] <= 0 || h[k+1]/h[k] >= ratio {
			bounds = append(bounds, k)
		}
	}
	bounds = largestJumps(h, bounds, maxLevels)
	for {
		ends := append(append([]int(nil), bounds...), len(h)-1)
		med = lm.of(ends)
		var spread []float64
		if noise != nil {
			spread = noise.of(ends)
		}
		// Each step's strength: 1 is just enough on both counts.
		worst, worstS := -1, 1.0
		for i := 0; i+1 < len(med); i++ {
			st := med[i+1] / med[i] / ratio
			if spread != nil {
				clear := med[i+1]-spread[i+1] >= clearGap*(med[i]+spread[i])
				if w := 2 * math.Max(spread[i], spread[i+1]); w > 0 && !clear {
					st = math.Min(st, (med[i+1]-med[i])/w)
				}
			}
			if !(st >= worstS) {
				worst, worstS = i, st
			}
		}
		if worst < 0 {
			return bounds, med
		}
		bounds = append(bounds[:worst], bounds[worst+1:]...)
	}
}

// hostsBound is the node boundary the host names allow. Where every
// rank has a host name, the latencies' nodes hold ranks of several
// hosts, each host's ranks lie in one of them and their level's median
// round trip (med, by level) is a network's (networkUs or more), those
// are no nodes but the switch or router the hosts share (one rank a
// node: no round trip inside a node to set the router's apart from):
// the boundary is then the highest one below whose groups hold one
// host each, or none, and why says so; the nodes are the hosts. Faster
// nodes are shared memory, their hosts' names no node names (a
// processor's name for each core).
func hostsBound(nodeBound int, bounds []int, med []float64, dg *Dendrogram, ranks []survey.Rank, networkUs float64) (int, string) {
	if nodeBound < 0 || slices.ContainsFunc(ranks, func(r survey.Rank) bool { return r.Host == "" }) {
		return nodeBound, ""
	}
	if i := slices.Index(bounds, nodeBound); i < 0 || med[i] < networkUs {
		return nodeBound, ""
	}
	host, hosts := survey.HostIndex(ranks)
	spans := func(b int) (several, split bool) {
		g := dg.CutMerges(b + 1)
		hostOf, groupOf := map[int]int{}, map[int]int{}
		for r, x := range g {
			if h, ok := hostOf[x]; !ok {
				hostOf[x] = host[r]
			} else if h != host[r] {
				several = true
			}
			if y, ok := groupOf[host[r]]; !ok {
				groupOf[host[r]] = x
			} else if y != x {
				split = true
			}
		}
		return several, split
	}
	if several, split := spans(nodeBound); !several || split {
		return nodeBound, ""
	}
	below := -1
	for _, b := range bounds {
		if several, _ := spans(b); b < nodeBound && !several {
			below = b
		}
	}
	return below, fmt.Sprintf("the latencies' nodes hold ranks of several hosts each, and each host's ranks lie in one of them: "+
		"the nodes are the %d hosts, and the round trips between hosts that looked like one node are a switch's or router's "+
		"(one rank a host leaves no round trip inside a node to tell them apart)", hosts)
}

// clearGap is how far apart two levels' round trips, wandered toward
// each other by their spreads, are two levels whatever the spreads.
const clearGap = 2

// nodeBoundary is the boundary between nodes, or -1: the largest step
// between successive levels' medians, if at least NodeRatio, into round
// trips of at least NetworkUs, from round trips below NodeMaxUs or by
// StrongNodeRatio.
func nodeBoundary(bounds []int, med []float64, opt Options) int {
	nodeBound, nodeRatio := -1, 0.0
	for i, b := range bounds {
		r := med[i+1] / med[i]
		if r >= opt.NodeRatio && r > nodeRatio && med[i+1] >= opt.NetworkUs && (med[i] < opt.NodeMaxUs || r >= opt.StrongNodeRatio) {
			nodeBound, nodeRatio = b, r
		}
	}
	return nodeBound
}

// setLevels records the levels and which one is the node level.
func (topo *Topology) setLevels(names []string, groups [][]int, lstats []levelStat) {
	for i, st := range lstats {
		topo.Levels = append(topo.Levels, Level{Name: names[i], RTTMin: stats.Round3(st.min), RTTMax: stats.Round3(st.max),
			RTTMedian: stats.Round3(st.median), Pairs: st.pairs, Groups: maxInt(groups[i]) + 1})
		if names[i] == LevelNode {
			topo.NodeLevel = i
		}
	}
}

// nodes numbers the node of every rank: the hosts where the host names
// overrule the latencies' nodes (byHosts says why: hostsBound); the
// node level's groups; all one node when no level leaves it; else, when
// the latencies cannot decide, the host names where they group ranks,
// or one node per rank, with a note saying which.
func (topo *Topology) nodes(names []string, groups [][]int, ranks []survey.Rank, opt Options, median float64, byHosts string) []int {
	node := make([]int, len(ranks))
	switch {
	case byHosts != "":
		node, _ = survey.HostIndex(ranks)
		topo.Notes = append(topo.Notes, byHosts)
	case topo.NodeLevel >= 0:
		copy(node, groups[topo.NodeLevel])
	case len(names) > 0 && names[len(names)-1] != LevelNetwork:
		// Everything on one node.
	default:
		why := fmt.Sprintf("no level's median round trip is %.1fx that of the level below it (from under %.1f us, or %.1fx, "+
			"to %.1f us or more), and the median round trip %.2f us is at least %.1f us",
			opt.NodeRatio, opt.NodeMaxUs, opt.StrongNodeRatio, opt.NetworkUs, median, opt.NetworkUs)
		// Latencies alone cannot tell one node of slow shared memory
		// (an oversubscribed node) from one rank per node; where the host
		// names put several ranks together, they decide.
		if hosts := hostNodes(ranks); hosts != nil {
			copy(node, hosts)
			topo.Notes = append(topo.Notes, why+": latencies alone cannot tell one node from one rank per node, so the nodes are taken from the host names")
			break
		}
		for i := range node {
			node[i] = i
		}
		topo.Notes = append(topo.Notes, why+": every rank is taken to be on its own node")
	}
	return node
}

// setNodes records the ranks' nodes, the counts and the layout.
func (topo *Topology) setNodes(node []int, ranks []survey.Rank) {
	topo.Ranks = make([]Rank, len(node))
	for r := range node {
		topo.Ranks[r] = Rank{Rank: r, Host: ranks[r].Host, Node: node[r]}
	}
	topo.Nodes = maxInt(node) + 1
	topo.RanksPerNode = make([]int, topo.Nodes)
	for _, x := range node {
		topo.RanksPerNode[x]++
	}
	topo.Layout = ClassifyLayout(node)
	topo.Description = DescribeLayout(node, ranks)
}

// maxLevels bounds the candidate level boundaries: real hierarchies have
// a handful of levels (core, socket, node, switches, network).
const maxLevels = 16

// largestJumps keeps the at most keep boundaries of bounds with the
// largest jumps h[k+1]/h[k], in increasing order.
func largestJumps(h []float64, bounds []int, keep int) []int {
	if len(bounds) <= keep {
		return bounds
	}
	jump := func(k int) float64 {
		if h[k] <= 0 {
			return math.Inf(1)
		}
		return h[k+1] / h[k]
	}
	out := append([]int(nil), bounds...)
	sort.SliceStable(out, func(i, j int) bool { return jump(out[i]) > jump(out[j]) })
	out = out[:keep]
	sort.Ints(out)
	return out
}

type outlierRank struct {
	rank   int
	height float64
}

// foldOutlierLevels removes the lower boundary of every level (other than
// the first and the node boundary's upper level) whose merges all join a
// single rank to a group of two or more.
func foldOutlierLevels(dg *Dendrogram, bounds []int, nodeBound int, vals []float32) ([]int, []outlierRank) {
	n := dg.N
	var out []int
	var outliers []outlierRank
	for i, b := range bounds {
		// The level above boundary b: merges b+1 .. next boundary.
		end := len(dg.Merges) - 1
		if i+1 < len(bounds) {
			end = bounds[i+1]
		}
		allAbsorb := true
		var ranks []outlierRank
		for k := b + 1; k <= end; k++ {
			mg := dg.Merges[k]
			sa, sb := clusterSize(dg, mg.A), clusterSize(dg, mg.B)
			switch {
			case sa == 1 && sb >= 2:
				ranks = append(ranks, outlierRank{mg.A, dg.rawAverage(k, vals)})
			case sb == 1 && sa >= 2:
				ranks = append(ranks, outlierRank{mg.B, dg.rawAverage(k, vals)})
			default:
				allAbsorb = false
			}
		}
		// Only fold when the level is not the whole top and does not
		// cross the node boundary.
		if allAbsorb && b != nodeBound && end < len(dg.Merges)-1 && len(ranks) <= n/4 {
			outliers = append(outliers, ranks...)
			continue
		}
		out = append(out, b)
	}
	return out, outliers
}

func clusterSize(dg *Dendrogram, id int) int {
	if id < dg.N {
		return 1
	}
	return dg.Merges[id-dg.N].Size
}

// levelNames names levels: those below the node boundary are core, numa,
// socket and node (the highest is node; the lowest is core when its groups
// are mostly pairs, as cores sharing a cache or hyperthreads), those above
// switch and network. With no node boundary, every level is a network
// level, or a node level when singleNode.
func levelNames(ends []int, groups [][]int, nodeBound int, singleNode bool) []string {
	var below, above int
	for _, e := range ends {
		if nodeBound >= 0 && e <= nodeBound {
			below++
		} else {
			above++
		}
	}
	if nodeBound < 0 && singleNode {
		below, above = len(ends), 0
	}
	names := make([]string, 0, len(ends))
	if below > 0 {
		sub := []string{LevelNode}
		rest := below - 1
		pairs := rest > 0 && float64(len(groups[0]))/float64(maxInt(groups[0])+1) <= 2.5
		for i := rest - 1; i >= 0; i-- {
			switch {
			case i == 0 && pairs:
				sub = append(sub, LevelCore)
			case i == rest-1:
				sub = append(sub, LevelSocket)
			case i == rest-2:
				sub = append(sub, LevelNUMA)
			default:
				sub = append(sub, fmt.Sprintf("%s%d", LevelCore, i+1))
			}
		}
		for i := len(sub) - 1; i >= 0; i-- {
			names = append(names, sub[i])
		}
	}
	for i := 0; i < above; i++ {
		switch {
		case i == above-1:
			names = append(names, LevelNetwork)
		default:
			names = append(names, survey.SwitchWord(i, above-1))
		}
	}
	return names
}

type levelStat struct {
	min, max, median float64
	pairs            int
}

// levelStats gives the round-trip range of the pairs of each level, level
// i holding the pairs first joined by merges (ends[i-1], ends[i]].
func levelStats(dg *Dendrogram, lm *levelMedians, ends []int) []levelStat {
	out := make([]levelStat, len(ends))
	med := lm.of(ends)
	lo := 0
	for i, e := range ends {
		st := levelStat{min: math.NaN(), max: math.NaN(), median: math.NaN()}
		for k := lo; k <= e; k++ {
			m := dg.Merges[k]
			st.pairs += clusterSize(dg, m.A) * clusterSize(dg, m.B) // unknown pairs count too
		}
		if seg := lm.grouped[lm.start[lo]:lm.start[e+1]]; len(seg) > 0 {
			mn, mx := seg[0], seg[0]
			for _, v := range seg {
				mn, mx = min(mn, v), max(mx, v)
			}
			st.min, st.max, st.median = float64(mn), float64(mx), med[i]
		}
		out[i] = st
		lo = e + 1
	}
	return out
}

func maxInt(x []int) int {
	m := -1
	for _, v := range x {
		m = max(m, v)
	}
	return m
}
