package links

import (
	"math"
	"slices"
	"strings"

	"github.com/latmap/latmap/mapper/survey"
)

// ShiftRows are nodebw.csv's rows of the node phase's shift steps (one
// peer each), without the fan-out's and the both-ways row.
func ShiftRows(rows []survey.NodeBandwidth) []survey.NodeBandwidth {
	var out []survey.NodeBandwidth
	for _, r := range rows {
		if !strings.Contains(r.Peer, survey.FanOutPeers) && !strings.HasPrefix(r.Peer, survey.BothWaysPeer) {
			out = append(out, r)
		}
	}
	return out
}

// Spread is what placement/model's evaluator keeps on nodes that drive
// several links at once (network.FanOut). The fan-out measured them to a node's
// nearest nodes, and only there do they hold: on a torus a farther node
// is reached over several hops whose links other nodes' traffic crosses
// too. So per node it keeps the bytes to and from its near nodes (within
// NearSlack of its nearest's round trip) apart: by node pair, with their
// sum and sum of squares, so that near bytes spread over d equal nodes
// count over d links (s1² / s2 of them, at most Ports) and one heavy
// node among light ones over about one; bytes to or from farther nodes
// go over one link.
type Spread struct {
	k            int
	ports        float64
	near         [][]int32         // per node: its near nodes
	pair         map[int64]float64 // a*k+b: near bytes node a sends to node b
	s1out, s2out []float64         // per node: near bytes out, their sum of squares by peer
	s1in, s2in   []float64
}

// NearSlack is how much above a node's nearest node's round trip another
// node's may be and still be near (a torus's one-hop neighbours; its
// second hop is some 35% above the first).
const NearSlack = 1.15

func NewSpread(ports float64, near [][]int32) *Spread {
	k := len(near)
	return &Spread{k: k, ports: ports, near: near, pair: map[int64]float64{},
		s1out: make([]float64, k), s2out: make([]float64, k), s1in: make([]float64, k), s2in: make([]float64, k)}
}

// Near lists each of k nodes' near nodes, in node order: those whose
// round trip from it (lat) is within NearSlack of its nearest's.
func Near(k int, lat func(a, b int) float64) [][]int32 {
	near := make([][]int32, k)
	row := make([]float64, k)
	for a := 0; a < k; a++ {
		best := math.Inf(1)
		for b := 0; b < k; b++ {
			if b != a {
				row[b] = lat(a, b)
				best = math.Min(best, row[b])
			}
		}
		for b := 0; b < k; b++ {
			if b != a && row[b] <= NearSlack*best {
				near[a] = append(near[a], int32(b))
			}
		}
	}
	return near
}

// isNear reports whether node b is near node a (its list is in node
// order: on a network where many nodes are equally near, a multi-rail
// single switch, the list is long, and Add is on the solver's path).
func (sp *Spread) isNear(a, b int32) bool {
	_, ok := slices.BinarySearch(sp.near[a], b)
	return ok
}

// Add adds x bytes (negative: removes) from node a to node b.
func (sp *Spread) Add(a, b int32, x float64) {
	nearOut, nearIn := sp.isNear(a, b), sp.isNear(b, a)
	if x == 0 || !nearOut && !nearIn {
		return
	}
	key := int64(a)*int64(sp.k) + int64(b)
	old := sp.pair[key]
	nw := old + x
	if math.Abs(nw) <= 1e-9*math.Abs(x) {
		nw = 0 // what was added is removed: no rounding left behind
	}
	d := nw*nw - old*old
	if nearOut {
		sp.s1out[a] += x
		sp.s2out[a] += d
	}
	if nearIn {
		sp.s1in[b] += x
		sp.s2in[b] += d
	}
	if nw == 0 {
		delete(sp.pair, key)
	} else {
		sp.pair[key] = nw
	}
}

// Out and In are what node n's total bytes out and in weigh on one link.
func (sp *Spread) Out(n int32, total float64) float64 {
	return sp.bytes(total, sp.s1out[n], sp.s2out[n])
}
func (sp *Spread) In(n int32, total float64) float64 { return sp.bytes(total, sp.s1in[n], sp.s2in[n]) }

// bytes is what total bytes of which near are to or from near nodes (sum
// of squares by node s2) weigh on one link: the near bytes over the links
// they spread over, and the rest as they are.
func (sp *Spread) bytes(total, near, s2 float64) float64 {
	if near <= 0 || s2 <= 0 {
		return total
	}
	links := math.Max(1, math.Min(sp.ports, near*near/s2))
	return near/links + math.Max(total-near, 0)
}
