package placefile

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// A renumbering is a placement applied without moving a process: the
// job's processes stay where the launcher put them, and the one that is
// rank i now becomes rank New[i] (latmap profile --reorder and --remap
// apply it inside the job). latmap place --same-slots proposes one, over
// the slots the current placement holds.
//
// Its file is text: comment lines starting with '#' (the first says what
// it is, and "# predicted_speedup X" the model's gain over the current
// placement), then one line per current rank, in rank order: its new
// rank.
type Renumbering struct {
	New              []int
	PredictedSpeedup float64
}

const renumberTitle = "# latmap renumbering"

// RenumberingOf is the advice's proposal as a renumbering of its current
// placement: the process at the current slot of rank i becomes the rank
// the proposal puts on that slot. It fails unless the proposal uses
// exactly the current placement's slots (place --same-slots).
func RenumberingOf(a *Advice) (*Renumbering, error) {
	type slot struct {
		host string
		cpu  int
	}
	at := map[slot]int{}
	for _, p := range a.Placement {
		at[slot{p.Host, p.CPU}] = p.Rank
	}
	r := &Renumbering{New: make([]int, len(a.Placement))}
	for i, p := range a.Placement {
		if p.CurrentCPU == nil {
			return nil, fmt.Errorf("rank %d has no current slot: a renumbering needs the current placement (--current, or a profile taken on surveyed cpus)", p.Rank)
		}
		n, ok := at[slot{p.CurrentHost, *p.CurrentCPU}]
		if !ok {
			return nil, fmt.Errorf("rank %d's current slot (%s cpu %d) is not in the proposal: propose within the current slots (latmap place --same-slots)", p.Rank, p.CurrentHost, *p.CurrentCPU)
		}
		r.New[i] = n
	}
	// The current placement is known (every rank has one): it is the
	// reference.
	if cur, prop := a.Reference().Run, a.ProposalPrediction().Run; cur > 0 && prop > 0 {
		r.PredictedSpeedup = cur / prop
	}
	return r, nil
}

// WriteRenumbering writes r in its file format.
func WriteRenumbering(w io.Writer, r *Renumbering) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s: %d ranks; line i is the new rank of the process that is rank i now\n", renumberTitle, len(r.New))
	fmt.Fprintf(&b, "# predicted_speedup %.4f\n", r.PredictedSpeedup)
	for _, n := range r.New {
		b.WriteString(strconv.Itoa(n))
		b.WriteByte('\n')
	}
	_, err := w.Write(b.Bytes())
	return err
}

// ReadRenumbering reads a renumbering file, checking that it is one: a
// permutation of 0..n-1.
func ReadRenumbering(rd io.Reader) (*Renumbering, error) {
	r := &Renumbering{}
	sc := bufio.NewScanner(rd)
	first := true
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if first && !strings.HasPrefix(s, renumberTitle) {
			return nil, fmt.Errorf("not a latmap renumbering (its first line is not %q; latmap place --same-slots --renumber FILE writes one)", renumberTitle)
		}
		first = false
		if v, ok := strings.CutPrefix(s, "# predicted_speedup "); ok {
			r.PredictedSpeedup, _ = strconv.ParseFloat(v, 64)
		}
		if s == "" || s[0] == '#' {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("line %d: %q is not a rank", line, s)
		}
		r.New = append(r.New, n)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	seen := make([]bool, len(r.New))
	for i, n := range r.New {
		if n < 0 || n >= len(r.New) || seen[n] {
			return nil, fmt.Errorf("rank %d becomes %d: not a renumbering of %d ranks (each of 0-%d once)", i, n, len(r.New), len(r.New)-1)
		}
		seen[n] = true
	}
	if len(r.New) == 0 {
		return nil, fmt.Errorf("no ranks in the renumbering")
	}
	return r, nil
}
