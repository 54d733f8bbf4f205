package model

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
	"github.com/latmap/latmap/placement/model/derate"
	"github.com/latmap/latmap/placement/model/netload"
	"github.com/latmap/latmap/placement/model/ports"
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
	netload.Table
	// Source says where the capacities came from; Derate is the factor
	// applied to the declared bandwidths (1: none).
	Source string
	Derate float64
	host   []int32 // machine node -> fabric host
}

// maxRouteTable bounds the route table (entries), and maxCrossTable the
// evaluator's node x link counts: past them the routed model is refused.
const (
	maxRouteTable = 64 << 20
	maxCrossTable = 64 << 20
)

// AddRoutes prices md's network as the declared fabric f: the machine's
// hosts must all be in f. Declared bandwidths are derated by what the
// survey measured between nodes (the median of the node phase's streams,
// else of the pairs' bandwidth, over the narrowest declared link of
// their routes, when it is between 0.2 and 1.25: package derate); f's
// cross traffic (Reverse) reaches the flow-level prediction
// (netload.Table.Fluid); links declared without a bandwidth (a
// Slurm topology.conf) take the survey's node bandwidth (nodebw.csv)
// for node links, and are left unlimited above. A link class the
// survey's switch phase measured (shares, topo.SwitchShares) is priced
// at the share of its declared bandwidth the phase measured, when that
// is between 0.2 and 1.25, instead of the links' derating. The node link
// and switch uplink terms are then the fabric's: the model stops pricing
// them apart.
func (md *Model) AddRoutes(f *fabric.Fabric, rows []survey.NodeBandwidth, shares []topo.ClassShare) ([]string, error) {
	if md.NodeSource == noContention {
		return []string{"network description: not priced with --no-contention"}, nil
	}
	if miss := f.Missing(md.Hosts, 5); len(miss) > 0 {
		return nil, fmt.Errorf("%s does not describe host(s) %s of the survey; give the description of the machine the survey ran on", f.Source, strings.Join(miss, ", "))
	}
	idx := f.HostIndex()
	rt := &Routes{Fabric: f, host: make([]int32, len(md.Hosts)), Table: netload.Table{K: len(md.Hosts), NL: len(f.Links), Reverse: f.Reverse}, Derate: 1}
	for n, h := range md.Hosts {
		rt.host[n] = int32(idx[h])
	}
	if rt.K*rt.NL > maxCrossTable {
		return nil, fmt.Errorf("%s: %d nodes x %d links is more than the routed model holds (%d)", f.Source, rt.K, rt.NL, maxCrossTable)
	}
	if err := rt.table(); err != nil {
		return nil, err
	}
	notes := rt.capacities(md, rows)
	classNotes, source := derate.Classes(f, shares, rt.Inv)
	notes, rt.Source = append(notes, classNotes...), rt.Source+source
	if f.Reverse > 0 {
		rt.Source += fmt.Sprintf(", %.3g%% of each message on its way back (%s)", 100*f.Reverse, map[bool]string{true: "SimGrid's cross traffic", false: "measured both ways, nodebw.csv"}[f.Declared()])
	}
	md.Routes = rt
	md.NodeSource = "the network description's links (" + f.Source + ")"
	md.SwitchSource = md.NodeSource
	// New slices: a copy of md made before (with its node links and
	// uplinks) keeps its own.
	md.InvInject, md.InvEject = make([]float64, len(md.InvInject)), make([]float64, len(md.InvEject))
	md.Uplinks = nil
	return notes, nil
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
func (rt *Routes) capacities(md *Model, rows []survey.NodeBandwidth) []string {
	f := rt.Fabric
	var notes []string
	ratios, what := rt.shares(md, rows)
	rt.Source = map[bool]string{true: "measured between linked nodes", false: "declared in " + f.Source}[!f.Declared()]
	if len(ratios) > 0 {
		d := stats.Median(ratios)
		switch {
		case derate.Plausible(d):
			rt.Derate = d
			rt.Source += fmt.Sprintf(", every link priced at %.0f%% (%s)", 100*d, what)
			notes = append(notes, fmt.Sprintf("network: the bandwidth of %s is %.0f%% of the narrowest link %s declares on their routes; every declared link is priced at that share of its bandwidth", what, 100*d, f.Source))
		default:
			notes = append(notes, fmt.Sprintf("network: the bandwidth of %s is %.3g times the narrowest link %s declares on their routes: the description does not match the machine surveyed (its links are priced as declared)", what, d, f.Source))
		}
	}
	out, in := md.nodeRates(rows)
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
		shift := len(ports.ShiftRows(rows)) > 0
		if shift && f.Reverse > 0 {
			for n := range out {
				out[n], in[n] = out[n]/(1+f.Reverse), in[n]/(1+f.Reverse)
			}
		}
		rt.nodeLinksFrom(out, in)
		rt.Source += map[bool]string{true: ", node links from nodebw.csv", false: ", node links from the pairwise bandwidth between nodes (no node phase rows in nodebw.csv)"}[shift]
	} else if undeclared > 0 {
		filled := rt.nodeLinksFrom(out, in)
		notes = append(notes, fmt.Sprintf("network: %s declares no bandwidth; %d node links take %s, the links above the nodes only where the survey's switch phase measured them (latmap survey --topology %s), else not at all (or declare them in a SimGrid platform or a plain description)", f.Source, filled, map[bool]string{true: "the survey's nodebw.csv", false: "the pairwise bandwidth between nodes (no nodebw.csv)"}[len(rows) > 0], f.Source))
		rt.Source = "node links measured (no bandwidth declared)"
	}
	return notes
}

