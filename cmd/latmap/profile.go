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
		Use:   "profile -o DIR [--slt] [--collective-wait] [--collectives-in-matrix] [--call-sites[=DEPTH]] [--window FUNC:START:END] -- LAUNCH COMMAND...",
		Short: "profile an MPI application through the PMPI library liblatmap.so",
		Long: `profile runs the launch command (mpirun, mpiexec or srun and the application)
with lib/liblatmap.so loaded into every rank through LD_PRELOAD, and writes
the profile directory (meta.json, ranks.csv, functions.csv, matrix.csv,
sizes.csv) when the application reaches MPI_Finalize. A run that fails or
is ended before it (a job's time limit, scancel, a crash) writes a partial
profile from what every rank wrote of its figures, every --flush-every
(meta.json's partial says up to when), or nothing when a rank never did;
latmap exits with the launcher's status either way.

  latmap profile -o app/ -- mpirun -np 64 ./app args
  latmap profile -o app/ --slt --collective-wait -- srun -n 64 ./app
  latmap profile -o app/ --call-sites -- mpirun -np 64 ./app
  latmap report app/

--call-sites[=DEPTH] also records where in the application each MPI call
came from (DEPTH return addresses above the call, 1 by default; latmap's
own frames are left out) and writes callsites.csv and sites.csv: each site
named by function, file and line from the binary's and its libraries' debug
information (compile with -g; without it, the object and the address).`,
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
	f.StringVarP(&opt.Out, "output", "o", "", "profile directory to write (required)")
	f.BoolVarP(&opt.Force, "force", "f", false, "replace the output directory if it exists")
	f.BoolVar(&opt.SLT, "slt", false, "measure send-late time with tokens on shadow communicators (w_xxx)")
	f.BoolVar(&opt.CollectiveWait, "collective-wait", false, "time a barrier inserted before each blocking collective (b_xxx)")
	f.BoolVar(&opt.CollectivesInMatrix, "collectives-in-matrix", false, "add each collective's generic point-to-point equivalent to matrix.csv")
	f.IntVar(&opt.CallSites, "call-sites", 0, "record MPI time per call site, DEPTH frames above each MPI call (--call-sites alone: 1; at most 16)")
	f.Lookup("call-sites").NoOptDefVal = "1"
	f.Float64Var(&opt.FlushSeconds, "flush-every", 30, "seconds between each rank's writes of its figures so far, for a partial profile if the run never reaches MPI_Finalize (0: none)")
	f.StringVar(&opt.Window, "window", "", "profile only from the START-th to the END-th call of a collective, FUNC:START:END")
	f.StringVar(&opt.Reorder.Survey, "reorder", "", "a survey of the machine the job runs on: each MPI_Cart_create, MPI_Graph_create or MPI_Dist_graph_create(_adjacent) with reorder = 1 renumbers its processes by latmap place --same-slots (opt-in: a program that uses the new ranks on another communicator breaks; docs/profile.md)")
	f.StringVar(&opt.Reorder.Matrix, "reorder-matrix", "", "with --reorder: an earlier profile's matrix.csv, the bytes between grid neighbours (default: one message a neighbour)")
	f.Float64Var(&opt.Reorder.Timeout, "reorder-timeout", 60, "with --reorder: seconds each call's latmap place may take before MPI's numbering is kept")
	f.StringVar(&opt.Reorder.Remap, "remap", "", "a latmap place --same-slots --json advice: MPI_COMM_WORLD is renumbered at MPI_Init so that the process on the slot the proposal gives rank r is rank r (the launcher's file unchanged; docs/profile.md)")
	f.StringVar(&opt.Lib, "lib", "", "the interposition library (default $LATMAP_LIB or ../lib/liblatmap.so beside latmap)")
	f.StringVar(&opt.Launcher, "launcher", "", "how to inject the library: openmpi, hydra or slurm (default: detected)")
	cmd.MarkFlagRequired("output")
	return cmd
}
