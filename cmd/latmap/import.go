package main

import (
	"errors"
	"fmt"

	"github.com/latmap/latmap/cmd/latmap/internal/driver"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/spf13/cobra"
)

func newImportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import FORMAT INPUT -o OUTPUT",
		Short: "turn an mmpi log into a survey, Open MPI monitoring into a matrix",
		Long: `import turns another tool's files into latmap's. FORMAT is one of:

  mmpi             an all-pairs log of mmpi.c (ammpi_N_LEN_REPEATS.dat)
                   into a survey directory
  ompi-monitoring  Open MPI's monitoring files into the matrix CSV that
                   place --matrix takes; INPUT is DIR or DIR/prof, from
                     mpirun --mca pml_monitoring_enable 2
                       --mca pml_monitoring_enable_output 3
                       --mca pml_monitoring_filename DIR/prof ...`,
		Example: `  latmap import mmpi bw_4x32_ammpi_128_64_100.dat -o bw/
  latmap import mmpi mira.dat -o mira/ --host-pattern 'R\d+-M\d+-N\d+-J\d+'
  latmap import ompi-monitoring mon/ -o app.matrix.csv`,
		Args: exactArgs(2),
	}
	req := driver.ImportRequest{}
	cmd.Flags().StringVarP(&req.Out, "output", "o", "", "survey directory (mmpi) or matrix file to write (required)")
	cmd.Flags().StringVar(&req.HostPattern, "host-pattern", "", "`RE` of node names in an mmpi log's processor names (first group, else match)")
	cmd.Flags().BoolVarP(&req.Force, "force", "f", false, "replace an existing output")
	cmd.MarkFlagRequired("output")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		switch args[0] {
		case "mmpi":
			req.Log, req.Report = args[1], cmd.OutOrStdout()
			return driver.ImportMMPI(req)
		case "ompi-monitoring":
			if req.HostPattern != "" {
				return errors.New("--host-pattern reads an mmpi log's processor names; Open MPI's monitoring files have none: leave it out")
			}
			return profile.ImportOMPIMonitoring(args[1], req.Out, req.Force, cmd.OutOrStdout())
		}
		return fmt.Errorf("unknown format %q (known: mmpi, ompi-monitoring)", args[0])
	}
	return cmd
}
