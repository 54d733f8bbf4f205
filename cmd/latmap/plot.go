package main

import (
	"github.com/spf13/cobra"

	"github.com/latmap/latmap/cmd/latmap/internal/driver"
)

func newPlotCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plot SURVEY|PROFILE -o FILE.png",
		Short: "draw a survey's latency surface or a profile (PNG, SVG, PDF)",
		Long: `plot draws a survey (a directory or an mmpi log) or a profile directory as a
PNG, SVG or PDF picture, by -o's extension. A survey's styles: heatmap, the
rank x rank round-trip matrix, blue fast and red slow, rank 0 at the lower
left; surface, the same in 3-D; histogram, the round trips of each level
found. A profile's: ranks (each rank's time, stacked), functions (time per
MPI function), matrix (bytes from rank to rank), sizes (message-size
histogram). More: docs/plots.md.`,
		Example: `  latmap plot cluster/ -o cluster.png
  latmap plot cluster/ -o host.svg --order host --style surface
  latmap plot app/ -o matrix.png --style matrix --comm rows`,
		Args: exactArgs(1),
	}
	req := driver.PlotRequest{}
	f := cmd.Flags()
	f.StringVarP(&req.Output, "output", "o", "", "picture to write: .png, .svg or .pdf (required)")
	f.StringVar(&req.Metric, "metric", "auto", "surveys: mean, median, min, p99, std, auto (median; mmpi: mean); matrix: bytes, messages, time")
	f.StringVar(&req.Order, "order", "rank", "rank, or host (by host, socket and cpu, lines between hosts)")
	f.StringVar(&req.Style, "style", "", "surveys: heatmap (default), surface, histogram; profiles: ranks (default), functions, matrix, sizes")
	f.StringVar(&req.Comm, "comm", "", "matrix of one communicator: its MPI_Comm_set_name name, or its key in comms.csv (w.1)")
	f.IntVar(&req.Size, "size", -1, "message size in bytes (-1: the smallest measured)")
	f.StringVar(&req.HostPattern, "host-pattern", "", "`RE` of node names in an mmpi log's processor names")
	f.BoolVarP(&req.Force, "force", "f", false, "replace an existing picture")
	cmd.MarkFlagRequired("output")
	cmd.RunE = func(c *cobra.Command, args []string) error {
		req.Input, req.Out = args[0], c.ErrOrStderr()
		return wrote(c, req.Output, driver.Plot(req))
	}
	return cmd
}
