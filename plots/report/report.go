package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/latmap/latmap/internal/text"
	"github.com/latmap/latmap/mapper/profile"
)

// Options are latmap report's settings.
type Options struct {
	Top int // functions listed in the summary (default 5)
	// JSON prints the profile on the machine (profile.Nodes: the ranks
	// by host, the per-host and per-socket sums, the stragglers) as JSON
	// instead of the tables.
	JSON bool
}

// column is one column of a report table: a function's value per rank.
type column struct {
	name  string
	value func(f *profile.Function) float64
}

// Report prints MPInside's five tables (elapsed times; Kbytes and requests
// with send attribute; Kbytes and requests with receive attribute), one row
// per rank, then a column legend and a summary.
func Report(w io.Writer, p *profile.Profile, opt Options) error {
	if opt.Top <= 0 {
		opt.Top = 5
	}
	idx := p.ByRankFunction()
	nodes := p.Nodes()
	slt, cw := p.HasMode(profile.ModeSLT), p.HasMode(profile.ModeCollectiveWait)

	// Elapsed times: comput, then per function its transfer time, its
	// send-late (w_) and collective-wait (b_) parts beside it.
	var cols []column
	lateTot := p.FunctionTotals(func(f *profile.Function) float64 { return f.Late })
	syncTot := p.FunctionTotals(func(f *profile.Function) float64 { return f.Sync })
	for _, name := range p.OrderedFunctions((*profile.Function).TotalTime) {
		name := name
		cols = append(cols, column{name, func(f *profile.Function) float64 { return f.Time }})
		if slt && (lateTot[name] > 0 || waits(name)) {
			cols = append(cols, column{"w_" + name, func(f *profile.Function) float64 { return f.Late }})
		}
		if cw && syncTot[name] > 0 {
			cols = append(cols, column{"b_" + name, func(f *profile.Function) float64 { return f.Sync }})
		}
	}
	header := fmt.Sprintf("Elapsed times (seconds) of %d ranks, modes %s", len(p.Ranks), strings.Join(p.Meta.Modes, ", "))
	if p.Meta.Window != "" {
		header += ", window " + p.Meta.Window
	}
	if nodes.Grouped {
		header += "; ranks grouped by host, then rank"
	}
	if err := table(w, header, p, nodes.Order, idx, cols, "%.4f", true); err != nil {
		return err
	}
	for _, t := range []struct {
		title string
		v     func(f *profile.Function) float64
		fmt   string
	}{
		{"Kbytes with send attribute", func(f *profile.Function) float64 { return float64(f.BytesSent) / 1024 }, "%.1f"},
		{"Requests with send attribute", func(f *profile.Function) float64 { return float64(f.ReqsSent) }, "%.0f"},
		{"Kbytes with receive attribute", func(f *profile.Function) float64 { return float64(f.BytesRecv) / 1024 }, "%.1f"},
		{"Requests with receive attribute", func(f *profile.Function) float64 { return float64(f.ReqsRecv) }, "%.0f"},
	} {
		var cs []column
		for _, name := range p.OrderedFunctions(t.v) {
			cs = append(cs, column{name, t.v})
		}
		if err := table(w, t.title, p, nodes.Order, idx, cs, t.fmt, false); err != nil {
			return err
		}
	}
	legend(w, slt, cw, p.HasMode(profile.ModeCollectivesInMatrix))
	byNode(w, nodes)
	callSites(w, p, opt)
	communicators(w, p)
	return summary(w, p, nodes, opt)
}

// communicators prints each communicator's point-to-point traffic when one
// besides MPI_COMM_WORLD carried some (comms.csv).
func communicators(w io.Writer, p *profile.Profile) {
	comms := p.TrafficComms()
	if comms == nil {
		return
	}
	fmt.Fprintln(w, "Communicators: point-to-point traffic as sent (draw one with latmap plot --style matrix --comm NAME)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "communicator\tkey\tcreated by\tranks in one\tmembers\tKbytes\tmessages\t")
	for _, c := range comms {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.1f\t%d\t\n", c.Label(), c.Comm, c.Function, c.Size, c.Members, float64(c.Bytes)/1024, c.Messages)
	}
	tw.Flush()
	fmt.Fprintln(w)
}

// callSites prints the call sites with the most MPI time (a profile taken
// with --call-sites), summed over ranks.
func callSites(w io.Writer, p *profile.Profile, opt Options) {
	top := p.TopCallSites(opt.Top * 2)
	if len(top) == 0 {
		return
	}
	var mpi float64
	for i := range p.Functions {
		mpi += p.Functions[i].TotalTime()
	}
	fmt.Fprintf(w, "Call sites: the %d with the most MPI time, summed over ranks\n", len(top))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "site\tfunction\tMPI time (s)\tof MPI\tcalls\tranks\tKbytes sent\tKbytes received\t where\t")
	for _, s := range top {
		fmt.Fprintf(tw, "%d\t%s\t%.4g\t%s\t%d\t%d\t%.1f\t%.1f\t %s\t\n", s.Site, s.Function, s.MPITime, pct(s.MPITime, mpi), s.Calls, s.Ranks,
			float64(s.BytesSent)/1024, float64(s.BytesRecv)/1024, s.Where)
	}
	tw.Flush()
	fmt.Fprintln(w)
}

