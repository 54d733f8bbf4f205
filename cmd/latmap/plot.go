package main

import (
	"github.com/spf13/cobra"

	"github.com/latmap/latmap/plots"
)

func newPlotCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plot SURVEY -o FILE.png",
		Short: "draw a survey's latency surface (PNG, SVG or PDF)",
		Long: `Plot draws the rank x rank round-trip matrix of a survey directory or an
mmpi log: blue is fast, red is slow, rank 0 at the lower left.

  latmap plot cluster/ -o cluster.png
  latmap plot cluster/ -o host.svg --order host
  latmap plot bw.dat -o bw-std.png --metric std
  latmap plot cluster/ -o surface.pdf --style surface
  latmap plot cluster/ -o levels.png --style histogram`,
		Args: cobra.ExactArgs(1),
	}
	req := plots.Request{}
	f := cmd.Flags()
	f.StringVarP(&req.Output, "output", "o", "", "picture to write; .png (default), .svg or .pdf (required)")
	f.StringVar(&req.Metric, "metric", "auto", "mean, median, min, p99 or std (auto: median, or mean for mmpi logs)")
	f.StringVar(&req.Order, "order", "rank", "rank, or host (grouped by host, socket, cpu, with lines between hosts)")
	f.StringVar(&req.Style, "style", plots.StyleHeatmap, "heatmap, surface (3-D view) or histogram (round trips per inferred level)")
	f.IntVar(&req.Size, "size", -1, "message size in bytes (default: the smallest measured)")
	f.StringVar(&req.HostPattern, "host-pattern", "", "for mmpi logs: regular expression extracting node names from processor names")
	f.BoolVarP(&req.Force, "force", "f", false, "replace an existing picture")
	cmd.MarkFlagRequired("output")
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		req.Input = args[0]
		return plots.Run(req)
	}
	return cmd
}
