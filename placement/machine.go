package placement

import (
	"fmt"
	"math"
	"sort"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/survey"
)

// Level is how close two slots are in the machine's hierarchy.
type Level int

// The hierarchy levels a slot pair can belong to.
const (
	SameSocket Level = iota
	SameNode
	OtherNode
	numLevels
)

var levelNames = [...]string{"same socket", "same node", "other node"}

// String names the level.
func (l Level) String() string {
	if l < 0 || l >= numLevels {
		return fmt.Sprintf("Level(%d)", int(l))
	}
	return levelNames[l]
}

// Slot is a place a rank can run: one rank of the survey (host + cpu).
type Slot struct {
	Host   string `json:"host"`
	CPU    int    `json:"cpu"`
	Socket int    `json:"socket"`
	// Node indexes Machine.Hosts.
	Node int `json:"node"`
}

// LinkCost is the one-way cost of talking between two slots: the time of a
// message is Latency + bytes*InvBandwidth (seconds).
type LinkCost struct {
	Latency      float64 `json:"latency_s"`
	InvBandwidth float64 `json:"inv_bandwidth_s_per_byte"`
}

// Cost is the modelled time of msgs messages carrying bytes bytes.
func (c LinkCost) Cost(msgs, bytes float64) float64 {
	return msgs*c.Latency + bytes*c.InvBandwidth
}

// DefaultBandwidthGBps are the per-level bandwidths (GB/s, 1e9 bytes/s)
// used when the survey has no bandwidth fit: same socket, same node, other
// node. They are typical of a current cluster; set them with
// --bandwidth-socket, --bandwidth-node, --bandwidth-net.
var DefaultBandwidthGBps = [numLevels]float64{10, 8, 3}

// Machine is the set of slots and the cost of talking between any two.
// When built from a survey with at most DenseLimit slots, every pair has its
// own measured (or filled) cost; otherwise pairs cost their level's value.
type Machine struct {
	Slots []Slot
	Hosts []string
	// Levels holds each level's representative cost (median of the
	// measured pairs of that level, or the value given).
	Levels [numLevels]LinkCost
	// LevelPairs counts slot pairs per level, LevelMeasured the measured ones.
	LevelPairs    [numLevels]int
	LevelMeasured [numLevels]int
	// Filled is the number of slot pairs the survey did not measure and
	// that were given their level's median.
	Filled int
	// LeaderFilled is the number of slot pairs a nodes or sample survey
	// did not measure and that reading it filled from their nodes' leader
	// pair (survey.Survey.Filled); they count as measured here.
	LeaderFilled int
	// FitLatencyFromRTT counts the pairs whose fit gave a bandwidth but no
	// positive latency: their latency is half the smallest round trip.
	FitLatencyFromRTT int
	// Bandwidth says where bandwidths came from ("fit.csv" or "defaults").
	Bandwidth string
	// Notes are things the report should say about the machine.
	Notes []string
	dense *denseCost
}

type denseCost struct {
	n         int
	lat, invB []float32
}

// DenseLimit is the largest survey kept as a full pair-cost table
// (memory 8 bytes per pair).
const DenseLimit = 8192

// NewLevelMachine builds a machine of nodes x sockets x coresPerSocket slots
// on hosts node0, node1, ... whose pairs cost their level's value. It
// serves synthetic benchmarks and tests.
func NewLevelMachine(nodes, sockets, coresPerSocket int, levels [numLevels]LinkCost) *Machine {
	m := &Machine{Levels: levels, Bandwidth: "given"}
	for n := 0; n < nodes; n++ {
		h := fmt.Sprintf("node%d", n)
		m.Hosts = append(m.Hosts, h)
		for s := 0; s < sockets; s++ {
			for c := 0; c < coresPerSocket; c++ {
				m.Slots = append(m.Slots, Slot{Host: h, CPU: s*coresPerSocket + c, Socket: s, Node: n})
			}
		}
	}
	perNode := sockets * coresPerSocket
	m.LevelPairs = [numLevels]int{
		SameSocket: nodes * sockets * coresPerSocket * (coresPerSocket - 1) / 2,
		SameNode:   nodes * sockets * (sockets - 1) / 2 * coresPerSocket * coresPerSocket,
		OtherNode:  nodes * (nodes - 1) / 2 * perNode * perNode,
	}
	return m
}

