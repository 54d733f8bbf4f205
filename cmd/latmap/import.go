package main

import (
	"fmt"

	"github.com/latmap/latmap/cmd/latmap/internal/driver"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/spf13/cobra"
)

func newImportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import FORMAT INPUT -o OUTPUT",
		Short: "turn another tool's files into latmap's: a latency log into a survey, a traffic count into a matrix",
		Long: `Import turns another tool's files into latmap's.

Formats:
  mmpi             the all-pairs logs of mmpi.c (ammpi_N_LEN_REPEATS.dat) into a
                   survey directory
  ompi-monitoring  Open MPI's PML monitoring files (mpirun --mca pml_monitoring_enable 2
                   --mca pml_monitoring_enable_output 3 --mca pml_monitoring_filename
                   DIR/prof) into the matrix CSV latmap place --matrix takes; INPUT is
                   DIR or the DIR/prof prefix

  latmap import mmpi bw_4x32_ammpi_128_64_100.dat -o bw/
  latmap import mmpi mira.dat -o mira/ --host-pattern 'R\d+-M\d+-N\d+-J\d+'
  latmap import ompi-monitoring mon/ -o app.matrix.csv`,
		Args: cobra.ExactArgs(2),
	}
	req := driver.ImportRequest{}
	cmd.Flags().StringVarP(&req.Out, "output", "o", "", "survey directory (mmpi) or matrix file (ompi-monitoring) to write (required)")
	cmd.Flags().StringVar(&req.HostPattern, "host-pattern", "", "regular expression extracting the node name from processor names (first group, else the match)")
	cmd.Flags().BoolVarP(&req.Force, "force", "f", false, "replace an existing output directory")
	cmd.MarkFlagRequired("output")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		switch args[0] {
		case "mmpi":
			req.Log, req.Report = args[1], cmd.OutOrStdout()
			return driver.ImportMMPI(req)
		case "ompi-monitoring":
			return profile.ImportOMPIMonitoring(args[1], req.Out, req.Force, cmd.OutOrStdout())
		}
		return fmt.Errorf("unknown format %q (known: mmpi, ompi-monitoring)", args[0])
	}
	return cmd
}
