package survey

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/latmap/latmap/internal/stats"
)

// The survey scopes (meta.json's "scope"): which pairs were measured.
const (
	// ScopeAll measured every pair.
	ScopeAll = "all"
	// ScopeNodes measured every pair inside each node and every pair of
	// node leaders (each node's lowest rank).
	ScopeNodes = "nodes"
	// ScopeSample is ScopeNodes plus K random cross-node pairs per node,
	// written "sample:K".
	ScopeSample = "sample"
)

// Sparse reports whether the survey holds only the pairs it measured: it
// covered less than SparseBelow of the triangle and its filled copy would
// pass MaxFillBytes (a nodes survey of 16,384 ranks, or a few thousand
// pairs of 64,000). Its readers work node by node: topo from a typical
// node and the node leaders, plot the node-level picture, place with one
// cost per pair of nodes and per pair inside a node.
func (s *Survey) Sparse() bool { return len(s.Tables) > 0 && s.Tables[0].Sparse() }

// scoped reports whether meta.json names a scope other than "all".
func (s *Survey) scoped() bool { return s.Meta.Scope != "" && s.Meta.Scope != ScopeAll }

// ParseScope parses "all", "nodes" or "sample:K" (K >= 1) and returns the
// kind and K (0 unless sample).
func ParseScope(s string) (kind string, k int, err error) {
	switch {
	case s == ScopeAll || s == ScopeNodes:
		return s, 0, nil
	case strings.HasPrefix(s, ScopeSample+":"):
		k, err := strconv.Atoi(strings.TrimPrefix(s, ScopeSample+":"))
		if err != nil || k < 1 {
			return "", 0, fmt.Errorf("scope %q: want sample:K with K a number of pairs per node of at least 1, for example sample:4", s)
		}
		return ScopeSample, k, nil
	}
	return "", 0, fmt.Errorf("unknown scope %q (want all, nodes or sample:K)", s)
}

// Leaders returns each rank's node leader: the lowest rank on its host.
func Leaders(ranks []Rank) []int {
	first := map[string]int{}
	out := make([]int, len(ranks))
	for i, r := range ranks {
		l, ok := first[r.Host]
		if !ok {
			l = i
			first[r.Host] = i
		}
		out[i] = l
	}
	return out
}

// NodePairKey names the pair of nodes of ranks a and b by their leaders
// (lead from Leaders), lower leader first.
func NodePairKey(lead []int, a, b int) [2]int {
	la, lb := lead[a], lead[b]
	return [2]int{min(la, lb), max(la, lb)}
}

// CrossNodeMedians is the one rule for the cross-node pairs a scoped
// survey did not measure, which every reader follows (the dense fill, the
// compare of a sparse survey, place's node-pair costs): such a pair
// stands for its two nodes, and takes the median of the pairs measured
// between them. A nodes survey measured the leaders' pair alone, so it is
// that pair's value; sample:K adds K random pairs per node, and the
// median keeps one odd pair from speaking for two whole nodes. It
// returns, for each metric of ms, the medians by NodePairKey over t's
// measured cross-node pairs (a node pair nothing measured is absent).
func CrossNodeMedians(t *PairTable, lead []int, ms []Metric) map[[2]int][]float32 {
	type row struct {
		key [2]int
		i   int
	}
	var rows []row
	t.Each(func(a, b, i int) {
		if lead[a] != lead[b] {
			rows = append(rows, row{NodePairKey(lead, a, b), i})
		}
	})
	slices.SortStableFunc(rows, func(x, y row) int {
		return cmp.Or(cmp.Compare(x.key[0], y.key[0]), cmp.Compare(x.key[1], y.key[1]))
	})
	out := map[[2]int][]float32{}
	var buf []float64
	for lo := 0; lo < len(rows); {
		hi := lo
		for hi < len(rows) && rows[hi].key == rows[lo].key {
			hi++
		}
		meds := make([]float32, len(ms))
		for k, m := range ms {
			buf = buf[:0]
			for _, r := range rows[lo:hi] {
				buf = append(buf, float64(t.Values[m][r.i]))
			}
			meds[k] = float32(stats.MedianInPlace(buf))
		}
		out[rows[lo].key] = meds
		lo = hi
	}
	return out
}

// fillUnmeasured gives every unmeasured cross-node pair of a survey whose
// scope is not "all" its nodes' value by CrossNodeMedians, in every table
// and in the fits (when loaded; latency and bandwidth each the median of
// the node pair's fits). Filled pairs keep 0 samples, so they are never
// written back as measured. It returns how many pairs of the first table
// it filled.
func (s *Survey) fillUnmeasured() []int {
	lead := Leaders(s.Ranks)
	n := s.N()
	filled := make([]int, len(s.Tables))
	for ti, t := range s.Tables {
		if t.Sparse() {
			t = t.Dense()
			s.Tables[ti] = t
		}
		ms := t.Metrics()
		meds := CrossNodeMedians(t, lead, ms)
		i := 0
		for a := 0; a < n; a++ {
			for b := a + 1; b < n; b++ {
				if t.Samples[i] == 0 && lead[a] != lead[b] {
					if v, ok := meds[NodePairKey(lead, a, b)]; ok {
						for k, m := range ms {
							t.Values[m][i] = v[k]
						}
						filled[ti]++
					}
				}
				i++
			}
		}
	}
	s.fillFits(lead)
	return filled
}

