package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/latmap/latmap/internal/exitcode"
	"github.com/latmap/latmap/placement/verify"
)

func newVerifyCmd() *cobra.Command {
	var opt verify.Options
	cmd := &cobra.Command{
		Use:   "verify -o DIR --rankfile FILE [--place advice.json] [--runs K] -- LAUNCH COMMAND...",
		Short: "measure a placement's gain for real: the launch command as given against the same with the placement file",
		Long: `Verify runs the launch command as given ("current") and with the placement
file latmap place wrote ("proposal"), alternating, K times each, and
records every run's wall time, the application's own run and exit status
(DIR/runs.csv), the medians, the measured speedups with their 95%
intervals and, with --place, the speedup latmap place predicted
(DIR/meta.json).

The application's run is what latmap place predicts: MPI_Init to
MPI_Finalize of the slowest rank, timed by latmap's library (LD_PRELOAD,
forwarded by the launcher, every MPI call passed through untouched).
The launcher's start and end (the rest of the wall time) are the same for
both placements and are reported apart. --lib none times whole launches
only (a program the library cannot be loaded into).

Mapping options of the launch line (--map-by, --bind-to, -npernode; Hydra's
-bind-to, -ppn, -f; srun's --distribution, --cpu-bind) are replaced for
the proposal runs by the file, inserted as the launcher takes it (Open MPI
-rf, Hydra -f, srun --distribution=arbitrary with SLURM_HOSTFILE); both
commands are printed. A failed run stops the verification, with its output
(exit status 4). Everything verify can check (the flags, the files, the
rankfile's ranks against -np, -o's parent) is checked before the first
launch. A gain whose 95% interval reaches 1 (not measured) ends with exit
status 3, the results written.

  latmap place --survey cluster/ --profile app/ -o app.rankfile --json > advice.json
  latmap verify -o verify/ --rankfile app.rankfile --place advice.json -- mpirun -np 64 --map-by node ./app`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt.Command, opt.Out = args, cmd.OutOrStdout()
			v, err := verify.Run(cmd.Context(), opt)
			if err != nil {
				return err
			}
			if msg := verify.Unconfirmed(v); msg != "" {
				return exitcode.With(exitcode.NoAdvice, errors.New(msg))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opt.Output, "output", "o", "", "verification directory to write (runs.csv, meta.json)")
	f.StringVar(&opt.File, "rankfile", "", "the placement file latmap place wrote (rankfile, machine file or Slurm hostfile)")
	f.StringVar(&opt.Place, "place", "", "latmap place --json output, to compare the measured speedup with the predicted one")
	f.IntVar(&opt.Runs, "runs", 5, "runs of each variant")
	f.StringVar(&opt.Format, "format", "", "the file's format when it has no latmap header (a hand-made or another tool's file): openmpi, mpich or slurm (default: from the header)")
	f.StringVar(&opt.Launcher, "launcher", "", "openmpi, hydra or slurm (default: detected from the command)")
	f.StringVar(&opt.Lib, "lib", "", "the library that times the application (default: lib/liblatmap.so beside latmap, or $LATMAP_LIB); none: time whole launches only")
	f.BoolVarP(&opt.Force, "force", "f", false, "replace an existing output directory")
	cmd.MarkFlagRequired("output")
	cmd.MarkFlagRequired("rankfile")
	return cmd
}
