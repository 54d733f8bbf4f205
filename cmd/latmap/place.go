package main

import (
	"errors"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/latmap/latmap/internal/exitcode"
	"github.com/latmap/latmap/mapper/fabric"
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/placement"
	"github.com/latmap/latmap/placement/model"
	"github.com/latmap/latmap/placement/qap"
	"github.com/latmap/latmap/plots/report"
)

func newPlaceCmd() *cobra.Command {
	var opt placement.Options
	var asJSON bool
	var qapFile string
	var qapOpt qap.Options
	def := model.DefaultBandwidths()
	cmd := &cobra.Command{
		Use:   "place --survey DIR (--profile DIR | --matrix CSV) [-o FILE --format F] [-- APP ARGS...]",
		Short: "propose a rank placement, its predicted gain and the launcher file",
		Long: `place turns a latency survey (how fast each pair of slots talks) and a
communication profile or matrix (how much each pair of ranks talks) into a
rank-to-core/node placement that minimises the predicted run (the slowest
rank's computation, waits and modelled communication, with each node's link
and memory shared by its ranks), compares it with the current, block and
cyclic placements and a perfect interconnect, checks the model against the
run the profile measured, says whether it is worth using, and writes the
file the launcher takes (only when it is: --always-write writes it anyway;
otherwise latmap exits with status 3 and -o's file is not written).

  latmap place --survey cluster/ --profile app/ -o app.rankfile -- ./app
  latmap place --survey cluster/ --matrix comm.csv --format slurm -o hosts
  latmap place --qaplib nug12.dat          general QAP local search on a QAPLIB instance

Formats: openmpi (rankfile), mpich (Hydra machine file, binding=user: per line),
slurm (SLURM_HOSTFILE + --cpu-bind=map_cpu:), cray (MPICH_RANK_ORDER).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkRanges(cmd, atLeast("trials", 1), atLeast("restarts", 1), positive("bandwidth-socket", "GB/s"),
				positive("bandwidth-node", "GB/s"), positive("bandwidth-net", "GB/s")); err != nil {
				return err
			}
			opt.App = args
			return runPlace(cmd.OutOrStdout(), opt, asJSON, qapFile, qapOpt)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opt.Survey, "survey", "", "survey directory (latmap survey or latmap import), or an mmpi log")
	f.StringVar(&opt.HostPattern, "host-pattern", "", "for mmpi logs: regular expression extracting node names from processor names")
	f.StringVar(&opt.Profile, "profile", "", "profile directory (latmap profile)")
	f.StringVar(&opt.Matrix, "matrix", "", "communication matrix CSV: src,dst,bytes,messages")
	f.StringVar(&opt.Reruns, "reruns", "", "a latmap verify directory whose current runs were the profiled placement: the prediction of that placement is judged against their application times (out of sample), and the verdict weighs the gain against that error too")
	f.StringVar(&opt.Current, "current", "", "a placement file (Open MPI rankfile, MPICH machine file, Slurm hostfile, Cray rank order) to score as the current placement: the layout used today, or another tool's")
	f.BoolVar(&opt.SameSlots, "same-slots", false, "propose over the current placement's own slots only (--current, or the profile's): a renumbering of the processes where they are, which latmap profile --reorder applies inside the job")
	f.StringVar(&opt.Renumber, "renumber", "", "with --same-slots: write the proposal as a renumbering (line i: the new rank of the process that is rank i now) to this file")
	f.IntVar(&opt.Ranks, "ranks", 0, "number of ranks of --matrix (default: largest rank named + 1)")
	f.StringVarP(&opt.Output, "output", "o", "", "launcher file to write")
	f.StringVar(&opt.Format, "format", placement.FormatAuto, "launcher file format: "+strings.Join(placefile.Formats(), ", ")+"; auto: openmpi5 when the mpirun on PATH is Open MPI 5 (its rankfiles name logical cores), else openmpi")
	f.BoolVarP(&opt.Force, "force", "f", false, "replace an existing -o file")
	f.BoolVar(&opt.AlwaysWrite, "always-write", false, "write -o's file even when the verdict does not advise the proposal (a gain under 2% or under the model's measured error)")
	f.BoolVar(&opt.AcceptUnbound, "accept-unbound", false, "take an unbound profile's starting cpus as the placement it ran under (they may have moved)")
	f.BoolVar(&asJSON, "json", false, "print the whole advice as JSON (a versioned schema: docs/place.md)")
	f.IntVar(&opt.Select.RanksPerNode, "ranks-per-node", 0, "at most this many ranks on one node (0: no limit)")
	f.StringSliceVar(&opt.Select.Exclude, "exclude", nil, "hosts not to use (repeat or comma-separate)")
	f.Float64Var(&opt.Costs.Bandwidth.Socket, "bandwidth-socket", def.Socket, "GB/s between cores of one socket when the survey has no fit.csv")
	f.Float64Var(&opt.Costs.Bandwidth.Node, "bandwidth-node", def.Node, "GB/s between sockets of one node when the survey has no fit.csv")
	f.Float64Var(&opt.Costs.Bandwidth.Network, "bandwidth-net", def.Network, "GB/s between nodes when the survey has no fit.csv")
	f.StringArrayVar(&opt.Topology, "topology", nil, "the network's description (a SimGrid platform file, Slurm's topology.conf, or a plain torus/dragonfly description; docs/place.md): route every flow over its links and price each link's load, instead of the node links and switch levels the survey infers")
	f.StringVar(&opt.Model.Routing, "routing", fabric.RoutingStatic, "how the network (--topology's, or one found in the survey) picks among parallel paths: static (one path per pair, as the machine routes it: d-mod-k on a fat tree, dimension order on a torus, minimal on a dragonfly) or adaptive (spread evenly over the parallel uplinks or shortest paths)")
	f.StringArrayVar(&opt.WhatIf, "what-if", nil, "predict the run on a changed network, [CLASS:]bw=FACTOR[,lat=FACTOR] (repeatable): CLASS is a link class of --topology's network (blue, up-1, torus-x, ...; all by default), bw multiplies its links' bandwidth, lat the latency between nodes; prints what runs today and a placement made for that network")
	f.Float64Var(&opt.Model.NodeGBps, "node-link", 0, "GB/s of each node's link to the network, each way, instead of the survey's nodebw.csv (or, without it, one pair's bandwidth between nodes for both ways)")
	f.Float64Var(&opt.Model.MemoryGBps, "memory-bandwidth", 0, "GB/s of each node's shared-memory transfers between its ranks (default: the on-node pair bandwidth x half the node's slots)")
	f.BoolVar(&opt.Model.NoContention, "no-contention", false, "model each pair alone: no node link or memory shared by a node's ranks")
	f.BoolVar(&opt.Costs.IgnoreFit, "ignore-fit", false, "use the smallest size's latency and the --bandwidth-* values even when fit.csv exists")
	f.Uint64Var(&opt.Solve.Seed, "seed", placement.DefaultSeed, "seed of the solver's randomised trials")
	f.IntVar(&opt.Solve.Trials, "trials", 3, "multilevel trials (more may find better placements, slower)")
	f.StringVar(&qapFile, "qaplib", "", "solve a QAPLIB instance file with the general QAP local search instead")
	f.IntVar(&qapOpt.Restarts, "restarts", 16, "restarts of the --qaplib local search")
	return cmd
}

// runPlace is latmap place once its flags are read: --qaplib's instance
// solved, or the advice made (placement.Run) and written (report.Place),
// exiting with status 3 when -o's file was not written.
func runPlace(out io.Writer, opt placement.Options, asJSON bool, qapFile string, qapOpt qap.Options) error {
	if qapFile != "" {
		qapOpt.Seed = opt.Solve.Seed
		return qap.RunFile(out, qapFile, qapOpt, asJSON)
	}
	opt.Format = strings.ToLower(opt.Format)
	a, err := placement.Run(opt)
	if err != nil {
		return err
	}
	if err := report.Place(out, a, asJSON); err != nil {
		return exitcode.With(exitcode.Failed, err)
	}
	if a.NotWritten != "" {
		// A script's "place -o F && mpirun ... F" must not run on a
		// missing or stale F.
		return exitcode.With(exitcode.NoAdvice, errors.New(a.NotWritten))
	}
	return nil
}
