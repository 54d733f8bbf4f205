package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/topo"
)

// byNode prints the per-host table (and the per-socket one when a host ran
// ranks on two sockets or more): the per-rank figures summed over each
// group's ranks.
func byNode(w io.Writer, nd *profile.Nodes) {
	groups := func(title string, gs []profile.Group) {
		fmt.Fprintln(w, title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "host\tranks\tn\telapsed\tcomput\tMPI\tsend-late\tcoll wait\tKbytes sent\tKbytes recv\tcomput/rank\t")
		for _, g := range gs {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.1f\t%.1f\t%.4f\t\n", g.Label(), topo.FormatRanks(g.Ranks), len(g.Ranks),
				g.Elapsed, g.Comput, g.MPI, g.Late, g.Sync, float64(g.BytesSent)/1024, float64(g.BytesRecv)/1024, g.PerRank(g.Comput))
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	groups("By node: each host's ranks, seconds and Kbytes summed over them (MPI: moving data, without send-late and collective wait)", nd.Hosts)
	if len(nd.Sockets) > 0 {
		groups("By socket", nd.Sockets)
	}
	if len(nd.Leaving) > 0 {
		fmt.Fprintln(w, "Leaving the collectives (--collective-wait lines the ranks up before each call: a rank's time in the call after it is when it left)")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "function\tcalls\tfastest rank\tmedian\tslowest\tslowest rank\ton host\tlost per rank\t")
		for _, l := range nd.Leaving {
			fmt.Fprintf(tw, "%s\t%d\t%.4f\t%.4f\t%.4f\t%d\t%s\t%.4f\t\n", l.Function, l.Calls, l.Fastest, l.Median, l.Slowest, l.SlowestRank, l.SlowestHost, l.Spread)
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
}

// stragglers names the hosts and sockets whose ranks stand apart, and what
// the other ranks lost waiting for them.
func stragglers(w io.Writer, nd *profile.Nodes) {
	if nd.Judged != "" {
		fmt.Fprintf(w, "  nodes apart: not judged (%s)\n", nd.Judged)
		return
	}
	if len(nd.Stragglers) == 0 {
		fmt.Fprintf(w, "  nodes apart: none (a host is named when its ranks' mean computation or MPI time is %.1fx the other hosts' median "+
			"and beyond their spread)\n", profile.StragglerRatio)
		return
	}
	for _, s := range nd.Stragglers {
		fmt.Fprintln(w, "  "+StragglerLine(&s))
	}
}

// StragglerLine says in one line which group stands apart, by how much, and
// what the other ranks lost waiting for it.
func StragglerLine(s *profile.Straggler) string {
	what := "node"
	if s.Socket >= 0 {
		what = "socket"
	}
	line := fmt.Sprintf("%s %s apart (ranks %s): %s %.4g s per rank against %.4g s on the others (%.2fx, +%.4g s)",
		what, s.Label(), topo.FormatRanks(s.Ranks), s.Metric, s.PerRank, s.Others, s.Ratio, s.Excess)
	if s.Metric == "computation" {
		line += fmt.Sprintf("; the other ranks lost %.4g s each waiting (%s, beyond its ranks' own)", s.Caused, s.Basis)
	}
	return line
}
