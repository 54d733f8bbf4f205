package fabric

import (
	"fmt"
	"strings"
)

// A list of links, one full-duplex link a line: its two ends, its
// bandwidth each way and its latency, and optionally its class; hosts
// named on "host" lines (Slurm's host list syntax), # a comment:
//
//	host n[1-4]
//	n1 sw1 100Gb/s 0.5us
//	sw1 sw2 12.5GB/s 100ns global
//
// Ends not named as hosts are switches. Without a host line, the ends
// of one link only are the hosts, and where every end has several
// links, every end is a host (a direct network whose nodes route).

// isLinkList says whether b's first line (but comments) is a host line
// or a link.
func isLinkList(b []byte) bool {
	is := false
	eachLine(b, true, func(_ int, text string) error {
		f := strings.Fields(text)
		switch {
		case f[0] == "host" || f[0] == "hosts":
			is = true
		case len(f) == 4 || len(f) == 5:
			_, errB := ParseRate(f[2])
			_, errL := ParseLatency(f[3])
			is = errB == nil && errL == nil
		}
		return errStop
	})
	return is
}

// ParseRate reads a link's bandwidth into bytes/s: a number and a unit,
// bits (b/s, bps) or bytes (B/s, Bps), with a decimal (k, M, G, T) or
// binary (Ki, Mi, Gi, Ti) prefix: 100Gb/s, 12.5GB/s, 10Gbps; a bare
// number is bytes/s.
func ParseRate(s string) (float64, error) {
	t := strings.TrimSpace(s)
	switch {
	case strings.HasSuffix(t, "b/s"):
		t = strings.TrimSuffix(t, "b/s") + "bps"
	case strings.HasSuffix(t, "B/s"):
		t = strings.TrimSuffix(t, "B/s") + "Bps"
	}
	return ParseBandwidth(t)
}

// ParseLatency reads a link's latency into seconds: a number and a unit,
// ns, us (or µs), ms or s; a bare number is seconds.
func ParseLatency(s string) (float64, error) {
	return ParseDuration(strings.ReplaceAll(s, "µs", "us"))
}

// linkLine is one link of a list, as read.
type linkLine struct {
	a, b, class string
	bw, lat     float64
}

// readLinkList reads a list of links into a graph routed by shortest
// paths (see the format above).
func readLinkList(b []byte) (*Fabric, error) {
	var links []linkLine
	var listed []string
	degree := map[string]int{}
	var order []string
	err := eachLine(b, true, func(_ int, text string) error {
		f := strings.Fields(text)
		if f[0] == "host" || f[0] == "hosts" {
			for _, expr := range f[1:] {
				h, err := ExpandHostlist(expr)
				if err != nil {
					return err
				}
				listed = append(listed, h...)
			}
			return nil
		}
		l, err := parseLinkLine(f)
		if err != nil {
			return err
		}
		for _, end := range []string{l.a, l.b} {
			if degree[end] == 0 {
				order = append(order, end)
			}
			degree[end]++
		}
		links = append(links, l)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(links) == 0 {
		return nil, fmt.Errorf("the list of links has no link")
	}
	return linkGraph(links, order, listed, degree)
}

// parseLinkLine reads "a b bandwidth latency [class]".
func parseLinkLine(f []string) (linkLine, error) {
	if len(f) != 4 && len(f) != 5 {
		return linkLine{}, fmt.Errorf("%q: want \"a b bandwidth latency [class]\" or \"host NAMES\"", strings.Join(f, " "))
	}
	l := linkLine{a: f[0], b: f[1]}
	var err error
	if l.bw, err = ParseRate(f[2]); err != nil {
		return l, fmt.Errorf("bandwidth %q: want a number and a unit such as 100Gb/s, 12.5GB/s or 10Gbps", f[2])
	}
	if l.lat, err = ParseLatency(f[3]); err != nil {
		return l, fmt.Errorf("latency %q: want a number and a unit such as 1us, 100ns or 0.5ms", f[3])
	}
	if len(f) == 5 {
		l.class = f[4]
	}
	if l.a == l.b {
		return l, fmt.Errorf("a link from %s to itself", l.a)
	}
	return l, nil
}

// linkGraph builds the list's graph: the hosts listed, else the ends of
// one link, else every end.
func linkGraph(links []linkLine, order, listed []string, degree map[string]int) (*Fabric, error) {
	host := map[string]bool{}
	for _, h := range listed {
		if degree[h] == 0 {
			return nil, fmt.Errorf("host %s is on no link", h)
		}
		host[h] = true
	}
	if len(listed) == 0 {
		for _, v := range order {
			host[v] = degree[v] == 1
		}
		if len(host) > 0 && !containsTrue(host) {
			for _, v := range order {
				host[v] = true
			}
		}
	}
	g := &Graph{}
	for _, v := range order {
		if host[v] {
			g.Host(v)
		} else {
			g.Switch(v)
		}
	}
	named := map[string]int{}
	for _, l := range links {
		a, _ := g.Find(l.a)
		b, _ := g.Find(l.b)
		name := l.a + "-" + l.b
		if named[name]++; named[name] > 1 {
			name += fmt.Sprintf("#%d", named[name]) // parallel links
		}
		g.Connect(a, b, name, l.class, l.bw, l.lat)
	}
	g.Shape = fmt.Sprintf("network of %d hosts, %d switches and %d links (a list of links)", g.HostCount(), len(order)-g.HostCount(), len(links))
	return NewGraph(g)
}

// containsTrue says whether some value of m is true.
func containsTrue(m map[string]bool) bool {
	for _, v := range m {
		if v {
			return true
		}
	}
	return false
}
