package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// TODO(issue): replaced by the real command.
func newImportCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "import",
		Short: "not built yet",
		RunE: func(*cobra.Command, []string) error {
			return errors.New("import: not built yet")
		},
	}
}
