package survey

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/gocarina/gocsv"
	"github.com/latmap/latmap/internal/atomicdir"
	"github.com/latmap/latmap/internal/csvfile"
	"github.com/latmap/latmap/mapper/survey/sweep"
)

// PairsHeader is the exact header of pairs.csv.
func PairsHeader() []string {
	return []string{"rank_a", "rank_b", "size_bytes", "samples", "rtt_mean_us", "rtt_std_us",
		"rtt_min_us", "rtt_median_us", "rtt_p99_us", "rtt_isolated_median_us"}
}

// LoadOptions select what ReadSurvey loads. The zero value loads everything.
type LoadOptions struct {
	// Metrics to keep in memory; nil keeps all. Loading one metric of a
	// 4096-rank survey takes a sixth of the memory of loading all.
	Metrics []Metric
	// SkipFit leaves fit.csv unread.
	SkipFit bool
	// KeepSparse leaves a survey read sparse as it was measured however
	// small, for a reader that prices it node pair by node pair (place):
	// no dense copy filled from the leaders.
	KeepSparse bool
}

// ReadSurvey reads a survey directory.
func ReadSurvey(dir string, opt LoadOptions) (*Survey, error) {
	s := &Survey{Path: dir}
	b, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		return nil, fmt.Errorf("reading survey %s: %w (is it a directory written by latmap survey or latmap import?)", dir, err)
	}
	if err := json.Unmarshal(b, &s.Meta); err != nil {
		return nil, fmt.Errorf("reading survey %s: %s: %w", dir, MetaFile, err)
	}
	if s.Ranks, err = readRanksFile(filepath.Join(dir, RanksFile)); err != nil {
		return nil, fmt.Errorf("reading survey %s: %w", dir, partHint(err))
	}
	if err := s.checkRankRows(); err != nil {
		return nil, fmt.Errorf("reading survey %s: %w", dir, err)
	}
	if s.scoped() {
		if _, _, err := ParseScope(s.Meta.Scope); err != nil {
			return nil, fmt.Errorf("reading survey %s: %s: %w", dir, MetaFile, err)
		}
	}
	if err := s.readPairsFile(filepath.Join(dir, PairsFile), opt); err != nil {
		return nil, fmt.Errorf("reading survey %s: %w", dir, partHint(err))
	}
	s.sortTables()
	if !opt.SkipFit {
		if s.Fits, err = readFitFile(filepath.Join(dir, FitFile)); err != nil {
			return nil, fmt.Errorf("reading survey %s: %w", dir, err)
		}
	}
	if s.NodeBandwidth, err = readNodeBandwidthFile(filepath.Join(dir, NodeBandwidthFile)); err != nil {
		return nil, fmt.Errorf("reading survey %s: %w", dir, err)
	}
	if s.Switches, err = csvfile.ReadOptional(filepath.Join(dir, SwitchesFile), SwitchesFile, ReadSwitches); err != nil {
		return nil, fmt.Errorf("reading survey %s: %w", dir, err)
	}
	if s.SwitchBandwidth, err = csvfile.ReadOptional(filepath.Join(dir, SwitchBandwidthFile), SwitchBandwidthFile, ReadSwitchBandwidth); err != nil {
		return nil, fmt.Errorf("reading survey %s: %w", dir, err)
	}
	if s.Shares, err = csvfile.ReadOptional(filepath.Join(dir, SharesFile), SharesFile, ReadShares); err != nil {
		return nil, fmt.Errorf("reading survey %s: %w", dir, err)
	}
	if s.Sweep, err = csvfile.ReadOptional(filepath.Join(dir, sweep.File), sweep.File, sweep.Read); err != nil {
		return nil, fmt.Errorf("reading survey %s: %w", dir, err)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("reading survey %s: %w", dir, err)
	}
	var filled []int
	if s.wantsFill(opt) {
		if filled = s.fillUnmeasured(); len(filled) > 0 {
			s.Filled = filled[0]
		}
	}
	s.Lacks = s.lacks(filled)
	return s, nil
}

