package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/latmap/latmap/internal/text"
	"github.com/latmap/latmap/mapper/placefile"
)

// WritePlace prints latmap place's report: the machine's levels, the
// traffic, the predictions of each placement, the model check, the
// verdict, the warnings and the launch line.
func WritePlace(w io.Writer, a *placefile.Advice) {
	writePlaceInputs(w, a)
	fmt.Fprintln(w)
	writePlacePredictions(w, a)
	if c := a.Calibration; c != nil {
		writeModelCheck(w, c)
	}
	writeNetwork(w, a)
	fmt.Fprintln(w)
	fmt.Fprintln(w, a.Verdict)
	for _, x := range a.Warnings {
		fmt.Fprintln(w, "warning:", x)
	}
	if a.Output != "" {
		fmt.Fprintf(w, "\nwrote %s (%s); launch with:\n  %s\n", a.Output, a.Format, text.ShellJoin(a.Launch))
		if a.Format == placefile.FormatOpenMPI {
			fmt.Fprintf(w, "  (for Open MPI 5, which reads slots as logical cores: latmap place --format openmpi5)\n")
		}
	}
}

// writePlaceInputs prints the survey's levels, the traffic and the
// profile's shares.
func writePlaceInputs(w io.Writer, a *placefile.Advice) {
	fmt.Fprintf(w, "latmap place: %d ranks on %d slots of %s (%s used)\n", a.Ranks, a.Slots, text.Count(a.Hosts, "host"), text.Count(a.HostsUsed, "host"))
	leaders := ""
	if a.LeaderFilledPairs > 0 {
		leaders = fmt.Sprintf("%d of %d slot pairs filled from their nodes' leader pair (the survey's scope) and ", a.LeaderFilledPairs, a.SurveyPairs)
	}
	switches := ""
	if a.SwitchBandwidth != "" {
		switches = "; switch uplinks from " + a.SwitchBandwidth
	}
	if a.MessageSizes != "" {
		switches += "; message sizes from " + a.MessageSizes
	}
	fmt.Fprintf(w, "survey %s: %s%d of %d slot pairs not measured, filled with their level's median; "+
		"bandwidth from %s; node bandwidth from %s%s\n",
		a.Survey, leaders, a.FilledPairs, a.SurveyPairs, a.Bandwidth, a.NodeBandwidth, switches)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "level\tpairs\tmeasured\tlatency (us)\tbandwidth (GB/s)\t")
	for _, l := range a.Levels {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%.2f\t\n", l.Name, l.Pairs, l.Measured, l.LatencyUs, l.BandwidthGBps)
	}
	tw.Flush()
	src := a.Matrix
	if src == "" {
		src = a.Profile
	}
	fmt.Fprintf(w, "traffic %s: %d communicating pairs, %.4g messages, %.4g bytes", src, a.TrafficPairs, a.Messages, a.Bytes)
	if a.SelfFlows > 0 {
		fmt.Fprintf(w, " (%d self-traffic rows ignored)", a.SelfFlows)
	}
	fmt.Fprintln(w)
	if s := a.Shares; s != nil {
		fmt.Fprintf(w, "profile: MPI %.4g s of %.4g s elapsed (%s, summed over ranks); late senders %.4g s, "+
			"collective wait %.4g s (%s of MPI); slowest rank took %.4g s\n",
			s.MPI, s.Elapsed, text.Percent(s.CommShare), s.Late, s.Sync, text.Percent(s.WaitShare), s.SlowestElapsed)
	}
}

// rangeWhy says what a prediction's range is (placefile.Prediction.Low,
// High), in the text report and the HTML page's caption alike.
const rangeWhy = "the round trips cannot tell which way traffic goes between the job's routers: each run is " +
	"priced on every network they allow (the links a probe of flows at once found shared, where the survey probed; " +
	"the switch levels above the routers; the routers alone; and the links they fit where some do); the predicted " +
	"run is the shared links' where the survey probed, else the switch levels', the run itself may take anything in " +
	"the range, or more where the job loads the links between its routers, which none of those networks prices"

