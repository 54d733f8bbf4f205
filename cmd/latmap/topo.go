package main

import (
	"github.com/latmap/latmap/cmd/latmap/internal/driver"
	"github.com/spf13/cobra"
)

func newTopoCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "topo SURVEY",
		Short: "infer levels, nodes, the layout and the network from round trips",
		Long: `topo groups ranks into levels (core, socket, node, switch, network) from the
round trips alone, says how the ranks sit on nodes (block, cyclic,
irregular, one-per-node), names the network it finds (a fat tree, a torus,
a dragonfly: latmap help routing) and checks all of it against the host
names. SURVEY is a survey directory or an mmpi log.`,
		Example: `  latmap topo cluster/
  latmap topo cluster/ --json > topo.json
  latmap topo df/ --topology /etc/slurm/topology.conf`,
		Args: exactArgs(1),
	}
	req := driver.TopoRequest{}
	f := cmd.Flags()
	f.BoolVar(&req.JSON, "json", false, "print the levels and the layout as JSON")
	f.StringVar(&req.Metric, "metric", "auto", "statistic to group by: mean, median, min, p99, auto (median; mmpi logs: mean)")
	f.IntVar(&req.Size, "size", -1, "message size in bytes (-1: the smallest measured)")
	f.StringArrayVar(&req.Topology, "topology", nil, "network `FILE` (repeatable): round trips by route length, and where they disagree")
	f.StringVar(&req.HostPattern, "host-pattern", "", "`RE` of node names in an mmpi log's processor names")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		req.Input, req.Out, req.Err = args[0], cmd.OutOrStdout(), cmd.ErrOrStderr()
		return driver.Topo(req)
	}
	return cmd
}
