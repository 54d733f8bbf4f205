package model

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/placement/model/sweepcurve"
)

// Level is how close two slots are in the machine's hierarchy: SameSocket,
// SameNode, then the shared levels above the node, innermost first
// (Network, Network+1, ...; see Machine.NetGroups). The outermost level is
// every pair of nodes that shares no group.
type Level int

// The levels inside a node, and the first level above it.
const (
	SameSocket Level = iota
	SameNode
	Network
)

// Slot is a place a rank can run: one rank of the survey (host + cpu).
type Slot struct {
	Host   string `json:"host"`
	CPU    int    `json:"cpu"`
	Socket int    `json:"socket"`
	// Core is the cpu's logical core (survey.Rank.Core), -1 unknown.
	Core int `json:"core"`
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

// Bandwidths are the bandwidths (GB/s, 1e9 bytes/s) a machine is priced
// with when the survey has no bandwidth fit: between cores of one socket,
// between sockets of one node, and between nodes (every level above the
// node).
type Bandwidths struct {
	Socket, Node, Network float64
}

// Where a machine's bandwidths come from (Machine.Bandwidth).
const (
	BandwidthFit      = placefile.BandwidthFit
	BandwidthDefaults = placefile.BandwidthDefaults
	BandwidthGiven    = placefile.BandwidthGiven
)

// DefaultBandwidths are typical of a current cluster (a chosen policy, not
// a measurement: shared-memory copies of 8-10 GB/s, a 25 Gbit/s network
// port); set them with --bandwidth-socket, --bandwidth-node,
// --bandwidth-net, or measure them (latmap survey's default sizes write
// fit.csv).
func DefaultBandwidths() Bandwidths { return Bandwidths{Socket: 10, Node: 8, Network: 3} }

// of is the bandwidth of level l in GB/s.
func (b Bandwidths) of(l Level) float64 {
	switch l {
	case SameSocket:
		return b.Socket
	case SameNode:
		return b.Node
	}
	return b.Network
}

// Machine is the set of slots and the cost of talking between any two.
// When built from a survey with at most DenseLimit slots, every pair has its
// own measured (or filled) cost; otherwise pairs cost their level's value.
type Machine struct {
	Slots []Slot
	Hosts []string
	// NetGroups are the shared levels above the node, innermost first:
	// NetGroups[k][node] is the node's group at level Network+k (a leaf
	// switch, then a middle switch, ...). Two nodes whose groups first
	// agree at k are at level Network+k; nodes that share no group are at
	// the outermost level, Network+len(NetGroups). None: every pair of
	// nodes is at Network.
	NetGroups [][]int32
	// Levels holds each level's representative cost (median of the
	// measured pairs of that level, or the value given), by Level.
	Levels []LinkCost
	// LevelPairs counts slot pairs per level, LevelMeasured the measured ones.
	LevelPairs    []int
	LevelMeasured []int
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
	// FitNoBandwidth counts the pairs whose fit found no bandwidth (their
	// round trips did not grow with size): they take their level's
	// built-in bandwidth.
	FitNoBandwidth int
	// Bandwidth says where bandwidths came from (BandwidthFit,
	// BandwidthDefaults or BandwidthGiven).
	Bandwidth string
	// Notes are things the report should say about the machine.
	Notes []string
	dense *denseCost
	// nodes prices a sparse survey's pairs node pair by node pair.
	nodes *nodeCost
	// edge are EdgeCost's factors on the pairs' lines.
	edge edgeFactors
}

// edgeFactors are EdgeCost's factors on a rank pair's line cost:
// netLatency scales the latency between nodes (0: 1; a what-if), sizes
// is the size sweep's curve (nil without one).
type edgeFactors struct {
	netLatency float64
	sizes      *sweepcurve.Curve
}

// netLatencyScale is the factor on the latency between nodes.
func (m *Machine) netLatencyScale() float64 {
	if m.edge.netLatency == 0 {
		return 1
	}
	return m.edge.netLatency
}

type denseCost struct {
	n         int
	lat, invB []float32
}

// DenseLimit is the largest survey kept as a full pair-cost table
// (memory 8 bytes per pair: 268 MB at 8,192 slots).
const DenseLimit = 8192

// NumLevels is the number of levels: two inside a node, one per shared
// group level above it, and the outermost.
func (m *Machine) NumLevels() int { return int(Network) + 1 + len(m.NetGroups) }

// Top is the outermost level: nodes that share no group.
func (m *Machine) Top() Level { return Network + Level(len(m.NetGroups)) }

// LevelName names level l for people, in latmap topo's words (survey's
// Word constants): socket, node, switch (switch1, switch2, ... for
// several), network. Where no node splits its ranks over sockets, the
// socket level is the node's, and named so, as topo names it.
func (m *Machine) LevelName(l Level) string {
	switch {
	case l == SameSocket && m.LevelPairs[SameNode] == 0:
		return survey.WordNode
	case l == SameSocket:
		return survey.WordSocket
	case l == SameNode:
		return survey.WordNode
	case l == m.Top():
		return survey.WordNetwork
	}
	return survey.SwitchWord(int(l-Network), len(m.NetGroups))
}

// setLevels sizes the per-level tables for NumLevels levels.
func (m *Machine) setLevels() {
	k := m.NumLevels()
	m.Levels, m.LevelPairs, m.LevelMeasured = make([]LinkCost, k), make([]int, k), make([]int, k)
}

// NewLevelMachine builds a machine of nodes x sockets x coresPerSocket slots
// on hosts node0, node1, ... whose pairs cost their level's value (levels:
// same socket, same node, other node). It serves synthetic benchmarks and
// tests.
func NewLevelMachine(nodes, sockets, coresPerSocket int, levels [3]LinkCost) *Machine {
	m := &Machine{Bandwidth: "given"}
	m.setLevels()
	copy(m.Levels, levels[:])
	for n := 0; n < nodes; n++ {
		h := fmt.Sprintf("node%d", n)
		m.Hosts = append(m.Hosts, h)
		for s := 0; s < sockets; s++ {
			for c := 0; c < coresPerSocket; c++ {
				m.Slots = append(m.Slots, Slot{Host: h, CPU: s*coresPerSocket + c, Socket: s, Core: s*coresPerSocket + c, Node: n})
			}
		}
	}
	perNode := sockets * coresPerSocket
	m.LevelPairs[SameSocket] = nodes * sockets * coresPerSocket * (coresPerSocket - 1) / 2
	m.LevelPairs[SameNode] = nodes * sockets * (sockets - 1) / 2 * coresPerSocket * coresPerSocket
	m.LevelPairs[Network] = nodes * (nodes - 1) / 2 * perNode * perNode
	return m
}

// Level returns the hierarchy level of slots a and b (a != b).
func (m *Machine) Level(a, b int) Level {
	sa, sb := &m.Slots[a], &m.Slots[b]
	if sa.Node != sb.Node {
		return m.nodeLevel(sa.Node, sb.Node)
	}
	if sa.Socket >= 0 && sa.Socket == sb.Socket {
		return SameSocket
	}
	return SameNode
}

// nodeLevel is the level of two different nodes: the first group level
// they share, else the outermost.
func (m *Machine) nodeLevel(na, nb int) Level {
	for k, g := range m.NetGroups {
		if g[na] == g[nb] {
			return Network + Level(k)
		}
	}
	return m.Top()
}

// Link returns the cost of talking between slots a and b (a != b).
func (m *Machine) Link(a, b int) LinkCost {
	if d := m.dense; d != nil {
		i := survey.TriIndex(d.n, a, b)
		return LinkCost{float64(d.lat[i]), float64(d.invB[i])}
	}
	if m.nodes != nil {
		return m.nodes.link(a, b)
	}
	return m.Levels[m.Level(a, b)]
}

// PairCost is the modelled time of traffic (msgs, bytes) between slots a
// and b: 0 on one slot, else Link(a, b).Cost(msgs, bytes).
func (m *Machine) PairCost(a, b int32, msgs, bytes float64) float64 {
	if a == b {
		return 0
	}
	if d := m.dense; d != nil {
		i := survey.TriIndex(d.n, int(a), int(b))
		return msgs*float64(d.lat[i]) + bytes*float64(d.invB[i])
	}
	if m.nodes != nil {
		return m.nodes.link(int(a), int(b)).Cost(msgs, bytes)
	}
	return m.Levels[m.Level(int(a), int(b))].Cost(msgs, bytes)
}

// EdgeCost is the modelled time of t's edge e, a rank pair's traffic,
// between slots a and b. Between two nodes it is priced on the pair's
// busier direction: the network adapters move the two directions at once
// over full-duplex links. On one node it is priced on both directions:
// shared-memory copies are the cpus' work, so a rank's sends and receives
// take turns on its cpu. Both take the size sweep's factor at the mean
// message size (sizeFactor).
func (m *Machine) EdgeCost(a, b int32, t *Traffic, e int32) float64 {
	if m.Slots[a].Node == m.Slots[b].Node {
		return m.PairCost(a, b, t.Msgs[e], t.Bytes[e]) * m.sizeFactor(a, b, t.Msgs[e], t.Bytes[e])
	}
	return m.PairCost(a, b, t.BusyMsgs[e]*m.netLatencyScale(), t.BusyBytes[e]) * m.sizeFactor(a, b, t.BusyMsgs[e], t.BusyBytes[e])
}

// SurveyCostOptions set how a survey becomes link costs.
type SurveyCostOptions struct {
	// Bandwidth when the survey has no fit.csv; zero entries take
	// DefaultBandwidths.
	Bandwidth Bandwidths
	// IgnoreFit uses BandwidthGBps and the smallest size's latency even
	// when fit.csv exists.
	IgnoreFit bool
}

// fitLink converts a fit.csv row into a link cost. fit.csv fits the one-way
// time T(s) = L + s/B (half each size's minimum round trip, see
// fit.Survey), so L
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
	if err := m.switchGroups(s.Switches); err != nil {
		return nil, err
	}
	m.setLevels()
	m.LeaderFilled = s.Filled
	fits := fitCosts(s, opt)
	switch {
	case len(fits) > 0:
		m.Bandwidth = BandwidthFit
	case opt.Bandwidth == (Bandwidths{}) || opt.Bandwidth == DefaultBandwidths():
		m.Bandwidth = BandwidthDefaults
	default:
		m.Bandwidth = BandwidthGiven
	}
	var pc *pairCosts
	var nc *nodeCost
	if s.Sparse() {
		nc, pc = m.nodeCosts(s, fits, opt.levelBandwidths())
	} else {
		pc = m.measuredCosts(s, fits, opt.levelBandwidths())
	}
	if m.FitLatencyFromRTT > 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("%d pairs' fit in fit.csv gave no positive latency (bandwidth-bound "+
			"links): their latency is half the smallest size's round trip, their bandwidth the fit's",
			m.FitLatencyFromRTT))
	}
	if m.FitNoBandwidth > 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("%d pairs' fit in fit.csv found no bandwidth (their round trips did "+
			"not grow with the message size: a loaded node, or sizes too close together), "+
			"so they are priced with their level's built-in bandwidth; survey again on idle nodes with a large size "+
			"(--sizes 64,1M)", m.FitNoBandwidth))
	}
	if err := m.levelCosts(pc); err != nil {
		return nil, err
	}
	if nc != nil {
		m.fillNodeCost(nc)
		m.nodes = nc
	} else {
		m.fillUnmeasured(pc)
		if n <= DenseLimit {
			m.dense = &denseCost{n: n, lat: pc.lat, invB: pc.invB}
		}
	}
	m.applySweep(s)
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
			return nil, fmt.Errorf("survey ranks %d and %d both ran on %s cpu %d; a slot must be one cpu (survey "+
				"with ranks bound to cores, e.g. mpirun --bind-to core)", j, i, r.Host, r.CPU)
		}
		seen[k] = i
		m.Slots = append(m.Slots, Slot{Host: r.Host, CPU: r.CPU, Socket: r.Socket, Core: r.Core, Node: h})
	}
	m.setLevels()
	if unknownCPU > 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("%d survey ranks have no cpu number (as in mmpi logs): "+
			"their slots are numbered 0, 1, ... per host in rank order", unknownCPU))
	}
	return m, nil
}

