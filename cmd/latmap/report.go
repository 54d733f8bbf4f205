package main

import (
	"github.com/spf13/cobra"

	"github.com/latmap/latmap/interpose"
)

func newReportCmd() *cobra.Command {
	var opt interpose.ReportOptions
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "print MPInside-style tables of a profile written by latmap profile",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return interpose.ReportDir(cmd.OutOrStdout(), args[0], opt)
		},
	}
	cmd.Flags().IntVar(&opt.Top, "top", 5, "functions listed in the summary")
	return cmd
}