// fillFits gives every cross-node pair without a fit the median latency
// and the median bandwidth of the fits measured between its two nodes.
func (s *Survey) fillFits(lead []int) {
	if len(s.Fits) == 0 {
		return
	}
	n := s.N()
	have := make(map[uint64]bool, len(s.Fits))
	between := map[[2]int][]Fit{}
	for _, f := range s.Fits {
		have[pairKey(n, f.A, f.B)] = true
		if lead[f.A] != lead[f.B] {
			k := NodePairKey(lead, f.A, f.B)
			between[k] = append(between[k], f)
		}
	}
	median := map[[2]int]Fit{}
	for k, fs := range between {
		lat, bw := make([]float64, len(fs)), make([]float64, len(fs))
		for i, f := range fs {
			lat[i], bw[i] = f.Latency, f.Bandwidth
		}
		median[k] = Fit{Latency: stats.MedianInPlace(lat), Bandwidth: stats.MedianInPlace(bw)}
	}
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			if lead[a] == lead[b] || have[pairKey(n, a, b)] {
				continue
			}
			if f, ok := median[NodePairKey(lead, a, b)]; ok {
				f.A, f.B = a, b
				s.Fits = append(s.Fits, f)
			}
		}
	}
}

// FillNote says, for a survey whose scope is not "all", how many pairs it
// measured and how many a reader filled from the node leaders; "" for an
// all-pairs survey, and for one whose missing pairs Lacks counts.
func (s *Survey) FillNote() string {
	scoped := s.scoped()
	if (!scoped && !s.Partial) || len(s.Tables) == 0 || s.lacksSaidFill {
		return ""
	}
	scope := s.Meta.Scope
	if scope == "" {
		scope = "unset"
	}
	measured := 0
	s.Tables[0].Each(func(int, int, int) { measured++ })
	head := fmt.Sprintf("survey scope %s: %d of %d rank pairs measured (%s, at %d bytes)",
		scope, measured, TriLen(s.N()), coverage(measured, TriLen(s.N())), s.Tables[0].Size)
	if s.Sparse() {
		head += "; read as measured, node by node"
		if scoped {
			head += ": the pairs inside the nodes and between node leaders"
		}
		return head
	}
	return head + fmt.Sprintf("; %d cross-node pairs filled from their nodes' leader pair (the median of the pairs measured between the two nodes)", s.Filled)
}

// coverage prints measured of all as a percentage with the digits a small
// part needs (0.0001%).
func coverage(measured, all int) string {
	if all == 0 {
		return "0%"
	}
	p := 100 * float64(measured) / float64(all)
	if p >= 1 || p == 0 {
		return fmt.Sprintf("%.0f%%", p)
	}
	return fmt.Sprintf("%.2g%%", p)
}

// NodeLeaders is the survey of the node leaders alone (each host's lowest
// rank), dense, with every table and metric of s: the node-level view of
// a sparse survey, whose leaders' pairs are all measured. Ranks are
// renumbered 0.. in host order; Meta.Machine says it is the leaders' view.
// A survey that measured less than half its leader pairs (at its first
// size) has no node-level view: the error says how many it has and how to
// measure them.
func (s *Survey) NodeLeaders() (*Survey, error) {
	lead := Leaders(s.Ranks)
	var ranks []int
	for r, l := range lead {
		if l == r {
			ranks = append(ranks, r)
		}
	}
	k := len(ranks)
	out := &Survey{Meta: s.Meta, Path: s.Path, Ranks: make([]Rank, k), NodeBandwidth: s.NodeBandwidth, Switches: s.Switches, SwitchBandwidth: s.SwitchBandwidth, Shares: s.Shares}
	out.Meta.Scope, out.Meta.Ranks = ScopeAll, k
	name := s.Meta.Machine
	if name == "" && s.Path != "" {
		name = filepath.Base(filepath.Clean(s.Path)) + "/"
	}
	out.Meta.Machine = strings.TrimSpace(fmt.Sprintf("%s, node leaders (1 rank of %d per node)", name, len(s.Ranks)/max(k, 1)))
	for i, r := range ranks {
		out.Ranks[i] = s.Ranks[r]
		out.Ranks[i].Rank = i
	}
	for _, t := range s.Tables {
		ms := t.Metrics()
		d := NewPairTable(k, t.Size, ms...)
		i := 0
		for a := 0; a < k; a++ {
			for b := a + 1; b < k; b++ {
				d.Samples[i] = int32(t.SamplesAt(ranks[a], ranks[b]))
				for _, m := range ms {
					d.Values[m][i] = float32(t.At(m, ranks[a], ranks[b]))
				}
				i++
			}
		}
		out.Tables = append(out.Tables, d)
	}
	if k >= 2 && len(out.Tables) > 0 {
		measured := 0
		for _, v := range out.Tables[0].Samples {
			if v > 0 {
				measured++
			}
		}
		if all := TriLen(k); 2*measured < all {
			return nil, fmt.Errorf("the survey measured %d of the %d pairs between its %d node leaders (each host's lowest rank), "+
				"and a survey this sparse (%d ranks) is read node by node from them: "+
				"survey the machine with latmap survey --scope nodes, which measures every leader pair",
				measured, all, k, s.N())
		}
	}
	return out, nil
}
