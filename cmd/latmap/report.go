package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(issue): replaced by the real command.
func newReportCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "report",
		Short: "not built yet",
		RunE: func(*cobra.Command, []string) error {
			return errors.New("report: not built yet")
		},
	}
}