// readPairsFile reads pairs.csv into s.Tables, sparse or dense as
// chooseSparse says, in O(r log r) for r rows in any order.
func (s *Survey) readPairsFile(path string, opt LoadOptions) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	n := len(s.Ranks)
	sparse, perSize, err := chooseSparse(f, n, len(s.Meta.Sizes), loadedMetrics(opt))
	if err != nil {
		return err
	}
	s.Partial = sparse
	bySize := map[int]*PairTable{}
	var keep [numMetrics]bool
	for m := range keep {
		keep[m] = len(opt.Metrics) == 0 || slices.Contains(opt.Metrics, Metric(m))
	}
	var last *PairTable // the table of the row before (rows come size by size)
	err = scanPairs(f, keep, func(p *PairStats) error {
		if p.A < p.B && p.B >= n {
			return fmt.Errorf("pair (%d, %d) names rank %d, and %s has rows for ranks 0..%d only (want a row per rank in %s)", p.A, p.B, p.B, RanksFile, n-1, RanksFile)
		}
		if p.A < 0 || p.B >= n || p.A >= p.B {
			return fmt.Errorf("pair (%d, %d) is not an unordered pair of ranks 0..%d with rank_a < rank_b", p.A, p.B, n-1)
		}
		if last == nil || last.Size != p.Size {
			last = bySize[p.Size]
		}
		if last == nil {
			if sparse {
				last = NewSparsePairTable(n, p.Size, opt.Metrics...)
				last.reserve(perSize + perSize/8) // the estimate, and some
			} else {
				last = NewPairTable(n, p.Size, opt.Metrics...)
			}
			bySize[p.Size] = last
			s.Tables = append(s.Tables, last)
		}
		last.Set(p)
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", PairsFile, err)
	}
	for _, t := range s.Tables {
		t.Settle()
	}
	return nil
}

// partHint adds what a survey directory holds to an error opening one
// of its files: not there, or a directory.
func partHint(err error) error {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.EISDIR) {
		return fmt.Errorf("%w (want a survey directory as latmap survey or latmap import writes it: %s, %s, %s)", err, MetaFile, RanksFile, PairsFile)
	}
	return err
}

// checkRankRows refuses a ranks.csv without a row for each rank: no rows,
// rows out of order, or fewer than meta.json's ranks.
func (s *Survey) checkRankRows() error {
	if len(s.Ranks) == 0 {
		return fmt.Errorf("%s has no rows (want one row per rank: %s)", RanksFile, "rank,host,cpu,...")
	}
	for i, r := range s.Ranks {
		if r.Rank != i {
			return fmt.Errorf("%s row %d has rank %d, want %d: no row for rank %d (ranks must be 0..N-1 in order)", RanksFile, i+1, r.Rank, i, i)
		}
	}
	if n := len(s.Ranks); s.Meta.Ranks > n {
		return fmt.Errorf("%s has rows for ranks 0..%d, and %s says %d ranks: no row for rank %d (want one row per rank)", RanksFile, n-1, MetaFile, s.Meta.Ranks, n)
	}
	return nil
}

// loadedMetrics is how many metrics opt loads.
func loadedMetrics(opt LoadOptions) int {
	if len(opt.Metrics) == 0 {
		return int(numMetrics)
	}
	return len(opt.Metrics)
}

// wantsFill says whether ReadSurvey fills s's unmeasured cross-node pairs
// (CrossNodeMedians): a survey whose scope is not "all", or one
// read sparse (Partial), when its dense copy fits MaxFillBytes.
func (s *Survey) wantsFill(opt LoadOptions) bool {
	if (!s.scoped() && !s.Partial) || (opt.KeepSparse && s.Sparse()) {
		return false
	}
	return !s.Sparse() || denseBytes(s.N(), len(s.Tables), loadedMetrics(opt)) <= MaxFillBytes
}

func readFitFile(path string) ([]Fit, error) {
	return csvfile.ReadOptional(path, FitFile, ReadFits)
}

