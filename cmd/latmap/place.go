package main

import (
	"errors"
	"fmt"
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
		Use:   "place --survey DIR (--profile DIR | --matrix CSV) [-o FILE] [-- APP...]",
		Short: "propose a rank placement, its predicted gain and launcher file",
		Long: `place proposes the rank placement with the shortest predicted run and writes
the launcher's file if the gain is worth it (else exit status 3). See latmap
help model and files.`,
		Example: `  latmap place --survey cluster/ --profile app/ -o app.rankfile -- ./app
  latmap place --survey cluster/ --matrix comm.csv --format slurm -o hosts`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkRanges(cmd, atLeast("trials", 1), atLeast("restarts", 1), positive("bandwidth-socket", "GB/s"),
				positive("bandwidth-node", "GB/s"), positive("bandwidth-net", "GB/s")); err != nil {
				return err
			}
			if err := requires(cmd, "restarts", "qaplib", "it sets the restarts of the QAPLIB search only"); err != nil {
				return err
			}
			if err := alone(cmd, "qaplib", []string{"restarts", "seed", "json"}, "it solves a QAPLIB instance, which is the whole problem"); err != nil {
				return err
			}
			opt.App, opt.Notes = args, cmd.ErrOrStderr()
			return runPlace(cmd.OutOrStdout(), opt, asJSON, qapFile, qapOpt)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opt.Survey, "survey", "", "survey `DIR` or mmpi log")
	f.StringVar(&opt.HostPattern, "host-pattern", "", "`RE` of node names in an mmpi log")
	f.StringVar(&opt.Profile, "profile", "", "profile `DIR`")
	f.StringVar(&opt.Matrix, "matrix", "", "traffic `CSV`: src,dst,bytes,messages")
	f.StringVar(&opt.Reruns, "reruns", "", "verify `DIR` to check the model")
	f.StringVar(&opt.Current, "current", "", "placement `FILE` to score as current")
	f.BoolVar(&opt.SameSlots, "same-slots", false, "renumber ranks on the current slots")
	f.StringVar(&opt.Renumber, "renumber", "", "--same-slots: new ranks to `FILE`")
	f.IntVar(&opt.Ranks, "ranks", 0, "ranks of --matrix (0: largest + 1)")
	f.StringVarP(&opt.Output, "output", "o", "", "launcher `FILE` to write")
	f.StringVar(&opt.Format, "format", placement.FormatAuto, strings.Join(placefile.Formats(), ", ")+"; auto: openmpi5 under Open MPI 5")
	f.BoolVarP(&opt.Force, "force", "f", false, "replace an existing -o file")
	f.BoolVar(&opt.AlwaysWrite, "always-write", false, "write -o whatever the verdict")
	f.BoolVar(&opt.AcceptUnbound, "accept-unbound", false, "accept an unbound profile's cpus")
	f.BoolVar(&asJSON, "json", false, "print the advice as JSON")
	f.IntVar(&opt.Select.RanksPerNode, "ranks-per-node", 0, "at most `N` ranks a node (0: any)")
	f.StringSliceVar(&opt.Select.Exclude, "exclude", nil, "hosts not to use")
	f.Float64Var(&opt.Costs.Bandwidth.Socket, "bandwidth-socket", def.Socket, "`X` GB/s in a socket without fit.csv")
	f.Float64Var(&opt.Costs.Bandwidth.Node, "bandwidth-node", def.Node, "`X` GB/s in a node without fit.csv")
	f.Float64Var(&opt.Costs.Bandwidth.Network, "bandwidth-net", def.Network, "`X` GB/s between nodes without fit.csv")
	f.StringArrayVar(&opt.Topology, "topology", nil, "network `FILE` to route over (repeatable)")
	f.StringVar(&opt.Model.Routing, "routing", fabric.RoutingStatic, "static or adaptive: latmap help routing")
	f.StringArrayVar(&opt.WhatIf, "what-if", nil, "predict the run on a network changed by `C`")
	f.Float64Var(&opt.Model.NodeGBps, "node-link", 0, "`X` GB/s of a node's link (0: measured)")
	f.Float64Var(&opt.Model.MemoryGBps, "memory-bandwidth", 0, "`X` GB/s of a node's memory (0: measured)")
	f.BoolVar(&opt.Model.NoContention, "no-contention", false, "share nothing between ranks")
	f.BoolVar(&opt.Costs.IgnoreFit, "ignore-fit", false, "use --bandwidth-* even with fit.csv")
	f.Uint64Var(&opt.Solve.Seed, "seed", placement.DefaultSeed, "the solver's seed")
	f.IntVar(&opt.Solve.Trials, "trials", 3, "multilevel trials")
	f.StringVar(&qapFile, "qaplib", "", "solve a QAPLIB `FILE` instead")
	f.IntVar(&qapOpt.Restarts, "restarts", 16, "restarts of the --qaplib search")
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
	if opt.Notes != nil {
		// Every file written is said on standard error, as every command
		// says it: the text report says -o's file among its lines, the
		// JSON only in its "output" field.
		if asJSON && a.Output != "" && a.NotWritten == "" {
			fmt.Fprintf(opt.Notes, "latmap: wrote %s\n", a.Output)
		}
		if opt.Renumber != "" {
			fmt.Fprintf(opt.Notes, "latmap: wrote %s\n", opt.Renumber)
		}
	}
	if a.NotWritten != "" {
		// A script's "place -o F && mpirun ... F" must not run on a
		// missing or stale F.
		return exitcode.With(exitcode.NoAdvice, errors.New(a.NotWritten))
	}
	return nil
}
