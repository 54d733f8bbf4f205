package links

import (
	"fmt"
	"slices"
	"strings"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
)

// Routes is a declared network as the model prices it: every flow
// between two nodes is routed over the fabric's links, and a link's
// load over its capacity bounds every rank whose traffic crosses it, as
// a node's link does: a rank with traffic off its node waits for
//
//	max over the links l its node's flows cross of load(l) x Inv[l]
//
// (by node: a rank is bound by the links its node's ranks' flows cross,
// which for one rank per node, or ranks with the same partners' nodes,
// is its own). Node links and switch uplinks are the tree case.
type Routes struct {
	Fabric *fabric.Fabric
	// Table is the routes between the machine's nodes and each link's
	// seconds per byte (Inv; 0: not limited).
	Table
	// Source says where the capacities came from; Derate is the factor
	// applied to the declared bandwidths (1: none).
	Source string
	Derate float64
	host   []int32 // machine node -> fabric host
}

// maxRouteTable bounds the route table (entries, 4 bytes each): past
// it, estimated from routeSamples routes, the routes are computed as
// first used (Table's lazy routes), each evaluator keeping those of the
// node pairs it has priced.
const routeSamples = 64

var maxRouteTable = 64 << 20 // a variable for the tests of lazy routes

// RouteInputs are what pricing a network description's routes takes
// from the survey and the machine.
type RouteInputs struct {
	// Hosts are the machine's nodes, by node index.
	Hosts []string
	// Rows are the survey's nodebw.csv, Shares the link classes its
	// switch phase measured (topo.SwitchShares).
	Rows   []survey.NodeBandwidth
	Shares []topo.ClassShare
	// NodeOut and NodeIn are each node's seconds per byte out and in
	// (nodebw.csv's node phase, else the pairwise bandwidth between
	// nodes); PairBW is the bandwidth between nodes a and b's first
	// slots (0: not measured).
	NodeOut, NodeIn []float64
	PairBW          func(a, b int) float64
}

// NewRoutes prices the network description f over the machine's nodes
// (in.Hosts, all of which f must have): the routes between them, each
// link's capacity (declared, derated by what the survey measured, or the
// survey's own), with notes on what was assumed.
func NewRoutes(f *fabric.Fabric, in RouteInputs) (*Routes, []string, error) {
	if miss := f.Missing(in.Hosts, 5); len(miss) > 0 {
		return nil, nil, fmt.Errorf("%s does not describe host(s) %s of the survey; give the description of the "+
			"machine the survey ran on", f.Source, strings.Join(miss, ", "))
	}
	idx := f.HostIndex()
	rt := &Routes{Fabric: f, host: make([]int32, len(in.Hosts)), Table: Table{K: len(in.Hosts), NL: len(f.Links), Reverse: f.Reverse}, Derate: 1}
	for n, h := range in.Hosts {
		rt.host[n] = int32(idx[h])
	}
	if rt.tableEntries() > float64(maxRouteTable) {
		host := rt.host
		rt.lazy = func(a, b int32, visit func(l int32, share float64)) {
			f.RouteShares(int(host[a]), int(host[b]), visit)
		}
	} else if err := rt.table(); err != nil {
		return nil, nil, err
	}
	notes := rt.capacities(in)
	classNotes, source := ClassShares(f, in.Shares, rt.Inv)
	notes, rt.Source = append(notes, classNotes...), rt.Source+source
	if f.Reverse > 0 {
		rt.Source += fmt.Sprintf(", %.3g%% of each message on its way back (%s)", 100*f.Reverse,
			map[bool]string{true: "SimGrid's cross traffic", false: "measured both ways, nodebw.csv"}[f.Declared()])
	}
	return rt, notes, nil
}

// Scaled is rt with the bandwidth of its links of class (every class:
// "all") multiplied by bw, and how many links changed; rt is unchanged.
func (rt *Routes) Scaled(class string, bw float64) (*Routes, int, error) {
	r := *rt
	r.Inv = slices.Clone(rt.Inv)
	changed := 0
	for l, link := range rt.Fabric.Links {
		if class == "all" || link.Class == class {
			r.Inv[l] /= bw
			changed++
		}
	}
	if changed == 0 {
		return nil, 0, fmt.Errorf("the network %s has no link of class %q (its classes: %s)", rt.Fabric.Source, class, strings.Join(rt.Fabric.Classes(), ", "))
	}
	return &r, changed, nil
}

// tableEntries estimates the route table's entries: nodes squared times
// the mean length of routeSamples routes spread over the node pairs.
func (rt *Routes) tableEntries() float64 {
	pairs := rt.K * rt.K
	if pairs <= routeSamples {
		n := 0
		for i := 0; i < pairs; i++ {
			rt.Fabric.RouteShares(int(rt.host[i/rt.K]), int(rt.host[i%rt.K]), func(int32, float64) { n++ })
		}
		return float64(n)
	}
	n, step := 0, pairs/routeSamples
	for i := 0; i < pairs; i += step {
		rt.Fabric.RouteShares(int(rt.host[i/rt.K]), int(rt.host[i%rt.K]), func(int32, float64) { n++ })
	}
	return float64(n) / float64((pairs+step-1)/step) * float64(pairs)
}

