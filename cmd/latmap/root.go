package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/latmap/latmap/internal/exitcode"
	"github.com/latmap/latmap/internal/version"
)

// exitCode is the status latmap exits with after err (exitcode.Of).
func exitCode(err error) int { return exitcode.Of(err) }

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "latmap",
		Short: "MPI rank-to-rank latency surveys, communication profiles and placement advice",
		Long: `latmap measures how fast every pair of MPI ranks talks on a cluster, profiles
how an MPI application talks, and proposes a better rank placement with its
predicted gain. The words it uses: latmap help glossary.

` + exitcode.Help,
		Example: `  mpirun -np 64 latmap survey -o cluster/
  latmap profile -o app/ -- mpirun -np 64 ./app
  latmap place --survey cluster/ --profile app/ -o app.rankfile
  latmap verify -o v/ --rankfile app.rankfile -- mpirun -np 64 ./app`,
		Version:       version.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(flagError)
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return requiredMissing(cmd) }
	root.AddCommand(
		newSurveyCmd(),
		newImportCmd(),
		newPlotCmd(),
		newTopoCmd(),
		newCompareCmd(),
		newProfileCmd(),
		newReportCmd(),
		newExportCmd(),
		newPlaceCmd(),
		newVerifyCmd(),
		newGenManCmd(),
	)
	root.AddCommand(helpTopics()...)
	return root
}

// errorLine is what latmap prints for a command's error: the command path
// once ("latmap place: --exclude zz: no such host ..."). Library errors
// carry context, never a package or command name, so this is the one
// layer that names the command.
func errorLine(path string, err error) string {
	return path + ": " + err.Error()
}

var errOneProfile = errors.New("the text report takes one profile directory; for several inputs use --html -o report.html")
