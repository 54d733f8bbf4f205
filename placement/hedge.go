package placement

import (
	"fmt"
	"strings"

	"github.com/latmap/latmap/placement/model"
	"github.com/latmap/latmap/placement/solve"
)

// hedgeFar: where the network beyond the job's routers is not in the
// round trips (the routers are two hops apart or more, through routers
// outside the job: network.Network.Links), the proposal is searched
// again on in.hedge (the switch levels above the routers not priced:
// only what the round trips show, which nodes share a node and a
// router). Each proposal is scored by its worst ratio to what runs
// today (keptPlace) over every model of the network the round trips
// allow: in.md's switch levels, in.hedge, and in.spread's links where
// kept. The routers' proposal, which assumes less, is taken unless the
// switch levels' is solve.WorthIt lower, as a gain only one guess gives
// is not advised (keepOnEitherRouting); and neither where its score is
// not solve.WorthIt below 1: what runs today is kept. On the simulated
// fragment of a dragonfly whose groups are Cray XC's rows and columns,
// NPB SP's switch-level proposal scored 68.8% (its routers' 69.1%) and
// simulated 12% slower than block, the routers' 23% faster; BT's,
// LULESH's and HPCG's switch-level proposals scored 60-73% against
// 83-109%, and simulated 1.22-2.04x faster than block. solveOn searches
// a model.
func hedgeFar(sol *solve.Solution, in *inputs, slots []int32, solveOn func(*model.Model) (*solve.Solution, error)) error {
	alt, err := solveOn(in.hedge)
	if err != nil {
		return err
	}
	keep, name := keptPlace(in, slots)
	models := []*model.Model{in.md, in.hedge}
	if in.spread != nil {
		models = append(models, in.spread)
	}
	worst := func(place []int32) float64 {
		w := 0.0
		for _, m := range models {
			if k := model.Predict("", m, in.t, keep, in.rt).Run; k > 0 {
				w = max(w, model.Predict("", m, in.t, place, in.rt).Run/k)
			}
		}
		return w
	}
	ws, wa := worst(sol.Place), worst(alt.Place)
	score, how := ws, fmt.Sprintf("the switch levels' proposal, at worst %.1f%% of %s's run over the %d models the "+
		"round trips allow (the routers' alone %.1f%%)", 100*ws, name, len(models), 100*wa)
	if ws > (1-solve.WorthIt)*wa {
		score, how = wa, fmt.Sprintf("the routers' proposal, at worst %.1f%% of %s's run over the %d models the round "+
			"trips allow (the switch levels' %.1f%%)", 100*wa, name, len(models), 100*ws)
		sol.Place, sol.Winner = alt.Place, alt.Winner+" (routers alone)"
	}
	if score > 1-solve.WorthIt {
		sol.Place, sol.Winner = keep, name
		how = strings.Replace(how, "proposal, at", "proposal was at", 1) + ": " + name + " kept"
	}
	sol.Note = strings.TrimPrefix(sol.Note+"; ", "; ") + "the switch levels above the routers group them by distance, " +
		"not by a switch they share, and the proposal was searched with their uplinks priced and without: " + how
	return nil
}
