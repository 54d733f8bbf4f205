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
		Short: "print a profile's tables, or write one HTML page of all results",
		Long: `report prints a profile directory's MPInside tables: elapsed times, Kbytes and
requests by send and by receive, ranks grouped by host, a legend, a table by
node (each host's and socket's ranks summed), the nodes whose ranks stand
apart (computation or MPI time; docs/profile.md) and a summary.

With --html it writes one self-contained HTML page (pictures embedded, no
script, nothing fetched) of any mix of: a survey directory or mmpi log, a
profile directory, place --json advice saved to a .json file, and a
latmap verify directory.`,
		Example: `  latmap report app/
  latmap place --survey cluster/ --profile app/ --json > advice.json
  latmap report --html -o report.html cluster/ app/ advice.json`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := requires(cmd, "output", "html", "-o writes the HTML page; without --html the report goes to standard output"); err != nil {
				return err
			}
			if err := checkRanges(cmd, atLeast("top", 1)); err != nil {
				return err
			}
			if asHTML {
				html.Inputs = args
				return wrote(cmd, html.Output, report.WriteHTML(html))
			}
			if len(args) > 1 {
				return errOneProfile
			}
			return report.ReportDir(cmd.OutOrStdout(), args[0], opt)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opt.Top, "top", 5, "functions listed in the summary")
	f.BoolVar(&opt.JSON, "json", false, "print the figures by node as JSON: ranks by host, host and socket sums, nodes apart")
	f.BoolVar(&asHTML, "html", false, "write one HTML page of the inputs (with -o)")
	f.StringVarP(&html.Output, "output", "o", "", "the HTML file to write (with --html)")
	f.BoolVarP(&html.Force, "force", "f", false, "replace an existing HTML file")
	return cmd
}
