package interpose

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gocarina/gocsv"

	"github.com/latmap/latmap/internal/atomicdir"
	"github.com/latmap/latmap/mapper/profile"
)

// rawCallSitesFile is what liblatmap.so writes with --call-sites: per rank
// and function, a stack of return addresses as object+0xFILEOFFSET
// (innermost first, ';'-separated) and the counters.
const rawCallSitesFile = "callsites.csv"

// maxCallSiteDepth is liblatmap.so's LM_SITE_MAXDEPTH.
const maxCallSiteDepth = 16

// rawFrame is one return address: the file it lies in and its offset in
// that file (from /proc/self/maps), so that each rank's own load address
// does not matter.
type rawFrame struct {
	object string
	off    uint64
}

func parseRawFrame(s string) (rawFrame, error) {
	i := strings.LastIndex(s, "+0x")
	if i < 0 {
		return rawFrame{}, fmt.Errorf("frame %q: want object+0xOFFSET", s)
	}
	off, err := strconv.ParseUint(s[i+3:], 16, 64)
	if err != nil {
		return rawFrame{}, fmt.Errorf("frame %q: %w", s, err)
	}
	return rawFrame{s[:i], off}, nil
}

// finishCallSites reads the raw callsites.csv, gives every distinct stack
// a site number (the same for every rank), symbolizes each frame and
// writes callsites.csv and sites.csv into dir. It does nothing when the
// run recorded no call sites.
func finishCallSites(raw, dir string) error {
	raws, err := readRawCallSites(filepath.Join(raw, rawCallSitesFile))
	if err != nil || raws == nil {
		return err
	}
	// Sites are numbered in the order of their stacks' text: the same
	// profile gives the same numbers.
	keys := make([]string, 0, len(raws))
	for _, x := range raws {
		keys = append(keys, x.Stack)
	}
	sort.Strings(keys)
	keys = slices.Compact(keys)
	sites := make(map[string]int, len(keys))
	stacks := make([][]rawFrame, len(keys))
	for id, k := range keys {
		sites[k] = id
		for _, s := range strings.Split(k, ";") {
			fr, err := parseRawFrame(s)
			if err != nil {
				return fmt.Errorf("%s: %w", rawCallSitesFile, err)
			}
			stacks[id] = append(stacks[id], fr)
		}
	}
	rows := make([]profile.CallSite, len(raws))
	for i, x := range raws {
		rows[i] = x.CallSite
		rows[i].Site = sites[x.Stack]
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].Rank != rows[j].Rank {
			return rows[i].Rank < rows[j].Rank
		}
		return rows[i].Site < rows[j].Site
	})
	sym := newSymbolizer()
	defer sym.close()
	var frames []profile.SiteFrame
	for id, st := range stacks {
		for k, fr := range st {
			sf := sym.frame(fr)
			sf.Site, sf.Frame = id, k
			frames = append(frames, sf)
		}
	}
	if err := atomicdir.CreateFile(filepath.Join(dir, profile.CallSitesFile), func(w io.Writer) error { return gocsv.Marshal(rows, w) }); err != nil {
		return err
	}
	return atomicdir.CreateFile(filepath.Join(dir, profile.SitesFile), func(w io.Writer) error { return gocsv.Marshal(frames, w) })
}

// rawRow is one row of the raw callsites.csv: the counters of a call
// site, named by its stack's text (the site number is given later).
type rawRow struct {
	profile.CallSite
	Stack string `csv:"stack"`
}

// readRawCallSites reads the raw callsites.csv at path (nil when the run
// recorded no call sites).
func readRawCallSites(path string) ([]rawRow, error) {
	var raws []rawRow
	err := readRaw(path, &raws)
	return raws, err
}

// symbolizer resolves frames object by object, each object's ELF and
// DWARF opened once.
type symbolizer struct {
	objs map[string]*elfObject
}

type elfObject struct {
	f     *elf.File
	loads []elf.ProgHeader
	syms  []elf.Symbol // functions, by address
	dw    *dwarf.Data
	lines map[dwarf.Offset][]lineRow // per unit, rows (rows)
}

func newSymbolizer() *symbolizer { return &symbolizer{objs: map[string]*elfObject{}} }

func (s *symbolizer) close() {
	for _, o := range s.objs {
		if o != nil {
			o.f.Close()
		}
	}
}

