package survey

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/latmap/latmap/internal/version"
)

// MMPIOptions control how an mmpi log becomes a survey.
type MMPIOptions struct {
	// HostPattern extracts the node name from a processor name: its first
	// capturing group when it has one, else the whole match. nil keeps the
	// whole processor name as the host.
	HostPattern *regexp.Regexp
	// Name is the log's name recorded in meta.json's source ("mmpi:NAME").
	Name string
}

// CompileHostPattern compiles a host pattern (see MMPIOptions.HostPattern)
// into MMPIOptions; "" keeps whole processor names.
func CompileHostPattern(pattern string) (MMPIOptions, error) {
	if pattern == "" {
		return MMPIOptions{}, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return MMPIOptions{}, fmt.Errorf("host pattern %q: %w", pattern, err)
	}
	return MMPIOptions{HostPattern: re}, nil
}

// mmpiHeader is what the comment lines of an mmpi log say.
type mmpiHeader struct {
	machine string
	ranks   int // -1 when there was no "# Processors:" line
	msgLen  int
	repeats int
}

// ReadMMPIFile reads an mmpi log (the ammpi_N_LEN_REPEATS.dat files of
// mmpi.c) into a survey. See ReadMMPI.
func ReadMMPIFile(path string, opt MMPIOptions) (*Survey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading mmpi log: %w (want an mmpi log: mmpi.c's ammpi_N_LEN_REPEATS.dat)", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("reading mmpi log %s: a directory (want an mmpi log file: "+
			"mmpi.c's ammpi_N_LEN_REPEATS.dat; a survey directory is read as one, not imported)", path)
	}
	if opt.Name == "" {
		opt.Name = filepath.Base(path)
	}
	s, err := ReadMMPI(f, opt)
	if err != nil {
		return nil, fmt.Errorf("reading mmpi log %s: %w", path, err)
	}
	s.Path = path
	return s, nil
}

