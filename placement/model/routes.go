package model

import (
	"fmt"
	"math"
	"slices"

	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
	"github.com/latmap/latmap/placement/model/links"
)

// AddRoutes prices md's network as the declared fabric f: the machine's
// hosts must all be in f. Declared bandwidths are derated by what the
// survey measured between nodes (the median of the node phase's streams,
// else of the pairs' bandwidth, over the narrowest declared link of
// their routes, when it is between 0.2 and 1.25: links.StreamShares, links.PairShares); f's
// cross traffic (Reverse) reaches the flow-level prediction
// (links.Table.Fluid); links declared without a bandwidth (a
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
	out, in := md.nodeRates(rows)
	first := md.FirstSlots()
	rt, notes, err := links.NewRoutes(f, links.RouteInputs{Hosts: md.Hosts, Rows: rows, Shares: shares, NodeOut: out, NodeIn: in,
		PairBW: func(a, b int) float64 {
			if ib := md.Link(first[a], first[b]).InvBandwidth; ib > 0 {
				return 1 / ib
			}
			return 0
		}})
	if err != nil {
		return nil, err
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

// nodeRates are each node's seconds per byte out and in: nodebw.csv's node phase (shift) rows,
// else the pairwise bandwidth between nodes.
func (md *Model) nodeRates(rows []survey.NodeBandwidth) (out, in []float64) {
	k := len(md.Hosts)
	tmp := &Model{Machine: md.Machine, InvInject: make([]float64, k), InvEject: make([]float64, k)}
	if shift := links.ShiftRows(rows); len(shift) > 0 { // a fan-out row is no one link's rate
		tmp.nodeBandwidthFromRows(shift)
		return tmp.InvInject, tmp.InvEject
	}
	out = md.NodePairInvBandwidth(md.Levels[md.firstNetLevel()].InvBandwidth)
	return out, slices.Clone(out)
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
	c.Either = nil
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
	r, changed, err := rt.Scaled(class, bw)
	if err != nil {
		return nil, 0, err
	}
	c.Routes = r
	return &c, changed, nil
}
