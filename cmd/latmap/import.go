package main

import (
	"fmt"

	"github.com/latmap/latmap/mapper/survey"
	"github.com/spf13/cobra"
)

func newImportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import FORMAT FILE -o DIR",
		Short: "turn another tool's latency log into a survey directory",
		Long: `Import turns another tool's latency log into a latmap survey directory.

Formats:
  mmpi   the all-pairs logs of mmpi.c (ammpi_N_LEN_REPEATS.dat)

  latmap import mmpi bw_4x32_ammpi_128_64_100.dat -o bw/
  latmap import mmpi mira.dat -o mira/ --host-pattern 'R\d+-M\d+-N\d+-J\d+'`,
		Args: cobra.ExactArgs(2),
	}
	req := survey.ImportRequest{}
	cmd.Flags().StringVarP(&req.Out, "output", "o", "", "survey directory to write (required)")
	cmd.Flags().StringVar(&req.HostPattern, "host-pattern", "", "regular expression extracting the node name from processor names (first group, else the match)")
	cmd.Flags().BoolVarP(&req.Force, "force", "f", false, "replace an existing output directory")
	cmd.MarkFlagRequired("output")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if args[0] != "mmpi" {
			return fmt.Errorf("unknown format %q (known: mmpi)", args[0])
		}
		req.Log, req.Report = args[1], cmd.OutOrStdout()
		return survey.ImportMMPI(req)
	}
	return cmd
}