// Level returns the hierarchy level of slots a and b.
func (m *Machine) Level(a, b int) Level {
	sa, sb := &m.Slots[a], &m.Slots[b]
	if sa.Node != sb.Node {
		return OtherNode
	}
	if sa.Socket >= 0 && sa.Socket == sb.Socket {
		return SameSocket
	}
	return SameNode
}

// Link returns the cost of talking between slots a and b (a != b).
func (m *Machine) Link(a, b int) LinkCost {
	if d := m.dense; d != nil {
		i := survey.TriIndex(d.n, a, b)
		return LinkCost{float64(d.lat[i]), float64(d.invB[i])}
	}
	return m.Levels[m.Level(a, b)]
}

// pairCost is the modelled time of traffic (msgs, bytes) between slots a, b.
func (m *Machine) pairCost(a, b int32, msgs, bytes float64) float64 {
	if a == b {
		return 0
	}
	if d := m.dense; d != nil {
		i := survey.TriIndex(d.n, int(a), int(b))
		return msgs*float64(d.lat[i]) + bytes*float64(d.invB[i])
	}
	sa, sb := &m.Slots[a], &m.Slots[b]
	l := SameNode
	if sa.Node != sb.Node {
		l = OtherNode
	} else if sa.Socket >= 0 && sa.Socket == sb.Socket {
		l = SameSocket
	}
	c := &m.Levels[l]
	return msgs*c.Latency + bytes*c.InvBandwidth
}

// SurveyCostOptions set how a survey becomes link costs.
type SurveyCostOptions struct {
	// BandwidthGBps per level when the survey has no fit.csv; zero entries
	// take DefaultBandwidthGBps.
	BandwidthGBps [numLevels]float64
	// IgnoreFit uses BandwidthGBps and the smallest size's latency even
	// when fit.csv exists.
	IgnoreFit bool
}

// fitLink converts a fit.csv row into a link cost. fit.csv fits the one-way
// time T(s) = L + s/B (half the median round trip, see bench.FitPair), so L
// and B are used as they are. ok is false when the fitted latency is not
// usable (not positive); InvBandwidth is NaN when the fit found no
// bandwidth (time did not grow with size), and the caller then uses the
// level's default bandwidth.
func fitLink(latencyUs, bandwidthMBps float64) (c LinkCost, ok bool) {
	c = LinkCost{Latency: math.NaN(), InvBandwidth: math.NaN()}
	if latencyUs > 0 {
		c.Latency = latencyUs * 1e-6
	}
	if bandwidthMBps > 0 && !math.IsInf(bandwidthMBps, 0) {
		c.InvBandwidth = 1 / (bandwidthMBps * 1e6)
	}
	// A fit whose latency came out negative (on a bandwidth-bound link the
	// least squares can put it below zero) still measured the bandwidth.
	return c, !math.IsNaN(c.Latency) || !math.IsNaN(c.InvBandwidth)
}

// MachineFromSurvey builds the machine of a survey: one slot per surveyed
// rank; latency is half the round trip at the smallest size (median, or
// mean when the median was not recorded, as in mmpi logs) or the fit's
// latency; bandwidth is the fit's, else the per-level default. Pairs the
// survey did not measure get the median of the measured pairs of their
// level.
func MachineFromSurvey(s *survey.Survey, opt SurveyCostOptions) (*Machine, error) {
	n := s.N()
	if n < 2 {
		return nil, fmt.Errorf("survey has %d ranks; a survey needs at least 2 (run latmap survey under mpirun -np N)", n)
	}
	if len(s.Tables) == 0 {
		return nil, fmt.Errorf("survey has ranks but no measured pairs (pairs.csv is empty); re-run latmap survey")
	}
	m, err := slotsFromSurvey(s)
	if err != nil {
		return nil, err
	}
	m.LeaderFilled = s.Filled
	fits := fitCosts(s, opt)
	m.Bandwidth = "defaults"
	if len(fits) > 0 {
		m.Bandwidth = "fit.csv"
	}
	var pc *pairCosts
	if s.Sparse() {
		pc = m.sparseCosts(s, fits, opt.levelBandwidths())
	} else {
		pc = m.measuredCosts(s, fits, opt.levelBandwidths())
	}
	if m.FitLatencyFromRTT > 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("%d pairs' fit in fit.csv gave no positive latency (bandwidth-bound links): their latency is half the smallest size's round trip, their bandwidth the fit's", m.FitLatencyFromRTT))
	}
	if err := m.levelCosts(pc); err != nil {
		return nil, err
	}
	if pc.lat == nil {
		return m, nil // sparse: every pair costs its level's median
	}
	m.fillUnmeasured(pc)
	if n <= DenseLimit {
		m.dense = &denseCost{n: n, lat: pc.lat, invB: pc.invB}
	}
	return m, nil
}

