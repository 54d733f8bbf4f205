package survey

import "fmt"

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

// lacks is what s, as read, lacks against its meta.json: the pairs of a
// survey of every pair (scope all, not stopped early, not read sparse)
// that pairs.csv does not have at a size, as when the file was cut
// short, and the sizes meta.json lists that pairs.csv has no pair of.
func (s *Survey) lacks() []string {
	var out []string
	have := map[int]bool{}
	for _, t := range s.Tables {
		have[t.Size] = true
	}
	for _, size := range s.Meta.Sizes {
		if !have[size] {
			out = append(out, fmt.Sprintf("%s: no pair at %d bytes, a size %s lists", PairsFile, size, MetaFile))
		}
	}
	if s.scoped() || s.Partial || s.Meta.Stopped != "" {
		return out
	}
	all := TriLen(s.N())
	for _, t := range s.Tables {
		got := 0
		t.Each(func(int, int, int) { got++ })
		if got < all {
			out = append(out, fmt.Sprintf("%s: %d of %d rank pairs at %d bytes are missing (was the file cut short?); they are left unmeasured", PairsFile, all-got, all, t.Size))
		}
	}
	return out
}