// FitHeader() names fit.csv's columns (in any order; others are ignored).
func FitHeader() []string {
	return []string{"rank_a", "rank_b", "latency_us", "bandwidth_MBps"}
}

// ReadFits reads a fit.csv. It is hand-written, not gocsv: a nodes survey
// of 64,000 ranks has 2.5 million fits, which gocsv's reflection read in
// 3.7 s and this reads in a tenth of that. An empty number (WriteFits
// writes NaN so) is NaN. FuzzReadSurvey fuzzes it.
func ReadFits(r io.Reader) ([]Fit, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, err := br.ReadString('\n')
	if err == io.EOF && head == "" {
		return nil, nil // an empty file: no fits
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	col := map[string]int{}
	for i, h := range strings.Split(strings.TrimRight(head, "\r\n"), ",") {
		col[h] = i
	}
	var idx [4]int
	width := 0
	for k, name := range FitHeader() {
		i, ok := col[name]
		if !ok {
			return nil, fmt.Errorf("line 1: no %s column (want %s)", name, strings.Join(FitHeader(), ","))
		}
		idx[k], width = i, max(width, i+1)
	}
	var rows []Fit
	fields := make([][]byte, 0, width)
	for line := 2; ; line++ {
		b, err := br.ReadSlice('\n')
		if err != nil && err != io.EOF {
			if err == bufio.ErrBufferFull {
				return nil, fmt.Errorf("line %d: longer than 64 KiB", line)
			}
			return nil, err
		}
		if t := bytes.TrimRight(b, "\r\n"); len(t) > 0 {
			fields = fields[:0]
			for f := range bytes.SplitSeq(t, []byte{','}) {
				fields = append(fields, f)
			}
			if len(fields) < width {
				return nil, fmt.Errorf("line %d: %d fields, want at least %d", line, len(fields), width)
			}
			f, perr := parseFit(fields, idx)
			if perr != nil {
				return nil, fmt.Errorf("line %d: %w", line, perr)
			}
			rows = append(rows, f)
		}
		if err == io.EOF {
			return rows, nil
		}
	}
}

// parseFit parses one fit.csv row's fields (columns at idx).
func parseFit(fields [][]byte, idx [4]int) (Fit, error) {
	var f Fit
	var err error
	if f.A, err = atoi(fields[idx[0]]); err != nil {
		return f, fmt.Errorf("rank_a: %w", err)
	}
	if f.B, err = atoi(fields[idx[1]]); err != nil {
		return f, fmt.Errorf("rank_b: %w", err)
	}
	num := func(b []byte, name string) (float64, error) {
		if len(b) == 0 {
			return math.NaN(), nil
		}
		v, err := parseMicros(b)
		if err != nil || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%s: %q: want a number (empty: not fitted)", name, b)
		}
		return v, nil
	}
	if f.Latency, err = num(fields[idx[2]], "latency_us"); err != nil {
		return f, err
	}
	f.Bandwidth, err = num(fields[idx[3]], "bandwidth_MBps")
	return f, err
}

// ScanPairs streams the rows of a pairs.csv to fn without allocating per
// row; the *PairStats is reused between calls. The header must start with
// PairsHeader() (extra columns may follow). An empty
// rtt_isolated_median_us is NaN.
func ScanPairs(r io.Reader, fn func(*PairStats) error) error {
	all := [numMetrics]bool{true, true, true, true, true, true}
	return scanPairs(r, all, fn)
}

