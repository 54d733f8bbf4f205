package sweep

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/latmap/latmap/internal/csvfile"
)

// File is the sweep's file in a survey directory.
const File = "sweep.csv"

// Header is the exact header of sweep.csv.
func Header() []string {
	return []string{"a", "b", "where", "size_bytes", "count", "rtt_min_us", "rtt_median_us"}
}

// Where a pair runs (Row.Where).
const (
	Socket  = "socket"
	Node    = "node"
	Network = "network"
)

// MinSize is the sweep's smallest size; MinLargest the least its largest
// size is.
const (
	MinSize    = 64
	MinLargest = 1 << 20
)

// Row is one pair at one size: Count round trips timed, their minimum and
// median (microseconds).
type Row struct {
	A, B        int
	Where       string
	Size, Count int
	MinUs       float64
	MedianUs    float64
}

// Pair is a pair the sweep times and where it runs.
type Pair struct {
	A, B  int
	Where string
}

// Pairs chooses the sweep's pairs among ranks on hosts numbered in order
// of first appearance (host[rank], as survey.HostIndex numbers them) with
// sockets (-1: unknown): rank 0 with the first rank on its socket, the
// first on its host on another socket, the first of the second host and
// the first of the last host. Kinds the ranks do not have are left out.
func Pairs(host []int, sockets []int) []Pair {
	var out []Pair
	add := func(b int, where string) {
		for _, p := range out {
			if p.B == b {
				return
			}
		}
		out = append(out, Pair{0, b, where})
	}
	var first []int // each host's first rank
	for r, h := range host {
		if h == len(first) {
			first = append(first, r)
		}
	}
	for _, where := range []string{Socket, Node} {
		for r := 1; r < len(host); r++ {
			same := sockets[r] >= 0 && sockets[r] == sockets[0]
			if host[r] == host[0] && same == (where == Socket) {
				add(r, where)
				break
			}
		}
	}
	if len(first) > 1 {
		add(first[1], Network)
		add(first[len(first)-1], Network)
	}
	return out
}

// Sizes are the sweep's sizes: MinSize doubling up to the largest of the
// survey's sizes and MinLargest, with the survey's own sizes added.
func Sizes(survey []int) []int {
	top := MinLargest
	for _, s := range survey {
		top = max(top, s)
	}
	var out []int
	for s := MinSize; s <= top; s *= 2 {
		out = append(out, s)
	}
	for _, s := range survey {
		if s > 0 && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// Write writes sweep.csv.
func Write(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(Header()); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	for _, r := range rows {
		rec := []string{strconv.Itoa(r.A), strconv.Itoa(r.B), r.Where, strconv.Itoa(r.Size), strconv.Itoa(r.Count), f(r.MinUs), f(r.MedianUs)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Read reads sweep.csv, checking every field (errors name the line).
func Read(r io.Reader) ([]Row, error) {
	var rows []Row
	err := csvfile.Records(r, Header(), func(rec []string) error {
		row, err := parse(rec)
		rows = append(rows, row)
		return err
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// parse checks and converts one record.
func parse(rec []string) (Row, error) {
	var r Row
	for i, p := range []*int{&r.A, &r.B, nil, &r.Size, &r.Count} {
		if p == nil {
			continue
		}
		lo := 0 // ranks
		if i >= 3 {
			lo = 1 // a size and a count
		}
		v, err := strconv.Atoi(rec[i])
		if err != nil || v < lo {
			return r, fmt.Errorf("%s: %q is not an integer >= %d", Header()[i], rec[i], lo)
		}
		*p = v
	}
	if r.A == r.B {
		return r, fmt.Errorf("a and b are both rank %d", r.A)
	}
	switch r.Where = rec[2]; r.Where {
	case Socket, Node, Network:
	default:
		return r, fmt.Errorf("where: %q is not %s, %s or %s", rec[2], Socket, Node, Network)
	}
	for i, p := range []*float64{&r.MinUs, &r.MedianUs} {
		v, err := strconv.ParseFloat(rec[5+i], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
			return r, fmt.Errorf("%s: %q is not a positive number", Header()[5+i], rec[5+i])
		}
		*p = v
	}
	if r.MedianUs < r.MinUs {
		return r, errors.New("rtt_median_us is below rtt_min_us")
	}
	return r, nil
}
