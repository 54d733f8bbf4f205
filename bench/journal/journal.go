package journal

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/latmap/latmap/mapper/survey"
)

// magic starts every journal file, before its header line.
const magic = "latmap-journal 1\n"

// Dir is where a survey written to out keeps its ranks' journals while
// it runs: a sibling directory, so that the survey itself is still
// written whole or not at all.
func Dir(out string) string { return filepath.Clean(out) + ".journal" }

// path is rank's file in dir.
func path(dir string, rank int) string { return filepath.Join(dir, fmt.Sprintf("rank-%06d", rank)) }

// Header says who wrote a journal and what it measures.
type Header struct {
	Rank, Ranks int
	// Facts are where the rank ran when the survey started.
	Facts survey.Rank
	// Sizes are the message sizes in the order measured; Repeats the
	// round trips a pair asked at each.
	Sizes   []int
	Repeats int
	// Peers are the ranks above this one it measures with, in the order
	// of its records' rows.
	Peers []int
	// Scope, Schedule, MPIVersion, Launcher and CommandLine are
	// meta.json's.
	Scope, Schedule, MPIVersion, Launcher string
	CommandLine                           []string
	Start                                 time.Time
}

// Writer appends one rank's round trips to its journal.
type Writer struct {
	f     *os.File
	peers int
	buf   []byte
	// written[si] is how many round trips a peer at size index si are
	// in the file; last is when it was last written.
	written []int
	last    time.Time
}

// Every is how often a rank writes to its journal at most: a kill loses
// at most this much of the measurement (and the pass it was in), and a
// survey of many short passes pays a write per Every, not a pass.
const Every = 100 * time.Millisecond

// Create starts rank h.Rank's journal in dir (which must exist),
// replacing an older one.
func Create(dir string, h Header) (*Writer, error) {
	hb, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path(dir, h.Rank), os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(append(append([]byte(magic), hb...), '\n')); err != nil {
		f.Close()
		return nil, err
	}
	return &Writer{f: f, peers: len(h.Peers), written: make([]int, len(h.Sizes)), last: time.Now()}, nil
}

// recordHead is a record's fixed part: the size's index, the first
// round trip's index and how many round trips each row holds.
const recordHead = 12

// Add records that every peer has upto round trips at size index si
// now, rows(i) being peer i's (at least upto of them); those not yet in
// the file are appended, with one write, when Every has passed since
// the last write or when flush (the size is done). It costs 8 bytes a
// round trip.
func (w *Writer) Add(si, upto int, flush bool, rows func(i int) []float64) error {
	if w == nil {
		return nil
	}
	from := w.written[si]
	if upto <= from || !flush && time.Since(w.last) < Every {
		return nil
	}
	w.buf = binary.LittleEndian.AppendUint32(w.buf[:0], uint32(si))
	w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(from))
	w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(upto-from))
	for i := 0; i < w.peers; i++ {
		for _, x := range rows(i)[from:upto] {
			w.buf = binary.LittleEndian.AppendUint64(w.buf, math.Float64bits(x))
		}
	}
	w.written[si], w.last = upto, time.Now()
	_, err := w.f.Write(w.buf)
	return err
}

// Close closes the journal's file.
func (w *Writer) Close() error {
	if w == nil {
		return nil
	}
	return w.f.Close()
}

// Rank is one rank's journal as read: its header and, for each size
// index, each peer's round trips measured (every peer has the same
// count: the passes whose record was whole).
type Rank struct {
	Header
	Samples [][][]float64
}

// Measured is how many round trips every peer of r has at size index si.
func (r Rank) Measured(si int) int {
	if si >= len(r.Samples) || len(r.Samples[si]) == 0 {
		return -1 // no peers: any count
	}
	return len(r.Samples[si][0])
}

// Read reads every rank's journal in dir, in rank order. It fails when
// a rank's file is missing or its header unreadable; a last record cut
// short is dropped.
func Read(dir string) ([]Rank, error) {
	first, err := readRank(path(dir, 0))
	if err != nil {
		return nil, err
	}
	out := []Rank{first}
	for r := 1; r < first.Ranks; r++ {
		rk, err := readRank(path(dir, r))
		if err != nil {
			return nil, err
		}
		if rk.Rank != r || rk.Ranks != first.Ranks || !slices.Equal(rk.Sizes, first.Sizes) {
			return nil, fmt.Errorf("%s: rank %d of %d with sizes %v, not rank %d of the survey of rank 0's journal (%d ranks, sizes %v)",
				path(dir, r), rk.Rank, rk.Ranks, rk.Sizes, r, first.Ranks, first.Sizes)
		}
		out = append(out, rk)
	}
	return out, nil
}

// readRank reads one journal file.
func readRank(p string) (Rank, error) {
	f, err := os.Open(p)
	if err != nil {
		return Rank{}, fmt.Errorf("journal: %w (its rank never started measuring)", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var rk Rank
	line, err := br.ReadString('\n')
	if line != magic {
		return Rank{}, fmt.Errorf("%s: not a latmap survey journal", p)
	}
	if line, err = br.ReadString('\n'); err != nil {
		return Rank{}, fmt.Errorf("%s: header cut short: %w", p, err)
	}
	if err := json.Unmarshal([]byte(line), &rk.Header); err != nil {
		return Rank{}, fmt.Errorf("%s: header: %w", p, err)
	}
	if rk.Ranks < 2 || rk.Rank < 0 || rk.Rank >= rk.Ranks || len(rk.Sizes) == 0 {
		return Rank{}, fmt.Errorf("%s: header of rank %d of %d with %d sizes", p, rk.Rank, rk.Ranks, len(rk.Sizes))
	}
	rk.Samples = make([][][]float64, len(rk.Sizes))
	for si := range rk.Samples {
		rk.Samples[si] = make([][]float64, len(rk.Peers))
	}
	for {
		ok, err := rk.readRecord(br)
		if err != nil {
			return Rank{}, fmt.Errorf("%s: %w", p, err)
		}
		if !ok {
			return rk, nil
		}
	}
}

// readRecord reads one pass's record into rk.Samples; it returns false
// at the end of the file or at a record cut short.
func (rk *Rank) readRecord(br *bufio.Reader) (bool, error) {
	var head [recordHead]byte
	if _, err := io.ReadFull(br, head[:]); err != nil {
		return false, nil
	}
	si := int(binary.LittleEndian.Uint32(head[0:]))
	at := int(binary.LittleEndian.Uint32(head[4:]))
	k := int(binary.LittleEndian.Uint32(head[8:]))
	if si >= len(rk.Sizes) || k <= 0 || at+k > rk.Repeats {
		return false, fmt.Errorf("a record of size index %d, round trips %d to %d: not of this survey (%d sizes, %d round trips)", si, at, at+k, len(rk.Sizes), rk.Repeats)
	}
	body := make([]byte, 8*k*len(rk.Peers))
	if _, err := io.ReadFull(br, body); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return false, nil
		}
		return false, err
	}
	for i := range rk.Peers {
		row := rk.Samples[si][i]
		if len(row) != at {
			return false, fmt.Errorf("a record of round trips %d to %d at size index %d after %d of them", at, at+k, si, len(row))
		}
		for j := 0; j < k; j++ {
			row = append(row, math.Float64frombits(binary.LittleEndian.Uint64(body[8*(i*k+j):])))
		}
		rk.Samples[si][i] = row
	}
	return true, nil
}