func (s *symbolizer) object(path string) *elfObject {
	if o, ok := s.objs[path]; ok {
		return o
	}
	var o *elfObject
	if f, err := elf.Open(path); err == nil {
		o = &elfObject{f: f}
		for _, p := range f.Progs {
			if p.Type == elf.PT_LOAD {
				o.loads = append(o.loads, p.ProgHeader)
			}
		}
		syms, _ := f.Symbols()
		dyn, _ := f.DynamicSymbols()
		for _, y := range append(syms, dyn...) {
			if elf.ST_TYPE(y.Info) == elf.STT_FUNC && y.Value != 0 {
				o.syms = append(o.syms, y)
			}
		}
		sort.Slice(o.syms, func(i, j int) bool { return o.syms[i].Value < o.syms[j].Value })
		o.dw, _ = f.DWARF()
	}
	s.objs[path] = o
	return o
}

// frame symbolizes one return address. The address looked up is one byte
// before it: the call instruction, whose line is the call's.
func (s *symbolizer) frame(fr rawFrame) profile.SiteFrame {
	sf := profile.SiteFrame{Object: fr.object, Offset: fmt.Sprintf("0x%x", fr.off)}
	o := s.object(fr.object)
	if o == nil {
		return sf
	}
	pc, ok := o.vaddr(fr.off)
	if !ok {
		return sf
	}
	sf.Offset = fmt.Sprintf("0x%x", pc)
	pc--
	sf.Function = o.function(pc)
	if file, line, ok := o.line(pc); ok {
		sf.File, sf.Line = file, line
	}
	return sf
}

// vaddr converts an offset in the file to the object's virtual address,
// through the loadable segment that maps it.
func (o *elfObject) vaddr(off uint64) (uint64, bool) {
	for _, p := range o.loads {
		if off >= p.Off && off < p.Off+p.Filesz {
			return off - p.Off + p.Vaddr, true
		}
	}
	return 0, false
}

// function names the symbol whose extent holds pc (the nearest symbol
// below it when sizes are missing).
func (o *elfObject) function(pc uint64) string {
	i := sort.Search(len(o.syms), func(i int) bool { return o.syms[i].Value > pc }) - 1
	for ; i >= 0; i-- {
		y := o.syms[i]
		if y.Size == 0 || pc < y.Value+y.Size {
			return y.Name
		}
		if i > 0 && o.syms[i-1].Value != y.Value {
			break
		}
	}
	return ""
}

// line is the source file and line of pc from the DWARF line table: the
// row whose address range (up to the next row of its sequence) holds pc.
// A relative file name is joined to the unit's compilation directory.
func (o *elfObject) line(pc uint64) (string, int, bool) {
	if o.dw == nil {
		return "", 0, false
	}
	cu, err := o.dw.Reader().SeekPC(pc)
	if err != nil || cu == nil {
		return "", 0, false
	}
	rows := o.rows(cu)
	i := sort.Search(len(rows), func(i int) bool { return rows[i].lo > pc }) - 1
	if i < 0 || pc >= rows[i].hi {
		return "", 0, false
	}
	name := rows[i].file
	if dir, _ := cu.Val(dwarf.AttrCompDir).(string); dir != "" && !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	return name, rows[i].line, true
}

// lineRow is one row of a line table with the address range it covers.
type lineRow struct {
	lo, hi uint64
	file   string
	line   int
}

// rows reads the unit's line table once, as address ranges sorted by
// start. (dwarf.LineReader.SeekPC misses rows of a sequence after the
// first, such as main's in .text.startup.)
func (o *elfObject) rows(cu *dwarf.Entry) []lineRow {
	if r, ok := o.lines[cu.Offset]; ok {
		return r
	}
	var rows []lineRow
	if lr, err := o.dw.LineReader(cu); err == nil && lr != nil {
		var e, prev dwarf.LineEntry
		have := false
		for lr.Next(&e) == nil {
			if have && e.Address > prev.Address && prev.File != nil {
				rows = append(rows, lineRow{prev.Address, e.Address, prev.File.Name, prev.Line})
			}
			prev, have = e, !e.EndSequence
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].lo < rows[j].lo })
	if o.lines == nil {
		o.lines = map[dwarf.Offset][]lineRow{}
	}
	o.lines[cu.Offset] = rows
	return rows
}
