package survey

import (
	"fmt"
	"strings"
)

// Warnings are what every reader of s says of it before its results:
// its producer's warnings (meta.json, each after "survey: ") and what
// reading it found missing against what meta.json promises (Lacks).
// FillNote says, apart, what of it was filled or read node by node.
func (s *Survey) Warnings() []string {
	var out []string
	for _, w := range s.Meta.Warnings {
		out = append(out, "survey: "+w)
	}
	return append(out, s.Lacks...)
}

// lacks is what s, as read, lacks against its meta.json: the sizes
// meta.json lists that pairs.csv has no pair of, and the pairs of a
// survey of every pair (scope all, not stopped early) that pairs.csv
// does not have at a size, as when the file was cut short, with what
// the reader did of them (filled[i]: the pairs of table i filled from
// their nodes' leader pair; nil: none filled). Pairs its producer
// already said were missing (an mmpi log cut short, imported) are not
// said again.
func (s *Survey) lacks(filled []int) []string {
	var out []string
	have := map[int]bool{}
	for _, t := range s.Tables {
		have[t.Size] = true
	}
	for _, size := range s.Meta.Sizes {
		if !have[size] {
			out = append(out, fmt.Sprintf("%s: no pair at %d bytes, a size %s lists; the readers use the sizes it has", PairsFile, size, MetaFile))
		}
	}
	// A survey without a scope read sparse is a merge or an import of
	// some pairs: FillNote says what it has.
	if s.scoped() || s.Meta.Stopped != "" || (s.Meta.Scope == "" && s.Partial) {
		return out
	}
	all := TriLen(s.N())
	for i, t := range s.Tables {
		got := 0
		t.Each(func(int, int, int) { got++ })
		missing := MissingPairs(all-got, all, t.Size)
		if got == all || s.producerSaid(missing) {
			continue
		}
		fate := "left unmeasured"
		switch {
		case t.Sparse():
			fate = "read as measured, without them"
		case filled != nil && filled[i] > 0:
			fate = fmt.Sprintf("%d filled from their nodes' leader pair (the median of the pairs measured between the two nodes), %d left unmeasured", filled[i], all-got-filled[i])
		}
		scope := "scope all"
		if s.Meta.Scope == "" {
			scope = "no scope"
		}
		out = append(out, fmt.Sprintf("%s: %s against %s (%d ranks, %s; was the file cut short?): %s", PairsFile, missing, MetaFile, s.N(), scope, fate))
		s.lacksSaidFill = s.lacksSaidFill || i == 0
	}
	return out
}

// MissingPairs is how every reader starts to say that missing of all
// rank pairs at size bytes are missing: the same words from each reader
// and in meta.json's warnings.
func MissingPairs(missing, all, size int) string {
	return fmt.Sprintf("%d of %d rank pairs at %d bytes are missing", missing, all, size)
}

// producerSaid reports whether meta.json's warnings already say what
// (its producer wrote the survey so).
func (s *Survey) producerSaid(what string) bool {
	for _, w := range s.Meta.Warnings {
		if strings.Contains(w, what) {
			return true
		}
	}
	return false
}
