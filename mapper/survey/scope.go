package survey

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
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

// fillUnmeasured gives every unmeasured cross-node pair of a survey whose
// scope is not "all" the values of its nodes' leader pair, in every table
// and in the fits (when loaded): what a node's leader measured speaks for
// the node's ranks. Filled pairs keep 0 samples, so they are never written
// back as measured. It returns how many pairs of the first table it
// filled.
func (s *Survey) fillUnmeasured() int {
	lead := Leaders(s.Ranks)
	n := s.N()
	filled := 0
	for ti, t := range s.Tables {
		if t.Sparse() {
			t = t.Dense()
			s.Tables[ti] = t
		}
		i := 0
		for a := 0; a < n; a++ {
			for b := a + 1; b < n; b++ {
				if t.Samples[i] == 0 && lead[a] != lead[b] {
					j := TriIndex(n, lead[a], lead[b])
					if t.Samples[j] > 0 {
						for _, v := range t.Values {
							if v != nil {
								v[i] = v[j]
							}
						}
						if ti == 0 {
							filled++
						}
					}
				}
				i++
			}
		}
	}
	if len(s.Fits) > 0 {
		have := make(map[uint64]int, len(s.Fits))
		for i, f := range s.Fits {
			have[pairKey(n, f.A, f.B)] = i
		}
		for a := 0; a < n; a++ {
			for b := a + 1; b < n; b++ {
				if lead[a] == lead[b] {
					continue
				}
				if _, ok := have[pairKey(n, a, b)]; ok {
					continue
				}
				if j, ok := have[pairKey(n, lead[a], lead[b])]; ok {
					f := s.Fits[j]
					f.A, f.B = a, b
					s.Fits = append(s.Fits, f)
				}
			}
		}
	}
	return filled
}

// FillNote says, for a survey whose scope is not "all", how many pairs it
// measured and how many a reader filled from the node leaders; "" for an
// all-pairs survey.
func (s *Survey) FillNote() string {
	scoped := s.scoped()
	if (!scoped && !s.Partial) || len(s.Tables) == 0 {
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
	return head + fmt.Sprintf("; %d cross-node pairs filled from their nodes' leader pair", s.Filled)
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
	out := &Survey{Meta: s.Meta, Path: s.Path, Ranks: make([]Rank, k), NodeBandwidth: s.NodeBandwidth, Switches: s.Switches, SwitchBandwidth: s.SwitchBandwidth}
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
			return nil, fmt.Errorf("the survey measured %d of the %d pairs between its %d node leaders (each host's lowest rank), and a survey this sparse (%d ranks) is read node by node from them: survey the machine with latmap survey --scope nodes, which measures every leader pair",
				measured, all, k, s.N())
		}
	}
	return out, nil
}
