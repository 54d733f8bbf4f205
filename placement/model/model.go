package model

import (
	"fmt"
	"math"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/internal/text"
	"github.com/latmap/latmap/mapper/network"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/placement/model/links"
)

// Model is the machine with what its ranks share: each node's link to the
// network (injection and ejection bandwidth) and its memory system (the
// bandwidth of shared-memory transfers between its ranks). A rank's
// communication time is its pairwise transfer time, raised to its node's
// time when the node's link or memory is the bottleneck:
//
//	comm(i) = On * max(Pon(i), Mem(n))  + Off * max(Poff(i), Link(n))
//
// where n is i's node, Pon and Poff the rank's pairwise transfer time to
// ranks on its node and on other nodes (messages*L + bytes/B per pair:
// both directions on one node, the busier direction between nodes, see
// Machine.EdgeCost), Mem(n) = the bytes
// moved between n's ranks / n's memory bandwidth, and Link(n) =
// max(out(n)/inject(n), in(n)/eject(n)) with out and in the bytes n's
// ranks send to and receive from other nodes. The Mem term counts only
// for a rank with traffic on its node, the Link term only for one with
// traffic off it.
// On and Off are the calibration factors (1 until calibrated).
type Model struct {
	*Machine
	// Per node, seconds per byte (0: no limit): the node's injection and
	// ejection bandwidth measured with all its ranks sending at once
	// (nodebw.csv), or, without that, the pairwise bandwidth between
	// nodes each way; and the node's shared-memory bandwidth.
	InvInject, InvEject, InvMemory []float64
	// NodeSource says where the node bandwidth came from.
	NodeSource string
	// Ports is how many links' worth a node drives at once when its
	// traffic goes to several nodes (nodebw.csv's fan-out rows: a torus
	// node's links, several adapters; 1: one link, a tree's node). A
	// node's traffic is priced over min(Ports, the nodes it goes to,
	// counted by their shares) links: see Evaluator.nodeTimes.
	Ports float64
	near  [][]int32 // with Ports: each node's near nodes (links.Near), found once
	// Uplinks prices each switch level's groups' uplinks (by
	// Machine.NetGroups' level; nil: not priced), SwitchSource says
	// where from (see AddSwitches).
	Uplinks      []Uplink
	SwitchSource string
	// Routes prices a declared network link by link (nil: none; see
	// AddRoutes).
	Routes *links.Routes
	// Scale holds the calibration factors of on-node and off-node
	// communication time.
	Scale [2]float64
	// Either is the same network routed the other way the round trips
	// allow (nil: none): Predict's run is the slower of the two. A
	// what-if (WithLinks) drops it.
	Either *Model
}

// noContention is the NodeSource of a model without contention.
const noContention = "none (--no-contention)"

// ModelOptions set the contention model's bandwidths.
type ModelOptions struct {
	// MemoryGBps is each node's shared-memory bandwidth (GB/s) for
	// transfers between its ranks; 0: the on-node pairwise bandwidth times
	// half the node's slots (every pair of cpus copying at once).
	MemoryGBps float64
	// NodeGBps is each node's link bandwidth (GB/s, each direction); 0:
	// nodebw.csv's aggregate, else the pairwise bandwidth between nodes.
	NodeGBps float64
	// NoContention leaves node links and memory unlimited: the pairwise
	// model alone.
	NoContention bool
	// Routing is how a declared network (--topology) picks among parallel
	// paths: fabric.RoutingStatic (""), or fabric.RoutingAdaptive.
	Routing string
}

// NewModel adds node links and memory to a machine: node bandwidths from
// the survey's nodebw.csv rows when there are any (each host's median
// aggregate rate as sender, and as receiver), else one full-duplex link per
// node at the pairwise bandwidth between nodes each way (as the pairwise
// model moves a pair's two directions at once). notes says which.
func NewModel(m *Machine, rows []survey.NodeBandwidth, opt ModelOptions) (*Model, []string) {
	k := len(m.Hosts)
	md := &Model{Machine: m, InvInject: make([]float64, k), InvEject: make([]float64, k), InvMemory: make([]float64, k), Scale: [2]float64{1, 1}, Ports: 1}
	if opt.NoContention {
		md.NodeSource = noContention
		return md, nil
	}
	var notes []string
	slots := make([]int, k)
	for _, s := range m.Slots {
		slots[s.Node]++
	}
	memPair := m.onNodeInvBandwidth()
	for n := 0; n < k; n++ {
		if opt.MemoryGBps > 0 {
			md.InvMemory[n] = 1 / (opt.MemoryGBps * 1e9)
		} else if memPair > 0 {
			md.InvMemory[n] = memPair / math.Max(1, float64(slots[n]/2))
		}
	}
	shift := links.ShiftRows(rows)
	switch {
	case opt.NodeGBps > 0:
		md.NodeSource = fmt.Sprintf("given (%.3g GB/s each way)", opt.NodeGBps)
		for n := 0; n < k; n++ {
			md.InvInject[n], md.InvEject[n] = 1/(opt.NodeGBps*1e9), 1/(opt.NodeGBps*1e9)
		}
	case len(shift) > 0:
		notes = append(notes, md.nodeBandwidthFromRows(shift)...)
	default:
		net := m.firstNetLevel()
		ib := m.Levels[net].InvBandwidth
		if m.LevelPairs[net] == 0 || ib <= 0 {
			md.NodeSource = "none (one node)"
			break
		}
		// Without the node phase's rows; with only the fan-out's (a
		// survey that ran no node phase), say which.
		missing := map[bool]string{false: "no nodebw.csv", true: "no node phase rows in nodebw.csv, only the fan-out's"}[len(rows) > 0]
		md.NodeSource = "pairwise bandwidth between nodes (" + missing + ")"
		own := m.NodePairInvBandwidth(ib)
		copy(md.InvInject, own)
		copy(md.InvEject, own)
		notes = append(notes, fmt.Sprintf("node bandwidth: the survey has %s, so each node's link is taken to carry one pair's bandwidth between nodes "+
			"(its pairs' median; %.4g GB/s at their level, from %s) each way; survey with latmap survey --node-bandwidth=on to measure it",
			missing, 1/ib/1e9, m.Bandwidth))
	}
	if md.NodeSource != "none (one node)" {
		var note string
		if md.Ports, note = network.FanOut(rows); note != "" {
			notes = append(notes, note)
		}
		if md.Ports > 1 {
			md.NodeSource += fmt.Sprintf("; %.2f links a node to several nodes (its fan-out)", md.Ports)
			first := m.FirstSlots() // a node pair's round trip: between a slot of each
			md.near = links.Near(k, func(a, b int) float64 { return md.Link(first[a], first[b]).Latency })
		}
	}
	return md, notes
}

