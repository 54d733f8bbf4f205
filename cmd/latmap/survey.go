package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/latmap/latmap/bench"
)

func newSurveyCmd() *cobra.Command {
	opt := bench.DefaultOptions("")
	var schedule string
	cmd := &cobra.Command{
		Use:   "survey -o DIR | survey --resume DIR",
		Short: "measure the round trip between every pair of MPI ranks",
		Long: `survey measures the MPI round trip between every pair of ranks, and where
each rank ran, into the survey directory that plot, topo, compare and place
read. Run it under mpirun, mpiexec or srun, with at least 2 ranks; rank 0
writes DIR. Its phases, scopes and schedules: latmap help phases; more in
docs/survey.md.`,
		Example: `  mpirun -np 64 latmap survey -o cluster/
  srun -n 64 latmap survey -o cluster/ --sizes 8,1K,64K
  srun -N 512 -n 32768 latmap survey -o big/ --scope nodes --time-budget 30m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("nodebw-size") && opt.NodeBandwidth == bench.NodeBWOff && opt.SwitchBandwidth == bench.SwitchBWOff && opt.Probe != bench.ProbeOn {
				return fmt.Errorf("--nodebw-size sets the node and switch phases' and the probe's message size, " +
					"and --node-bandwidth off, --switch-bandwidth off and no --probe on leave none to run; drop it, or turn one on")
			}
			opt.Schedule = bench.Schedule(schedule)
			opt.Stderr = cmd.ErrOrStderr()
			opt.CommandLine = os.Args
			return bench.Run(cmd.Context(), opt)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opt.Out, "output", "o", "", "survey `DIR` to write (required, except with --resume)")
	f.StringVar(&opt.SizeSpec, "sizes", bench.DefaultSizeSpec, "message sizes in bytes: 64,1K,1M (K, M, G suffixes); two or more give fit.csv")
	f.IntVar(&opt.Repeats, "repeats", bench.DefaultRepeats, "timed round trips per pair and size")
	f.IntVar(&opt.Burst, "burst", bench.DefaultBurst, "round trips in a row each time a pair meets (1: like mmpi)")
	f.IntVar(&opt.Warmup, "warmup", bench.DefaultWarmup, "untimed round trips per pair and size")
	f.StringVar(&schedule, "schedule", string(bench.Rounds), "rounds (disjoint pairs at once) or sequential (one pair at a time)")
	f.Float64Var(&opt.IsolatedFraction, "isolated-fraction", bench.DefaultIsolatedFraction, "share of pairs measured again alone (0: none)")
	f.StringVar(&opt.NodeBandwidth, "node-bandwidth", bench.NodeBWAuto, "node bandwidth phases: on, off, auto (on over 2 or more hosts)")
	f.StringVar(&opt.NodeBWSizeSpec, "nodebw-size", "1M", "message size of the bandwidth phases")
	f.StringVar(&opt.SwitchBandwidth, "switch-bandwidth", bench.SwitchBWAuto, "switch phase: on, off, auto (on when the latencies show switches)")
	f.StringVar(&opt.Probe, "probe", bench.ProbeAuto, "flows at once (shares.csv): auto, on, off")
	f.StringVar(&opt.SizeSweep, "size-sweep", bench.SizeSweepOn, "size sweep phase: on or off (auto: on)")
	f.StringVar(&opt.Topology, "topology", "", "network description `FILE` whose levels the switch phase measures")
	f.StringVar(&opt.Scope, "scope", bench.ScopeAuto, "which pairs: all, nodes, sample:K, auto (all up to 2,048 ranks, else sample:4)")
	durationVar(f, &opt.TimeBudget, "time-budget", 0, "fit in this time (10m, 1h) with fewer repeats or pairs (0: no bound)")
	f.StringVar(&opt.Resume, "resume", "", "complete a stopped or killed survey `DIR` (same hosts, same order)")
	f.StringVar(&opt.Mmpi, "mmpi", "", "also write the smallest size as an mmpi log to `FILE`")
	f.BoolVar(&opt.Progress, "progress", false, "show progress on rank 0's stderr even if no terminal")
	f.BoolVarP(&opt.Force, "force", "f", false, "replace existing output")
	cmd.RegisterFlagCompletionFunc("node-bandwidth", cobra.FixedCompletions([]string{bench.NodeBWAuto, bench.NodeBWOn, bench.NodeBWOff}, cobra.ShellCompDirectiveNoFileComp))
	cmd.RegisterFlagCompletionFunc("switch-bandwidth", cobra.FixedCompletions([]string{bench.SwitchBWAuto, bench.SwitchBWOn, bench.SwitchBWOff}, cobra.ShellCompDirectiveNoFileComp))
	cmd.RegisterFlagCompletionFunc("probe", cobra.FixedCompletions([]string{bench.ProbeAuto, bench.ProbeOn, bench.ProbeOff}, cobra.ShellCompDirectiveNoFileComp))
	cmd.RegisterFlagCompletionFunc("size-sweep", cobra.FixedCompletions([]string{bench.SizeSweepOn, bench.SizeSweepOff}, cobra.ShellCompDirectiveNoFileComp))
	cmd.RegisterFlagCompletionFunc("scope", cobra.FixedCompletions([]string{bench.ScopeAuto, "all", "nodes", "sample:4"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.RegisterFlagCompletionFunc("schedule", cobra.FixedCompletions([]string{"rounds", "sequential"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
