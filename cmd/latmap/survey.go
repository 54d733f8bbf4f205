package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(issue): replaced by the real command.
func newSurveyCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "survey",
		Short: "not built yet",
		RunE: func(*cobra.Command, []string) error {
			return errors.New("survey: not built yet")
		},
	}
}
