package fabric

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ReadPlain reads latmap's plain description of a torus or a dragonfly:
// a header line, then one line per host with its coordinates. # starts
// a comment.
//
//	torus 4x4x4 bw=10Gbps lat=1us [shared]
//	node0 0 0 0          # x y z
//	dragonfly groups=2,1 chassis=2,1 routers=4,1 nodes=2 bw=25GBps lat=0.5us
//	nid00012 1 0 2 0     # group chassis router node
//
// A dragonfly's counts are "number,parallel links" as in SimGrid's
// topo_parameters. Positions no host claims are named "unlisted-P".
func ReadPlain(r io.Reader) (*Fabric, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var head []string
	var rows [][]string
	line := 0
	for sc.Scan() {
		line++
		text, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(text)
		switch {
		case len(f) == 0:
		case head == nil:
			head = f
		default:
			rows = append(rows, append(f, strconv.Itoa(line)))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading network description: %w", err)
	}
	if head == nil {
		return nil, fmt.Errorf("the network description is empty")
	}
	kv, shared, err := plainOptions(head[1:])
	if err != nil {
		return nil, err
	}
	bw, err := ParseBandwidth(kv["bw"])
	if err != nil || bw <= 0 {
		return nil, fmt.Errorf("header: bw=%q: want a positive bandwidth such as 10Gbps", kv["bw"])
	}
	lat, err := ParseDuration(kv["lat"])
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	var sizes []int
	var build func(hosts []string) (*Fabric, error)
	switch strings.ToLower(head[0]) {
	case KindTorus:
		if sizes, err = ints(kv["dims"], "x"); err != nil {
			return nil, fmt.Errorf("torus header: dimensions %w", err)
		}
		build = func(h []string) (*Fabric, error) { return NewTorus(h, sizes, bw, lat, shared) }
	case KindDragonfly:
		spec := kv["groups"] + ";" + kv["chassis"] + ";" + kv["routers"] + ";" + kv["nodes"]
		s, err := parseDragonfly(spec)
		if err != nil {
			return nil, fmt.Errorf("dragonfly header: want groups=G,LINKS chassis=C,LINKS routers=R,LINKS nodes=N: %w", err)
		}
		sizes = []int{s.Nodes, s.Routers, s.Chassis, s.Groups}
		build = func(h []string) (*Fabric, error) { return NewDragonfly(h, s, bw, lat, shared) }
	default:
		return nil, fmt.Errorf("header %q: want torus or dragonfly", head[0])
	}
	hosts, err := plainHosts(rows, sizes, head[0] == KindDragonfly)
	if err != nil {
		return nil, err
	}
	f, err := build(hosts)
	if err != nil {
		return nil, err
	}
	return f, f.Check()
}

// plainOptions reads the header's KEY=VALUE words (a bare 4x4x4 is
// dims=4x4x4; shared makes links half duplex).
func plainOptions(words []string) (map[string]string, bool, error) {
	kv, shared := map[string]string{}, false
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		switch {
		case w == "shared":
			shared = true
		case !ok && kv["dims"] == "":
			kv["dims"] = w
		case !ok:
			return nil, false, fmt.Errorf("header word %q: want KEY=VALUE", w)
		default:
			kv[strings.ToLower(k)] = v
		}
	}
	return kv, shared, nil
}

// plainHosts places each row's host at its position: coordinates in
// sizes' order (x first for a torus; group, chassis, router, node for a
// dragonfly, whose position has node fastest: reversed).
func plainHosts(rows [][]string, sizes []int, reversed bool) ([]string, error) {
	total := 1
	for _, s := range sizes {
		total *= s
	}
	if total > maxHosts {
		return nil, fmt.Errorf("the network has %d positions, more than %d", total, maxHosts)
	}
	hosts := make([]string, total)
	seen := map[string]bool{}
	for _, row := range rows {
		line, row := row[len(row)-1], row[:len(row)-1]
		if len(row) != len(sizes)+1 {
			return nil, fmt.Errorf("line %s: want a host and %d coordinates", line, len(sizes))
		}
		pos, stride := 0, 1
		for j := range sizes {
			c := row[1+j]
			if reversed {
				c = row[len(sizes)-j]
			}
			v, err := strconv.Atoi(c)
			if err != nil || v < 0 || v >= sizes[j] {
				return nil, fmt.Errorf("line %s: coordinate %q out of 0..%d", line, c, sizes[j]-1)
			}
			pos += v * stride
			stride *= sizes[j]
		}
		if hosts[pos] != "" {
			return nil, fmt.Errorf("line %s: %s is at the position of %s", line, row[0], hosts[pos])
		}
		if seen[row[0]] {
			return nil, fmt.Errorf("line %s: host %s listed twice", line, row[0])
		}
		seen[row[0]] = true
		hosts[pos] = row[0]
	}
	for p := range hosts {
		if hosts[p] == "" {
			hosts[p] = fmt.Sprintf("unlisted-%d", p)
		}
	}
	return hosts, nil
}