// slotsFromSurvey makes one slot per surveyed rank and numbers the hosts.
func slotsFromSurvey(s *survey.Survey) (*Machine, error) {
	m := &Machine{}
	hostIdx := map[string]int{}
	seen := map[[2]string]int{}
	perHost := map[string]int{}
	unknownCPU := 0
	for i, r := range s.Ranks {
		// Surveys imported from mmpi logs do not know the cpu: number the
		// host's slots 0, 1, ... in rank order.
		if r.CPU < 0 {
			r.CPU = perHost[r.Host]
			unknownCPU++
		}
		perHost[r.Host]++
		if r.Host == "" {
			return nil, fmt.Errorf("survey rank %d has no host name", i)
		}
		h, ok := hostIdx[r.Host]
		if !ok {
			h = len(m.Hosts)
			hostIdx[r.Host] = h
			m.Hosts = append(m.Hosts, r.Host)
		}
		k := [2]string{r.Host, fmt.Sprint(r.CPU)}
		if j, dup := seen[k]; dup {
			return nil, fmt.Errorf("survey ranks %d and %d both ran on %s cpu %d; a slot must be one cpu (survey with ranks bound to cores, e.g. mpirun --bind-to core)", j, i, r.Host, r.CPU)
		}
		seen[k] = i
		m.Slots = append(m.Slots, Slot{Host: r.Host, CPU: r.CPU, Socket: r.Socket, Node: h})
	}
	if unknownCPU > 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("%d survey ranks have no cpu number (as in mmpi logs): their slots are numbered 0, 1, ... per host in rank order", unknownCPU))
	}
	return m, nil
}

// levelBandwidths is the bandwidth of each level in GB/s when the survey
// has no fit: the options' values, else the defaults.
func (opt SurveyCostOptions) levelBandwidths() [numLevels]float64 {
	bw := opt.BandwidthGBps
	for l := range bw {
		if bw[l] <= 0 {
			bw[l] = DefaultBandwidthGBps[l]
		}
	}
	return bw
}

// fitCosts is fit.csv's cost of each pair, by triangle index (none with
// IgnoreFit).
func fitCosts(s *survey.Survey, opt SurveyCostOptions) map[int]LinkCost {
	n := s.N()
	fits := map[int]LinkCost{}
	if opt.IgnoreFit {
		return fits
	}
	for _, f := range s.Fits {
		if f.A < 0 || f.B < 0 || f.A >= n || f.B >= n || f.A == f.B {
			continue
		}
		if c, ok := fitLink(f.Latency, f.Bandwidth); ok {
			fits[survey.TriIndex(n, f.A, f.B)] = c
		}
	}
	return fits
}

// pairCosts is every pair's latency and inverse bandwidth by triangle
// index, which pairs were measured, and the measured values per level.
type pairCosts struct {
	n               int
	lat, invB       []float32
	measured        []bool
	levLat, levInvB [numLevels][]float64
}

// sparseCosts prices the pairs a sparse survey (scope nodes or sample of
// more than survey.MaxDenseRanks ranks) measured, as measuredCosts does,
// for the levels' medians only: no pair table, and the machine's pairs
// each cost their level's median (m.Filled counts the unmeasured ones).
func (m *Machine) sparseCosts(s *survey.Survey, fits map[int]LinkCost, bw [numLevels]float64) *pairCosts {
	n := s.N()
	tab := s.Tables[0]
	pc := &pairCosts{n: n}
	vals := tab.Values[rttMetric(tab)]
	tab.Each(func(a, b, i int) {
		m.price(pc, m.Level(a, b), fits, survey.TriIndex(n, a, b), float64(vals[i]), bw)
	})
	// Pairs per level from the slots' nodes and sockets.
	perNode := map[int]int{}
	perSocket := map[[2]int]int{}
	for _, sl := range m.Slots {
		perNode[sl.Node]++
		if sl.Socket >= 0 {
			perSocket[[2]int{sl.Node, sl.Socket}]++
		}
	}
	c2 := func(k int) int { return k * (k - 1) / 2 }
	var inNode int
	for _, k := range perNode {
		inNode += c2(k)
	}
	for _, k := range perSocket {
		m.LevelPairs[SameSocket] += c2(k)
	}
	m.LevelPairs[SameNode] = inNode - m.LevelPairs[SameSocket]
	m.LevelPairs[OtherNode] = c2(n) - inNode
	m.Filled = c2(n)
	for _, k := range m.LevelMeasured {
		m.Filled -= k
	}
	return pc
}

