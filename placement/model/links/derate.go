package links

import (
	"fmt"
	"math"
	"strings"

	"github.com/latmap/latmap/internal/text"
	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
)

// What the shares are of, in the words of place's notes.
const (
	StreamSharesWhat = "the node phase's streams between nodes"
	PairSharesWhat   = "the survey's pairs between nodes"
)

// maxSharePairs bounds the pairs PairShares looks at.
const maxSharePairs = 4096

// StreamShares is the node phase's streams from one node to one other
// (nodebw.csv's pair rates: one rank sending alone, or a fan-out's ranks
// to the first host it names) over narrowest(a, b), the least bandwidth
// declared on the route from node a to node b (0: none), where hosts[n]
// is node n. A stream is what a link carries; a pair's round trips at
// two sizes also carry what a large message costs beyond its bytes (a
// rendezvous, SMPI's latency factor of 11.6 above 64 KiB): on the
// simulated 16 x 4 dragonfly and tree the streams ran at 94% of the
// declared links, the pairs' fit at 88%.
func StreamShares(rows []survey.NodeBandwidth, hosts []string, narrowest func(a, b int32) float64) []float64 {
	at := make(map[string]int32, len(hosts))
	for n, h := range hosts {
		at[h] = int32(n)
	}
	var ratios []float64
	for _, r := range rows {
		peer, _, _ := strings.Cut(r.Peer, survey.FanOutPeers)
		a, okA := at[r.Host]
		b, okB := at[peer]
		if okA && okB && a != b && r.PairMBps > 0 {
			if narrow := narrowest(a, b); narrow > 0 {
				ratios = append(ratios, r.PairMBps*1e6/narrow)
			}
		}
	}
	return ratios
}

// PairShares is the bandwidth of pairs of k nodes, pairBW(a, b) bytes/s (0:
// not known), over narrowest(a, b), for up to maxSharePairs pairs.
func PairShares(k int, pairBW func(a, b int) float64, narrowest func(a, b int32) float64) []float64 {
	var ratios []float64
	for a := 0; a < k && len(ratios) < maxSharePairs; a++ {
		for b := a + 1; b < k && len(ratios) < maxSharePairs; b++ {
			if bw := pairBW(a, b); bw > 0 {
				if narrow := narrowest(int32(a), int32(b)); narrow > 0 {
					ratios = append(ratios, bw/narrow)
				}
			}
		}
	}
	return ratios
}

// Narrowest is the least of bw(l) > 0 over links (0: none declared).
func Narrowest(links []int32, bw func(l int32) float64) float64 {
	narrow := math.Inf(1)
	for _, l := range links {
		if x := bw(l); x > 0 {
			narrow = min(narrow, x)
		}
	}
	if math.IsInf(narrow, 1) {
		return 0
	}
	return narrow
}

// PlausibleDerate reports whether a measured share of declared bandwidth (the
// links' derating, a switch phase's class) fits the machine the
// description is of: 0.2-1.25; outside, the description does not match.
func PlausibleDerate(x float64) bool { return x >= 0.2 && x <= 1.25 }

// MaxParallel is the most times a link's assumed bandwidth the switch
// phase may measure of a class of links in a network found in the
// survey: links in parallel, which the round trips do not show (a
// dragonfly's groups joined by several global links).
const MaxParallel = 16

// FoundBand: a class of a network found in the round trips (all its
// links at the pairs' rate) is priced as the switch phase measured it
// only where that is over FoundBand times the pairs' rate, or under
// 1/FoundBand. Within, it is one link like the others: the single
// global links of the 144- and 200-rank dragonflies measured 104%, and
// priced so, 4% cheaper than their local links (which are as fast),
// their open halos' proposals simulated 15% and 7% slower. A fat tree
// found in the switch levels (Surveyed, not a direct network) is not
// held to it: its uplinks are already counted from that phase's
// aggregates (topo.TreeShape), and the share only refines their rate.
const FoundBand = 1.25

// ClassShares prices each link class of f the switch phase measured (inv:
// each link's seconds per byte) at the share of its declared bandwidth
// measured, and says so: notes, and what to add to the routed model's
// source.
func ClassShares(f *fabric.Fabric, shares []topo.ClassShare, inv []float64) (notes []string, source string) {
	var measured []string
	for _, sh := range shares {
		// Declared without a bandwidth: what a group's links of the class
		// carried out of it; else the measured share of the declared.
		undeclared := sh.RoutedMBps == 0
		decl := map[bool]string{true: "assumed", false: "declared"}[!f.Declared()] // found in the survey: a node link's rate, the pairs
		what := fmt.Sprintf("%s links %.0f%% of %s (switch phase, level %d %s, %s: %.0f MB/s out of a group against %.0f the %[3]s links allow, medians)",
			sh.Class, 100*sh.Share, decl, sh.Level, sh.Name, text.Count(sh.Groups, "step"), sh.MeasuredMBps, sh.RoutedMBps)
		if undeclared {
			what = fmt.Sprintf("%s links (no bandwidth declared) at %.0f MB/s each way (switch phase, level %d %s, median of %s)",
				sh.Class, sh.MeasuredMBps, sh.Level, sh.Name, text.Count(sh.Groups, "step"))
		}
		if undeclared && !(sh.MeasuredMBps > 0) || !undeclared && !PlausibleDerate(sh.Share) && !(!f.Declared() && sh.Share >= 1 && sh.Share <= MaxParallel) {
			notes = append(notes, "network: the switch phase measured "+what+": the description does not match the machine surveyed; they are priced as declared")
			continue
		}
		if f.Kind == fabric.KindDirect && !undeclared && sh.Share >= 1/FoundBand && sh.Share <= FoundBand {
			notes = append(notes, "network: the switch phase measured "+what+fmt.Sprintf(
				": within %.0f%% of the pairs' rate, at which every link found in the round trips is priced, so it stays at that rate "+
					"(one link, not several in parallel; the phase's streams move a few per cent more than the pairs' fit on every class alike)",
				100*(FoundBand-1)))
			continue
		}
		for l, link := range f.Links {
			switch {
			case link.Class != sh.Class, link.Class == fabric.ClassFatPipe: // each flow its own
			case undeclared && link.Bandwidth == 0:
				inv[l] = 1 / (sh.MeasuredMBps * 1e6)
			case !undeclared && link.Bandwidth > 0:
				inv[l] = 1 / (link.Bandwidth * sh.Share)
			}
		}
		measured = append(measured, what)
	}
	if len(measured) > 0 {
		source += "; measured: " + strings.Join(measured, "; ")
		notes = append(notes, "network: priced as measured: "+strings.Join(measured, "; "))
	}
	fat := 0
	for _, link := range f.Links {
		if link.Class == fabric.ClassFatPipe {
			fat++
		}
	}
	if unpriced := len(inv) - countPositive(inv) - fat; unpriced > 0 {
		source += fmt.Sprintf("; %d of %d links not priced (no bandwidth declared or measured)", unpriced, len(inv))
	}
	if fat > 0 {
		source += fmt.Sprintf("; %d FATPIPE links price no sharing (each flow has the bandwidth of one to itself)", fat)
	}
	return notes, source
}

// countPositive is how many of v are above 0.
func countPositive(v []float64) int {
	n := 0
	for _, x := range v {
		if x > 0 {
			n++
		}
	}
	return n
}
