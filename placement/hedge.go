package placement

import (
	"fmt"
	"strings"

	"github.com/latmap/latmap/placement/model"
	"github.com/latmap/latmap/placement/solve"
)

// hedgeFar: where the network beyond the job's routers is not in the
// round trips (the routers are two hops apart or more, through routers
// outside the job: network.Network.Far, with or without Links fitted
// to them), the proposal is searched
// again on in.hedge (the switch levels above the routers not priced:
// only what the round trips show, which ranks share a node and a
// router). Each proposal is scored by its worst ratio to what runs
// today (keptPlace) over every model of the network the round trips
// allow: in.md's switch levels, in.hedge, and in.spread's links where
// kept. The routers' proposal, which assumes less, is taken unless the
// switch levels' is solve.WorthIt lower, as a gain only one guess gives
// is not advised (keepOnEitherRouting); the other where the one so
// chosen is not solve.WorthIt below 1 and the other is; and neither
// where neither is: what runs today is kept (hedgePick). On the simulated
// fragment of a dragonfly whose groups are Cray XC's rows and columns,
// NPB SP's switch-level proposal scored 68.8% (its routers' 69.1%) and
// simulated 12% slower than block, the routers' 23% faster; BT's,
// LULESH's and HPCG's switch-level proposals scored 60-73% against
// 83-109%, and simulated 1.22-2.04x faster than block. solveOn searches
// a model. Not where in.md is priced on the links a probe of flows at
// once found shared (in.tree set: addShared): those are measured, and
// the proposal searched on them stands (on the two simulated Aries
// fragments, held to every model the round trips allow as here, NPB SP's
// and BT's proposals, 1.26x and 1.63x faster than block in the
// simulation, gave way to block).
func hedgeFar(sol *solve.Solution, in *inputs, slots []int32, solveOn func(*model.Model) (*solve.Solution, error)) error {
	alt, err := solveOn(in.hedge)
	if err != nil {
		return err
	}
	keep, name := keptPlace(in, slots)
	models := append([]*model.Model{in.md}, spreadModels(in)...)
	kept := make([]float64, len(models)) // keep's run on each
	for i, m := range models {
		kept[i] = model.Predict("", m, in.t, keep, in.rt).Run
	}
	worst := func(place []int32) float64 {
		w := 0.0
		for i, m := range models {
			if kept[i] > 0 {
				w = max(w, model.Predict("", m, in.t, place, in.rt).Run/kept[i])
			}
		}
		return w
	}
	ws, wa := worst(sol.Place), worst(alt.Place)
	how := fmt.Sprintf("at worst over the %d models the round trips allow, the switch levels' proposal is %.1f%% of %s's "+
		"run, the routers' %.1f%%", len(models), 100*ws, name, 100*wa)
	took := ": the switch levels' taken"
	switch routers, keepIt := hedgePick(ws, wa); {
	case keepIt:
		sol.Place, sol.Winner = keep, name
		took = fmt.Sprintf(": neither %.0f%% below it, %s kept", 100*solve.WorthIt, name)
	case routers:
		took = fmt.Sprintf(": the routers', which assume less, taken (the switch levels' not %.0f%% lower)", 100*solve.WorthIt)
		sol.Place, sol.Winner = alt.Place, alt.Winner+" (routers alone)"
	}
	sol.Note = strings.TrimPrefix(sol.Note+"; ", "; ") + "the switch levels above the routers group them by distance, " +
		"not by a switch they share, and the proposal was searched with their uplinks priced and without: " + how + took
	return nil
}

// hedgePick chooses between the switch levels' proposal and the routers'
// by their scores (ws, wa: each one's worst ratio to what runs today):
// the routers' unless the switch levels' is solve.WorthIt lower, and
// the other where the one so chosen is not solve.WorthIt below 1 but the
// other is; neither (keep) where neither is.
func hedgePick(ws, wa float64) (routers, keep bool) {
	good := func(w float64) bool { return w <= 1-solve.WorthIt }
	routers = ws > (1-solve.WorthIt)*wa
	chosen, other := ws, wa
	if routers {
		chosen, other = wa, ws
	}
	if !good(chosen) && good(other) {
		routers = !routers
	}
	return routers, !good(ws) && !good(wa)
}