// shares is the survey's measured share of the declared links on each
// route it has (package derate), and what it is of: the node phase's
// streams, else the pairs' fit. A network found in the survey has its
// links priced at what it measured.
func (rt *Routes) shares(md *Model, rows []survey.NodeBandwidth) ([]float64, string) {
	f := rt.Fabric
	narrowest := func(a, b int32) float64 {
		return derate.Narrowest(rt.Path(a, b), func(l int32) float64 { return f.Links[l].Bandwidth })
	}
	if f.Surveyed {
		return nil, ""
	}
	if f.Declared() {
		if r := derate.Streams(rows, md.Hosts, narrowest); len(r) > 0 {
			return r, derate.StreamsWhat
		}
	}
	first := md.FirstSlots()
	pairBW := func(a, b int) float64 {
		if ib := md.Link(first[a], first[b]).InvBandwidth; ib > 0 {
			return 1 / ib
		}
		return 0
	}
	return derate.Pairs(rt.K, pairBW, narrowest), derate.PairsWhat
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

// nodeRates are each node's seconds per byte out and in: nodebw.csv's node phase (shift) rows,
// else the pairwise bandwidth between nodes.
func (md *Model) nodeRates(rows []survey.NodeBandwidth) (out, in []float64) {
	k := len(md.Hosts)
	tmp := &Model{Machine: md.Machine, InvInject: make([]float64, k), InvEject: make([]float64, k)}
	if shift := ports.ShiftRows(rows); len(shift) > 0 { // a fan-out row is no one link's rate
		tmp.nodeBandwidthFromRows(shift)
		return tmp.InvInject, tmp.InvEject
	}
	ib := md.Levels[md.firstNetLevel()].InvBandwidth
	out, in = make([]float64, k), make([]float64, k)
	for n := range out {
		out[n], in[n] = ib, ib
	}
	return out, in
}

// WithLinks is md with the bandwidth of the declared network's links of
// class (every class: "all") multiplied by bw (a what-if: 0.5 halves
// them), and the latency between nodes multiplied by lat; md itself is
// unchanged. It returns how many links changed (0 with lat only).
func (md *Model) WithLinks(class string, bw, lat float64) (*Model, int, error) {
	if !(bw > 0) || !(lat > 0) || math.IsInf(bw, 0) || math.IsInf(lat, 0) {
		return nil, 0, fmt.Errorf("a what-if factor must be positive and finite (bw=%g, lat=%g)", bw, lat)
	}
	c := *md
	m := *md.Machine
	m.edge.netLatency = lat * md.netLatencyScale()
	c.Machine = &m
	if bw == 1 {
		return &c, 0, nil
	}
	rt := md.Routes
	if rt == nil {
		return nil, 0, fmt.Errorf("a link class's bandwidth can change only on a declared network: give --topology FILE")
	}
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
	c.Routes = &r
	return &c, changed, nil
}
