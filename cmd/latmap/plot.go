package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(issue): replaced by the real command.
func newPlotCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "plot",
		Short: "not built yet",
		RunE: func(*cobra.Command, []string) error {
			return errors.New("plot: not built yet")
		},
	}
}
