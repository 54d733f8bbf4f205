package fabric

import (
	"fmt"
	"regexp"
	"strconv"
)

// lft is one switch's linear forwarding table as ibroute prints it (and
// dump_lfts.sh, which runs ibroute for every switch): the out port of
// each destination LID (noPort: none), and where it was read.
type lft struct {
	guid  uint64
	lid   int
	desc  string
	where string
	port  []uint8
}

// noPort marks a LID a table has no entry for.
const noPort = 255

// The lines of ibroute's unicast dump:
//
//	Unicast lids [0x0-0x1400] of switch Lid 9 guid 0x0008f10500200b50 (Voltaire 4036):
//	  Lid  Out   Destination
//	       Port     Info
//	0x0048 004 : (Channel Adapter portguid 0x003048c749cd0001: 'x5570comp1 HCA-1')
//	48 valid lids dumped
var (
	lftHeader = regexp.MustCompile(`^Unicast lids \[0x([0-9a-fA-F]+)-0x([0-9a-fA-F]+)\] of switch (.*?)\s*guid 0x([0-9a-fA-F]+)\s*(?:\((.*)\))?:?\s*$`)
	lftEntry  = regexp.MustCompile(`^0x([0-9a-fA-F]+)\s+(\d+)(?:\s*:.*)?$`)
	lftNoise  = regexp.MustCompile(`^(Lid\s+Out\s+Destination|Port\s+Info|\d+ (valid )?lids dumped)\s*$`)
	lftPortID = regexp.MustCompile(`Lid (\d+)`)
	lftSniff  = regexp.MustCompile(`(?m)^Unicast lids \[0x[0-9a-fA-F]+-0x[0-9a-fA-F]+\] of switch `)
)

// isLFT says whether b is a dump of forwarding tables.
func isLFT(b []byte) bool { return lftSniff.Match(b) }

// parseLFTs reads ibroute's dumps of one or more switches' unicast
// forwarding tables (file names file in errors): each switch's header,
// then one line per destination LID with its out port. An error names
// the line that is none of these, or a switch dumped twice.
func parseLFTs(b []byte, file string, into map[uint64]*lft) error {
	var cur *lft
	err := eachLine(b, false, func(line int, text string) (err error) {
		switch {
		case lftNoise.MatchString(text):
		case lftHeader.MatchString(text):
			cur, err = newLFT(text, fmt.Sprintf("%s line %d", file, line), into)
		default:
			err = cur.entry(text)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if cur == nil {
		return fmt.Errorf("%s: no \"Unicast lids [...] of switch ...\" header: not ibroute's output", file)
	}
	return nil
}

// newLFT starts the table whose header is text.
func newLFT(text, where string, into map[uint64]*lft) (*lft, error) {
	m := lftHeader.FindStringSubmatch(text)
	guid, _ := strconv.ParseUint(m[4], 16, 64)
	if old := into[guid]; old != nil {
		return nil, fmt.Errorf("switch guid 0x%016x's table again (first at %s)", guid, old.where)
	}
	t := &lft{guid: guid, desc: m[5], where: where}
	if l := lftPortID.FindStringSubmatch(m[3]); l != nil {
		t.lid, _ = strconv.Atoi(l[1])
	}
	into[guid] = t
	return t, nil
}

// entry reads one "0xLID PORT : (...)" line of t.
func (t *lft) entry(text string) error {
	m := lftEntry.FindStringSubmatch(text)
	if m == nil {
		return fmt.Errorf("%q is not a line of ibroute's unicast dump (0xLID PORT : (destination))", text)
	}
	if t == nil {
		return fmt.Errorf("an entry before any \"Unicast lids [...] of switch ...\" header")
	}
	lid, err := strconv.ParseUint(m[1], 16, 16)
	port, err2 := strconv.Atoi(m[2])
	if err != nil || err2 != nil || lid > 0xbfff {
		return fmt.Errorf("%q: LID or port out of range", text)
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