// levelBandwidths are the bandwidths in GB/s when the survey has no fit:
// the options' values, else the defaults.
func (opt SurveyCostOptions) levelBandwidths() Bandwidths {
	bw, def := opt.Bandwidth, DefaultBandwidths()
	orDefault := func(v, d float64) float64 {
		if v <= 0 {
			return d
		}
		return v
	}
	return Bandwidths{Socket: orDefault(bw.Socket, def.Socket), Node: orDefault(bw.Node, def.Node), Network: orDefault(bw.Network, def.Network)}
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
	levLat, levInvB [][]float64
	// levW, when not nil, weighs each entry of levLat and levInvB: a node
	// pair stands for as many slot pairs as its nodes have (nodeCosts).
	levW [][]float64
}

// add lists cost c in level l with weight w (1 for one pair).
func (pc *pairCosts) add(l Level, c LinkCost, w float64) {
	pc.levLat[l] = append(pc.levLat[l], c.Latency)
	pc.levInvB[l] = append(pc.levInvB[l], c.InvBandwidth)
	if pc.levW != nil {
		pc.levW[l] = append(pc.levW[l], w)
	}
}

// reserve makes room in each level's lists for its pairs, at most rows.
func (pc *pairCosts) reserve(levelPairs []int, rows int) {
	for l, k := range levelPairs {
		k = min(k, rows)
		pc.levLat[l], pc.levInvB[l] = slices.Grow(pc.levLat[l], k), slices.Grow(pc.levInvB[l], k)
		if pc.levW != nil {
			pc.levW[l] = slices.Grow(pc.levW[l], k)
		}
	}
}