// table precomputes the routes between the machine's nodes.
func (rt *Routes) table() error {
	rt.Start = make([]int32, rt.K*rt.K+1)
	for a := 0; a < rt.K; a++ {
		for b := 0; b < rt.K; b++ {
			rt.Fabric.RouteShares(int(rt.host[a]), int(rt.host[b]), func(l int32, x float64) {
				if x != 1 && rt.Share == nil {
					rt.Share = slices.Repeat([]float32{1}, len(rt.Links))
				}
				if rt.Links = append(rt.Links, l); rt.Share != nil {
					rt.Share = append(rt.Share, float32(x))
				}
			})
			if len(rt.Links) > maxRouteTable {
				return fmt.Errorf("%s: the routes between %d nodes take more than %d entries", rt.Fabric.Source, rt.K, maxRouteTable)
			}
			rt.Start[a*rt.K+b+1] = int32(len(rt.Links))
		}
	}
	return nil
}

// capacities sets Inv from the declared bandwidths, derated by the
// survey's, and fills undeclared node links from nodebw.csv.
func (rt *Routes) capacities(in RouteInputs) []string {
	f := rt.Fabric
	var notes []string
	ratios, what := rt.shares(in)
	rt.Source = map[bool]string{true: "measured between linked nodes", false: "declared in " + f.Source}[!f.Declared()]
	if len(ratios) > 0 {
		d := stats.Median(ratios)
		switch {
		case PlausibleDerate(d):
			rt.Derate = d
			rt.Source += fmt.Sprintf(", every link priced at %.0f%% (%s)", 100*d, what)
			notes = append(notes, fmt.Sprintf("network: the bandwidth of %s is %.0f%% of the narrowest link "+
				"%s declares on their routes; every declared link is priced at that share of its bandwidth",
				what, 100*d, f.Source))
		default:
			notes = append(notes, fmt.Sprintf("network: the bandwidth of %s is %.3g times the narrowest link "+
				"%s declares on their routes: the description does not match the machine surveyed (its links are "+
				"priced as declared)", what, d, f.Source))
		}
	}
	out, inb := slices.Clone(in.NodeOut), slices.Clone(in.NodeIn)
	rows := in.Rows
	rt.Inv = make([]float64, rt.NL)
	undeclared := 0
	for l, link := range f.Links {
		switch {
		case link.Bandwidth > 0:
			rt.Inv[l] = 1 / (link.Bandwidth * rt.Derate)
		case link.Class == "node":
			undeclared++
		}
	}
	if undeclared > 0 && (f.Kind == fabric.KindDirect || f.Surveyed) {
		// A network found in the survey: its node links are the
		// survey's. Each node phase step had every node receive as it
		// sent, so its link out carried the cross traffic of what came
		// in: a link's rate alone is (1 + Reverse) times what it moved.
		shift := len(ShiftRows(rows)) > 0
		if shift && f.Reverse > 0 {
			for n := range out {
				out[n], inb[n] = out[n]/(1+f.Reverse), inb[n]/(1+f.Reverse)
			}
		}
		rt.nodeLinksFrom(out, inb)
		rt.Source += map[bool]string{
			true:  ", node links from nodebw.csv",
			false: ", node links from the pairwise bandwidth between nodes (no node phase rows in nodebw.csv)",
		}[shift]
	} else if undeclared > 0 {
		filled := rt.nodeLinksFrom(out, inb)
		notes = append(notes, fmt.Sprintf("network: %s declares no bandwidth; %d node links take %s, the links above "+
			"the nodes only where the survey's switch phase measured them (latmap survey --topology %s), else not at "+
			"all (or declare them in a SimGrid platform or a plain description)",
			f.Source, filled, map[bool]string{
				true:  "the survey's nodebw.csv",
				false: "the pairwise bandwidth between nodes (no nodebw.csv)",
			}[len(rows) > 0], f.Source))
		rt.Source = "node links measured (no bandwidth declared)"
	}
	return notes
}

// shares is the survey's measured share of the declared links on each
// route it has (package derate), and what it is of: the node phase's
// streams, else the pairs' fit. A network found in the survey has its
// links priced at what it measured.
func (rt *Routes) shares(in RouteInputs) ([]float64, string) {
	f := rt.Fabric
	narrowest := func(a, b int32) float64 {
		return Narrowest(rt.Path(a, b), func(l int32) float64 { return f.Links[l].Bandwidth })
	}
	if f.Surveyed {
		return nil, ""
	}
	if f.Declared() {
		if r := StreamShares(in.Rows, in.Hosts, narrowest); len(r) > 0 {
			return r, StreamSharesWhat
		}
	}
	return PairShares(rt.K, in.PairBW, narrowest), PairSharesWhat
}

// nodeLinksFrom gives each undeclared node link of the tree (the first
// link of a node's route up, the last of a route down) the node's rate.
func (rt *Routes) nodeLinksFrom(out, in []float64) int {
	filled := 0
	for a := 0; a < rt.K; a++ {
		for b := 0; b < rt.K; b++ {
			p := rt.Path(int32(a), int32(b))
			if a == b || len(p) == 0 {
				continue
			}
			if l := p[0]; rt.Inv[l] == 0 && out[a] > 0 {
				rt.Inv[l], filled = out[a], filled+1
			}
			if l := p[len(p)-1]; rt.Inv[l] == 0 && in[b] > 0 {
				rt.Inv[l], filled = in[b], filled+1
			}
		}
	}
	return filled
}
