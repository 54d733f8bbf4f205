package profile

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gocarina/gocsv"
	"github.com/latmap/latmap/mapper/survey"
)

// Profile directory file names.
const (
	MetaFile      = "meta.json"
	RanksFile     = "ranks.csv"
	FunctionsFile = "functions.csv"
	MatrixFile    = "matrix.csv"
	SizesFile     = "sizes.csv"
	// CallSitesFile and SitesFile are written with --call-sites: MPI time
	// per rank, call site and function, and each site's frames.
	CallSitesFile = "callsites.csv"
	SitesFile     = "sites.csv"
	// CommsFile lists the kinds of communicator and their traffic;
	// CommMatrixFile holds each one's matrix in world ranks when a
	// communicator other than MPI_COMM_WORLD carried point-to-point
	// traffic.
	CommsFile      = "comms.csv"
	CommMatrixFile = "commmatrix.csv"
)

// Communicator keys of comms.csv besides the creation paths (w.0, w.0.1).
const (
	CommWorld = "MPI_COMM_WORLD"
	CommSelf  = "self"
	CommOther = "other" // made by a call latmap does not wrap, or past its limit of 63 kinds
)

// Modes a profile was taken in (meta.json's "modes").
const (
	ModeBasic               = "basic"
	ModeSLT                 = "slt"             // send-late time with tokens (late_s)
	ModeCollectiveWait      = "collective-wait" // a timed barrier before each collective (sync_s)
	ModeCollectivesInMatrix = "collectives-in-matrix"
	ModeCallSites           = "call-sites" // MPI time per call site (callsites.csv, sites.csv)
	ModeReorder             = "reorder"    // MPI_Cart_create(reorder = 1) renumbered by latmap (meta.json's reorders)
	ModeRemap               = "remap"      // MPI_COMM_WORLD renumbered at MPI_Init to an advice's proposal (reorders' MPI_Init)
)

// Meta is the profile directory's meta.json.
type Meta struct {
	Tool        string    `json:"tool"`
	Version     string    `json:"version"`
	Command     []string  `json:"command"`
	Ranks       int       `json:"ranks"`
	Modes       []string  `json:"modes"` // basic, slt, collective-wait, collectives-in-matrix
	Window      string    `json:"window,omitempty"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	WallSeconds float64   `json:"wall_s"`
	MPIVersion  string    `json:"mpi_version,omitempty"`
	// Launcher is how the library was injected (openmpi, hydra, slurm).
	Launcher string `json:"launcher,omitempty"`
	// Clock is the library's time source (tsc or monotonic).
	Clock string `json:"clock,omitempty"`
	// TokenLatencyMicros is the calibrated one-way token latency that
	// --slt subtracts from each wait for a token (the largest over ranks).
	TokenLatencyMicros float64 `json:"token_latency_us,omitempty"`
	// ThreadLevel is the MPI thread level provided (0 single ... 3 multiple).
	ThreadLevel int `json:"thread_level"`
	// Unmeasured lists what the library met but could not measure exactly
	// (for example an MPI function it does not wrap).
	Unmeasured []string `json:"unmeasured,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
	// Partial, for a run that did not reach MPI_Finalize, says up to when
	// each rank's figures go (its last snapshot).
	Partial *Partial `json:"partial,omitempty"`
	// Reorders are the topology constructors latmap profile --reorder
	// renumbered (or left as MPI numbered them, and why).
	Reorders []Reorder `json:"reorders,omitempty"`
}

// Reorder is one call latmap profile --reorder met: which call (Index
// counts the reordered calls from 0), its communicator's ranks, the
// outcome ("reordered", or why MPI's numbering was kept), the model's
// predicted speedup of the new numbering over MPI's, and the new rank of
// each rank of the old communicator (the identity when kept).
type Reorder struct {
	Call             string  `json:"call"`
	Index            int     `json:"index"`
	Ranks            int     `json:"ranks"`
	Outcome          string  `json:"outcome"`
	PredictedSpeedup float64 `json:"predicted_speedup"`
	NewRanks         []int   `json:"new_ranks"`
}

// Partial is meta.json's record of a partial profile: the run ended
// (Reason) before MPI_Finalize, and each rank's figures are its last
// snapshot's, FromSeconds to ToSeconds into the run.
type Partial struct {
	Reason      string  `json:"reason"`
	FromSeconds float64 `json:"from_s"`
	ToSeconds   float64 `json:"to_s"`
}

