package main

import (
	"github.com/spf13/cobra"

	"github.com/latmap/latmap/cmd/latmap/internal/driver"
)

func newCompareCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "compare A B [-o FILE.png]",
		Short: "compare two surveys: layouts, levels, neighbour and halving latencies",
		Long: `Compare explains how two surveys (directories or mmpi logs) placed ranks and
what that did to the latencies that matter: each level's round trips,
neighbouring ranks (i, i+1) and halving partners (i, i+N/2). With -o it also
draws both surfaces side by side on one colour scale.

  latmap compare by-core/ by-node/ -o layouts.png`,
		Args: cobra.ExactArgs(2),
	}
	req := driver.CompareRequest{}
	f := cmd.Flags()
	f.StringVarP(&req.Output, "output", "o", "", "also draw both surfaces side by side into this picture (.png, .svg, .pdf)")
	f.StringVar(&req.Metric, "metric", "auto", "mean, median, min, p99 or std (auto: median when both have it, else mean)")
	f.StringVar(&req.Order, "order", "rank", "picture order: rank or host")
	f.IntVar(&req.Size, "size", -1, "message size in bytes (default: the smallest measured)")
	f.StringVar(&req.HostPattern, "host-pattern", "", "for mmpi logs: regular expression extracting node names from processor names")
	f.BoolVarP(&req.Force, "force", "f", false, "replace an existing picture")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		req.A, req.B, req.Out = args[0], args[1], cmd.OutOrStdout()
		return driver.Compare(req)
	}
	return cmd
}
