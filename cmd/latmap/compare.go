package main

import (
	"github.com/spf13/cobra"

	"github.com/latmap/latmap/cmd/latmap/internal/driver"
)

func newCompareCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "compare A B [-o FILE.png]",
		Short: "compare two surveys: layouts, levels, neighbour and halving pairs",
		Long: `compare explains how two surveys (directories or mmpi logs) placed ranks and
what that did to the round trips that matter: each level's, neighbour pairs'
(i, i+1) and halving partners' (i, i+N/2). With -o it also draws both
surfaces side by side on one colour scale.`,
		Example: `  latmap compare by-core/ by-node/
  latmap compare by-core/ by-node/ -o layouts.png`,
		Args: exactArgs(2),
	}
	req := driver.CompareRequest{}
	f := cmd.Flags()
	f.StringVarP(&req.Output, "output", "o", "", "also draw both side by side into this picture (.png, .svg, .pdf)")
	f.StringVar(&req.Metric, "metric", "auto", "mean, median, min, p99, std, auto (median when both have it, else mean)")
	f.StringVar(&req.Order, "order", "rank", "picture order: rank or host")
	f.IntVar(&req.Size, "size", -1, "message size in bytes (-1: the smallest measured)")
	f.StringVar(&req.HostPattern, "host-pattern", "", "`RE` of node names in an mmpi log's processor names")
	f.BoolVarP(&req.Force, "force", "f", false, "replace an existing picture")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := requires(cmd, "order", "output", "--order orders the picture -o draws"); err != nil {
			return err
		}
		req.A, req.B, req.Out, req.Err = args[0], args[1], cmd.OutOrStdout(), cmd.ErrOrStderr()
		return wrote(cmd, req.Output, driver.Compare(req))
	}
	return cmd
}
