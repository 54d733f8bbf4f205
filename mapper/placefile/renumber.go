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
			return nil, fmt.Errorf("rank %d's current slot (%s cpu %d) is not in the proposal: propose within the current slots (latmap place --same-slots)",
				p.Rank, p.CurrentHost, *p.CurrentCPU)
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

// remapTitle opens the file latmap profile --remap hands the job
// (interpose/c/remap.c reads it).
const remapTitle = "# latmap remap"

// WriteRemapSlots writes the advice's proposal as latmap profile --remap
// hands it to the job: each rank's slot, one line "rank R=HOST slot=CPU"
// (OS cpu numbers, as an Open MPI 4 rankfile), after a comment with the
// predicted speedup over the advice's reference placement. It fails when
// a rank has no host or cpu.
func WriteRemapSlots(w io.Writer, a *Advice) error {
	if len(a.Placement) == 0 {
		return fmt.Errorf("the advice has no proposal to remap to (latmap place --json writes it)")
	}
	var b bytes.Buffer
	ref, prop := a.Reference(), a.ProposalPrediction()
	fmt.Fprintf(&b, "%s: the proposal's slot of each of %d ranks; rank r of MPI_COMM_WORLD is the process on its slot\n", remapTitle, len(a.Placement))
	speedup := 0.0
	if prop.Run > 0 {
		speedup = ref.Run / prop.Run
	}
	fmt.Fprintf(&b, "# predicted_speedup %.4f (over %s)\n", speedup, ref.Name)
	for _, p := range a.Placement {
		if p.Host == "" || p.CPU < 0 {
			return fmt.Errorf("rank %d of the proposal has no host and cpu: remap needs a survey of bound processes", p.Rank)
		}
		fmt.Fprintf(&b, "rank %d=%s slot=%d\n", p.Rank, p.Host, p.CPU)
	}
	_, err := w.Write(b.Bytes())
	return err
}
