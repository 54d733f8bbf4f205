package main

import (
	"github.com/latmap/latmap/cmd/latmap/internal/driver"
	"github.com/spf13/cobra"
)

func newTopoCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "topo SURVEY",
		Short: "infer levels, nodes and the scheduler's layout from latencies",
		Long: `Topo groups ranks into levels (core, socket, node, switch, network) from the
latency matrix alone, says how the ranks sit on nodes (block, cyclic,
irregular, one-per-node) and checks the result against the host names.
SURVEY is a survey directory or an mmpi log.`,
		Args: cobra.ExactArgs(1),
	}
	req := driver.TopoRequest{}
	f := cmd.Flags()
	f.BoolVar(&req.JSON, "json", false, "print JSON")
	f.StringVar(&req.Metric, "metric", "auto", "statistic to cluster: mean, median, min, p99 (auto: median, or mean for mmpi logs)")
	f.IntVar(&req.Size, "size", -1, "message size in bytes (default: the smallest measured)")
	f.StringArrayVar(&req.Topology, "topology", nil, "a network description (SimGrid platform, Slurm topology.conf or topology.yaml, plain torus/dragonfly; docs/place.md): show each route length's measured round trips beside the inferred levels, and warn where they contradict it")
	f.StringVar(&req.HostPattern, "host-pattern", "", "for mmpi logs: regular expression extracting node names from processor names")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		req.Input, req.Out = args[0], cmd.OutOrStdout()
		return driver.Topo(req)
	}
	return cmd
}
