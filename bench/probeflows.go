package bench

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/latmap/latmap/bench/probe"
	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/mapper/network"
	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/topo"
)

// The probe of flows at once (--probe on; shares.csv, bench/probe):
// after the switch phase, rank 0 takes each host's router from the
// switch levels the latencies show (or --topology's; each host its own
// where there is none) and chooses steps one at a time
// (probe.Prober): each class of flows alone, random matchings of the
// hosts, then the pairs of classes they did not clear, two at a time.
// In a step each flow is ProbeMessages messages of NodeBWSize bytes from
// its source host's first rank to its destination's, the flows of the
// step at once; the receiver's time is the flow's.
const (
	ProbeOn   = NodeBWOn
	ProbeOff  = NodeBWOff
	ProbeAuto = NodeBWAuto
	// MaxProbeAutoHosts is the most hosts --probe auto probes: at 64
	// hosts of a simulated dragonfly fragment the probe took 263 s and
	// left most pairs of classes unjudged; place chooses nothing from
	// such a probe.
	MaxProbeAutoHosts = 32
	// ProbeSlowed is how many times its time alone a flow takes in a
	// step to count as slowed. Two flows sharing a link as fast as
	// their hosts' slow each other 2x; where the link is faster (Tartu's
	// FDR10 cables under QDR adapters) less: 1.59x and more inside
	// SimGrid. Two flows that only cross a link the other's way back
	// crosses slowed each other 0.95-1.07x on the virtual cluster and
	// at most 1.45x inside SimGrid (placement's BenchmarkSimProbeRoutes:
	// every pair of flows on 7 networks), so the threshold is between.
	ProbeSlowed = 1.5
	// ProbeMessages is how many messages a flow is.
	ProbeMessages = 8
	// MaxProbeClasses bounds the classes of flows the probe takes: 2,048
	// classes are 2 million pairs of classes (64 hosts on 32 routers; a
	// bit each while the random steps clear them), the most whose routes
	// place chooses from the probe (topo.FitProbe).
	MaxProbeClasses = topo.MaxFitClasses
	// MaxProbePairs bounds the pairs of classes moved two at a time;
	// the rest are left unjudged (meta.json's probe.unjudged).
	MaxProbePairs = 20000
	// probeReport is how often rank 0 reports the probe's progress.
	probeReport = 10 * time.Second
)

// probePhase is the probe's outcome on rank 0.
type probePhase struct {
	meta    *survey.ProbeMeta
	rows    []survey.Share
	router  []int // each host's router, and where they came from
	planned string
	note    string // why it did not run
	auto    string // why --probe auto ran it ("": it did not)
	stopped bool   // a signal stopped it (rankSurvey.stopped says so)
}

// probeFlows runs the probe on every rank. Rank 0 has the assembled
// survey s (nil elsewhere); sw is the switch phase that ran before it,
// hosts every rank's host name.
func (rs *rankSurvey) probeFlows(s *survey.Survey, sw *switchPhase, hosts []string) (*probePhase, error) {
	l := newNodeLayout(hosts)
	var ph probePhase
	var pr *probe.Prober
	if rs.rank == 0 {
		pr = rs.newProber(s, sw, l, &ph)
	}
	start := time.Now()
	say := rs.probeProgress(pr, start)
	lead := func(h int) int { return l.members[h][0] }
	for steps := 0; ; steps++ {
		// Rank 0's step, or the signal that stops the survey (mpirun
		// kills the ranks 1 s after passing one on: a step is far less).
		var step struct {
			Flows []probe.Flow
			Stop  string
		}
		if pr != nil {
			if rs.stop != nil {
				step.Stop = rs.stop()
			}
			if step.Stop == "" {
				step.Flows = pr.Next()
			}
		}
		if err := share(rs.c, &step, "the probe's step"); err != nil {
			return nil, err
		}
		if step.Stop != "" {
			rs.stopped = fmt.Sprintf("stopped by %s after every pair was measured, in the probe of flows at once after %d steps (%s not written)",
				step.Stop, steps, survey.SharesFile)
			return &probePhase{stopped: true}, nil
		}
		if len(step.Flows) == 0 {
			break
		}
		var dst, src []int
		for _, f := range step.Flows {
			if lead(f.Src) == rs.rank {
				dst = append(dst, lead(f.Dst))
			}
			if lead(f.Dst) == rs.rank {
				src = append(src, lead(f.Src))
			}
		}
		if err := rs.c.Wait(false); err != nil {
			return nil, err
		}
		secs, err := rs.c.Exchange(dst, src, rs.opt.NodeBWSize, ProbeMessages)
		if err != nil {
			rs.c.Abort(1)
			return nil, fmt.Errorf("probe step %v: %w", step.Flows, err)
		}
		if len(src) == 0 {
			secs = 0 // a receiver's time is its flow's
		}
		all, err := rs.gatherFloats([]float64{secs})
		if err != nil {
			return nil, err
		}
		if pr != nil {
			times := make([]float64, len(step.Flows))
			for k, f := range step.Flows {
				times[k] = all[lead(f.Dst)][0]
			}
			pr.Record(times)
			say(false)
		}
	}
	say(true)
	if pr == nil {
		return &ph, nil
	}
	ph.meta, ph.rows = ProbeResult(pr, l.hosts, ph.router, ph.planned, rs.opt.NodeBWSize, time.Since(start))
	return &ph, nil
}

