package fabric

import (
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
)

// simPlatform is what a SimGrid platform file declares: its clusters,
// its zones (their routing, and how deep the deepest is nested), and
// the hosts, routers, links and routes of its zones.
type simPlatform struct {
	clusters  []simCluster
	reverse   float64
	zones     []string // each zone's routing
	nested    bool
	hosts     []string
	routers   []string
	links     []simLink
	backbones []simLink
	routes    []simRoute
	hostLinks []simHostLink
	unread    string // the first element latmap does not read
}

// simLink is a <link> (or a <backbone>) of a zone.
type simLink struct {
	ID      string `xml:"id,attr"`
	BW      string `xml:"bandwidth,attr"`
	Lat     string `xml:"latency,attr"`
	Sharing string `xml:"sharing_policy,attr"`
}

// simRoute is a <route> of a zone: its ends and its links in order.
type simRoute struct {
	Src         string       `xml:"src,attr"`
	Dst         string       `xml:"dst,attr"`
	Symmetrical string       `xml:"symmetrical,attr"`
	Links       []simLinkCtn `xml:"link_ctn"`
}

// simLinkCtn is a <link_ctn> of a route: a link, and the direction of a
// SPLITDUPLEX one.
type simLinkCtn struct {
	ID        string `xml:"id,attr"`
	Direction string `xml:"direction,attr"`
}

// simHostLink is a Cluster zone's <host_link>: a host's links up and
// down.
type simHostLink struct {
	ID   string `xml:"id,attr"`
	Up   string `xml:"up,attr"`
	Down string `xml:"down,attr"`
}

// simID is an element read for its id alone.
type simID struct {
	ID string `xml:"id,attr"`
}

// readPlatform reads a SimGrid platform's elements.
func readPlatform(r io.Reader) (*simPlatform, error) {
	p := &simPlatform{reverse: CrossTraffic}
	dec := xml.NewDecoder(r)
	dec.Strict = false
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return p, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading SimGrid platform: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == "zone" || t.Name.Local == "AS" {
				depth++
				p.nested = p.nested || depth > 1
				p.zones = append(p.zones, attr(t, "routing"))
				continue
			}
			if err := p.element(dec, t); err != nil {
				return nil, err
			}
		case xml.EndElement:
			if t.Name.Local == "zone" || t.Name.Local == "AS" {
				depth--
			}
		}
	}
}

// attr is start element t's attribute name ("": none).
func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// element reads one element of a platform (but a zone) into p.
func (p *simPlatform) element(dec *xml.Decoder, t xml.StartElement) error {
	var into any
	switch t.Name.Local {
	case "cluster":
		into = grow(&p.clusters)
	case "prop":
		var pr simProp
		if err := dec.DecodeElement(&pr, &t); err != nil {
			return fmt.Errorf("reading SimGrid platform: %w", err)
		}
		if pr.ID == "network/crosstraffic" {
			on, err := simBool(pr.Value)
			if err != nil {
				return fmt.Errorf("SimGrid platform: network/crosstraffic: %w", err)
			}
			p.reverse = map[bool]float64{true: CrossTraffic}[on]
		}
		return nil
	case "host", "router":
		var h simID
		if err := dec.DecodeElement(&h, &t); err != nil {
			return fmt.Errorf("reading SimGrid platform: %w", err)
		}
		if t.Name.Local == "host" {
			p.hosts = append(p.hosts, h.ID)
		} else {
			p.routers = append(p.routers, h.ID)
		}
		return nil
	case "link":
		into = grow(&p.links)
	case "backbone":
		into = grow(&p.backbones)
	case "route":
		into = grow(&p.routes)
	case "host_link":
		into = grow(&p.hostLinks)
	case "zoneRoute", "ASroute", "bypassRoute", "bypassZoneRoute", "bypassASroute", "cabinet", "peer", "include":
		if p.unread == "" {
			p.unread = t.Name.Local
		}
		return dec.Skip()
	default:
		return nil
	}
	if err := dec.DecodeElement(into, &t); err != nil {
		return fmt.Errorf("reading SimGrid platform: %w", err)
	}
	return nil
}

