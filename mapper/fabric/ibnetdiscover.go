package fabric

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ibNode is a node of an InfiniBand fabric as ibnetdiscover lists it: a
// switch ('S'), a router ('R') or a channel adapter ('H'), by GUID (a
// channel adapter's port GUID in a ports report, which has no node
// GUID), with its node description and, for a switch, its LID.
type ibNode struct {
	guid  uint64
	kind  byte
	desc  string
	lid   int
	ports map[int]*ibPort
}

// ibPort is one port of a node: its LID (a channel adapter's base LID:
// forwarding tables are followed for it), its GUID, the port at the
// other end of its link and the link's rate in bytes/s (the lowest
// either end reports; 0: none reported).
type ibPort struct {
	lid      int
	guid     uint64
	peer     *ibNode
	peerPort int
	rate     float64
}

// ibLink is one link between two nodes' ports, as first listed.
type ibLink struct {
	a, b   *ibNode
	pa, pb int
}

// ibFabric is an ibnetdiscover dump: its nodes and links in the order
// they are first named.
type ibFabric struct {
	nodes map[uint64]*ibNode
	order []*ibNode
	links []ibLink
}

// The lines of ibnetdiscover's topology file (its default output) and
// of its ports report (-p).
var (
	ibNodeLine  = regexp.MustCompile(`^(Switch|Ca|Rt)\s+(\d+)\s+"([SHR])-([0-9a-fA-F]+)"\s*(?:#\s*"([^"]*)"(.*))?$`)
	ibPortLine  = regexp.MustCompile(`^\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s+"([SHR])-([0-9a-fA-F]+)"\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s*(?:#(.*))?$`)
	ibKeyLine   = regexp.MustCompile(`^(vendid|devid|sysimgguid|switchguid|caguid|routerguid)=`)
	ibOwnLID    = regexp.MustCompile(`^\s*lid\s+(\d+)`)
	ibPeerRate  = regexp.MustCompile(`"([^"]*)"\s*lid\s+(\d+)\s+(\d+)[xX]([A-Za-z0-9.]+)`)
	ibSwitchLID = regexp.MustCompile(`port 0 lid (\d+)`)
	ibPortsRow  = regexp.MustCompile(`^\s*(CA|SW|RT)\s+(\d+)\s+(\d+)\s+0x([0-9a-fA-F]+)\s+(\d+)[xX]\s+(.+?)\s+-\s+` +
		`(CA|SW|RT)\s+(\d+)\s+(\d+)\s+0x([0-9a-fA-F]+)\s+\(\s*'(.*?)'\s+-\s+'(.*)'\s*\)\s*$`)
	ibPortsAny  = regexp.MustCompile(`^\s*(CA|SW|RT)\s+\d+\s+\d+\s+0x[0-9a-fA-F]+\s`)
	ibPortsPeer = regexp.MustCompile(`\s-\s+(CA|SW|RT)\s+\d+\s+\d+\s+0x[0-9a-fA-F]+\s`)
	// sniffing
	ibTopoSniff  = regexp.MustCompile(`(?m)^(Switch|Ca|Rt)\s+\d+\s+"[SHR]-[0-9a-fA-F]+"`)
	ibPortsSniff = regexp.MustCompile(`(?m)^\s*(CA|SW|RT)\s+\d+\s+\d+\s+0x[0-9a-fA-F]+\s+\d+[xX]\s.*\s-\s+(CA|SW|RT)\s`)
)

// ibLaneGbps is the data rate of one lane at each InfiniBand speed, in
// Gbit/s: SDR, DDR and QDR signal 2.5, 5 and 10 Gbaud with 8b/10b
// encoding; FDR10 and FDR 10.3125 and 14.0625 with 64b/66b; EDR 25, HDR
// 50, NDR 100 and XDR 200 of data. The ports report of old
// ibnetdiscovers gives SDR, DDR and QDR as their signalling rates.
func ibLaneGbps(speed string) (float64, bool) {
	switch strings.ToUpper(strings.TrimSpace(speed)) {
	case "SDR", "2.5 GBPS":
		return 2, true
	case "DDR", "5.0 GBPS":
		return 4, true
	case "QDR", "10.0 GBPS":
		return 8, true
	case "FDR10":
		return 10.3125 * 64 / 66, true
	case "FDR":
		return 14.0625 * 64 / 66, true
	case "EDR":
		return 25, true
	case "HDR":
		return 50, true
	case "NDR":
		return 100, true
	case "XDR":
		return 200, true
	}
	return 0, false
}