// ProbeResult is a finished probe's meta.json record and shares.csv's
// rows: pr's verdicts on the flows between hosts (by index), on routers
// router (each host's) that came from planned, each flow size bytes
// ProbeMessages times, the probe taking took. The survey's phase and a
// probe run inside a simulation record it alike.
func ProbeResult(pr *probe.Prober, hosts []string, router []int, planned string, size int, took time.Duration) (*survey.ProbeMeta, []survey.Share) {
	m := &survey.ProbeMeta{Routers: map[string]int{}, Planned: planned, Classes: pr.Plan.Classes(),
		SizeBytes: size, Messages: ProbeMessages, Threshold: pr.Threshold}
	for h, r := range router {
		m.Routers[hosts[h]] = r
	}
	m.AloneSteps, m.RandomSteps, m.PairSteps = pr.Steps[0], pr.Steps[1], pr.Steps[2]
	m.Cleared, m.Judged, m.Seconds = pr.ClearedByGroups, len(pr.Judged), took.Seconds()
	m.AloneMedianSeconds = stats.Median(pr.Alone())
	m.Unjudged = pr.Unjudged()
	var rows []survey.Share
	for _, j := range pr.Judged {
		if j.Shared {
			m.Shared++
		}
		rows = append(rows, survey.Share{SrcA: hosts[j.A.Src], DstA: hosts[j.A.Dst], SrcB: hosts[j.B.Src], DstB: hosts[j.B.Dst],
			SlowdownA: j.Slowdown[0], SlowdownB: j.Slowdown[1], Shared: j.Shared})
	}
	return m, rows
}

// newProber is rank 0's prober of the hosts of l, on the routers
// probeRouters finds (kept in ph); nil, with ph's note saying
// why, where the probe cannot run, or (--probe auto) is not wanted
// (autoProbe; ph.auto says why it is).
func (rs *rankSurvey) newProber(s *survey.Survey, sw *switchPhase, l nodeLayout, ph *probePhase) *probe.Prober {
	if len(l.members) < 4 {
		ph.note = fmt.Sprintf("the job has %d host(s); two flows of four distinct hosts need at least 4", len(l.members))
		return nil
	}
	if rs.opt.Probe == ProbeAuto {
		if ph.auto = autoProbe(s, sw, rs.opt, len(l.members)); ph.auto == "" {
			return nil
		}
	}
	router, planned := probeRouters(s, sw, rs.opt, len(l.members))
	plan := probe.NewPlan(router)
	if plan.Classes() > MaxProbeClasses {
		ph.note = fmt.Sprintf("the job's %d hosts make %d classes of flows (a router's hosts to a host), more than the %d "+
			"the probe takes; probe an allocation of fewer hosts, or of more hosts a switch", len(l.members), plan.Classes(), MaxProbeClasses)
		return nil
	}
	pr := probe.NewProber(plan, ProbeSlowed, uint64(time.Now().UnixNano()))
	pr.Max.Pairs = MaxProbePairs
	ph.router, ph.planned = router, planned
	return pr
}

// probeProgress is what rank 0 says of the probe on stderr when the
// survey shows progress (--progress, or a terminal): every probeReport,
// and at the end (last).
func (rs *rankSurvey) probeProgress(pr *probe.Prober, start time.Time) func(last bool) {
	if pr == nil || rs.prog == nil {
		return func(bool) {}
	}
	w := cmp.Or(rs.opt.Stderr, io.Writer(os.Stderr))
	next := start.Add(probeReport)
	fmt.Fprintf(w, "latmap: probe: %d classes of flows, each alone, then random steps, then the pairs left two at a time\n", pr.Plan.Classes())
	return func(last bool) {
		if now := time.Now(); last || now.After(next) {
			next = now.Add(probeReport)
			fmt.Fprintf(w, "latmap: probe: %d steps alone, %d random (%d pairs of classes cleared), %d pairs judged of %d left, %.0f s\n",
				pr.Steps[0], pr.Steps[1], pr.ClearedByGroups, len(pr.Judged), pr.Left(), now.Sub(start).Seconds())
		}
	}
}

