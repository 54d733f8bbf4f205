package fabric

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"text/tabwriter"

	"github.com/latmap/latmap/internal/text"
)

// Summary is what latmap read from a network description (latmap topo
// --topology FILE without a survey): its hosts, switch levels, links by
// class, how its routes run between hosts, and every host pair sending
// at once (an all-to-all): how many routes the busiest link of each
// class carries. A site checks with it that latmap read its fabric as
// it is wired and routed before surveying on it: a link class missing,
// hosts under the wrong switch, or forwarding tables that pile many
// routes on one link show here.
type Summary struct {
	Source  string         `json:"source"`
	Kind    string         `json:"kind"`
	Shape   string         `json:"shape"`
	Routing string         `json:"routing"`
	Hosts   []string       `json:"hosts"`
	Levels  []LevelSummary `json:"levels,omitempty"`
	Classes []ClassSummary `json:"link_classes"`
	// Pairs is the number of ordered host pairs whose routes were
	// walked: all of them up to summaryPairs, else a sample (Sampled).
	Pairs   int  `json:"pairs_routed"`
	Sampled bool `json:"sampled"`
	// Hops counts the pairs walked by the links of their route:
	// Hops[k] pairs cross k links.
	Hops []int `json:"hops"`
	// Unused are the links no walked route crosses (at most
	// summaryNames named, then "...").
	Unused      []string `json:"unused_links,omitempty"`
	UnusedCount int      `json:"unused_count"`
}

// LevelSummary is a switch level: its groups and their sizes in hosts.
type LevelSummary struct {
	Name     string `json:"name"`
	Class    string `json:"uplink_class"`
	Groups   int    `json:"groups"`
	MinHosts int    `json:"min_hosts"`
	MaxHosts int    `json:"max_hosts"`
}

// ClassSummary is a class of links: how many, their bandwidths and
// latencies, and the link of the class the most walked routes cross
// (each counted at its share where a route spreads over several).
type ClassSummary struct {
	Class string `json:"class"`
	Links int    `json:"links"`
	// MinBps and MaxBps are the class's bandwidths in bytes per second
	// (0: not declared), MaxLatency its longest latency (s).
	MinBps     float64 `json:"min_bandwidth_Bps"`
	MaxBps     float64 `json:"max_bandwidth_Bps"`
	MaxLatency float64 `json:"max_latency_s"`
	Busiest    string  `json:"busiest_link"`
	Routes     float64 `json:"busiest_routes"`
	// MeanRoutes is the routes a link of the class carries on average.
	MeanRoutes float64 `json:"mean_routes"`
}

// summaryPairs is the most host pairs Summarize walks: all of them on a
// fabric of up to 724 hosts, a sample on larger ones (a 50,000-node
// torus has 2.5 billion).
const summaryPairs = 1 << 19

// summaryNames is how many unused links a summary names.
const summaryNames = 8

// Summarize walks f's routes between its hosts (all pairs, or a sample
// of summaryPairs on a large fabric) and counts what it holds.
func Summarize(f *Fabric) *Summary {
	s := &Summary{Source: f.Source, Kind: f.Kind, Shape: f.Shape, Routing: f.Routing, Hosts: f.Hosts}
	for _, lv := range f.Levels {
		sizes := map[int]int{}
		for _, g := range lv.Group {
			sizes[g]++
		}
		ls := LevelSummary{Name: lv.Name, Class: lv.Class, Groups: len(sizes), MinHosts: math.MaxInt}
		for _, n := range sizes {
			ls.MinHosts, ls.MaxHosts = min(ls.MinHosts, n), max(ls.MaxHosts, n)
		}
		s.Levels = append(s.Levels, ls)
	}
	load := s.walk(f)
	for _, class := range f.Classes() {
		c := ClassSummary{Class: class, MinBps: math.Inf(1), Routes: -1}
		for l, link := range f.Links {
			if link.Class != class {
				continue
			}
			c.Links++
			c.MinBps, c.MaxBps = min(c.MinBps, link.Bandwidth), max(c.MaxBps, link.Bandwidth)
			c.MaxLatency = max(c.MaxLatency, link.Latency)
			c.MeanRoutes += load[l]
			if load[l] > c.Routes {
				c.Busiest, c.Routes = link.Name, load[l]
			}
		}
		c.MeanRoutes /= float64(c.Links)
		s.Classes = append(s.Classes, c)
	}
	for l, x := range load {
		if x == 0 {
			if s.UnusedCount++; len(s.Unused) < summaryNames {
				s.Unused = append(s.Unused, f.Links[l].Name)
			}
		}
	}
	return s
}