// Rank is one row of the profile's ranks.csv: the survey's columns plus the
// elapsed and computation (outside MPI) seconds.
type Rank struct {
	survey.Rank
	Elapsed float64 `csv:"elapsed_s"`
	Comput  float64 `csv:"comput_s"`
}

// Function is one row of functions.csv: one rank's use of one MPI function.
type Function struct {
	Rank      int     `csv:"rank"`
	Function  string  `csv:"function"`
	Calls     int64   `csv:"calls"`
	Time      float64 `csv:"time_s"`
	Late      float64 `csv:"late_s"`
	Sync      float64 `csv:"sync_s"`
	BytesSent int64   `csv:"bytes_sent"`
	BytesRecv int64   `csv:"bytes_recv"`
	ReqsSent  int64   `csv:"reqs_sent"`
	ReqsRecv  int64   `csv:"reqs_recv"`
}

// Transfer is one row of matrix.csv: point-to-point traffic from src to dst
// in MPI_COMM_WORLD ranks (with --collectives-in-matrix, plus the bytes and
// messages of the collectives' generic point-to-point equivalent).
type Transfer struct {
	Src      int     `csv:"src"`
	Dst      int     `csv:"dst"`
	Bytes    int64   `csv:"bytes"`
	Messages int64   `csv:"messages"`
	Time     float64 `csv:"time_s"`
	Late     float64 `csv:"late_s"`
}

// SizeBin is one row of sizes.csv: calls of a function whose message size
// fell in [Low, High). High is -1 for the open last bin.
type SizeBin struct {
	Rank     int     `csv:"rank"`
	Function string  `csv:"function"`
	Low      int64   `csv:"bin_low"`
	High     int64   `csv:"bin_high"`
	Calls    int64   `csv:"calls"`
	Time     float64 `csv:"time_s"`
}

// CallSite is one row of callsites.csv: one rank's calls of one MPI
// function on one communicator from one call site (Site indexes
// sites.csv).
type CallSite struct {
	Rank     int    `csv:"rank"`
	Site     int    `csv:"site"`
	Function string `csv:"function"`
	// Comm is the call's communicator (comms.csv's key; for a call that
	// creates one, the communicator it is created from), empty for calls
	// without one (MPI_Wait).
	Comm      string  `csv:"comm"`
	Calls     int64   `csv:"calls"`
	Time      float64 `csv:"time_s"`
	Late      float64 `csv:"late_s"`
	Sync      float64 `csv:"sync_s"`
	BytesSent int64   `csv:"bytes_sent"`
	BytesRecv int64   `csv:"bytes_recv"`
}

// MPITime is the call site's time in MPI: transfer, send-late and
// collective wait.
func (c CallSite) MPITime() float64 { return c.Time + c.Late + c.Sync }

// SiteFrame is one row of sites.csv: frame Frame (0: the caller of the MPI
// function, 1: its caller, ...) of call site Site. Function, File and Line
// come from the object's symbols and DWARF; File and Line are empty and 0
// without debug information, Function is empty when no symbol covers the
// address. Object and Offset (the address in the object file's virtual
// addresses) are always there.
type SiteFrame struct {
	Site     int    `csv:"site"`
	Frame    int    `csv:"frame"`
	Function string `csv:"function"`
	File     string `csv:"file"`
	Line     int    `csv:"line"`
	Object   string `csv:"object"`
	Offset   string `csv:"offset"`
}

// Where is the frame in words: function (file:line), or the object and
// offset when nothing better is known.
func (f SiteFrame) Where() string {
	fn := f.Function
	if fn == "" {
		fn = filepath.Base(f.Object) + "+" + f.Offset
	}
	if f.File == "" {
		return fn + " (no debug info)"
	}
	return fmt.Sprintf("%s (%s:%d)", fn, f.File, f.Line)
}

// Comm is one row of comms.csv: one kind of communicator, every instance
// of one creation call (one per colour of a split, one per process of a
// dup), keyed by its path of creation: w.K is the K-th (from 0)
// communicator created from MPI_COMM_WORLD, w.K.J the J-th created from
// that, in the order every member agrees on.
type Comm struct {
	Comm     string `csv:"comm"`
	Name     string `csv:"name"`     // MPI_Comm_set_name's (the most common over the members), else empty
	Function string `csv:"function"` // the creating MPI function
	Members  int    `csv:"members"`  // ranks in one of its instances
	Size     int    `csv:"size"`     // ranks in an instance (the largest when they differ)
	Bytes    int64  `csv:"bytes"`    // point-to-point, as sent
	Messages int64  `csv:"messages"`
}

