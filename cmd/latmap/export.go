package main

import (
	"github.com/spf13/cobra"

	"github.com/latmap/latmap/plots/export"
)

func newExportCmd() *cobra.Command {
	var o export.Options
	cmd := &cobra.Command{
		Use:   "export FORMAT PROFILE -o FILE",
		Short: "write a profile for go tool pprof or Hatchet",
		Long: `export writes a profile directory for other analysis tools. Its samples are the
MPI time of each call path: the call sites of a profile taken with latmap
profile --call-sites[=DEPTH], else each MPI function. FORMAT is one of:

  pprof    gzipped profile.proto for go tool pprof (and Perfetto,
           speedscope): values mpi_time (the default), calls, bytes_sent,
           bytes_received, send_late, collective_wait; each sample's
           locations are the call site's frames, its labels the MPI
           function, the rank and the communicator (in pprof,
           -tagleaf=function puts the MPI functions as leaves and
           '-tagfocus=rank=^3$' keeps rank 3)
  hatchet  the literal call tree LLNL's Hatchet reads
           (hatchet.GraphFrame.from_literal(json.load(open(FILE)))): the
           program, the call sites' frames from main in, the MPI function;
           metrics "time" (MPI seconds) and "time (inc)", send-late,
           collective wait, calls, bytes, summed over ranks`,
		Example: `  latmap export pprof app/ -o app.pb.gz
  go tool pprof -top -lines app.pb.gz
  latmap export hatchet app/ -o app.json`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Format, o.Profile = args[0], args[1]
			return wrote(cmd, o.Output, export.Write(o))
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "file to write (required)")
	cmd.Flags().BoolVarP(&o.Force, "force", "f", false, "replace an existing file")
	cmd.MarkFlagRequired("output")
	return cmd
}
