package main

import (
	"github.com/spf13/cobra"

	"github.com/latmap/latmap/plots/report"
)

func newReportCmd() *cobra.Command {
	var opt report.Options
	var html report.HTMLOptions
	var asHTML bool
	cmd := &cobra.Command{
		Use:   "report PROFILE | report --html -o FILE.html INPUT...",
		Short: "print a profile's MPInside tables, or write one HTML page of survey, profile, advice and verification",
		Long: `Report prints the MPInside tables of a profile directory (elapsed times,
Kbytes and requests with send and receive attribute), ranks grouped by
host then rank, a legend, a by-node table (each host's and socket's ranks
summed), the nodes whose ranks stand apart (computation or MPI time; see
docs/profile.md) and a summary. With --json it prints the by-node figures
as JSON instead.

With --html it writes one self-contained HTML page (pictures embedded, no
script, nothing fetched) from any mix of: a survey directory or mmpi log,
a profile directory, placement advice (latmap place --json saved to a
.json file) and a verification directory (latmap verify):

  latmap report app/
  latmap place --survey cluster/ --profile app/ --json > advice.json
  latmap report --html -o report.html cluster/ app/ advice.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := requires(cmd, "output", "html", "-o writes the HTML page; without --html the report goes to standard output"); err != nil {
				return err
			}
			if err := checkRanges(cmd, atLeast("top", 0)); err != nil {
				return err
			}
			if asHTML {
				html.Inputs = args
				return report.WriteHTML(html)
			}
			if len(args) > 1 {
				return errOneProfile
			}
			return report.ReportDir(cmd.OutOrStdout(), args[0], opt)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opt.Top, "top", 5, "functions listed in the summary")
	f.BoolVar(&opt.JSON, "json", false, "print the profile on the machine as JSON: ranks by host, per-host and per-socket sums, the nodes apart")
	f.BoolVar(&asHTML, "html", false, "write one HTML page of the inputs (with -o)")
	f.StringVarP(&html.Output, "output", "o", "", "the HTML file to write (with --html)")
	f.BoolVarP(&html.Force, "force", "f", false, "replace an existing HTML file")
	return cmd
}