// writePlacePredictions prints each placement's prediction and the solver.
func writePlacePredictions(w io.Writer, a *placefile.Advice) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	ranged := a.Ranged()
	rangeHead, rangeBlank := "", ""
	if ranged {
		rangeHead, rangeBlank = "range (s)\t", "\t"
	}
	fmt.Fprintln(tw, "placement\tpredicted run (s)\t"+rangeHead+"slowest rank\tmax rank comm (s)\tnode-bound ranks\ttransfer (s)\t")
	for _, p := range a.Predictions {
		rng := ""
		if ranged {
			rng = fmt.Sprintf("%.4g-%.4g\t", p.Low, p.High)
		}
		fmt.Fprintf(tw, "%s\t%.4g\t%s%d\t%.4g\t%d\t%.4g\t\n", p.Name, p.Run, rng, p.SlowestRank, p.MaxRankTransfer, p.NodeBound, p.Transfer)
	}
	if a.Shares != nil {
		fmt.Fprintf(tw, "perfect interconnect\t%.4g\t%s\t0\t\t0\t\n", a.PerfectRun, rangeBlank)
	}
	tw.Flush()
	if ranged {
		fmt.Fprintln(w, "range: "+rangeWhy+" (declare the network with --topology to price it as wired)")
	}
	var coll []string
	for _, p := range a.Predictions {
		if p.Collectives > 0 {
			coll = append(coll, fmt.Sprintf("%s %.4g s", p.Name, p.Collectives))
		}
	}
	if len(coll) > 0 {
		fmt.Fprintf(w, "small collectives (barriers; allreduces, reduces and broadcasts of at most 4 KiB a call) "+
			"of the slowest rank, priced by their rounds' latencies in each layout (included above): %s\n",
			strings.Join(coll, ", "))
	}
	fmt.Fprintf(w, "solver: %s won in %.2f s (seed %d)", a.Solver.Winner, a.Solver.Seconds, a.Solver.Seed)
	if a.Solver.FellBack {
		fmt.Fprint(w, "; no candidate beat it, so the proposal is that baseline")
	}
	if a.Solver.Note != "" {
		fmt.Fprint(w, "; "+a.Solver.Note)
	}
	fmt.Fprintln(w)
}

// writeModelCheck prints the model against the profiled run.
func writeModelCheck(w io.Writer, c *placefile.Calibration) {
	fmt.Fprintf(w, "model check: predicted %.4g s for the placement the profile ran under, "+
		"which measured %.4g s (slowest rank): %+.0f%%\n", c.RawPredictedS, c.MeasuredS, 100*c.RawError)
	fmt.Fprintf(w, "  communication summed over ranks: modelled %.4g s, measured %.4g s (MPI time minus waits); "+
		"median rank off by %s\n", c.PredictedCommS, c.MeasuredCommS, text.Percent(c.RankError))
	fmt.Fprintf(w, "  calibration: %s", c.Note)
	if c.Folded {
		fmt.Fprintf(w, "; with them the placement the profile ran under is predicted at %.4g s (%+.0f%%), the median "+
			"rank off by %s", c.PredictedS, 100*c.Error, text.Percent(c.FoldedRankError))
		fmt.Fprintf(w, "\n  out of sample: calibrated on the even or on the odd ranks, that run is predicted within "+
			"%s, the other half's median rank within %s (the in-sample figures above are fitted on this run)",
			text.Percent(c.HeldOutError), text.Percent(c.HeldOutRankError))
	}
	if r := c.Reruns; r != nil {
		fmt.Fprintf(w, "\n  reruns: latmap verify (%s) measured that placement's application at %.4g s (median of "+
			"%d runs): predicted %.4g s, off by %s (out of sample)",
			r.Dir, r.MeasuredS, r.Runs, c.PredictedS, text.Percent(r.Error))
	}
	fmt.Fprintln(w)
}

// writeNetwork prints the declared network and the what-if predictions.
func writeNetwork(w io.Writer, a *placefile.Advice) {
	if n := a.Network; n != nil {
		// A zone's links routed Full have no class of their own.
		classes := slices.DeleteFunc(slices.Clone(n.Classes), func(c string) bool { return c == "" })
		named := ""
		if len(classes) > 0 {
			named = " (classes " + strings.Join(classes, ", ") + ")"
		}
		fmt.Fprintf(w, "network: %s from %s, %d links%s, priced as %s\n", n.Shape, n.Source, n.Links, named, n.Capacity)
		if n.Origin != "" {
			fmt.Fprintf(w, "network: %s; routes: %s\n", n.Origin, n.Routing)
		}
	}
	for _, x := range a.WhatIf {
		fmt.Fprintf(w, "what if %s (%s): %s predicted %.4g s (%s than %.4g s now); a placement made for that network %.4g s (%s faster than %s there)\n",
			x.Change, text.Count(x.LinksChanged, "link"), x.Today.Name, x.Today.Run, changeWord(x.Today.Run, x.TodayNowS), x.TodayNowS,
			x.Proposal.Run, text.Percent(gainOver(x.Today.Run, x.Proposal.Run)), x.Today.Name)
	}
}

// changeWord says how much slower or faster run is than ref.
func changeWord(run, ref float64) string {
	if ref <= 0 {
		return "no change"
	}
	if run >= ref {
		return text.Percent(run/ref-1) + " slower"
	}
	return text.Percent(1-run/ref) + " faster"
}

// gainOver is the fraction of ref that run saves.
func gainOver(ref, run float64) float64 {
	if ref <= 0 {
		return 0
	}
	return (ref - run) / ref
}