// measuredCosts prices the measured pairs: the fit where there is one,
// else half the round trip at the smallest size (median, or mean when the
// survey has no median) and the level's bandwidth.
func (m *Machine) measuredCosts(s *survey.Survey, fits map[int]LinkCost, bw [numLevels]float64) *pairCosts {
	n := s.N()
	tab := s.Tables[0]
	metric := rttMetric(tab)
	tri := survey.TriLen(n)
	pc := &pairCosts{n: n, lat: make([]float32, tri), invB: make([]float32, tri), measured: make([]bool, tri)}
	// Size each level's list once: appending 8 million pairs (4096 ranks)
	// one by one cost seconds in copies.
	var per [numLevels]int
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			per[m.Level(a, b)]++
		}
	}
	for l := range per {
		pc.levLat[l], pc.levInvB[l] = make([]float64, 0, per[l]), make([]float64, 0, per[l])
	}
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			i := survey.TriIndex(n, a, b)
			l := m.Level(a, b)
			m.LevelPairs[l]++
			c, ok := m.price(pc, l, fits, i, tab.At(metric, a, b), bw)
			if ok {
				pc.measured[i] = true
				pc.lat[i], pc.invB[i] = float32(c.Latency), float32(c.InvBandwidth)
			}
		}
	}
	return pc
}

// price is the cost of measured pair i (triangle index) of level l: its
// fit where there is one, else half its round trip rtt (us) at the
// smallest size and the level's bandwidth; ok is false when neither is
// usable. It counts and lists the pair in its level.
func (m *Machine) price(pc *pairCosts, l Level, fits map[int]LinkCost, i int, rtt float64, bw [numLevels]float64) (LinkCost, bool) {
	c, ok := fits[i]
	if !ok {
		c = LinkCost{Latency: math.NaN(), InvBandwidth: math.NaN()}
	}
	if math.IsNaN(c.Latency) {
		// No fit, or a fit with no usable latency: half the round trip at
		// the smallest size.
		if math.IsNaN(rtt) || rtt <= 0 {
			return c, false
		}
		c.Latency = rtt / 2 * 1e-6
		if ok {
			m.FitLatencyFromRTT++
		}
	}
	if math.IsNaN(c.InvBandwidth) {
		c.InvBandwidth = 1 / (bw[l] * 1e9)
	}
	m.LevelMeasured[l]++
	pc.levLat[l] = append(pc.levLat[l], c.Latency)
	pc.levInvB[l] = append(pc.levInvB[l], c.InvBandwidth)
	return c, true
}

// levelCosts sets each level's cost to the median of its measured pairs;
// a level with pairs but no measurement borrows from the nearest measured
// level inside the node, and is an error between nodes.
func (m *Machine) levelCosts(pc *pairCosts) error {
	for l := Level(0); l < numLevels; l++ {
		if len(pc.levLat[l]) > 0 {
			// The lists are the machine's own: reordered, not copied.
			m.Levels[l] = LinkCost{stats.MedianInPlace(pc.levLat[l]), stats.MedianInPlace(pc.levInvB[l])}
		}
	}
	for l := Level(0); l < numLevels; l++ {
		if m.LevelPairs[l] == 0 || len(pc.levLat[l]) > 0 {
			continue
		}
		switch {
		case l == SameSocket && len(pc.levLat[SameNode]) > 0:
			m.Levels[l] = m.Levels[SameNode]
		case l == SameNode && len(pc.levLat[SameSocket]) > 0:
			m.Levels[l] = m.Levels[SameSocket]
		default:
			return fmt.Errorf("the survey measured no %s pair, so their cost is unknown; re-run latmap survey on these ranks so that it measures them", l)
		}
	}
	return nil
}

// fillUnmeasured gives every unmeasured pair its level's cost and counts
// them in m.Filled.
func (m *Machine) fillUnmeasured(pc *pairCosts) {
	for a := 0; a < pc.n; a++ {
		for b := a + 1; b < pc.n; b++ {
			i := survey.TriIndex(pc.n, a, b)
			if !pc.measured[i] {
				m.Filled++
				c := m.Levels[m.Level(a, b)]
				pc.lat[i], pc.invB[i] = float32(c.Latency), float32(c.InvBandwidth)
			}
		}
	}
}

