package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(issue): replaced by the real command.
func newProfileCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "profile",
		Short: "not built yet",
		RunE: func(*cobra.Command, []string) error {
			return errors.New("profile: not built yet")
		},
	}
}
