package profile

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// MatrixHeader is the header of a plain communication matrix
// (latmap place --matrix FILE): directed point-to-point traffic in
// MPI_COMM_WORLD ranks. Extra columns may follow.
func MatrixHeader() []string {
	return []string{"src", "dst", "bytes", "messages"}
}

// Flow is one directed entry of a communication matrix.
type Flow struct {
	Src, Dst int
	Bytes    float64
	Messages float64
}

// ParseMatrix parses a plain communication matrix (MatrixHeader(); '#'
// comment lines and blank lines are skipped). It returns the flows and the
// number of ranks they imply (largest rank + 1). Errors name the line.
//
// The reader is written by hand, not with encoding/csv: a 64,000-rank
// stencil's matrix has millions of rows, and splitting each line in place
// with plain-digit fast paths reads it several times faster with no
// allocation per row (FuzzParseMatrix keeps it honest).
func ParseMatrix(r io.Reader) ([]Flow, int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	p := matrixParser{maxRank: -1}
	line := 0
	for sc.Scan() {
		line++
		if err := p.line(sc.Bytes()); err != nil {
			return nil, 0, fmt.Errorf("line %d: %w", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("line %d: %w", line+1, err)
	}
	if !p.header {
		return nil, 0, fmt.Errorf("empty matrix: want the header %s and one row per communicating pair", joinComma(MatrixHeader()))
	}
	if p.maxRank > 1<<26 {
		return nil, 0, fmt.Errorf("rank %d is implausibly large (more than 2^26 ranks)", p.maxRank)
	}
	return p.flows, p.maxRank + 1, nil
}

// matrixParser is ParseMatrix's state between lines.
type matrixParser struct {
	header  bool
	flows   []Flow
	maxRank int
}

// line takes one line: a comment, a blank, the header or a row.
func (p *matrixParser) line(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] == '#' {
		return nil
	}
	var fields [4][]byte
	nf := splitFields(b, &fields)
	if !p.header {
		if nf < len(MatrixHeader()) {
			return fmt.Errorf("header has %d columns, want %s", nf, joinComma(MatrixHeader()))
		}
		for i, h := range MatrixHeader() {
			if string(bytes.TrimSpace(fields[i])) != h {
				return fmt.Errorf("column %d is %q, want %q (header %s)", i+1, fields[i], h, joinComma(MatrixHeader()))
			}
		}
		p.header = true
		return nil
	}
	if nf < len(MatrixHeader()) {
		return fmt.Errorf("%d columns, want at least %d (%s)", nf, len(MatrixHeader()), joinComma(MatrixHeader()))
	}
	f, err := parseFlow(&fields)
	if err != nil {
		return err
	}
	p.maxRank = max(p.maxRank, f.Src, f.Dst)
	p.flows = append(p.flows, f)
	return nil
}

// splitFields splits b at its first three commas into fields (the fourth
// keeps the rest of the line) and returns how many fields there are.
func splitFields(b []byte, fields *[4][]byte) int {
	nf := 0
	for nf < 4 {
		i := bytes.IndexByte(b, ',')
		if i < 0 {
			fields[nf] = b
			return nf + 1
		}
		fields[nf] = b[:i]
		b = b[i+1:]
		nf++
	}
	return nf
}

// parseFlow reads a row's src, dst (ranks) and bytes, messages (numbers).
func parseFlow(fields *[4][]byte) (Flow, error) {
	var f Flow
	for i, dst := range []*int{&f.Src, &f.Dst} {
		fb := bytes.TrimSpace(fields[i])
		v, ok := digits(fb)
		if !ok {
			x, err := strconv.Atoi(string(fb))
			if err != nil {
				return f, fmt.Errorf("%s: %q is not a rank number", MatrixHeader()[i], fields[i])
			}
			v = x
		}
		if v < 0 {
			return f, fmt.Errorf("%s: negative rank %d", MatrixHeader()[i], v)
		}
		*dst = v
	}
	for i, dst := range []*float64{&f.Bytes, &f.Messages} {
		fb := bytes.TrimSpace(fields[2+i])
		iv, ok := digits(fb)
		v := float64(iv)
		if !ok {
			x, err := strconv.ParseFloat(string(fb), 64)
			if err != nil || x != x || x > 1e300 {
				return f, fmt.Errorf("%s: %q is not a number", MatrixHeader()[2+i], fb)
			}
			v = x
		}
		if v < 0 {
			return f, fmt.Errorf("%s: negative value %s", MatrixHeader()[2+i], fb)
		}
		*dst = v
	}
	return f, nil
}

// digits parses a plain run of up to 15 decimal digits (the common case)
// without allocating; ok is false for anything else.
func digits(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	v := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// ReadMatrixFile reads a plain communication matrix file.
func ReadMatrixFile(path string) ([]Flow, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("reading matrix: %w", err)
	}
	defer f.Close()
	flows, n, err := ParseMatrix(f)
	if err != nil {
		return nil, 0, fmt.Errorf("reading matrix %s: %w", path, err)
	}
	return flows, n, nil
}

func joinComma(s []string) string { return strings.Join(s, ",") }