// walk routes every ordered host pair of f (or summaryPairs of them
// drawn with a fixed seed), counting the pairs by route length into
// s.Hops (where routes spread over several paths, by the length of
// Route's one), and returns each link's routes (its shares of them).
func (s *Summary) walk(f *Fabric) []float64 {
	load := make([]float64, len(f.Links))
	h := len(f.Hosts)
	one := func(a, b int) {
		hops := 0
		f.RouteShares(a, b, func(l int32, share float64) {
			load[l] += share
			hops++
		})
		if f.shares != nil { // spread over paths: the length of one
			hops = len(f.Path(a, b))
		}
		for len(s.Hops) <= hops {
			s.Hops = append(s.Hops, 0)
		}
		s.Hops[hops]++
		s.Pairs++
	}
	if all := h * (h - 1); all <= summaryPairs {
		for a := range h {
			for b := range h {
				if a != b {
					one(a, b)
				}
			}
		}
		return load
	}
	s.Sampled = true
	rng := rand.New(rand.NewPCG(1, 2))
	for s.Pairs < summaryPairs {
		if a, b := rng.IntN(h), rng.IntN(h); a != b {
			one(a, b)
		}
	}
	return load
}

// WriteJSON writes the summary as indented JSON.
func (s *Summary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteText writes the summary for a person.
func (s *Summary) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "network: %s (%s) read from %s\n", s.Shape, s.Kind, s.Source)
	hint := ""
	if s.Routing == RoutesShortest {
		hint = " (latmap's choice of one a pair; on InfiniBand, ibnetdiscover's dump with the switches' forwarding tables routes as the subnet manager does)"
	}
	fmt.Fprintf(w, "routes: %s%s\n", s.Routing, hint)
	fmt.Fprintf(w, "hosts: %d (%s)\n", len(s.Hosts), firstNames(s.Hosts, len(s.Hosts)))
	for _, lv := range s.Levels {
		sizes := fmt.Sprint(lv.MinHosts)
		if lv.MaxHosts != lv.MinHosts {
			sizes += fmt.Sprintf("-%d", lv.MaxHosts)
		}
		fmt.Fprintf(w, "level %s: %s of %s hosts, leaving over %s links\n", lv.Name, text.Count(lv.Groups, "group"), sizes, lv.Class)
	}
	which := "every host pair"
	if s.Sampled {
		which = fmt.Sprintf("a sample of %d host pairs", s.Pairs)
	}
	fmt.Fprintf(w, "\nlinks by class, with %s sending at once (routes on a link):\n", which)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "class\tlinks\tGB/s\tlatency (us)\troutes, mean\troutes, busiest\tbusiest link\t")
	for _, c := range s.Classes {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%.1f\t%.1f\t%s\t\n", c.Class, c.Links, bandwidthRange(c.MinBps, c.MaxBps), latencyText(c.MaxLatency),
			c.MeanRoutes, c.Routes, c.Busiest)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var hops []string
	for k, n := range s.Hops {
		if n > 0 {
			hops = append(hops, fmt.Sprintf("%d links: %d", k, n))
		}
	}
	fmt.Fprintf(w, "\nroute lengths (host pairs): %s\n", strings.Join(hops, "; "))
	where := ""
	if s.Sampled {
		where = " in the sample"
	}
	if s.UnusedCount > 0 {
		_, err := fmt.Fprintf(w, "links no route crosses%s: %d (%s)\n", where, s.UnusedCount, firstNames(s.Unused, s.UnusedCount))
		return err
	}
	_, err := fmt.Fprintf(w, "links no route crosses%s: none\n", where)
	return err
}

// firstNames is the first summaryNames of names, of total, joined, with
// "..." where there are more.
func firstNames(names []string, total int) string {
	out := strings.Join(names[:min(len(names), summaryNames)], ", ")
	if total > min(len(names), summaryNames) {
		out += ", ..."
	}
	return out
}

// bandwidthRange is a class's bandwidths in GB/s ("-": not declared).
func bandwidthRange(lo, hi float64) string {
	if hi <= 0 {
		return "-"
	}
	if lo == hi {
		return fmt.Sprintf("%.3g", hi/1e9)
	}
	return fmt.Sprintf("%.3g-%.3g", lo/1e9, hi/1e9)
}

// latencyText is a latency in microseconds ("-": not declared).
func latencyText(s float64) string {
	if s <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.3g", s*1e6)
}
