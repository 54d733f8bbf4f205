package journal

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/latmap/latmap/bench/roundtrip"
	"github.com/latmap/latmap/internal/version"
	"github.com/latmap/latmap/mapper/survey"
)

// Recover makes the survey the journals in dir describe, marked stopped
// as a survey stopped by a signal is: the sizes measured in order while
// every pair had at least one whole pass, each pair cut to the round
// trips every pair had at that size (the last size may be cut short),
// without isolation sample, node or switch phase.
func Recover(dir string) (*survey.Survey, error) {
	ranks, err := Read(dir)
	if err != nil {
		return nil, err
	}
	h := ranks[0].Header
	keep := wholePasses(ranks)
	if len(keep) == 0 {
		return nil, fmt.Errorf("%s: no pass over the pairs at %d bytes was written whole before the job ended: nothing to keep", dir, h.Sizes[0])
	}
	n := h.Ranks
	s := &survey.Survey{Ranks: make([]survey.Rank, n)}
	for si, k := range keep {
		size := h.Sizes[si]
		newTable := survey.NewPairTable
		if h.Scope != survey.ScopeAll {
			newTable = survey.NewSparsePairTable
		}
		t := newTable(n, size)
		for _, rk := range ranks {
			for i, b := range rk.Peers {
				t.Set(roundtrip.Summarize(rk.Samples[si][i][:k]).Pair(rk.Rank, b, size, math.NaN()))
			}
		}
		s.Tables = append(s.Tables, t)
	}
	for _, rk := range ranks {
		s.Ranks[rk.Rank] = rk.Facts
	}
	last := len(keep) - 1
	why := fmt.Sprintf("killed without a word (mpirun's SIGKILL a second after a signal, a time limit, a rank's death) "+
		"during the pass over the pairs at %d bytes; recovered from the ranks' journals: %d round trips a pair at %d bytes",
		h.Sizes[last], keep[last], h.Sizes[last])
	if last+1 < len(h.Sizes) {
		why += fmt.Sprintf("; sizes %v not measured", h.Sizes[last+1:])
	}
	end := h.Start
	if st, err := os.Stat(path(dir, 0)); err == nil {
		end = st.ModTime()
	}
	s.Meta = survey.SurveyMeta{Tool: "latmap", Version: version.Version, Start: h.Start, End: end,
		CommandLine: h.CommandLine, MPIVersion: h.MPIVersion, Launcher: h.Launcher,
		Ranks: n, Sizes: s.Sizes(), Repeats: h.Repeats, Schedule: h.Schedule, Scope: h.Scope,
		Stopped:  why,
		Warnings: []string{"the survey " + why + ": pairs.csv's samples are the round trips each pair had, and what came after was not measured"}}
	return s, nil
}

// wholePasses is, for the sizes in the order measured while every rank
// had at least one pass there, the round trips every pair had: a rank
// killed mid-pass wrote fewer passes than another.
func wholePasses(ranks []Rank) []int {
	var keep []int
	for si := range ranks[0].Sizes {
		k := -1
		for _, rk := range ranks {
			if m := rk.Measured(si); m >= 0 && (k < 0 || m < k) {
				k = m
			}
		}
		if k <= 0 {
			break
		}
		keep = append(keep, k)
	}
	return keep
}

// Restore, at --resume out, writes the survey that the journals of a
// killed run beside out describe (Recover) as out's stopped survey with
// write, adding the sizes of the stopped survey already in out that
// they lack (a resumed run measures only the sizes it did not keep),
// and removes the journals. It says what it recovered ("" when there
// were no journals).
func Restore(out string, write func(*survey.Survey) error) (string, error) {
	dir := Dir(out)
	if _, err := os.Stat(dir); err != nil {
		return "", nil
	}
	s, err := Recover(dir)
	if err != nil {
		return "", err
	}
	got, kept := s.Sizes(), ""
	if old, err := survey.ReadSurvey(out, survey.LoadOptions{KeepSparse: true}); err == nil && old.Meta.Stopped != "" && old.N() == s.N() {
		var sizes []int
		for _, t := range old.Tables {
			if !slices.Contains(got, t.Size) {
				s.Tables, sizes = append(s.Tables, t), append(sizes, t.Size)
			}
		}
		slices.SortFunc(s.Tables, func(a, b *survey.PairTable) int { return a.Size - b.Size })
		s.Meta.Sizes = s.Sizes()
		if len(sizes) > 0 {
			kept = fmt.Sprintf(", with sizes %v of the survey it was resuming", sizes)
		}
	}
	if err := write(s); err != nil {
		return "", err
	}
	os.RemoveAll(dir)
	return fmt.Sprintf("the run before was killed; its ranks' journals in %s gave sizes %v%s", dir, got, kept), nil
}

// Unopened says which ranks could not open their journal, from every
// rank's error message (empty when it could), "" when all could.
func Unopened(msgs [][]byte) string {
	var ranks []string
	why := ""
	for r, msg := range msgs {
		if len(msg) > 0 {
			ranks, why = append(ranks, strconv.Itoa(r)), cmp.Or(why, string(msg))
		}
	}
	if len(ranks) == 0 {
		return ""
	}
	return fmt.Sprintf("ranks %s keep no journal (%s): if the job is killed, their pairs are lost; give -o on a file system every node sees",
		strings.Join(ranks, ", "), why)
}