// nodeBandwidthFromRows sets each node's injection and ejection bandwidth
// from nodebw.csv: the median aggregate rate of its rows as sender and as
// receiver; a host without rows takes the median of all rows.
func (md *Model) nodeBandwidthFromRows(rows []survey.NodeBandwidth) []string {
	md.NodeSource = survey.NodeBandwidthFile
	out, in, all := map[string][]float64{}, map[string][]float64{}, []float64{}
	for _, r := range rows {
		if r.AggregateMBps > 0 {
			out[r.Host] = append(out[r.Host], r.AggregateMBps)
			in[r.Peer] = append(in[r.Peer], r.AggregateMBps)
			all = append(all, r.AggregateMBps)
		}
	}
	if len(all) == 0 {
		md.NodeSource = "none (nodebw.csv has no positive rate)"
		return nil
	}
	def := stats.Median(all)
	missing := 0
	for n, h := range md.Hosts {
		o, i := def, def
		if v := out[h]; len(v) > 0 {
			o = stats.Median(v)
		} else {
			missing++
		}
		if v := in[h]; len(v) > 0 {
			i = stats.Median(v)
		}
		md.InvInject[n], md.InvEject[n] = 1/(o*1e6), 1/(i*1e6)
	}
	if missing > 0 {
		return []string{fmt.Sprintf("node bandwidth: %d of %s have no row in nodebw.csv and take the median of the others (%.4g MB/s)",
			missing, text.Count(len(md.Hosts), "host"), def)}
	}
	return nil
}

// firstNetLevel is the innermost level between nodes with pairs (Network
// when none has).
func (m *Machine) firstNetLevel() Level {
	for l := Network; l <= m.Top(); l++ {
		if m.LevelPairs[l] > 0 {
			return l
		}
	}
	return Network
}

// onNodeInvBandwidth is the seconds per byte of one pair's shared-memory
// transfers: the faster of the same-socket and same-node levels (0 when
// the machine has no pairs inside a node).
func (m *Machine) onNodeInvBandwidth() float64 {
	best := 0.0
	for _, l := range []Level{SameSocket, SameNode} {
		if ib := m.Levels[l].InvBandwidth; m.LevelPairs[l] > 0 && ib > 0 && (best == 0 || ib < best) {
			best = ib
		}
	}
	return best
}

// Pairwise is the machine without contention or calibration.
func Pairwise(m *Machine) *Model {
	md, _ := NewModel(m, nil, ModelOptions{NoContention: true})
	return md
}

// linkTime is node n's time to move out bytes out and in bytes in.
func (md *Model) linkTime(n int32, out, in float64) float64 {
	out, in = math.Max(out, 0), math.Max(in, 0)
	return math.Max(out*md.InvInject[n], in*md.InvEject[n])
}

// memTime is node n's time to move bytes between its ranks.
func (md *Model) memTime(n int32, bytes float64) float64 {
	return math.Max(bytes, 0) * md.InvMemory[n]
}

// nodePairSample is how many of a node's pairs to other nodes
// NodePairInvBandwidth takes the median of, spread over the nodes.
const nodePairSample = 64

// NodePairInvBandwidth is each node's seconds per byte to other nodes as
// its pairs show it: the median over up to nodePairSample of its pairs
// (between its first slot and each other node's) of their inverse
// bandwidth, else def. A node on a slower adapter (its pairs fitted
// slower, bench/fit.HostFactors) has a slower link: on PSMN's fabric
// (simulated), the 3 hosts of 4xDDR priced at the level's 3.6 GB/s
// left their node links 1.9x fast.
func (m *Machine) NodePairInvBandwidth(def float64) []float64 {
	k := len(m.Hosts)
	first := m.FirstSlots()
	out := make([]float64, k)
	step := max(1, (k-1)/nodePairSample)
	var v []float64
	for a := range out {
		v = v[:0]
		for i := 1; i < k; i += step {
			b := (a + i) % k
			if ib := m.Link(first[a], first[b]).InvBandwidth; ib > 0 {
				v = append(v, ib)
			}
		}
		out[a] = def
		if len(v) > 0 {
			out[a] = stats.Median(v)
		}
	}
	return out
}

// FirstSlots is each node's first slot (a node pair's round trip is between them).
func (m *Machine) FirstSlots() []int {
	first := make([]int, len(m.Hosts))
	for i := len(m.Slots) - 1; i >= 0; i-- {
		first[m.Slots[i].Node] = i
	}
	return first
}