// newPairCosts starts the pair costs of n slots with one list per level.
func (m *Machine) newPairCosts(n int) *pairCosts {
	k := m.NumLevels()
	return &pairCosts{n: n, levLat: make([][]float64, k), levInvB: make([][]float64, k)}
}

// countLevelPairs counts the slot pairs of each level from the slots'
// nodes, sockets and groups, without visiting the pairs.
func (m *Machine) countLevelPairs() {
	c2 := func(k int) int { return k * (k - 1) / 2 }
	perNode := map[int]int{}
	perSocket := map[[2]int]int{}
	for _, sl := range m.Slots {
		perNode[sl.Node]++
		if sl.Socket >= 0 {
			perSocket[[2]int{sl.Node, sl.Socket}]++
		}
	}
	inner := 0 // pairs sharing the node, then each group level
	for _, k := range perNode {
		inner += c2(k)
	}
	for _, k := range perSocket {
		m.LevelPairs[SameSocket] += c2(k)
	}
	m.LevelPairs[SameNode] = inner - m.LevelPairs[SameSocket]
	for k, groups := range m.NetGroups {
		perGroup := map[int32]int{}
		for node, c := range perNode {
			perGroup[groups[node]] += c
		}
		shared := 0
		for _, c := range perGroup {
			shared += c2(c)
		}
		m.LevelPairs[Network+Level(k)] = shared - inner
		inner = shared
	}
	m.LevelPairs[m.Top()] = c2(len(m.Slots)) - inner
}