// scanPairs is ScanPairs parsing only the metrics in keep (the others are
// NaN): a reader that loads one metric of a 4096-rank survey skips five of
// six float conversions. The rows are parsed in chunks of about a
// megabyte by GOMAXPROCS goroutines and handed to fn in file order, from
// the calling goroutine.
func scanPairs(r io.Reader, keep [numMetrics]bool, fn func(*PairStats) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	if err := readPairsHeader(br); err != nil {
		return err
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	stop := make(chan struct{})
	defer close(stop)
	work := make(chan *pairChunk, workers)
	ordered := make(chan *pairChunk, 2*workers)
	readErr := make(chan error, 1)
	free := make(chan *pairChunk, 3*workers+2)
	go cutPairChunks(br, work, ordered, free, stop, readErr)
	for w := 0; w < workers; w++ {
		go parsePairChunks(work, keep)
	}
	if err := deliverPairChunks(ordered, free, fn); err != nil {
		return err
	}
	return <-readErr
}

// readPairsHeader reads the first line of a pairs.csv and checks that it
// starts with PairsHeader().
func readPairsHeader(br *bufio.Reader) error {
	header, err := br.ReadSlice('\n')
	if err != nil && err != io.EOF {
		if err == bufio.ErrBufferFull {
			return fmt.Errorf("line 1: header longer than 64 KiB")
		}
		return err
	}
	if len(bytes.TrimSpace(header)) == 0 {
		return fmt.Errorf("empty file, want the header %s", joinComma(PairsHeader()))
	}
	head := bytes.Split(bytes.TrimRight(header, "\r\n"), []byte{','})
	if len(head) < len(PairsHeader()) {
		return fmt.Errorf("line 1: header has %d columns, want %s", len(head), joinComma(PairsHeader()))
	}
	for i, h := range PairsHeader() {
		if string(head[i]) != h {
			return fmt.Errorf("line 1: column %d is %q, want %q", i+1, head[i], h)
		}
	}
	return nil
}

// pairChunk is a run of whole lines of pairs.csv on its way from the
// reader (cutPairChunks) through a parser (parsePairChunks) to fn
// (deliverPairChunks).
type pairChunk struct {
	seq, line int // line: number of the chunk's first line
	data      []byte
	rows      []PairStats
	lines     []int32 // line number of each row
	err       error
	done      chan struct{}
}

// pairChunkSize is about how many bytes of pairs.csv a chunk holds; no
// line may be longer.
const pairChunkSize = 1 << 20

// cutPairChunks cuts the rest of the input into chunks of whole lines and
// sends each to work (to be parsed) and to ordered (to be delivered in
// file order), until the end of the input or stop; it closes both and
// sends the read error, or nil at the end of the input, to readErr. It
// takes the chunks delivered back from free, whose buffers are already
// in memory: fresh ones for every megabyte of a 450 MB survey cost a page
// fault per 4 KiB as the read filled them (0.8 s of place's 3.4 s on
// 16,384 ranks).
func cutPairChunks(br *bufio.Reader, work, ordered chan<- *pairChunk, free <-chan *pairChunk, stop <-chan struct{}, readErr chan<- error) {
	defer close(work)
	defer close(ordered)
	line, seq := 2, 0
	var rest []byte
	for {
		var c *pairChunk
		select {
		case c = <-free:
		default:
			c = &pairChunk{data: make([]byte, 0, pairChunkSize)}
		}
		// rest, a line begun, is shorter than a chunk (else the cut
		// below failed); a chunk whose buffer it fills reads less.
		buf := append(c.data[:0], rest...)
		n, err := io.ReadFull(br, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		eof := err == io.EOF || err == io.ErrUnexpectedEOF
		if err != nil && !eof {
			readErr <- err
			return
		}
		cut := len(buf)
		if !eof {
			cut = bytes.LastIndexByte(buf, '\n') + 1
			if cut == 0 {
				readErr <- fmt.Errorf("line %d: longer than %d bytes", line, pairChunkSize)
				return
			}
		}
		// rest stays in c's buffer: only this goroutine takes a
		// chunk from free to write it, and the parse reads data[:cut].
		rest = buf[cut:]
		if cut > 0 {
			c.seq, c.line, c.data, c.err, c.done = seq, line, buf[:cut], nil, make(chan struct{})
			seq++
			line += bytes.Count(c.data, []byte{'\n'})
			select {
			case work <- c:
			case <-stop:
				return
			}
			select {
			case ordered <- c:
			case <-stop:
				return
			}
		}
		if eof {
			readErr <- nil
			return
		}
	}
}

// parsePairChunks parses the chunks of work until it is closed, closing
// each chunk's done when its rows (or error) are ready.
func parsePairChunks(work <-chan *pairChunk, keep [numMetrics]bool) {
	for c := range work {
		c.rows, c.lines, c.err = parsePairChunk(c.rows[:0], c.lines[:0], c.data, c.line, keep)
		close(c.done)
	}
}

// deliverPairChunks hands the rows of the chunks of ordered to fn in file
// order, each chunk once parsed, and stops at the first error of fn or of
// the parse.
func deliverPairChunks(ordered <-chan *pairChunk, free chan<- *pairChunk, fn func(*PairStats) error) error {
	for c := range ordered {
		<-c.done
		for i := range c.rows {
			if err := fn(&c.rows[i]); err != nil {
				return fmt.Errorf("line %d: %w", c.lines[i], err)
			}
		}
		if c.err != nil {
			return c.err
		}
		select {
		case free <- c:
		default:
		}
	}
	return nil
}

// parsePairChunk parses whole lines of pairs.csv; first is the number of
// the first line. It returns the rows and the line number of each,
// appended to rows and lines (room made for them at once).
func parsePairChunk(rows []PairStats, lines []int32, data []byte, first int, keep [numMetrics]bool) ([]PairStats, []int32, error) {
	rows = slices.Grow(rows, len(data)/48+1)
	lines = slices.Grow(lines, cap(rows))
	line := first
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var b []byte
		if i < 0 {
			b, data = data, nil
		} else {
			b, data = data[:i], data[i+1:]
		}
		b = bytes.TrimRight(b, "\r")
		if len(b) > 0 {
			var p PairStats
			if !parsePairFast(b, keep, &p) {
				if err := parsePairLine(b, keep, &p); err != nil {
					return rows, lines, fmt.Errorf("line %d: %w", line, err)
				}
			}
			rows = append(rows, p)
			lines = append(lines, int32(line))
		}
		line++
	}
	return rows, lines, nil
}

// parsePairFast parses a line of pairs.csv of the common form in one
// pass: four whole numbers of 1-10 digits, then six values each empty or
// digits with an optional fraction of 1-9 digits (at most 18 bytes, below
// 2^53), the last ending the line; it says false, leaving the line to
// parsePairLine, for anything else (which may still be valid). Its
// values are parsePairLine's (TestParsePairFastAgrees). It writes
// atoi's and parseMicros's common forms out again, in one loop over the
// line: calling them field by field read a 4,096-node survey's rows
// 15% slower (BenchmarkScanPairs 60 against 71 ns a row).
func parsePairFast(b []byte, keep [numMetrics]bool, p *PairStats) bool {
	i := 0
	ints := [4]*int{&p.A, &p.B, &p.Size, &p.Samples}
	for _, dst := range ints {
		v, start := 0, i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			v = v*10 + int(b[i]-'0')
			i++
		}
		if i == start || i-start > 10 || i == len(b) || b[i] != ',' {
			return false
		}
		*dst = v
		i++
	}
	floats := [6]*float64{&p.Mean, &p.Std, &p.Min, &p.Median, &p.P99, &p.Isolated}
	for k, dst := range floats {
		start, frac := i, -1
		var m uint64
		for ; i < len(b) && b[i] != ','; i++ {
			switch c := b[i]; {
			case c >= '0' && c <= '9':
				m = m*10 + uint64(c-'0')
				if frac >= 0 {
					frac++
				}
			case c == '.' && frac < 0 && i > start:
				frac = 0
			default:
				return false
			}
		}
		last := k == len(floats)-1
		if last != (i == len(b)) || i-start > 18 || frac == 0 || frac > 9 || m >= 1<<53 {
			return false
		}
		i++
		switch {
		case i-1 == start:
			*dst = math.NaN()
		case !keep[k]:
			*dst = math.NaN()
		case frac < 0:
			*dst = float64(m)
		default:
			*dst = float64(m) / pow10[frac]
		}
	}
	return true
}

