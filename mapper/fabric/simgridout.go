package fabric

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// SimGridHost is a host of a platform WriteSimGrid writes: the fabric's
// host Index, named Name there, with Cores cores.
type SimGridHost struct {
	Index int
	Name  string
	Cores int
}

// WriteSimGrid writes f as a SimGrid platform of the hosts given: one
// zone routed Full, each of f's directed links a link of its own (shared
// by the flows crossing it, as the model prices it), every route between
// two of the hosts the links f routes it over (Route: one path, as a
// subnet manager's forwarding tables give it, Path), and each host a loopback
// of loopbackBps and loopbackLat seconds for its own ranks. Links with no
// bandwidth declared take defaultBps, with no latency defaultLat (an
// InfiniBand dump declares none). It is how latmap's simulated checks run
// on networks read from a site's own files.
func (f *Fabric) WriteSimGrid(w io.Writer, hosts []SimGridHost, defaultBps, defaultLat, loopbackBps, loopbackLat float64) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n")
	fmt.Fprintf(bw, "<!-- %s (%s), routed as latmap routes it: %d hosts of %d. -->\n", xmlText(f.Source), xmlText(f.Shape), len(hosts), len(f.Hosts))
	fmt.Fprintf(bw, "<platform version=\"4.1\">\n  <zone id=\"fabric\" routing=\"Full\">\n")
	for _, h := range hosts {
		if h.Index < 0 || h.Index >= len(f.Hosts) {
			return fmt.Errorf("host %d of %d", h.Index, len(f.Hosts))
		}
		fmt.Fprintf(bw, "    <host id=%q speed=\"1Gf\" core=\"%d\"/>\n", h.Name, max(h.Cores, 1))
	}
	// Every route once: the links they use are declared, then the routes.
	used := map[int32]bool{}
	routes := make([][]int32, len(hosts)*len(hosts))
	for i, a := range hosts {
		for j, b := range hosts {
			if a.Index != b.Index {
				routes[i*len(hosts)+j] = f.Path(a.Index, b.Index)
				for _, l := range routes[i*len(hosts)+j] {
					used[l] = true
				}
			}
		}
	}
	for l, link := range f.Links {
		if !used[int32(l)] {
			continue
		}
		bps := link.Bandwidth
		if bps <= 0 {
			bps = defaultBps
		}
		lat := link.Latency
		if lat <= 0 {
			lat = defaultLat
		}
		fmt.Fprintf(bw, "    <link id=\"l%d\" bandwidth=\"%sBps\" latency=\"%ss\"/>\n", l, num(bps), num(lat))
	}
	for _, h := range hosts {
		fmt.Fprintf(bw, "    <link id=\"lo-%s\" bandwidth=\"%sBps\" latency=\"%ss\" sharing_policy=\"FATPIPE\"/>\n", h.Name, num(loopbackBps), num(loopbackLat))
	}
	for i, a := range hosts {
		for j, b := range hosts {
			fmt.Fprintf(bw, "    <route src=%q dst=%q symmetrical=\"NO\">", a.Name, b.Name)
			if a.Index == b.Index {
				fmt.Fprintf(bw, "<link_ctn id=\"lo-%s\"/>", a.Name)
			}
			for _, l := range routes[i*len(hosts)+j] {
				fmt.Fprintf(bw, "<link_ctn id=\"l%d\"/>", l)
			}
			fmt.Fprintf(bw, "</route>\n")
		}
	}
	fmt.Fprintf(bw, "  </zone>\n</platform>\n")
	return bw.Flush()
}

// num is x as SimGrid reads it, exactly enough.
func num(x float64) string { return strconv.FormatFloat(x, 'g', 10, 64) }

// xmlText is s fit for an XML comment.
func xmlText(s string) string {
	out := []rune{}
	prev := ' '
	for _, r := range s {
		if r == '-' && prev == '-' {
			continue
		}
		out = append(out, r)
		prev = r
	}
	return string(out)
}
