package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/latmap/latmap/bench"
)

func newSurveyCmd() *cobra.Command {
	opt := bench.DefaultOptions("")
	var schedule string
	cmd := &cobra.Command{
		Use:   "survey -o DIR | survey --resume DIR",
		Short: "Measure the round-trip latency between every pair of MPI ranks",
		Long: `survey runs under an MPI launcher and measures the MPI ping-pong round trip
between every pair of ranks, records where each rank ran (host, cpu, socket,
NUMA node, L3), and writes the survey directory DIR on rank 0:
meta.json, ranks.csv, pairs.csv, fit.csv (each pair's latency and bandwidth
fitted over the sizes: the default sizes 64,64K measure both), and when the
ranks span several hosts nodebw.csv (each node's bandwidth with all its
ranks sending at once against one rank alone), and when the latencies show
switches above the nodes switches.csv (each host's switch group at each
level) and switchbw.csv (what a group's uplinks carry with all its hosts
sending outside it at once), which latmap place prices uplink sharing with,
and sweep.csv (rank 0 with one rank of each kind timed at every size from
64 B up in steps of two), which latmap place prices messages between the
sizes with: MPI's time is not a line between two sizes.
With --topology FILE (the site's description of the network) the switch
phase measures the levels FILE declares instead, and latmap place
--topology FILE then prices each class of declared links at what the
phase measured of it.

  mpirun -np 64 latmap survey -o cluster/
  srun -n 64 latmap survey -o cluster/ --sizes 8,1K,64K
  mpirun -np 32 latmap survey -o run/ --sizes 256 --mmpi run.dat    an mmpi log too
  srun -n 1024 latmap survey -o df/ --topology /etc/slurm/topology.conf

The default schedule measures disjoint pairs at the same time (circle-method
rounds) and then re-measures a sample of pairs alone to report the
interference; --schedule sequential measures one pair at a time like mmpi
(and re-measures a sample with the waiting ranks asleep).

--scope says which pairs: all (every pair), nodes (every pair inside each
node, all nodes at once, and every pair of node leaders, the nodes' lowest
ranks) or sample:K (nodes plus K random cross-node pairs per node, checked
against their leaders). The default, auto, measures every pair up to 2048
ranks and sample:4 above. Readers fill the cross-node pairs a nodes or
sample survey did not measure from the pairs measured between the same two
nodes (the leaders' pair; for sample:K the median of it and the samples),
and say so.

  srun -N 512 -n 32768 latmap survey -o big/ --scope nodes

See docs/survey.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opt.Schedule = bench.Schedule(schedule)
			opt.Stderr = cmd.ErrOrStderr()
			opt.CommandLine = os.Args
			return bench.Run(cmd.Context(), opt)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opt.Out, "output", "o", "", "survey directory to write (required)")
	f.StringVar(&opt.SizeSpec, "sizes", bench.DefaultSizeSpec, "message sizes in bytes, comma-separated; K, M, G suffixes (64,1K,1M); two or more write fit.csv (latency and bandwidth per pair), which latmap place prices with")
	f.IntVar(&opt.Repeats, "repeats", bench.DefaultRepeats, "timed round trips per pair and size")
	f.IntVar(&opt.Burst, "burst", bench.DefaultBurst, "timed round trips in a row each time a pair meets (repeats are measured in passes of this many; 1 = one per pass, like mmpi)")
	f.IntVar(&opt.Warmup, "warmup", bench.DefaultWarmup, "untimed round trips per pair and size before timing")
	f.StringVar(&schedule, "schedule", string(bench.Rounds), "rounds (disjoint pairs at the same time) or sequential (one pair at a time, like mmpi)")
	f.Float64Var(&opt.IsolatedFraction, "isolated-fraction", bench.DefaultIsolatedFraction, "share of pairs re-measured alone for the interference figure (at least N pairs, at most 4096, at most 16 with sequential; 0 turns it off)")
	f.StringVar(&opt.NodeBandwidth, "node-bandwidth", bench.NodeBWAuto, "measure each node's aggregate off-node bandwidth (nodebw.csv), what a message's way back carries (two nodes sending to each other at once against one alone), and on 3 or more hosts how many links a node drives at once (its fan-out to its nearest hosts): auto (when the ranks span 2 or more hosts), on or off")
	f.StringVar(&opt.NodeBWSizeSpec, "nodebw-size", "1M", "message size of the node and switch bandwidth phases (K, M suffixes)")
	f.StringVar(&opt.SwitchBandwidth, "switch-bandwidth", bench.SwitchBWAuto, "find the switch levels above the nodes in the latencies and measure each switch group's uplinks with all its hosts sending out at once (switches.csv, switchbw.csv): auto (when there are switch levels), on or off")
	f.StringVar(&opt.SizeSweep, "size-sweep", bench.SizeSweepOn, "after the pairs, time rank 0 with one rank of each kind (same socket, other socket, the second and the last host) at every size from 64 B to the largest --sizes (at least 1 MiB) in steps of two (sweep.csv: latmap place prices each message at its own size): on (auto is on) or off")
	f.StringVar(&opt.Topology, "topology", "", "a network description (SimGrid platform, Slurm topology.conf or topology.yaml, plain torus/dragonfly; docs/place.md) whose levels above the nodes (switches; a dragonfly's routers, chassis, groups) the switch phase measures instead of the levels found in the latencies")
	f.StringVar(&opt.Scope, "scope", bench.ScopeAuto, "which pairs to measure: all, nodes (pairs inside each node + node leaders), sample:K (nodes + K cross-node pairs per node), auto (all up to 2048 ranks, else sample:4)")
	f.DurationVar(&opt.TimeBudget, "time-budget", 0, "bound the measurement (10m, 1h): a probe round at each size estimates the survey, which lowers --repeats (never below 10) or narrows scope all to nodes to fit; recorded in meta.json (0: no bound)")
	f.StringVar(&opt.Resume, "resume", "", "complete a survey stopped early (SIGTERM, Ctrl-C) or killed (from the journals its ranks left in DIR.journal): keep its sizes measured with at least 10 round trips a pair, measure the other --sizes, the isolation sample and the node and switch phases, and write the whole survey over it (-o defaults to it); run it on the same hosts in the same order")
	f.StringVar(&opt.Mmpi, "mmpi", "", "also write the smallest size's results as an mmpi log to this file")
	f.BoolVar(&opt.Progress, "progress", false, "show progress on rank 0's stderr even when it is not a terminal (under mpirun it never is)")
	f.BoolVarP(&opt.Force, "force", "f", false, "replace existing output")
	cmd.RegisterFlagCompletionFunc("node-bandwidth", cobra.FixedCompletions([]string{bench.NodeBWAuto, bench.NodeBWOn, bench.NodeBWOff}, cobra.ShellCompDirectiveNoFileComp))
	cmd.RegisterFlagCompletionFunc("switch-bandwidth", cobra.FixedCompletions([]string{bench.SwitchBWAuto, bench.SwitchBWOn, bench.SwitchBWOff}, cobra.ShellCompDirectiveNoFileComp))
	cmd.RegisterFlagCompletionFunc("size-sweep", cobra.FixedCompletions([]string{bench.SizeSweepOn, bench.SizeSweepOff}, cobra.ShellCompDirectiveNoFileComp))
	cmd.RegisterFlagCompletionFunc("scope", cobra.FixedCompletions([]string{bench.ScopeAuto, "all", "nodes", "sample:4"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.RegisterFlagCompletionFunc("schedule", cobra.FixedCompletions([]string{"rounds", "sequential"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