// Label is the communicator's name, else its key.
func (c Comm) Label() string {
	if c.Name != "" {
		return c.Name
	}
	return c.Comm
}

// CommTransfer is one row of commmatrix.csv: point-to-point traffic sent
// on communicator Comm (comms.csv's key), in world ranks.
type CommTransfer struct {
	Comm     string  `csv:"comm"`
	Src      int     `csv:"src"`
	Dst      int     `csv:"dst"`
	Bytes    int64   `csv:"bytes"`
	Messages int64   `csv:"messages"`
	Time     float64 `csv:"time_s"`
}

// Profile is a profile directory in memory.
type Profile struct {
	Meta      Meta
	Ranks     []Rank
	Functions []Function
	Matrix    []Transfer
	Sizes     []SizeBin
	// CallSites and Sites are empty unless the profile was taken with
	// --call-sites.
	CallSites []CallSite
	Sites     []SiteFrame
	// Comms and CommMatrix are empty in profiles of older versions;
	// CommMatrix is empty when only MPI_COMM_WORLD carried traffic.
	Comms      []Comm
	CommMatrix []CommTransfer
}

// IsDir reports whether path is a profile directory (it holds meta.json
// and functions.csv), to tell it from a survey.
func IsDir(path string) bool {
	for _, f := range []string{MetaFile, FunctionsFile} {
		if st, err := os.Stat(filepath.Join(path, f)); err != nil || st.IsDir() {
			return false
		}
	}
	return true
}

// ReadProfile reads a profile directory written by latmap profile.
func ReadProfile(dir string) (*Profile, error) {
	p := &Profile{}
	b, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		return nil, fmt.Errorf("reading profile %s: %w (is it a directory written by latmap profile?)", dir, err)
	}
	if err := json.Unmarshal(b, &p.Meta); err != nil {
		return nil, fmt.Errorf("reading profile %s: %s: %w", dir, MetaFile, err)
	}
	for _, f := range []struct {
		name     string
		out      any
		optional bool
		// need are columns the file must have: what it is read for (a
		// file of other columns would be read as rows of zeros).
		need []string
	}{
		{RanksFile, &p.Ranks, false, []string{"rank", "host", "elapsed_s"}},
		{FunctionsFile, &p.Functions, false, []string{"rank", "function", "calls", "time_s"}},
		{MatrixFile, &p.Matrix, false, MatrixHeader()},
		{SizesFile, &p.Sizes, true, nil},
		{CallSitesFile, &p.CallSites, true, nil},
		{SitesFile, &p.Sites, true, nil},
		{CommsFile, &p.Comms, true, nil},
		{CommMatrixFile, &p.CommMatrix, true, nil},
	} {
		fh, err := os.Open(filepath.Join(dir, f.name))
		if err != nil {
			if f.optional && os.IsNotExist(err) {
				continue
			}
			return nil, fmt.Errorf("reading profile %s: %w (want a profile directory as latmap profile writes it: %s, %s, %s, %s)", dir, err, MetaFile, RanksFile, FunctionsFile, MatrixFile)
		}
		header, err := needColumns(fh, f.need)
		if err == nil {
			err = csvError(gocsv.Unmarshal(fh, f.out), header)
		}
		fh.Close()
		if err != nil {
			return nil, fmt.Errorf("reading profile %s: %s: %w", dir, f.name, err)
		}
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("reading profile %s: %w", dir, err)
	}
	return p, nil
}

// needColumns fails unless the CSV in f has a header with every column
// of need, and leaves f at its start; it returns the header.
func needColumns(f *os.File, need []string) ([]string, error) {
	header, err := csv.NewReader(f).Read()
	if len(need) == 0 {
		_, err = f.Seek(0, io.SeekStart)
		return header, err
	}
	if err != nil {
		return nil, fmt.Errorf("no CSV header (want columns %s): %w", strings.Join(need, ","), err)
	}
	for _, c := range need {
		if !slices.Contains(header, c) {
			return nil, fmt.Errorf("no column %s in its header %q (want %s): not a file latmap profile wrote", c, strings.Join(header, ","), strings.Join(need, ","))
		}
	}
	_, err = f.Seek(0, io.SeekStart)
	return header, err
}