// grow appends a zero element to s and returns it.
func grow[T any](s *[]T) *T {
	*s = append(*s, *new(T))
	return &(*s)[len(*s)-1]
}

// ClassFatPipe is the class of a SimGrid FATPIPE link: each flow
// crossing it has its whole bandwidth, so it prices no sharing.
const ClassFatPipe = "fatpipe"

// simLinks is a zone's links as the fabric's: each SHARED link one,
// each SPLITDUPLEX link two (id_UP and id_DOWN, as SimGrid names them),
// each FATPIPE link one of no bandwidth (ClassFatPipe).
type simLinks struct {
	links []Link
	id    map[string][2]int32 // by name: the link, or its UP and DOWN
}

// newSimLinks reads the links and backbones of a zone.
func newSimLinks(links []simLink) (*simLinks, error) {
	s := &simLinks{id: map[string][2]int32{}}
	for _, l := range links {
		if _, dup := s.id[l.ID]; dup || l.ID == "" {
			return nil, fmt.Errorf("link %q declared twice or without an id", l.ID)
		}
		bw, err := ParseBandwidth(l.BW)
		if err != nil {
			return nil, fmt.Errorf("link %s: %w", l.ID, err)
		}
		lat := 0.0
		if l.Lat != "" {
			if lat, err = ParseDuration(l.Lat); err != nil {
				return nil, fmt.Errorf("link %s: %w", l.ID, err)
			}
		}
		add := func(name string) int32 {
			s.links = append(s.links, Link{Name: name, Bandwidth: bw, Latency: lat})
			return int32(len(s.links) - 1)
		}
		switch strings.ToUpper(l.Sharing) {
		case "", "SHARED":
			x := add(l.ID)
			s.id[l.ID] = [2]int32{x, x}
		case "SPLITDUPLEX":
			up, down := add(l.ID+"_UP"), add(l.ID+"_DOWN")
			s.id[l.ID] = [2]int32{up, down}
			s.id[l.ID+"_UP"], s.id[l.ID+"_DOWN"] = [2]int32{up, up}, [2]int32{down, down}
		case "FATPIPE":
			// Each flow has the whole bandwidth to itself (a backbone,
			// a host's loopback): it bounds one flow, which the
			// survey's pairs measure, not what the flows crossing it
			// sum to. No bandwidth: the link prices its latency and no
			// sharing.
			x := add(l.ID)
			s.links[x].Bandwidth, s.links[x].Class = 0, ClassFatPipe
			s.id[l.ID] = [2]int32{x, x}
		default:
			return nil, fmt.Errorf("link %s: sharing_policy %s is not modelled (SHARED, SPLITDUPLEX or FATPIPE)", l.ID, l.Sharing)
		}
	}
	return s, nil
}

// ref is the link a route's link_ctn names; back: on the route's
// symmetrical way back (a SPLITDUPLEX link's other direction).
func (s *simLinks) ref(c simLinkCtn, back bool) (int32, error) {
	id, ok := s.id[c.ID]
	if !ok {
		return -1, fmt.Errorf("link_ctn %q: no such link", c.ID)
	}
	if id[0] == id[1] {
		return id[0], nil
	}
	switch strings.ToUpper(c.Direction) {
	case "UP":
		return id[map[bool]int{false: 0, true: 1}[back]], nil
	case "DOWN":
		return id[map[bool]int{false: 1, true: 0}[back]], nil
	}
	return -1, fmt.Errorf("link_ctn %q: a SPLITDUPLEX link wants direction UP or DOWN", c.ID)
}

// path is a route's links, in order, or back (reversed, each
// SPLITDUPLEX link the other way).
func (s *simLinks) path(r simRoute, back bool) ([]int32, error) {
	out := make([]int32, len(r.Links))
	for i, c := range r.Links {
		l, err := s.ref(c, back)
		if err != nil {
			return nil, fmt.Errorf("route %s -> %s: %w", r.Src, r.Dst, err)
		}
		out[i] = l
	}
	if back {
		slices.Reverse(out)
	}
	return out, nil
}

// symmetrical says whether a route also declares its way back (SimGrid's
// default).
func (r simRoute) symmetrical() bool {
	on, err := simBool(r.Symmetrical)
	return r.Symmetrical == "" || err != nil || on
}