// measuredCosts prices the measured pairs: the fit where there is one,
// else half the round trip at the smallest size (median, or mean when the
// survey has no median) and the level's bandwidth.
func (m *Machine) measuredCosts(s *survey.Survey, fits map[int]LinkCost, bw Bandwidths) *pairCosts {
	n := s.N()
	tab := s.Tables[0]
	metric := rttMetric(tab)
	tri := survey.TriLen(n)
	pc := m.newPairCosts(n)
	pc.lat, pc.invB, pc.measured = make([]float32, tri), make([]float32, tri), make([]bool, tri)
	// Size each level's list once: appending 8 million pairs (4096 ranks)
	// one by one cost seconds in copies.
	per := make([]int, m.NumLevels())
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
func (m *Machine) price(pc *pairCosts, l Level, fits map[int]LinkCost, i int, rtt float64, bw Bandwidths) (LinkCost, bool) {
	c, ok := m.priceOne(l, fits, i, rtt, bw)
	if ok {
		m.LevelMeasured[l]++
		pc.add(l, c, 1)
	}
	return c, ok
}

// priceOne is price without the counting and listing.
func (m *Machine) priceOne(l Level, fits map[int]LinkCost, i int, rtt float64, bw Bandwidths) (LinkCost, bool) {
	return priceFit(l, fits, i, rtt, bw, &m.FitLatencyFromRTT, &m.FitNoBandwidth)
}

// priceFit is priceOne counting into fromRTT and noBW (Machine's
// FitLatencyFromRTT and FitNoBandwidth).
func priceFit(l Level, fits map[int]LinkCost, i int, rtt float64, bw Bandwidths, fromRTT, noBW *int) (LinkCost, bool) {
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
			*fromRTT++
		}
	}
	if math.IsNaN(c.InvBandwidth) {
		c.InvBandwidth = 1 / (bw.of(l) * 1e9)
		if ok {
			*noBW++
		}
	}
	return c, true
}