// parsePairLine parses one non-empty line of pairs.csv into p.
func parsePairLine(b []byte, keep [numMetrics]bool, p *PairStats) error {
	var fields [10][]byte
	// Split at commas with a plain loop: fields are a few bytes, too
	// short for bytes.IndexByte to pay for its call.
	k, start := 0, 0
	for i := 0; i < len(b) && k < 10; i++ {
		if b[i] == ',' {
			fields[k] = b[start:i]
			k++
			start = i + 1
		}
	}
	if k < 10 {
		fields[k] = b[start:]
		k++
	}
	if k < 10 {
		return fmt.Errorf("%d columns, want %d", k, len(PairsHeader()))
	}
	ints := [4]*int{&p.A, &p.B, &p.Size, &p.Samples}
	for i, dst := range ints {
		v, err := atoi(fields[i])
		if err != nil {
			return fmt.Errorf("%s: %w", PairsHeader()[i], err)
		}
		if v < 0 {
			return fmt.Errorf("%s: negative value %d (want 0 or more)", PairsHeader()[i], v)
		}
		*dst = v
	}
	floats := [6]*float64{&p.Mean, &p.Std, &p.Min, &p.Median, &p.P99, &p.Isolated}
	for i, dst := range floats {
		fb := fields[4+i]
		if len(fb) == 0 {
			*dst = math.NaN()
			continue
		}
		// Every field is checked, also those not kept: a row with a broken
		// column is a broken row, whichever metric is drawn.
		v, err := parseMicros(fb)
		if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s %q: want a non-negative number of microseconds", PairsHeader()[4+i], fb)
		}
		if !keep[i] {
			v = math.NaN()
		}
		*dst = v
	}
	return nil
}