// probeRouters is each host's router (hosts in first-rank order): its
// group at the innermost switch level the latencies show, or
// --topology's (the switch phase's, sw; planned here where that phase
// is off), or each host its own; and where they came from
// (ProbeRouters).
func probeRouters(s *survey.Survey, sw *switchPhase, opt Options, hosts int) ([]int, string) {
	of, note := sw.of, sw.note
	if opt.SwitchBandwidth == SwitchBWOff && s != nil {
		_, of, note = topo.PlanSwitchGroups(s, opt.fabric)
	}
	return ProbeRouters(s, of, opt.levelsFrom(note), hosts)
}

// ProbeRouters is each of hosts' router for the probe: its group at the
// innermost of the switch levels of (of[0]) that came from from
// ("latencies", or the network description's path), where the latencies'
// groups are hosts nearer each other than any host outside
// (topo.NearestInside: behind one switch or router, whose flows to a
// destination leave the same way; a HyperX's rows are not); else each
// host its own, from "hosts".
func ProbeRouters(s *survey.Survey, of [][]int, from string, hosts int) ([]int, string) {
	router := make([]int, hosts)
	if len(of) > 0 && len(of[0]) == hosts && (from != "latencies" || s != nil && topo.NearestInside(s, of[0])) {
		copy(router, of[0])
		return router, from
	}
	for h := range router {
		router[h] = h
	}
	return router, "hosts"
}

// addProbe puts the probe's file and meta.json record into s, or a
// warning when it was asked for and did not run.
func addProbe(s *survey.Survey, opt Options, ph *probePhase) {
	if opt.Probe == ProbeOff || ph == nil || ph.stopped || opt.Probe == ProbeAuto && ph.auto == "" {
		return
	}
	if opt.Probe == ProbeAuto {
		s.Meta.Warnings = append(s.Meta.Warnings, "--probe auto: flows at once probed, as "+ph.auto)
	}
	if ph.meta == nil {
		s.Meta.Warnings = append(s.Meta.Warnings, "--probe "+opt.Probe+": "+ph.note+", so no flows were probed ("+survey.SharesFile+" not written)")
		return
	}
	s.Meta.Probe, s.Shares = ph.meta, ph.rows
	if m := ph.meta; m.Unjudged > 0 {
		s.Meta.Warnings = append(s.Meta.Warnings, fmt.Sprintf("--probe %s: %d pairs of classes of flows were left unjudged "+
			"after %d moved two at a time (%s lacks them)", opt.Probe, m.Unjudged, m.Judged, survey.SharesFile))
	}
}

// autoProbe is ProbeWanted on the switch levels the switch phase found
// (planned here where it was off); "" where the network is declared
// (--topology: place routes by it).
func autoProbe(s *survey.Survey, sw *switchPhase, opt Options, hosts int) string {
	if opt.Topology != "" {
		return ""
	}
	groups := sw.groups
	if opt.SwitchBandwidth == SwitchBWOff {
		groups, _, _ = topo.PlanSwitchGroups(s, nil)
	}
	return ProbeWanted(s, groups, hosts)
}

// ProbeWanted says why --probe auto probes the flows between a survey's
// hosts ("": it does not): where the job has at most MaxProbeAutoHosts
// hosts and its routers (groups, the switch phase's levels; the
// innermost) are two hops apart or more through routers outside the
// job (network.Discover's Far): the round trips then show no links
// between them, and which flows share one is what place prices
// (topo.ProbeShared). On two simulated fragments of a dragonfly wired as
// Cray XC's rows and columns, 16 hosts each, the survey's switch levels
// priced 19 of the held-out runs and speedups outside the simulated
// checks' bounds, the probe's shared links none (placement's
// TestSimBuiltAries).
func ProbeWanted(s *survey.Survey, groups []survey.HostGroup, hosts int) string {
	if hosts > MaxProbeAutoHosts || hosts < 4 {
		return ""
	}
	c := *s
	c.Switches = groups
	in, err := network.FromSurvey(&c)
	if err != nil {
		return ""
	}
	if far := network.Discover(in).Far; far != "" {
		return "the round trips show no links between the job's routers: " + far
	}
	return ""
}