// levelCosts sets each level's cost to the median of its measured pairs;
// a level with pairs but no measurement borrows from the nearest measured
// level inside the node, and is an error between nodes.
func (m *Machine) levelCosts(pc *pairCosts) error {
	// The lists are the machine's own: reordered, not copied. Each
	// level's latencies and bandwidths are taken apart at once (a
	// 4,096-node survey's network level lists 8 million node pairs).
	var wg sync.WaitGroup
	for l := Level(0); l < Level(m.NumLevels()); l++ {
		if len(pc.levLat[l]) > 0 {
			wg.Add(2)
			go func() { defer wg.Done(); m.Levels[l].Latency = pc.median(pc.levLat, l) }()
			go func() { defer wg.Done(); m.Levels[l].InvBandwidth = pc.median(pc.levInvB, l) }()
		}
	}
	wg.Wait()
	for l := Level(0); l < Level(m.NumLevels()); l++ {
		if k := len(pc.levLat[l]); k > 0 && k < thinLevel && m.LevelPairs[l] > 10*k {
			m.Notes = append(m.Notes, fmt.Sprintf("the %s cost rests on %d measured pair(s) of %d: one odd pair "+
				"moves it; latmap survey --scope nodes measures every pair inside the nodes and between their leaders",
				m.LevelName(l), k, m.LevelPairs[l]))
		}
	}
	for l := Level(0); l < Level(m.NumLevels()); l++ {
		if m.LevelPairs[l] == 0 || len(pc.levLat[l]) > 0 {
			continue
		}
		switch {
		case l == SameSocket && len(pc.levLat[SameNode]) > 0:
			m.Levels[l] = m.Levels[SameNode]
		case l == SameNode && len(pc.levLat[SameSocket]) > 0:
			m.Levels[l] = m.Levels[SameSocket]
		default:
			return fmt.Errorf("the survey measured no %s pair, so their cost is unknown; re-run latmap survey on these ranks so that it measures them", m.LevelName(l))
		}
	}
	return nil
}

// thinLevel is the number of measured pairs under which a level's median
// is flagged as resting on too few (a chosen policy: below ten pairs one
// outlier is a tenth of the sample).
const thinLevel = 10

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

// PerPair reports whether the machine prices every slot pair on its own
// (a survey of at most DenseLimit slots, or a sparse survey node pair by
// node pair) rather than by level.
func (m *Machine) PerPair() bool { return m.dense != nil || m.nodes != nil }

// NodeUniform reports whether two slots on different nodes cost what
// their nodes' pair costs, whichever slots they are (every machine but a
// dense per-pair table).
func (m *Machine) NodeUniform() bool { return m.dense == nil }