// parseMicros parses a pairs.csv value. The common form, digits with an
// optional fraction of at most 9 digits ("12.345"), is converted exactly
// here (an integer below 2^53 divided by an exact power of ten is
// correctly rounded, as strconv.ParseFloat would give); anything else goes
// to strconv.ParseFloat.
func parseMicros(b []byte) (float64, error) {
	if len(b) > 0 && len(b) <= 18 {
		var m uint64
		frac := -1
		ok := true
		for i, c := range b {
			switch {
			case c >= '0' && c <= '9':
				m = m*10 + uint64(c-'0')
				if frac >= 0 {
					frac++
				}
			case c == '.' && frac < 0 && i > 0:
				frac = 0
			default:
				ok = false
			}
			if !ok {
				break
			}
		}
		if ok && frac != 0 && frac <= 9 && m < 1<<53 {
			if frac < 0 {
				return float64(m), nil
			}
			return float64(m) / pow10[frac], nil
		}
	}
	return strconv.ParseFloat(string(b), 64)
}

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

// atoi parses a whole number of a CSV field; its error says the field
// and what was expected, not strconv's words.
func atoi(b []byte) (int, error) {
	if len(b) == 0 || len(b) > 10 {
		return slowAtoi(b)
	}
	v := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return slowAtoi(b)
		}
		v = v*10 + int(c-'0')
	}
	return v, nil
}

func slowAtoi(b []byte) (int, error) {
	v, err := strconv.Atoi(string(b))
	if err != nil {
		return 0, fmt.Errorf("%q: want a whole number", b)
	}
	return v, nil
}

func joinComma(s []string) string {
	var b bytes.Buffer
	for i, x := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(x)
	}
	return b.String()
}

// AppendPairRow appends one pairs.csv line for p (with newline) to dst.
// Values are written with nanosecond resolution (3 decimals of a
// microsecond); NaN is written as an empty field.
func AppendPairRow(dst []byte, p *PairStats) []byte {
	dst = strconv.AppendInt(dst, int64(p.A), 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, int64(p.B), 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, int64(p.Size), 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, int64(p.Samples), 10)
	for _, v := range [6]float64{p.Mean, p.Std, p.Min, p.Median, p.P99, p.Isolated} {
		dst = append(dst, ',')
		dst = AppendMicros(dst, v)
	}
	return append(dst, '\n')
}