// ibRate is a link's data rate in bytes/s from its width (lanes: 1, 2,
// 4, 8 or 12) and speed.
func ibRate(width, speed string) (float64, error) {
	w, err := strconv.Atoi(width)
	if err != nil || (w != 1 && w != 2 && w != 4 && w != 8 && w != 12) {
		return 0, fmt.Errorf("link width %sx: want 1x, 2x, 4x, 8x or 12x", width)
	}
	g, ok := ibLaneGbps(speed)
	if !ok {
		return 0, fmt.Errorf("link speed %q: want SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR or XDR", speed)
	}
	return float64(w) * g * 1e9 / 8, nil
}

// isIBNetDiscover says whether b is ibnetdiscover's output, either
// format.
func isIBNetDiscover(b []byte) bool {
	return ibTopoSniff.Match(b) || ibPortsSniff.Match(b)
}

// parseIBNetDiscover reads ibnetdiscover's output: the topology file (Switch, Ca and Rt blocks of [port] lines)
// or the ports report of -p (one line per port and its peer). Every
// link is listed from both ends: each end's report must name the
// other, and the link's rate is the lower of the two.
func parseIBNetDiscover(b []byte) (*ibFabric, error) {
	ib := &ibFabric{nodes: map[uint64]*ibNode{}}
	ports := !ibTopoSniff.Match(b)
	var cur *ibNode
	err := eachLine(b, false, func(_ int, text string) (err error) {
		switch {
		case ibKeyLine.MatchString(text):
		case ports:
			err = ib.portsRow(text)
		default:
			cur, err = ib.topologyLine(text, cur)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(ib.links) == 0 {
		return nil, fmt.Errorf("ibnetdiscover output with no link")
	}
	return ib, nil
}

// node is the node of kind and guid, added (with desc) where new.
func (ib *ibFabric) node(kind byte, guid uint64, desc string) (*ibNode, error) {
	n := ib.nodes[guid]
	if n == nil {
		n = &ibNode{guid: guid, kind: kind, desc: desc, ports: map[int]*ibPort{}}
		ib.nodes[guid] = n
		ib.order = append(ib.order, n)
	}
	if n.kind != kind {
		return nil, fmt.Errorf("GUID %016x is both a %s and a %s", guid, ibKinds[n.kind], ibKinds[kind])
	}
	if n.desc == "" {
		n.desc = desc
	}
	return n, nil
}

var ibKinds = map[byte]string{'S': "switch", 'H': "channel adapter", 'R': "router"}

// port is node n's port p.
func (n *ibNode) port(p int) *ibPort {
	if n.ports[p] == nil {
		n.ports[p] = &ibPort{}
	}
	return n.ports[p]
}

// link records that port pa of a is linked to port pb of b at rate
// (bytes/s; 0: not reported): new, or the same link seen from b's end.
func (ib *ibFabric) link(a *ibNode, pa int, b *ibNode, pb int, rate float64) error {
	x, y := a.port(pa), b.port(pb)
	for _, s := range []struct {
		p         *ibPort
		n, to     *ibNode
		num, tnum int
	}{{x, a, b, pa, pb}, {y, b, a, pb, pa}} {
		if s.p.peer != nil && (s.p.peer != s.to || s.p.peerPort != s.tnum) {
			return fmt.Errorf("port %d of %s is linked to port %d of %s, and to port %d of %s", s.num, s.n.key(), s.p.peerPort, s.p.peer.key(), s.tnum, s.to.key())
		}
	}
	if x.peer == nil {
		x.peer, x.peerPort, y.peer, y.peerPort = b, pb, a, pa
		x.rate, y.rate = rate, rate
		ib.links = append(ib.links, ibLink{a: a, pa: pa, b: b, pb: pb})
		return nil
	}
	if rate > 0 && (x.rate == 0 || rate < x.rate) {
		x.rate, y.rate = rate, rate
	}
	return nil
}

// key is how ibnetdiscover names a node: S-, H- or R- and its GUID.
func (n *ibNode) key() string { return fmt.Sprintf("%c-%016x", n.kind, n.guid) }

// topologyLine reads one line of the topology file: a node's header
// (then cur is that node) or one of cur's ports.
func (ib *ibFabric) topologyLine(text string, cur *ibNode) (*ibNode, error) {
	if m := ibNodeLine.FindStringSubmatch(text); m != nil {
		guid, _ := strconv.ParseUint(m[4], 16, 64)
		kind := map[string]byte{"Switch": 'S', "Ca": 'H', "Rt": 'R'}[m[1]]
		if kind != m[3][0] {
			return nil, fmt.Errorf("a %s block names %s-%s", m[1], m[3], m[4])
		}
		n, err := ib.node(kind, guid, m[5])
		if err != nil {
			return nil, err
		}
		n.desc = m[5]
		if s := ibSwitchLID.FindStringSubmatch(m[6]); s != nil {
			n.lid, _ = strconv.Atoi(s[1])
		}
		return n, nil
	}
	m := ibPortLine.FindStringSubmatch(text)
	if m == nil {
		return nil, fmt.Errorf("%q is not a Switch, Ca or Rt line nor a [port] line of ibnetdiscover's topology file", text)
	}
	if cur == nil {
		return nil, fmt.Errorf("a port line before any Switch, Ca or Rt line")
	}
	p, _ := strconv.Atoi(m[1])
	guid, _ := strconv.ParseUint(m[4], 16, 64)
	pp, _ := strconv.Atoi(m[5])
	comment := m[7]
	own := cur.port(p)
	if m[2] != "" {
		own.guid, _ = strconv.ParseUint(m[2], 16, 64)
	}
	if l := ibOwnLID.FindStringSubmatch(comment); l != nil && cur.kind != 'S' {
		own.lid, _ = strconv.Atoi(l[1])
	}
	var rate float64
	peerDesc, peerLID := "", 0
	if r := ibPeerRate.FindStringSubmatch(comment); r != nil {
		var err error
		if rate, err = ibRate(r[3], r[4]); err != nil {
			return nil, err
		}
		peerDesc = r[1]
		peerLID, _ = strconv.Atoi(r[2])
	}
	peer, err := ib.node(m[3][0], guid, peerDesc)
	if err != nil {
		return nil, err
	}
	if peer.kind == 'S' {
		peer.lid = max(peer.lid, peerLID)
	} else if q := peer.port(pp); q.lid == 0 {
		q.lid = peerLID
	}
	if m[6] != "" {
		peer.port(pp).guid, _ = strconv.ParseUint(m[6], 16, 64)
	}
	return cur, ib.link(cur, p, peer, pp, rate)
}

// portsRow reads one line of the ports report: a port, its width and
// speed, and the port at the other end, each with its LID (a switch's,
// or the port's own), port number and GUID.
func (ib *ibFabric) portsRow(text string) error {
	m := ibPortsRow.FindStringSubmatch(text)
	if m == nil {
		if ibPortsAny.MatchString(text) && !ibPortsPeer.MatchString(text) {
			return nil // a port with no link
		}
		return fmt.Errorf("%q is not a line of ibnetdiscover's ports report (-p)", text)
	}
	rate, err := ibRate(m[5], m[6])
	if err != nil {
		return err
	}
	var ends [2]*ibNode
	var nums [2]int
	for i, at := range []int{1, 7} {
		kind := map[string]byte{"SW": 'S', "CA": 'H', "RT": 'R'}[m[at]]
		lid, _ := strconv.Atoi(m[at+1])
		nums[i], _ = strconv.Atoi(m[at+2])
		guid, _ := strconv.ParseUint(m[at+3], 16, 64)
		if ends[i], err = ib.node(kind, guid, m[11+i]); err != nil {
			return err
		}
		if kind == 'S' {
			ends[i].lid = lid
		} else {
			ends[i].port(nums[i]).lid, ends[i].port(nums[i]).guid = lid, guid
		}
	}
	return ib.link(ends[0], nums[0], ends[1], nums[1], rate)
}
