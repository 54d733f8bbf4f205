package network

import (
	"fmt"
	"math"

	"github.com/latmap/latmap/mapper/fabric"
)

// DragonflyFit is the dragonfly whose routes explain the round trips
// between a survey's hosts (FitDragonfly): its shape, and the round
// trip Base + PerHop x the links a message crosses, the mean of the
// route there and the route back (a dragonfly's static routes differ
// in length each way), within Residual of a hop (root mean square).
type DragonflyFit struct {
	Shape                  fabric.DragonflyShape
	Base, PerHop, Residual float64
	// Next is the residual of the best other shape (+Inf: none fits at
	// all): how clearly the round trips tell this shape from the rest.
	Next float64
	// Static: some of the shape's routes are longer than the shortest
	// path between their routers (a route continued from chassis 0),
	// and the round trips follow them: the machine routes statically,
	// which minimal adaptive routing, taking shortest paths, would not
	// show.
	Static bool
}

// maxFitResidual is the largest root mean square error, as a fraction
// of a hop, of a dragonfly shape whose routes explain the round trips.
// A route there and back differs from another by half a hop at the
// least, so a wrong shape misses its pairs by half a hop or more.
var maxFitResidual = 0.2

// fitPairs is about how many host pairs FitDragonfly fits a shape on:
// all of them up to 128 hosts, else those from a sample of hosts to
// every other (15,345 pairs at 1,024 hosts, where all of them would be
// half a million routes walked for each shape).
const fitPairs = 128 * 127 / 2

// minFitNodes is the fewest nodes FitDragonfly looks at: the smallest
// dragonfly with routes of three lengths (2 groups of 2 routers of 2
// nodes); below, a few nodes' round trips fit some shape by chance.
var minFitNodes = 8

// FitDragonfly looks for the dragonfly, of every shape of k nodes with
// its nodes in the hosts' order (groups of chassis of routers of nodes,
// SimGrid's DRAGONFLY numbering: node fastest), whose static minimal
// routes (NewDragonfly's, SimGrid's DragonflyZone's) explain the round
// trips rtt(a, b) between the k hosts within maxFitResidual of a hop.
// Routes within a group there are not the shortest paths of any graph
// (a route continues from chassis 0 after its green hop), so
// FindDirect's graphs do not explain them. It returns the shape that
// explains them best, or nil and why none does.
func FitDragonfly(k int, rtt func(a, b int) float64) (*DragonflyFit, string) {
	if k < minFitNodes {
		return nil, fmt.Sprintf("%d hosts are too few for a dragonfly", k)
	}
	pairs := fitSample(k)
	y := make([]float64, len(pairs))
	for i, p := range pairs {
		y[i] = rtt(int(p[0]), int(p[1]))
	}
	var best *DragonflyFit
	next := math.Inf(1)
	for _, s := range fabric.DragonflyShapes(k) {
		base, perHop, res := fitShape(s, pairs, y)
		if best == nil || res < best.Residual {
			if best != nil {
				next = best.Residual
			}
			best = &DragonflyFit{Shape: s, Base: base, PerHop: perHop, Residual: res}
		} else {
			next = min(next, res)
		}
	}
	if best == nil {
		return nil, fmt.Sprintf("%d hosts make no dragonfly of two groups or more", k)
	}
	best.Next = next
	if math.IsInf(best.Residual, 1) {
		return nil, "no dragonfly's routes grow longer as the round trips do"
	}
	if best.Residual > maxFitResidual {
		return nil, fmt.Sprintf("no dragonfly's routes explain the round trips within %.2f of a hop (the best, %s, within %.2f)", maxFitResidual, best.Shape, best.Residual)
	}
	best.Static = best.Shape.LongerThanShortest()
	return best, ""
}

// fitSample is the host pairs a shape is fitted on: every pair of up to
// 128 hosts; else rows of evenly spaced hosts, each to every other.
func fitSample(k int) [][2]int32 {
	rows := k
	if k*(k-1)/2 > fitPairs {
		rows = max(1, 2*fitPairs/k)
	}
	var pairs [][2]int32
	for i := 0; i < rows; i++ {
		a := i * k / rows
		for b := 0; b < k; b++ {
			if b != a && (rows < k || b > a) {
				pairs = append(pairs, [2]int32{int32(a), int32(b)})
			}
		}
	}
	return pairs
}

// fitShape fits the round trips y of pairs to shape s's route lengths
// (the mean of the links there and back) by least squares, and returns
// the line and its root mean square error over its slope (+Inf where
// the lengths do not rise with the round trips).
func fitShape(s fabric.DragonflyShape, pairs [][2]int32, y []float64) (base, perHop, res float64) {
	hops := s.RouteLengths()
	x := make([]float64, len(pairs))
	var mx, my float64
	for i, p := range pairs {
		x[i] = float64(hops(int(p[0]), int(p[1]))+hops(int(p[1]), int(p[0]))) / 2
		mx += x[i]
		my += y[i]
	}
	n := float64(len(pairs))
	mx, my = mx/n, my/n
	var sxx, sxy float64
	for i := range x {
		sxx += (x[i] - mx) * (x[i] - mx)
		sxy += (x[i] - mx) * (y[i] - my)
	}
	if !(sxx > 0) || !(sxy > 0) {
		return 0, 0, math.Inf(1)
	}
	perHop = sxy / sxx
	base = my - perHop*mx
	var sse float64
	for i := range x {
		e := y[i] - base - perHop*x[i]
		sse += e * e
	}
	return base, perHop, math.Sqrt(sse/n) / perHop
}
