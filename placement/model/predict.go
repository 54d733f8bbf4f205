package model

import (
	"math"

	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/placement/model/links"
	"github.com/latmap/latmap/placement/model/rounds"
)

// RankTimes are the parts of each rank's run time that placement does not
// change, from a profile: computation, collective wait (sync) and
// send-late wait; plus the measured elapsed time, MPI time, and
// communication time (MPI time minus the waits).
type RankTimes struct {
	Comput, Sync, Late []float64
	Elapsed, MPI, Comm []float64
	// Rounds is each rank's calls of small collectives by rounds.Kind,
	// priced by layout (CollectiveLatency); their time is not in Comm.
	Rounds [rounds.Kinds][]float64
}

// TimesFromProfile sums a profile's per-rank times.
func TimesFromProfile(p *profile.Profile) *RankTimes {
	n := len(p.Ranks)
	rt := &RankTimes{Comput: make([]float64, n), Sync: make([]float64, n), Late: make([]float64, n),
		Elapsed: make([]float64, n), MPI: make([]float64, n), Comm: make([]float64, n), Rounds: rounds.NewCalls(n)}
	for i, r := range p.Ranks {
		rt.Comput[i] = r.Comput
		rt.Elapsed[i] = r.Elapsed
	}
	inMatrix := p.HasMode(profile.ModeCollectivesInMatrix)
	for _, f := range p.Functions {
		if f.Rank < 0 || f.Rank >= n {
			continue
		}
		rt.Sync[f.Rank] += f.Sync
		rt.Late[f.Rank] += f.Late
		rt.MPI[f.Rank] += f.Time + f.Sync + f.Late
		if k := rounds.Kind(f); !inMatrix && k != rounds.None {
			rt.Rounds[k][f.Rank] += float64(f.Calls)
			continue
		}
		rt.Comm[f.Rank] += f.Time
	}
	return rt
}

// Prediction is the modelled outcome of one placement: what the advice
// records, and each rank's predicted run and communication.
type Prediction struct {
	placefile.Prediction
	// PerRank is each rank's predicted run, Comm its communication (s).
	PerRank, Comm []float64
}

// BaseTimes is each rank's time that placement does not change:
// computation + collective wait + send-late (nil without a profile).
func BaseTimes(rt *RankTimes, n int) []float64 {
	if rt == nil {
		return nil
	}
	b := make([]float64, n)
	for i := 0; i < n && i < len(rt.Comput); i++ {
		b[i] = rt.Comput[i] + rt.Sync[i] + rt.Late[i]
	}
	return b
}

// Predict models placement place: each rank's fixed time (BaseTimes),
// its small collectives' rounds in this layout, and its communication;
// where md.Either is set, the slower of that and the same over
// md.Either's routes, calibrated as md is.
func Predict(name string, md *Model, t *Traffic, place []int32, rt *RankTimes) Prediction {
	base, coll := BaseTimes(rt, t.N), []float64(nil)
	if rt != nil {
		coll = rounds.Add(base, &rt.Rounds, func(k int) float64 { return md.CollectiveLatency(k, place) })
	}
	pr := predictBase(name, md, t, place, base)
	if md.Either != nil {
		alt := *md.Either
		alt.Scale, alt.Either = md.Scale, nil
		if p := predictBase(name, &alt, t, place, base); p.Run > pr.Run {
			pr = p
		}
	}
	if pr.SlowestRank >= 0 && coll != nil {
		pr.Collectives = coll[pr.SlowestRank]
	}
	return pr
}

// CollectiveLatency is rounds.Latency over the machine's latencies.
func (m *Machine) CollectiveLatency(kind int, place []int32) float64 {
	return rounds.Latency(kind, place, func(a, b int32) float64 { return m.Link(int(a), int(b)).Latency })
}

// PredictedRun is Predict's run of place with each rank's fixed time
// base (nil: none): the solver's evaluator bounds it from below where
// links are shared (Evaluator.fluid).
func PredictedRun(md *Model, t *Traffic, place []int32, base []float64) float64 {
	run, _ := PredictedRunOver(md, t, place, base, math.Inf(1))
	return run
}

