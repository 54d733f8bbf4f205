package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(issue): replaced by the real command.
func newTopoCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "topo",
		Short: "not built yet",
		RunE: func(*cobra.Command, []string) error {
			return errors.New("topo: not built yet")
		},
	}
}
