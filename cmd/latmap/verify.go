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
		Short: "measure a placement's gain for real, in alternating runs",
		Long: `verify runs the launch command as given ("current") and with the placement
file latmap place wrote ("proposal"), alternating, K times each, and writes
every run (DIR/runs.csv), the medians and the measured speedup with its 95%
interval, and with --place the speedup place predicted (DIR/meta.json).

It compares what place predicts: the application's run from MPI_Init to
MPI_Finalize of the slowest rank, timed by latmap's library (every MPI call
passed on untouched); the launcher's start and end are reported apart.
--lib none times whole launches instead. For the proposal runs the launch
line's mapping options (--map-by, --bind-to, -npernode; Hydra's -bind-to,
-ppn, -f; srun's --distribution, --cpu-bind) give way to the file (Open MPI
-rf, Hydra -f, srun --distribution=arbitrary with SLURM_HOSTFILE); both
commands are printed. Everything is checked before the first launch. A
failed run stops it with its output (exit status 4); a speedup whose 95%
interval reaches 1 ends with status 3, the results written.`,
		Example: `  latmap place --survey cluster/ --profile app/ -o app.rankfile --json > advice.json
  latmap verify -o verify/ --rankfile app.rankfile --place advice.json -- mpirun -np 64 --map-by node ./app`,
		Args: minArgs(1),
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
	f.StringVarP(&opt.Output, "output", "o", "", "verification `DIR` to write (runs.csv, meta.json)")
	f.StringVar(&opt.File, "rankfile", "", "placement `FILE`: rankfile, machine file or Slurm hostfile")
	f.StringVar(&opt.Place, "place", "", "place --json output `FILE`, to set the measured speedup beside the predicted")
	f.IntVar(&opt.Runs, "runs", 5, "runs of each variant")
	f.StringVar(&opt.Format, "format", "", "openmpi, mpich or slurm, for a file without latmap's header (default: from it)")
	f.StringVar(&opt.Launcher, "launcher", "", "openmpi, hydra or slurm (default: from the command)")
	f.StringVar(&opt.Lib, "lib", "", "timing library (default: $LATMAP_LIB, else ../lib/liblatmap.so beside latmap); none: time launches")
	f.BoolVarP(&opt.Force, "force", "f", false, "replace an existing output directory")
	cmd.MarkFlagRequired("output")
	cmd.MarkFlagRequired("rankfile")
	return cmd
}