// csvError says a CSV reading error in words: the line, the column by
// name (header) and what it should hold, not strconv's or encoding/csv's
// words.
func csvError(err error, header []string) error {
	var pe *csv.ParseError
	if err == nil || !errors.As(err, &pe) {
		return err
	}
	if errors.Is(pe.Err, csv.ErrFieldCount) {
		return fmt.Errorf("line %d: not one field per column of its header (want %d: %s)", pe.Line, len(header), strings.Join(header, ","))
	}
	col := fmt.Sprintf("column %d", pe.Column)
	if pe.Column >= 1 && pe.Column <= len(header) {
		col += " (" + header[pe.Column-1] + ")"
	}
	var ne *strconv.NumError
	if !errors.As(pe.Err, &ne) {
		return fmt.Errorf("line %d, %s: %v", pe.Line, col, pe.Err)
	}
	want := "a number"
	switch ne.Func {
	case "ParseInt", "ParseUint", "Atoi":
		want = "a whole number"
	case "ParseBool":
		want = "true or false"
	}
	return fmt.Errorf("line %d, %s: %q: want %s", pe.Line, col, ne.Num, want)
}

// Validate checks ranks.csv has a row for each rank, 0..N-1 in order, and
// that the other files name only them, with counts and times that are
// numbers of 0 or more.
func (p *Profile) Validate() error {
	n := len(p.Ranks)
	if n == 0 {
		return fmt.Errorf("%s has no rows (want one row per rank)", RanksFile)
	}
	for i, r := range p.Ranks {
		if r.Rank.Rank != i {
			return fmt.Errorf("%s line %d has rank %d, want %d: no row for rank %d", RanksFile, i+2, r.Rank.Rank, i, i)
		}
		if bad(r.Elapsed) || bad(r.Comput) {
			return fmt.Errorf("%s line %d: elapsed_s %v, comput_s %v: want seconds, 0 or more", RanksFile, i+2, r.Elapsed, r.Comput)
		}
	}
	if p.Meta.Ranks > n {
		return fmt.Errorf("%s has rows for ranks 0..%d, and %s says %d ranks: no row for rank %d (want one row per rank)", RanksFile, n-1, MetaFile, p.Meta.Ranks, n)
	}
	for i, f := range p.Functions {
		if f.Rank < 0 || f.Rank >= n {
			return fmt.Errorf("%s line %d names rank %d, and %s has rows for ranks 0..%d only (want a row per rank in %s)", FunctionsFile, i+2, f.Rank, RanksFile, n-1, RanksFile)
		}
		if f.Calls < 0 || f.BytesSent < 0 || f.BytesRecv < 0 || f.ReqsSent < 0 || f.ReqsRecv < 0 || bad(f.Time) || bad(f.Late) || bad(f.Sync) {
			return fmt.Errorf("%s line %d: a negative or NaN count or time (want numbers, 0 or more)", FunctionsFile, i+2)
		}
	}
	for i, t := range p.Matrix {
		if t.Src < 0 || t.Src >= n || t.Dst < 0 || t.Dst >= n {
			return fmt.Errorf("%s line %d: pair (%d, %d) outside ranks 0..%d of %s (want a row per rank in %s)", MatrixFile, i+2, t.Src, t.Dst, n-1, RanksFile, RanksFile)
		}
		if t.Bytes < 0 || t.Messages < 0 || bad(t.Time) || bad(t.Late) {
			return fmt.Errorf("%s line %d: a negative or NaN count or time (want numbers, 0 or more)", MatrixFile, i+2)
		}
	}
	return nil
}

// bad reports whether v is not a time: NaN, infinite or negative.
func bad(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) || v < 0 }

// HasMode reports whether the profile was taken in mode m (ModeSLT, ...).
func (p *Profile) HasMode(m string) bool {
	for _, x := range p.Meta.Modes {
		if x == m {
			return true
		}
	}
	return false
}

// ByRankFunction indexes functions.csv by rank and function.
func (p *Profile) ByRankFunction() map[int]map[string]*Function {
	m := map[int]map[string]*Function{}
	for i := range p.Functions {
		f := &p.Functions[i]
		if m[f.Rank] == nil {
			m[f.Rank] = map[string]*Function{}
		}
		m[f.Rank][f.Function] = f
	}
	return m
}

// FunctionTotals sums a value over ranks per function.
func (p *Profile) FunctionTotals(v func(f *Function) float64) map[string]float64 {
	t := map[string]float64{}
	for i := range p.Functions {
		t[p.Functions[i].Function] += v(&p.Functions[i])
	}
	return t
}