func table(w io.Writer, title string, p *profile.Profile, order []int, idx map[int]map[string]*profile.Function, cols []column, vf string, comput bool) error {
	fmt.Fprintf(w, "%s\n", title)
	if len(cols) == 0 && !comput {
		fmt.Fprintf(w, "  (none)\n\n")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "rank\thost\t")
	if comput {
		fmt.Fprint(tw, "comput\t")
	}
	for _, c := range cols {
		fmt.Fprintf(tw, "%s\t", c.name)
	}
	fmt.Fprintln(tw)
	for _, i := range order {
		r := &p.Ranks[i]
		fmt.Fprintf(tw, "%d\t%s\t", r.Rank.Rank, r.Host)
		if comput {
			fmt.Fprintf(tw, vf+"\t", r.Comput)
		}
		for _, c := range cols {
			v := 0.0
			if f := idx[r.Rank.Rank][strings.TrimPrefix(strings.TrimPrefix(c.name, "w_"), "b_")]; f != nil {
				v = c.value(f)
			}
			fmt.Fprintf(tw, vf+"\t", v)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}

func legend(w io.Writer, slt, cw, cm bool) {
	fmt.Fprintln(w, "Columns")
	fmt.Fprintln(w, "  comput     time outside MPI (elapsed minus every MPI function's time)")
	fmt.Fprintln(w, "  MPI_xxx    time inside the function; with --slt/--collective-wait only its transfer part")
	if slt {
		fmt.Fprintln(w, "  w_MPI_xxx  send-late time: the receive waited because the matching send had not started")
		fmt.Fprintln(w, "             (token technique; a token's calibrated latency is subtracted)")
	}
	if cw {
		fmt.Fprintln(w, "  b_MPI_xxx  collective wait: time in a barrier inserted before the collective (late arrivals)")
	}
	fmt.Fprintln(w, "  Kbytes/requests with send attribute: what the rank sent (point-to-point: each message;")
	fmt.Fprintln(w, "    Bcast/Scatter: the root's data; Reduce/Allreduce/Scan: its contribution; Gather/Allgather:")
	fmt.Fprintln(w, "    its block; Alltoall: all its blocks); one request per message or collective call")
	fmt.Fprintln(w, "  Kbytes/requests with receive attribute: what the rank received, from the completed status")
	fmt.Fprintln(w, "    (nonblocking and persistent receives are charged to MPI_Irecv/MPI_Start, not to the Wait)")
	if cm {
		fmt.Fprintln(w, "  matrix bytes (--collectives-in-matrix): point-to-point plus each collective's generic point-to-point")
		fmt.Fprintln(w, "    equivalent (linear: Bcast/Scatter root->each, Gather/Reduce each->root, Allreduce and")
		fmt.Fprintln(w, "    Reduce_scatter via comm rank 0, Allgather/Alltoall every ordered pair, Scan i->i+1)")
	}
	fmt.Fprintln(w)
}

func summary(w io.Writer, p *profile.Profile, nodes *profile.Nodes, opt Options) error {
	var elapsed, mpi, late, sync, recvWait float64
	for _, r := range p.Ranks {
		elapsed += r.Elapsed
	}
	for i := range p.Functions {
		f := &p.Functions[i]
		mpi += f.TotalTime()
		late += f.Late
		sync += f.Sync
		if waits(f.Function) {
			recvWait += f.Time + f.Late
		}
	}
	fmt.Fprintln(w, "Summary")
	fmt.Fprintf(w, "  MPI share of the time: %s (%.3f s of %.3f s over all ranks)\n", pct(mpi, elapsed), mpi, elapsed)
	tot := p.FunctionTotals((*profile.Function).TotalTime)
	names := p.OrderedFunctions((*profile.Function).TotalTime)
	if len(names) > opt.Top {
		names = names[:opt.Top]
	}
	fmt.Fprintf(w, "  top functions:")
	for _, n := range names {
		fmt.Fprintf(w, " %s %.3f s (%s of MPI);", n, tot[n], pct(tot[n], mpi))
	}
	fmt.Fprintln(w)
	if p.HasMode(profile.ModeSLT) {
		fmt.Fprintf(w, "  send-late time: %.3f s, %s of the time in receives and waits; no placement can remove it\n", late, pct(late, recvWait))
	}
	if p.HasMode(profile.ModeCollectiveWait) {
		fmt.Fprintf(w, "  collective wait: %.3f s, %s of the MPI time; load imbalance, not the network\n", sync, pct(sync, mpi))
	}
	stragglers(w, nodes)
	host := map[int]string{}
	for _, r := range p.Ranks {
		host[r.Rank.Rank] = r.Host
	}
	var intra, inter int64
	hosts := map[string]bool{}
	for _, t := range p.Matrix {
		if host[t.Src] == host[t.Dst] && host[t.Src] != "" {
			intra += t.Bytes
		} else {
			inter += t.Bytes
		}
	}
	for _, h := range host {
		hosts[h] = true
	}
	what := "point-to-point bytes"
	if p.HasMode(profile.ModeCollectivesInMatrix) {
		what = "matrix bytes (point-to-point and collectives)"
	}
	fmt.Fprintf(w, "  %s: %d within a node, %d between nodes (%s between nodes; %s, %d rank pairs)\n", what,
		intra, inter, pct(float64(inter), float64(intra+inter)), text.Count(len(hosts), "host"), len(p.Matrix))
	for _, r := range p.Meta.Reorders {
		fmt.Fprintf(w, "  %s\n", renumbered(r))
	}
	if len(p.Meta.Unmeasured) > 0 || len(p.Meta.Warnings) > 0 {
		fmt.Fprintln(w, "  not measured exactly:")
		for _, s := range append(append([]string{}, p.Meta.Unmeasured...), p.Meta.Warnings...) {
			fmt.Fprintf(w, "    - %s\n", s)
		}
	}
	return nil
}

// renumbered says in a line what latmap profile --reorder did at one
// topology constructor, or --remap at MPI_Init (the text report and the
// HTML page).
func renumbered(r profile.Reorder) string {
	switch {
	case r.Call == "MPI_Init" && r.Outcome == "reordered":
		return fmt.Sprintf("--remap: MPI_COMM_WORLD's %d ranks renumbered to the advice's proposal, "+
			"predicted %.2fx faster than the launcher's numbering (new ranks %v)",
			r.Ranks, r.PredictedSpeedup, r.NewRanks)
	case r.Call == "MPI_Init":
		return "--remap: MPI_COMM_WORLD kept the launcher's numbering: " + r.Outcome
	case r.Outcome == "reordered":
		return fmt.Sprintf("--reorder: %s #%d over %d ranks renumbered, predicted %.2fx faster than MPI's numbering "+
			"(new ranks %v)", r.Call, r.Index, r.Ranks, r.PredictedSpeedup, r.NewRanks)
	}
	return fmt.Sprintf("--reorder: %s #%d over %d ranks kept MPI's numbering: %s", r.Call, r.Index, r.Ranks, r.Outcome)
}

func pct(a, b float64) string {
	if b <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*a/b)
}

// ReportDir reads the profile directory dir and prints its Report.
func ReportDir(w io.Writer, dir string, opt Options) error {
	if kind, err := inputKind(dir); err == nil && kind != kindProfile {
		what := map[string]string{kindSurvey: "survey", kindVerify: "verification directory", kindAdvice: "placement advice file"}[kind]
		return fmt.Errorf("%s is a %s; report prints a profile's tables (latmap profile -o DIR), "+
			"or with --html -o FILE.html writes a page of any of survey, profile, advice and verification", dir, what)
	}
	p, err := profile.ReadProfile(dir)
	if err != nil {
		return err
	}
	if opt.JSON {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(p.Nodes())
	}
	return Report(w, p, opt)
}

// waits tells whether a function can wait for a message to arrive (a
// blocking receive or a Wait call), the functions that have w_ columns.
func waits(name string) bool {
	if strings.HasPrefix(name, "MPI_Wait") {
		return true
	}
	return profile.FunctionKind(name) == "recv" && !strings.HasPrefix(name, "MPI_I") && !strings.HasSuffix(name, "_init")
}
