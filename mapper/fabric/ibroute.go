package fabric

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// lft is one switch's linear forwarding table as a dump gives it (the
// formats below): the out port of each destination LID (noPort: none),
// and where it was read.
type lft struct {
	guid  uint64
	desc  string
	where string
	port  []uint8
}

// noPort marks a LID a table has no entry for.
const noPort = 255

// The lines of the dumps of switches' unicast forwarding tables, in the
// three formats the tools that write them use. ibroute's, and
// dump_lfts.sh's and dump_fts's (ibroute for every switch; dump_fts's
// switches named by their directed route, "of switch DR path slid 0;
// dlid 0; 0,1,3 guid ..."):
//
//	Unicast lids [0x0-0x1400] of switch Lid 9 guid 0x0008f10500200b50 (Voltaire 4036):
//	  Lid  Out   Destination
//	       Port     Info
//	0x0048 004 : (Channel Adapter portguid 0x003048c749cd0001: 'x5570comp1 HCA-1')
//	48 valid lids dumped
//
// OpenSM's opensm-lfts.dump (what its "file" routing engine loads):
//
//	Unicast lids [0-102] of switch Lid 6 guid 0x0008f1050010851e ('Voltaire 4036'):
//	0x0001 036 # Channel Adapter portguid 0x0002c90300080d59: 'MT25408 ConnectX'
//	102 lids dumped
//
// OpenSM's opensm.fdbs and ibdiagnet's ibdiagnet2.fdbs ("osm_ucast_mgr_"
// before "dump_ucast_routes" in older ones; PLFT_NUM N before the
// entries of a switch's private table N, where it keeps several):
//
//	dump_ucast_routes: Switch 0x0008f1050010851e
//	LID    : Port : Hops : Optimal
//	0x0001 : 036  : 02   : yes
//	0x004A : UNREACHABLE
//
// Multicast tables (ibroute -M) are skipped.
var (
	lftHeader  = regexp.MustCompile(`^Unicast lids \[(?:0x)?[0-9a-fA-F]+-(?:0x)?[0-9a-fA-F]+\] of switch .*?\s*guid 0x([0-9a-fA-F]+)\s*(?:\((.*)\))?:?\s*$`)
	fdbHeader  = regexp.MustCompile(`^(?:osm_ucast_mgr_)?dump_ucast_routes:\s*Switch\s+0x([0-9a-fA-F]+)\b`)
	lftEntry   = regexp.MustCompile(`^0x([0-9a-fA-F]+)(?:\s*:\s*|\s+)(\d+|UNREACHABLE)(?:\s*[:#].*)?$`)
	lftNoise   = regexp.MustCompile(`^(Lid\s+Out\s+Destination|Port\s+Info|\d+ (valid )?lids dumped|LID\s*:\s*Port\s*:.*)\s*$`)
	lftPrivate = regexp.MustCompile(`^PLFT_NUM:\s*(\d+)\s*$`)
	lftSniff   = regexp.MustCompile(`(?m)^(Unicast lids \[(0x)?[0-9a-fA-F]+-(0x)?[0-9a-fA-F]+\] of switch |(osm_ucast_mgr_)?dump_ucast_routes:\s*Switch\s+0x|Multicast mlids \[)`)
)

// isLFT says whether b is a dump of forwarding tables.
func isLFT(b []byte) bool { return lftSniff.Match(b) }

// lftFormats names the dumps parseLFTs reads, for errors.
const lftFormats = "ibroute, dump_lfts.sh or dump_fts output, OpenSM's opensm-lfts.dump or opensm.fdbs, ibdiagnet's ibdiagnet2.fdbs"

// parseLFTs reads dumps of one or more switches' unicast forwarding
// tables (file names file in errors): each switch's header, then one
// line per destination LID with its out port. An error names the line
// that is none of these, or a switch dumped twice.
func parseLFTs(b []byte, file string, into map[uint64]*lft) error {
	var cur *lft
	skip, multicast := false, false // in a multicast or a second private table
	err := eachLine(b, false, func(line int, text string) (err error) {
		where := func() string { return fmt.Sprintf("%s line %d", file, line) } // headers only: not on every entry
		switch {
		case lftHeader.MatchString(text):
			m := lftHeader.FindStringSubmatch(text)
			cur, err = newLFT(m[1], strings.Trim(m[2], "'"), where(), into)
			skip = false
		case fdbHeader.MatchString(text):
			cur, err = newLFT(fdbHeader.FindStringSubmatch(text)[1], "", where(), into)
			skip = false
		case strings.HasPrefix(text, "Multicast mlids ["):
			skip, multicast = true, true
		case lftPrivate.MatchString(text):
			skip = lftPrivate.FindStringSubmatch(text)[1] != "0"
		case skip || lftNoise.MatchString(text):
		default:
			err = cur.entry(text)
		}
		return err
	})
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", file, err)
	case cur == nil && multicast:
		return fmt.Errorf("%s: multicast forwarding tables only; latmap routes by the unicast ones (ibroute without -M)", file)
	case cur == nil:
		return fmt.Errorf("%s: no switch's unicast table (\"Unicast lids [...] of switch ...\" or \"dump_ucast_routes: Switch ...\"): want %s", file, lftFormats)
	}
	return nil
}

// newLFT starts the table of the switch of GUID guidHex (its node
// description desc, if given), read at where.
func newLFT(guidHex, desc, where string, into map[uint64]*lft) (*lft, error) {
	guid, err := strconv.ParseUint(guidHex, 16, 64)
	if err != nil {
		return nil, fmt.Errorf("switch guid 0x%s: %w", guidHex, err)
	}
	if old := into[guid]; old != nil {
		return nil, fmt.Errorf("switch guid 0x%016x's table again (first at %s)", guid, old.where)
	}
	t := &lft{guid: guid, desc: desc, where: where}
	into[guid] = t
	return t, nil
}

// entry reads one entry line of t: a LID and the port out of which the
// switch sends its traffic ("UNREACHABLE", or 255 from ibroute -a: none).
func (t *lft) entry(text string) error {
	m := lftEntry.FindStringSubmatch(text)
	if m == nil {
		return fmt.Errorf("%q is not a line of a forwarding table's dump (0xLID PORT, then anything after : or #; want %s)", text, lftFormats)
	}
	if t == nil {
		return fmt.Errorf("an entry before any switch's header (\"Unicast lids [...] of switch ...\" or \"dump_ucast_routes: Switch ...\")")
	}
	lid, err := strconv.ParseUint(m[1], 16, 16)
	if err != nil || lid > 0xbfff {
		return fmt.Errorf("%q: LID out of the unicast range 0x1-0xbfff", text)
	}
	if m[2] == "UNREACHABLE" {
		return nil
	}
	port, err := strconv.Atoi(m[2])
	if err != nil {
		return fmt.Errorf("%q: port out of range", text)
	}
	if port >= noPort {
		return nil // ibroute -a: no port
	}
	for int(lid) >= len(t.port) {
		t.port = append(t.port, noPort)
	}
	t.port[lid] = uint8(port)
	return nil
}

// out is the port t sends traffic for lid out of (noPort: none).
func (t *lft) out(lid int) int {
	if t == nil || lid <= 0 || lid >= len(t.port) {
		return noPort
	}
	return int(t.port[lid])
}