// PredictedRunOver is PredictedRun where only a run up to over matters:
// when the links' bound alone (the prediction without the flows'
// sharing, which only lengthens it) is above over, it is that bound and
// exact is false. Only the slowest rank matters, so the flows are shared
// only until every rank is sure to stay within the bound's run
// (links.Table.FluidWithin), which is then the run.
func PredictedRunOver(md *Model, t *Traffic, place []int32, base []float64, over float64) (run float64, exact bool) {
	ev := newEvaluator(md, t, base, append([]int32(nil), place...), true)
	bound := ev.predictWith("", nil).Run
	if !ev.net.Routed() {
		return bound, true
	}
	if bound > over {
		return bound, false
	}
	limit, s := make([]float64, t.N), md.Scale[1]
	for i := range limit {
		switch {
		case s <= 0:
			limit[i] = math.Inf(1)
		case base != nil:
			limit[i] = (bound - base[i]) / s
		default:
			limit[i] = bound / s
		}
	}
	fluid, within := md.Routes.Table.FluidWithin(t.N, ev.fluidFlows(), limit)
	if within {
		return bound, true
	}
	return ev.predictWith("", fluid).Run, true
}

func predictBase(name string, md *Model, t *Traffic, place []int32, base []float64) Prediction {
	ev := newEvaluator(md, t, base, append([]int32(nil), place...), true)
	return ev.predictWith(name, ev.fluid())
}

// predictWith is the prediction with each rank's flows off its node
// taking fluid (nil: the links' bound alone).
func (ev *Evaluator) predictWith(name string, fluid []float64) Prediction {
	t, base := ev.t, ev.base
	pr := Prediction{Prediction: placefile.Prediction{Name: name, Transfer: ev.transfer, SlowestRank: -1}, PerRank: make([]float64, t.N), Comm: make([]float64, t.N)}
	for i := int32(0); i < int32(t.N); i++ {
		on, off, bound := ev.fullParts(i)
		if fluid != nil && fluid[i] > off {
			off, bound = fluid[i], true
		}
		c := ev.scaled(on, off)
		if bound {
			pr.NodeBound++
		}
		pr.Comm[i] = c
		pr.MaxRankTransfer = math.Max(pr.MaxRankTransfer, c)
		v := c
		if base != nil {
			v += base[i]
		}
		pr.PerRank[i] = v
		if v > pr.Run || pr.SlowestRank < 0 {
			pr.Run, pr.SlowestRank = v, int(i)
			pair := ev.scaled(math.Max(ev.r.pOn[i], 0), math.Max(ev.r.pOff[i], 0))
			pr.Contention = c - pair
		}
	}
	return pr
}

// fluid is each rank's time for its flows off its node to arrive when
// all of them share the routed network's links max-min fairly
// (links.Table.Fluid; nil without a routed network).
func (ev *Evaluator) fluid() []float64 {
	if !ev.net.Routed() {
		return nil
	}
	return ev.md.Routes.Table.Fluid(ev.t.N, ev.fluidFlows())
}

// fluidFlows are the flows between ranks on different nodes, each way.
func (ev *Evaluator) fluidFlows() []links.FluidFlow {
	t := ev.t
	var flows []links.FluidFlow
	for u := int32(0); u < int32(t.N); u++ {
		for e := t.Start[u]; e < t.Start[u+1]; e++ {
			v := t.Adj[e]
			nu, nv := ev.r.node[u], ev.r.node[v]
			if v < u || nu == nv {
				continue
			}
			out, in := ev.wireBytes(e)
			flows = append(flows, links.FluidFlow{U: u, V: v, A: nu, B: nv, Bytes: out},
				links.FluidFlow{U: v, V: u, A: nv, B: nu, Bytes: in})
		}
	}
	return flows
}

// PerfectRun is the run time with a perfect interconnect (transfer time
// 0): the slowest rank's computation + collective wait + send-late.
func PerfectRun(rt *RankTimes) float64 {
	if rt == nil {
		return 0
	}
	best := 0.0
	for i := range rt.Comput {
		best = math.Max(best, rt.Comput[i]+rt.Sync[i]+rt.Late[i])
	}
	return best
}

// SharesOf summarises where a profiled run spent its time.
func SharesOf(rt *RankTimes) placefile.Shares {
	var s placefile.Shares
	for i := range rt.Comput {
		s.Elapsed += rt.Elapsed[i]
		s.MPI += rt.MPI[i]
		s.Late += rt.Late[i]
		s.Sync += rt.Sync[i]
		s.SlowestElapsed = math.Max(s.SlowestElapsed, rt.Elapsed[i])
	}
	if s.Elapsed > 0 {
		s.CommShare = s.MPI / s.Elapsed
	}
	if s.MPI > 0 {
		s.WaitShare = (s.Late + s.Sync) / s.MPI
	}
	return s
}
