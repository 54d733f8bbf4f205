package placement

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/placement/model"
	"github.com/latmap/latmap/placement/solve"
)

// whatIf is one --what-if change: the links of Class (all: every
// class) with their bandwidth times BW, the latency between nodes times
// Lat.
type whatIf struct {
	Class   string
	BW, Lat float64
}

// parseWhatIf reads "[CLASS:]bw=F[,lat=F]" (CLASS defaults to all).
func parseWhatIf(s string) (whatIf, error) {
	w := whatIf{Class: "all", BW: 1, Lat: 1}
	spec := s
	if c, rest, ok := strings.Cut(s, ":"); ok {
		w.Class, spec = c, rest
	}
	for _, kv := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(kv, "=")
		f, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || !(f > 0) || f > 1e6 {
			return w, fmt.Errorf("--what-if %q: want [CLASS:]bw=FACTOR[,lat=FACTOR] with positive factors (blue:bw=0.5 halves the global links)", s)
		}
		switch k {
		case "bw":
			w.BW = f
		case "lat":
			w.Lat = f
		default:
			return w, fmt.Errorf("--what-if %q: %q is neither bw nor lat", s, k)
		}
	}
	return w, nil
}

// predictWhatIfs predicts, for each change, what runs today (the
// profiled placement, else block) and a placement solved for the changed
// network.
func predictWhatIfs(a *placefile.Advice, opt Options, in *inputs, slots []int32) error {
	today, name := in.current, "current"
	if today == nil {
		today, name = model.Block(slots, in.t.N), "block"
	}
	now := model.Predict(name, in.md, in.t, today, in.rt).Run
	for _, spec := range opt.WhatIf {
		w, err := parseWhatIf(spec)
		if err != nil {
			return err
		}
		md, changed, err := in.md.WithLinks(w.Class, w.BW, w.Lat)
		if err != nil {
			return fmt.Errorf("--what-if %s: %w", spec, err)
		}
		sol, err := solve.Solve(md, in.t, model.BaseTimes(in.rt, in.t.N), slots, []solve.Start{{Name: solve.CurrentStart, Place: today}}, opt.Solve)
		if err != nil {
			return err
		}
		a.WhatIf = append(a.WhatIf, placefile.WhatIf{Change: spec, LinksChanged: changed, TodayNowS: now,
			Today: model.Predict(name, md, in.t, today, in.rt).Prediction, Proposal: model.Predict("proposal", md, in.t, sol.Place, in.rt).Prediction})
	}
	return nil
}