// OrderedFunctions returns the functions whose value is non-zero on some
// rank, largest total first (ties by name).
func (p *Profile) OrderedFunctions(v func(f *Function) float64) []string {
	t := p.FunctionTotals(v)
	var names []string
	for n, x := range t {
		if x != 0 {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		if t[names[i]] != t[names[j]] {
			return t[names[i]] > t[names[j]]
		}
		return names[i] < names[j]
	})
	return names
}

// TotalTime is the whole time spent in the function: transfer, send-late
// and collective wait.
func (f *Function) TotalTime() float64 { return f.Time + f.Late + f.Sync }

// SiteTotal is one call site's calls of one function summed over ranks.
type SiteTotal struct {
	Site     int
	Function string
	// Where is the site's innermost frame in words (SiteFrame.Where).
	Where                string
	Ranks                int
	Calls                int64
	MPITime, Late, Sync  float64
	BytesSent, BytesRecv int64
}

// TopCallSites sums callsites.csv over ranks per call site and function
// and returns the n with the most MPI time (all for n <= 0), most first.
func (p *Profile) TopCallSites(n int) []SiteTotal {
	where := map[int]string{}
	for _, f := range p.Sites {
		if f.Frame == 0 {
			where[f.Site] = f.Where()
		}
	}
	type key struct {
		site int
		fn   string
	}
	idx := map[key]int{}
	var out []SiteTotal
	// A rank has a row per communicator it called the site on: count it
	// once.
	ranks := map[key]map[int]bool{}
	for _, c := range p.CallSites {
		k := key{c.Site, c.Function}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, SiteTotal{Site: c.Site, Function: c.Function, Where: where[c.Site]})
			ranks[k] = map[int]bool{}
		}
		t := &out[i]
		if !ranks[k][c.Rank] {
			ranks[k][c.Rank] = true
			t.Ranks++
		}
		t.Calls += c.Calls
		t.MPITime += c.MPITime()
		t.Late += c.Late
		t.Sync += c.Sync
		t.BytesSent += c.BytesSent
		t.BytesRecv += c.BytesRecv
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].MPITime != out[j].MPITime {
			return out[i].MPITime > out[j].MPITime
		}
		return out[i].Site < out[j].Site
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// TrafficComms lists the communicators that carried point-to-point
// traffic (comms.csv's order), or nil when only MPI_COMM_WORLD did (no
// commmatrix.csv): the reports' table of communicators.
func (p *Profile) TrafficComms() []Comm {
	if len(p.CommMatrix) == 0 {
		return nil
	}
	var out []Comm
	for _, c := range p.Comms {
		if c.Bytes > 0 || c.Messages > 0 {
			out = append(out, c)
		}
	}
	return out
}

// FindComm returns the communicator named name (its MPI_Comm_set_name
// name or its key), or an error listing the known ones.
func (p *Profile) FindComm(name string) (*Comm, error) {
	var known []string
	for i := range p.Comms {
		c := &p.Comms[i]
		if c.Name == name || c.Comm == name {
			return c, nil
		}
		if c.Bytes > 0 {
			known = append(known, c.Label())
		}
	}
	if len(p.Comms) == 0 {
		return nil, fmt.Errorf("communicator %q: this profile has no per-communicator matrices (taken by an older latmap)", name)
	}
	return nil, fmt.Errorf("communicator %q not in the profile; communicators with traffic: %s", name, strings.Join(known, ", "))
}

// CommTransfers is communicator key's matrix (commmatrix.csv's rows of it;
// the whole matrix's point-to-point rows when only MPI_COMM_WORLD carried
// traffic and key is MPI_COMM_WORLD).
func (p *Profile) CommTransfers(key string) []Transfer {
	var out []Transfer
	for _, t := range p.CommMatrix {
		if t.Comm == key {
			out = append(out, Transfer{Src: t.Src, Dst: t.Dst, Bytes: t.Bytes, Messages: t.Messages, Time: t.Time})
		}
	}
	if len(p.CommMatrix) == 0 && key == CommWorld {
		return p.Matrix
	}
	return out
}

// FunctionKind is the kind of an MPI function liblatmap.so wraps:
// "collective", "recv", "unmeasured" or "" (a plain call); "" too for a
// function it does not wrap (see Wrapped).
func FunctionKind(name string) string { return functionKinds[name] }

// Wrapped reports whether liblatmap.so wraps the MPI function name.
func Wrapped(name string) bool {
	_, ok := functionKinds[name]
	return ok
}
