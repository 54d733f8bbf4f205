package main

import (
	"github.com/latmap/latmap/cmd/latmap/internal/driver"
	"github.com/spf13/cobra"
)

func newTopoCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "topo (SURVEY | --topology FILE...)",
		Short: "infer levels, nodes, the layout and the network from round trips",
		Long: `topo groups ranks into levels (core, socket, node, switch, network) from the
round trips alone, says how the ranks sit on nodes (block, cyclic,
irregular, one-per-node), names the network it finds (a fat tree, a torus,
a dragonfly: latmap help routing) and checks all of it against the host
names. SURVEY is a survey directory or an mmpi log.

With --topology and no SURVEY, topo says what it read from the network
description (ibnetdiscover with forwarding tables, Slurm's topology.conf,
a Cray wiring file, a SimGrid platform, a list of links: latmap help
files): its hosts, switch levels, links by class, route lengths, and with
every host pair sending at once the routes on each class's busiest link,
and the links no route crosses. Check with it that your fabric is read
as it is wired before you survey or place on it.`,
		Example: `  latmap topo cluster/
  latmap topo cluster/ --json > topo.json
  latmap topo df/ --topology /etc/slurm/topology.conf
  latmap topo --topology fabric.ibnetdiscover --topology lfts/`,
		Args: surveyOrTopology,
	}
	req := driver.TopoRequest{}
	f := cmd.Flags()
	f.BoolVar(&req.JSON, "json", false, "print the levels and the layout as JSON")
	f.StringVar(&req.Metric, "metric", "auto", "statistic to group by: mean, median, min, p99, auto (median; mmpi logs: mean)")
	f.IntVar(&req.Size, "size", -1, "message size in bytes (-1: the smallest measured)")
	f.StringArrayVar(&req.Topology, "topology", nil, "network `FILE` (repeatable): round trips by route length, and where they disagree")
	f.StringVar(&req.HostPattern, "host-pattern", "", "`RE` of node names in an mmpi log's processor names")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 1 {
			req.Input = args[0]
		}
		req.Out, req.Err = cmd.OutOrStdout(), cmd.ErrOrStderr()
		return driver.Topo(req)
	}
	return cmd
}

// surveyOrTopology is topo's arguments: a survey, or none with
// --topology (the description alone), and then no flag of a survey's,
// which would be ignored.
func surveyOrTopology(cmd *cobra.Command, args []string) error {
	if len(args) == 0 && cmd.Flags().Changed("topology") {
		return alone(cmd, "topology", []string{"json"}, "without a SURVEY, topo says what the network description holds")
	}
	return exactArgs(1)(cmd, args)
}
