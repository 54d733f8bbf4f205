package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/latmap/latmap/internal/exitcode"
	"github.com/latmap/latmap/interpose"
)

func newProfileCmd() *cobra.Command {
	var opt interpose.RunOptions
	cmd := &cobra.Command{
		Use:   "profile -o DIR [flags] -- LAUNCH COMMAND...",
		Short: "profile an MPI application through latmap's PMPI library",
		Long: `profile runs the launch command (mpirun, mpiexec or srun and the application)
with latmap's PMPI library in every rank (LD_PRELOAD, no relinking) and
writes the profile directory DIR when the application reaches MPI_Finalize
(meta.json, ranks.csv, functions.csv, matrix.csv, sizes.csv). A run that
fails or is ended before it writes a partial profile from what each rank
last flushed, and latmap exits with status 4, naming the launcher's.

--call-sites[=DEPTH] also writes callsites.csv and sites.csv: the MPI time
of each place in the code the calls came from, DEPTH frames up, named by
function, file and line (compile with -g). --remap and --reorder renumber
ranks inside the job: latmap help files. More: docs/profile.md.`,
		Example: `  latmap profile -o app/ -- mpirun -np 64 ./app args
  latmap profile -o app/ --slt --collective-wait -- srun -n 64 ./app
  latmap profile -o app/ --call-sites -- mpirun -np 64 ./app`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opt.Command = args
			opt.Stdin, opt.Stdout, opt.Stderr = cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()
			err := interpose.Run(cmd.Context(), opt)
			var ee *interpose.ExitError
			if errors.As(err, &ee) {
				return exitcode.With(exitcode.JobFailed, err)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opt.Out, "output", "o", "", "profile `DIR` to write (required)")
	f.BoolVarP(&opt.Force, "force", "f", false, "replace an existing output directory")
	f.BoolVar(&opt.SLT, "slt", false, "measure send-late time (w_xxx)")
	f.BoolVar(&opt.CollectiveWait, "collective-wait", false, "measure collective wait, a barrier before each collective (b_xxx)")
	f.BoolVar(&opt.CollectivesInMatrix, "collectives-in-matrix", false, "add each collective to matrix.csv as its point-to-point messages")
	f.IntVar(&opt.CallSites, "call-sites", 0, "record MPI time per call site, `DEPTH` frames up (1 to 16)")
	f.Lookup("call-sites").NoOptDefVal = "1"
	secondsVar(f, &opt.FlushSeconds, "flush-every", 30, "time between each rank's flushes, for a partial profile (0: none)")
	f.StringVar(&opt.Window, "window", "", "FUNC:START:END: profile only calls START to END of collective FUNC")
	f.StringVar(&opt.Reorder.Survey, "reorder", "", "survey `DIR`: MPI_Cart_create and graphs with reorder = 1 renumber by it")
	f.StringVar(&opt.Reorder.Matrix, "reorder-matrix", "", "with --reorder: an earlier profile's matrix `FILE` to weigh neighbours")
	secondsVar(f, &opt.Reorder.Timeout, "reorder-timeout", 60, "with --reorder: time each renumbering may take")
	f.StringVar(&opt.Reorder.Remap, "remap", "", "renumber ranks at MPI_Init by place --same-slots --json `ADVICE`")
	f.StringVar(&opt.Lib, "lib", "", "the PMPI library `FILE` (default: $LATMAP_LIB, else ../lib/liblatmap.so beside latmap)")
	f.StringVar(&opt.Launcher, "launcher", "", "openmpi, hydra or slurm (default: from the command)")
	cmd.MarkFlagRequired("output")
	return cmd
}
