package main

import (
	"github.com/spf13/cobra"

	"github.com/latmap/latmap/cmd/latmap/internal/driver"
)

func newPlotCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plot SURVEY|PROFILE -o FILE.png",
		Short: "draw a survey's latency surface or a profile (PNG, SVG or PDF)",
		Long: `Plot draws a survey directory or an mmpi log: the rank x rank round-trip
matrix, blue fast and red slow, rank 0 at the lower left (styles heatmap,
surface, histogram). Given a profile directory (latmap profile), it draws
the profile (styles ranks, functions, matrix, sizes).

  latmap plot cluster/ -o cluster.png
  latmap plot cluster/ -o host.svg --order host
  latmap plot bw.dat -o bw-std.png --metric std
  latmap plot cluster/ -o surface.pdf --style surface
  latmap plot cluster/ -o levels.png --style histogram
  latmap plot app/ -o ranks.png                        time per rank, stacked
  latmap plot app/ -o functions.svg --style functions  time per MPI function
  latmap plot app/ -o matrix.png --style matrix        bytes from rank to rank
  latmap plot app/ -o rows.png --style matrix --comm rows   one communicator's (by its
                                                       MPI_Comm_set_name name or comms.csv key)
  latmap plot app/ -o sizes.png --style sizes          message-size histogram`,
		Args: cobra.ExactArgs(1),
	}
	req := driver.PlotRequest{}
	f := cmd.Flags()
	f.StringVarP(&req.Output, "output", "o", "", "picture to write; .png (default), .svg or .pdf (required)")
	f.StringVar(&req.Metric, "metric", "auto", "surveys: mean, median, min, p99 or std (auto: median, or mean for mmpi logs); profiles' matrix: bytes, messages or time")
	f.StringVar(&req.Order, "order", "rank", "rank, or host (grouped by host, socket, cpu, with lines between hosts)")
	f.StringVar(&req.Style, "style", "", "surveys: heatmap (default), surface (3-D view) or histogram (round trips per inferred level); profiles: ranks (default), functions, matrix or sizes")
	f.StringVar(&req.Comm, "comm", "", "profiles' matrix: one communicator's, by its MPI_Comm_set_name name or its key in comms.csv (w.1)")
	f.IntVar(&req.Size, "size", -1, "message size in bytes (default: the smallest measured)")
	f.StringVar(&req.HostPattern, "host-pattern", "", "for mmpi logs: regular expression extracting node names from processor names")
	f.BoolVarP(&req.Force, "force", "f", false, "replace an existing picture")
	cmd.MarkFlagRequired("output")
	cmd.RunE = func(c *cobra.Command, args []string) error {
		req.Input, req.Out = args[0], c.ErrOrStderr()
		return driver.Plot(req)
	}
	return cmd
}
