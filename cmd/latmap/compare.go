package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(issue): replaced by the real command.
func newCompareCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "compare",
		Short: "not built yet",
		RunE: func(*cobra.Command, []string) error {
			return errors.New("compare: not built yet")
		},
	}
}