// rttMetric is the round-trip statistic that prices pairs without a fit:
// the median, or the mean when the survey has no medians (mmpi logs).
func rttMetric(tab *survey.PairTable) survey.Metric {
	if tab.HasValues(survey.Median) {
		return survey.Median
	}
	return survey.Mean
}

// SelectOptions choose which slots the ranks may use.
type SelectOptions struct {
	// Exclude lists hosts not to use.
	Exclude []string
	// RanksPerNode caps the ranks on one node (0: no cap).
	RanksPerNode int
}

// usable is every slot --exclude and --ranks-per-node leave, by node
// (sockets in order, cpus ascending), and how many there are.
func (m *Machine) usable(opt SelectOptions) (perNode [][]int32, total int, err error) {
	excl := map[string]bool{}
	for _, h := range opt.Exclude {
		excl[h] = true
	}
	for h := range excl {
		found := false
		for _, x := range m.Hosts {
			found = found || x == h
		}
		if !found {
			return nil, 0, fmt.Errorf("--exclude %s: no such host in the survey (hosts: %s)", h, hostList(m.Hosts))
		}
	}
	perNode = make([][]int32, len(m.Hosts))
	for i, s := range m.Slots {
		if !excl[s.Host] {
			perNode[s.Node] = append(perNode[s.Node], int32(i))
		}
	}
	for h := range perNode {
		sl := perNode[h]
		sort.SliceStable(sl, func(i, j int) bool {
			a, b := m.Slots[sl[i]], m.Slots[sl[j]]
			if a.Socket != b.Socket {
				return a.Socket < b.Socket
			}
			return a.CPU < b.CPU
		})
		if opt.RanksPerNode > 0 && len(sl) > opt.RanksPerNode {
			perNode[h] = sl[:opt.RanksPerNode]
		}
		total += len(perNode[h])
	}
	return perNode, total, nil
}

// UsableSlots is every slot the options leave, by node in survey order:
// what mpirun --map-by node deals ranks over.
func (m *Machine) UsableSlots(opt SelectOptions) ([]int32, error) {
	perNode, _, err := m.usable(opt)
	if err != nil {
		return nil, err
	}
	var out []int32
	for _, sl := range perNode {
		out = append(out, sl...)
	}
	return out, nil
}

// SelectSlots picks n slots: whole nodes first, the nodes with the most
// usable slots first (ties in survey order), and within a node sockets in
// order, cpus ascending. The result is grouped by node, in node order then
// socket then cpu. It fails when fewer than n slots are usable, saying how
// many are missing.
func (m *Machine) SelectSlots(n int, opt SelectOptions) ([]int32, error) {
	perNode, total, err := m.usable(opt)
	if err != nil {
		return nil, err
	}
	if total < n {
		return nil, fmt.Errorf("%d ranks need %d slots but the survey offers %d (after --exclude and --ranks-per-node): %d missing; survey more ranks or relax --ranks-per-node/--exclude", n, n, total, n-total)
	}
	order := make([]int, len(perNode))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return len(perNode[order[i]]) > len(perNode[order[j]]) })
	var chosen []int
	left := n
	for _, h := range order {
		if left == 0 {
			break
		}
		if len(perNode[h]) == 0 {
			continue
		}
		chosen = append(chosen, h)
		left -= min(left, len(perNode[h]))
	}
	sort.Ints(chosen)
	// The node taken last (smallest) may be partly used.
	left = n
	var out []int32
	for _, h := range chosen {
		left -= len(perNode[h])
	}
	partial := -1
	if left < 0 {
		// The node with the fewest slots among the chosen gives back -left.
		partial = chosen[0]
		for _, h := range chosen {
			if len(perNode[h]) < len(perNode[partial]) || (len(perNode[h]) == len(perNode[partial]) && h > partial) {
				partial = h
			}
		}
	}
	for _, h := range chosen {
		sl := perNode[h]
		if h == partial {
			sl = sl[:len(sl)+left]
		}
		out = append(out, sl...)
	}
	return out, nil
}

func hostList(h []string) string {
	if len(h) > 8 {
		return fmt.Sprintf("%s, ... (%d hosts)", joinComma(h[:8]), len(h))
	}
	return joinComma(h)
}