// AppendMicros appends a microsecond value with 3 decimals, or nothing for NaN.
func AppendMicros(dst []byte, v float64) []byte {
	if math.IsNaN(v) {
		return dst
	}
	return strconv.AppendFloat(dst, v, 'f', 3, 64)
}

// WritePairs writes pairs.csv: the header, then every measured pair of every
// table in order of size, rank_a, rank_b.
func WritePairs(w io.Writer, tables []*PairTable) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(joinComma(PairsHeader()))
	bw.WriteByte('\n')
	buf := make([]byte, 0, 256)
	var p PairStats
	for _, t := range tables {
		t.Each(func(a, b, i int) {
			p = PairStats{A: a, B: b, Size: t.Size, Samples: int(t.Samples[i])}
			vals := [6]*float64{&p.Mean, &p.Std, &p.Min, &p.Median, &p.P99, &p.Isolated}
			for m, dst := range vals {
				if v := t.Values[m]; v != nil {
					*dst = float64(v[i])
				} else {
					*dst = math.NaN()
				}
			}
			buf = AppendPairRow(buf[:0], &p)
			bw.Write(buf)
		})
	}
	return bw.Flush()
}

// WriteRanks writes ranks.csv.
func WriteRanks(w io.Writer, ranks []Rank) error {
	return gocsv.Marshal(ranks, w)
}

// WriteFits writes fit.csv.
func WriteFits(w io.Writer, fits []Fit) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(strings.Join(FitHeader(), ",") + "\n")
	buf := make([]byte, 0, 128)
	for _, f := range fits {
		buf = strconv.AppendInt(buf[:0], int64(f.A), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(f.B), 10)
		buf = append(buf, ',')
		buf = AppendMicros(buf, f.Latency)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, f.Bandwidth, 'f', 3, 64)
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}

// WriteSurvey writes s as a survey directory, atomically: either the whole
// directory appears or nothing does. An existing dir is replaced only with
// force.
func WriteSurvey(dir string, s *Survey, force bool) error {
	if err := s.Validate(); err != nil {
		return fmt.Errorf("writing survey %s: %w", dir, err)
	}
	return atomicdir.Write(dir, force, func(tmp string) error {
		if err := atomicdir.WriteJSON(filepath.Join(tmp, MetaFile), &s.Meta); err != nil {
			return err
		}
		if err := atomicdir.CreateFile(filepath.Join(tmp, RanksFile), func(w io.Writer) error { return WriteRanks(w, s.Ranks) }); err != nil {
			return err
		}
		if err := atomicdir.CreateFile(filepath.Join(tmp, PairsFile), func(w io.Writer) error { return WritePairs(w, s.Tables) }); err != nil {
			return err
		}
		optional := []struct {
			name  string
			n     int
			write func(io.Writer) error
		}{
			{FitFile, len(s.Fits), func(w io.Writer) error { return WriteFits(w, s.Fits) }},
			{NodeBandwidthFile, len(s.NodeBandwidth), func(w io.Writer) error { return WriteNodeBandwidth(w, s.NodeBandwidth) }},
			{SwitchesFile, len(s.Switches), func(w io.Writer) error { return WriteSwitches(w, s.Switches) }},
			{SwitchBandwidthFile, len(s.SwitchBandwidth), func(w io.Writer) error { return WriteSwitchBandwidth(w, s.SwitchBandwidth) }},
			{SharesFile, len(s.Shares), func(w io.Writer) error { return WriteShares(w, s.Shares) }},
			{sweep.File, len(s.Sweep), func(w io.Writer) error { return sweep.Write(w, s.Sweep) }},
		}
		for _, f := range optional {
			if f.n == 0 {
				continue
			}
			if err := atomicdir.CreateFile(filepath.Join(tmp, f.name), f.write); err != nil {
				return err
			}
		}
		return nil
	})
}