// ReadMMPI parses an mmpi log:
//
//	# Testing Hostname: nid00670
//	# Processors: 4 MsgLen 64 Repeats: 100
//	# ProcName1:rank   ProcName2:rank   AvgCommTime(usecs) StdDev
//	nid00670 000  nid00670 001      10.44    0.12
//
// Processor names may contain spaces, parentheses and commas, so each line
// is read from the right: the two numbers, the second rank, then the split
// between "<name1> <rank1>" and "<name2>" (two spaces after rank1).
//
// mmpi's StdDev column is sqrt((E[t^2]-E[t]^2)/(n-1)) over n = Repeats round
// trips, which is the standard error of the mean; rtt_std_us gets the
// standard deviation StdDev*sqrt(n). Samples is Repeats, Mean the logged
// average; median, min and p99 are not in the log and are NaN. MsgLen
// counts MPI_INTs, as in mmpi.c: the message size is 4 x MsgLen bytes.
func ReadMMPI(r io.Reader, opt MMPIOptions) (*Survey, error) {
	p := mmpiParser{opt: opt, hdr: mmpiHeader{ranks: -1}, nameLine: map[int]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		p.line++
		b := sc.Bytes()
		if !printable(b) {
			return nil, fmt.Errorf("line %d: binary data %s: not an mmpi log (a text file with a \"# Processors: "+
				"N MsgLen L Repeats: R\" header and one line per rank pair)", p.line, excerpt(string(b)))
		}
		if err := p.parseLine(b); err != nil {
			return nil, fmt.Errorf("line %d: %w", p.line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", p.line+1, err)
	}
	return p.survey()
}

// mmpiRow is one parsed data line.
type mmpiRow struct {
	a, b      int
	mean, sem float64
}

type mmpiParser struct {
	opt      MMPIOptions
	hdr      mmpiHeader
	line     int
	names    []string    // processor name by rank ("" until seen)
	nameLine map[int]int // line where a rank's name was first seen
	rows     []mmpiRow
	rowLine  []int
}

var (
	mmpiProcsRe = regexp.MustCompile(`^#\s*Processors:\s*(\d+)\s+MsgLen:?\s*(\d+)\s+Repeats:?\s*(\d+)`)
	mmpiHostRe  = regexp.MustCompile(`^#\s*Testing Hostname:\s*(.*?)\s*$`)
)

func (p *mmpiParser) parseLine(b []byte) error {
	b = bytes.TrimRight(b, " \t\r")
	if len(b) == 0 {
		return nil
	}
	if b[0] == '#' {
		if m := mmpiProcsRe.FindSubmatch(b); m != nil {
			n, err1 := strconv.Atoi(string(m[1]))
			l, err2 := strconv.Atoi(string(m[2]))
			rep, err3 := strconv.Atoi(string(m[3]))
			if err1 != nil || err2 != nil || err3 != nil || n > maxMMPIRanks {
				return fmt.Errorf("bad header %s", excerpt(string(b)))
			}
			p.hdr.ranks, p.hdr.msgLen, p.hdr.repeats = n, l, rep
		} else if m := mmpiHostRe.FindSubmatch(b); m != nil {
			p.hdr.machine = string(m[1])
		}
		return nil
	}
	line := string(b)
	// From the right: StdDev, AvgCommTime.
	rest, semStr := cutLastField(line)
	rest, meanStr := cutLastField(rest)
	if meanStr == "" {
		return fmt.Errorf("want \"<name> <rank>  <name> <rank>  <mean> <stddev>\", got %s", excerpt(line))
	}
	mean, err := parseMMPIFloat(meanStr)
	if err != nil {
		return fmt.Errorf("average %s: %w", excerpt(meanStr), err)
	}
	sem, err := parseMMPIFloat(semStr)
	if err != nil {
		return fmt.Errorf("stddev %s: %w", excerpt(semStr), err)
	}
	// Then the second rank.
	rest, rank2Str := cutLastField(rest)
	rank2, err := parseRankField(rank2Str)
	if err != nil {
		return fmt.Errorf("second rank %s: %w", excerpt(rank2Str), err)
	}
	name1, rank1, name2, err := p.splitNames(rest, rank2)
	if err != nil {
		return err
	}
	if p.hdr.ranks >= 0 && (rank1 >= p.hdr.ranks || rank2 >= p.hdr.ranks) {
		return fmt.Errorf("rank %d out of range: the header says %d processors", max(rank1, rank2), p.hdr.ranks)
	}
	if rank1 > maxMMPIRanks || rank2 > maxMMPIRanks {
		return fmt.Errorf("rank %d is too large (at most %d ranks)", max(rank1, rank2), maxMMPIRanks)
	}
	if err := p.setName(rank1, name1); err != nil {
		return err
	}
	if err := p.setName(rank2, name2); err != nil {
		return err
	}
	if rank1 == rank2 {
		return nil // mmpi logs a rank with itself as 0.00
	}
	if math.IsInf(mean, 0) || mean < 0 {
		return fmt.Errorf("average %s is not a round-trip time (want a non-negative number of microseconds)", excerpt(meanStr))
	}
	p.rows = append(p.rows, mmpiRow{a: min(rank1, rank2), b: max(rank1, rank2), mean: mean, sem: sem})
	p.rowLine = append(p.rowLine, p.line)
	return nil
}

// mmpiIntBytes is the size of the MPI_INT that mmpi's MsgLen counts.
const mmpiIntBytes = 4

// maxMMPIRanks bounds the ranks of an mmpi log (mmpi.c itself stops at 100;
// latmap writes the format for any N) so a corrupt line cannot make the
// reader allocate without bound.
const maxMMPIRanks = 1 << 16

// splitNames splits "<name1> <rank1>  <name2>" (what is left of a line once
// the numbers and the second rank are cut off). A name may itself contain
// "<digits>  ", so every such place is a candidate; the one that agrees
// with names already seen wins, then the first.
func (p *mmpiParser) splitNames(s string, rank2 int) (name1 string, rank1 int, name2 string, err error) {
	type cand struct {
		name1, name2 string
		rank1        int
	}
	var cands []cand
	for i := 0; i+2 <= len(s); {
		j := strings.Index(s[i:], "  ")
		if j < 0 {
			break
		}
		j += i
		// The token before the two spaces must be " <digits>".
		k := j
		for k > 0 && s[k-1] >= '0' && s[k-1] <= '9' {
			k--
		}
		if k < j && k > 0 && s[k-1] == ' ' {
			if r, err := parseRankField(s[k:j]); err == nil {
				n1 := strings.TrimRight(s[:k-1], " ")
				n2 := strings.TrimLeft(s[j:], " ")
				if n1 != "" && n2 != "" {
					cands = append(cands, cand{name1: n1, name2: n2, rank1: r})
				}
			}
		}
		i = j + 1
	}
	if len(cands) == 0 {
		return "", 0, "", fmt.Errorf("cannot find \"<name> <rank>  <name>\" before the second rank in %s", excerpt(s))
	}
	best, bestScore := 0, -1
	for i, c := range cands {
		score := 0
		if c.rank1 <= rank2 {
			score++ // mmpi writes the lower rank first
		}
		if c.rank1 == rank2 && c.name1 == c.name2 {
			score += 2
		}
		if c.rank1 < len(p.names) && p.names[c.rank1] == c.name1 {
			score += 4
		}
		if rank2 < len(p.names) && p.names[rank2] == c.name2 {
			score += 4
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	c := cands[best]
	return c.name1, c.rank1, c.name2, nil
}

func (p *mmpiParser) setName(rank int, name string) error {
	for len(p.names) <= rank {
		p.names = append(p.names, "")
	}
	switch old := p.names[rank]; {
	case old == "":
		p.names[rank] = name
		p.nameLine[rank] = p.line
	case old != name:
		return fmt.Errorf("rank %d is %q here but %q on line %d", rank, name, old, p.nameLine[rank])
	}
	return nil
}

func (p *mmpiParser) survey() (*Survey, error) {
	n := p.hdr.ranks
	if n < 0 {
		return nil, fmt.Errorf("no \"# Processors: N MsgLen L Repeats: R\" line: is this an mmpi log? (want mmpi.c's header, then one line per rank pair)")
	}
	if n < 2 {
		return nil, fmt.Errorf("the header says %d processors, need at least 2", n)
	}
	var warnings []string
	for r := 0; r < n; r++ {
		if r >= len(p.names) || p.names[r] == "" {
			return nil, fmt.Errorf("rank %d never appears (the header says %d processors)", r, n)
		}
	}
	ranks := make([]Rank, n)
	for r := range ranks {
		host, err := p.host(p.names[r])
		if err != nil {
			return nil, fmt.Errorf("line %d: rank %d: %w", p.nameLine[r], r, err)
		}
		ranks[r] = Rank{Rank: r, Host: host, CPU: -1, CPUEnd: -1, Socket: -1, NUMA: -1, L3: -1, Core: -1}
	}
	reps := p.hdr.repeats
	// mmpi.c sends MsgLen MPI_INTs: "MsgLen 64" is 256 bytes (and latmap
	// survey --mmpi writes size/4).
	size := p.hdr.msgLen * mmpiIntBytes
	t := NewPairTable(n, size, Mean, Std, Min, Median, P99, Isolated)
	seen := make([]int32, TriLen(n))
	scale := math.NaN()
	if reps > 1 {
		scale = math.Sqrt(float64(reps))
	}
	badStd := 0
	for i, row := range p.rows {
		k := TriIndex(n, row.a, row.b)
		if seen[k] != 0 {
			return nil, fmt.Errorf("line %d: pair (%d, %d) already given on line %d", p.rowLine[i], row.a, row.b, seen[k])
		}
		seen[k] = int32(p.rowLine[i])
		std := row.sem * scale
		if math.IsNaN(std) || std < 0 {
			std = math.NaN()
			badStd++
		}
		t.Set(&PairStats{A: row.a, B: row.b, Size: size, Samples: reps, Mean: row.mean, Std: std,
			Min: math.NaN(), Median: math.NaN(), P99: math.NaN(), Isolated: math.NaN()})
	}
	if missing := TriLen(n) - len(p.rows); missing > 0 {
		warnings = append(warnings, fmt.Sprintf("the log: %s (was the run or the file cut short?): left unmeasured",
			MissingPairs(missing, TriLen(n), p.hdr.msgLen*mmpiIntBytes)))
	}
	warnings = append(warnings, fmt.Sprintf("rtt_std_us is mmpi's StdDev (the standard error of the mean over "+
		"%d repeats) times sqrt(%d); min, median and p99 are not in mmpi logs; MsgLen %d counts MPI_INTs: %d bytes",
		reps, reps, p.hdr.msgLen, size))
	if badStd > 0 {
		warnings = append(warnings, fmt.Sprintf("%d pairs have no usable StdDev (nan, or %d repeats)", badStd, reps))
	}
	if p.opt.HostPattern == nil && n > 2 && hostCount(ranks) == n && !hostnameLike(ranks[0].Host) {
		warnings = append(warnings, "every rank has its own processor name and it does not look like a host name; "+
			"if several ranks share a node, import with --host-pattern to extract the node name")
	}
	name := p.opt.Name
	if name == "" {
		name = "log"
	}
	s := &Survey{
		Meta: SurveyMeta{
			Tool: "latmap import mmpi", Version: version.Version,
			Ranks: n, Sizes: []int{size}, Repeats: reps,
			Schedule: "sequential", Scope: "all",
			Machine: p.hdr.machine, Source: "mmpi:" + name, Warnings: warnings,
		},
		Ranks:  ranks,
		Tables: []*PairTable{t},
	}
	return s, s.Validate()
}

// host applies the host pattern to a processor name.
func (p *mmpiParser) host(name string) (string, error) {
	re := p.opt.HostPattern
	if re == nil {
		return name, nil
	}
	m := re.FindStringSubmatch(name)
	if m == nil {
		return "", fmt.Errorf("processor name %q does not match --host-pattern %q", name, re.String())
	}
	if len(m) > 1 && m[1] != "" {
		return m[1], nil
	}
	if m[0] == "" {
		return "", fmt.Errorf("--host-pattern %q matches an empty string in %q", re.String(), name)
	}
	return m[0], nil
}

// hostnameLike reports whether s could be a host name (no spaces, no
// brackets).
func hostnameLike(s string) bool {
	return s != "" && !strings.ContainsAny(s, " \t()<>,")
}

// cutLastField splits s at its last run of spaces: what is before (trimmed)
// and the last field.
func cutLastField(s string) (rest, last string) {
	s = strings.TrimRight(s, " \t")
	i := strings.LastIndexAny(s, " \t")
	if i < 0 {
		return "", s
	}
	return strings.TrimRight(s[:i], " \t"), s[i+1:]
}

func parseRankField(s string) (int, error) {
	if s == "" || len(s) > 9 {
		return 0, fmt.Errorf("not a rank")
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("not a rank")
		}
	}
	return strconv.Atoi(s)
}

// parseMMPIFloat parses a number as C's printf writes it, including "nan"
// and "-nan".
func parseMMPIFloat(s string) (float64, error) {
	if strings.EqualFold(strings.TrimLeft(s, "+-"), "nan") {
		return math.NaN(), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("not a number")
	}
	return v, nil
}

// hostCount is how many distinct hosts the ranks ran on.
func hostCount(ranks []Rank) int {
	_, n := HostIndex(ranks)
	return n
}

// printable reports whether a line can be text: no NUL or other control
// bytes but tab and carriage return, and valid UTF-8.
func printable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\r' || c == 0x7f {
			return false
		}
	}
	return utf8.Valid(b)
}

// excerpt quotes at most the first 40 bytes of s, in ASCII, for an error
// message, so a broken or binary input never floods the terminal.
func excerpt(s string) string {
	const max = 40
	if len(s) > max {
		return strconv.QuoteToASCII(s[:max]) + "..."
	}
	return strconv.QuoteToASCII(s)
}
