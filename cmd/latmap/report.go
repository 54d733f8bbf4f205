package main

import (
	"github.com/latmap/latmap/plots/report"
	"github.com/spf13/cobra"
)

func newReportCmd() *cobra.Command {
	var opt report.Options
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "print MPInside-style tables of a profile written by latmap profile",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return report.ReportDir(cmd.OutOrStdout(), args[0], opt)
		},
	}
	cmd.Flags().IntVar(&opt.Top, "top", 5, "functions listed in the summary")
	return cmd
}
