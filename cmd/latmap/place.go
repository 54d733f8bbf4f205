package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(issue): replaced by the real command.
func newPlaceCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "place",
		Short: "not built yet",
		RunE: func(*cobra.Command, []string) error {
			return errors.New("place: not built yet")
		},
	}
}
