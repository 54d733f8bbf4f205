package main

import "strings"

// glossaryEntry is one term of latmap help glossary and what it means.
type glossaryEntry struct {
	term, meaning string
}

// glossary defines the words latmap's --help, its topics and its reports
// use that a newcomer to MPI placement may not know, in alphabetical
// order. TestGlossaryDefinesJargon holds it to the jargon of the help.
var glossary = []glossaryEntry{
	{"block, cyclic (layouts)", "block fills each node's slots in rank order before the next node; " +
		"cyclic deals ranks to the nodes in turn. latmap topo also says irregular, or one-per-node."},
	{"both-ways", "a survey step: two nodes send to each other at once, against one alone: the share of a message its way back carries."},
	{"calibration, out of sample", "two factors (on the node, off it) that scale place's modelled communication to " +
		"the profiled run, used when plausible; an error is out of sample when judged on what it was not fitted on " +
		"(half the ranks, verify's reruns)."},
	{"call site", "the place in the application's code an MPI call came from (function, file, line): profile --call-sites."},
	{"circle-method rounds", "the survey's default schedule, dealt like a round-robin tournament: N-1 rounds, " +
		"each rank in one pair at most a round, every pair once."},
	{"collective wait", "time in a barrier latmap puts before each blocking collective (profile --collective-wait; " +
		"MPInside's b_xxx): waiting for late ranks, which no placement removes."},
	{"Cray rank order", "Cray MPICH's MPICH_RANK_ORDER file (with MPICH_RANK_REORDER_METHOD=3): the ranks in the order they fill the nodes."},
	{"d-mod-k", "a fat tree's static routing: a message climbs through the uplink its destination's number picks, modulo the uplinks (latmap help routing)."},
	{"derate", "to price a declared link at the share of its declared bandwidth that the survey measured; the report's network line says the share."},
	{"fan-out", "a survey step: a node sends to its nearest hosts at once, against to one: " +
		"how many links it drives at once (one on a fat tree, several on a torus)."},
	{"fat tree, torus, dragonfly", "network shapes: a tree of switches with several uplinks a switch; " +
		"a grid of nodes linked to their neighbours, wrapping round; groups of routers linked all to all, " +
		"joined by a few global links."},
	{"fit", "a pair's line T(s) = L + s/B through its round trips at the survey's sizes (fit.csv): latency L, bandwidth B."},
	{"fluid sharing", "how place shares a link among its flows: all start together, each speeds up until a link it " +
		"crosses is full (max-min fairness), and the rest share again as flows end."},
	{"forwarding tables", "each switch's list of the port that leads to each destination; place follows them when --topology gives them (latmap help routing)."},
	{"halving partners", "ranks i and i+N/2, which recursive-halving collectives (allreduce, reduce-scatter) pair first."},
	{"interference", "how much measuring pairs at once slowed them: the median, over a sample, of a pair's round trip at once over alone."},
	{"interposition", "loading a library ahead of MPI (LD_PRELOAD) so that the application's MPI calls reach it " +
		"first; liblatmap.so records each and passes it on through PMPI, without relinking."},
	{"leader", "a node's lowest rank: scopes nodes and sample:K measure between nodes through their leaders."},
	{"level", "a class of rank pairs by the group they share: socket, node, switch (switch1, switch2, ...), network; topo and place print the same words."},
	{"machine file", "MPICH Hydra's host list (mpiexec -f FILE): host:count lines in rank order; latmap adds binding=user: cpu lists."},
	{"minimal routing", "a dragonfly's static routing: inside the source group, one global link, inside the destination group."},
	{"mmpi", "mmpi.c, the all-pairs MPI latency tool of the latency surface-plot study; latmap reads its logs (ammpi_*.dat), survey --mmpi writes one."},
	{"MPInside", "SGI's MPI profiler, whose tables latmap report prints (w_xxx: send-late, b_xxx: collective wait)."},
	{"multilevel trials", "the solver's main starts: the traffic graph shrunk by merging the ranks that talk most " +
		"until it fits the nodes, split, then refined back to single ranks; --trials starts it from that many rank " +
		"orders. Other starts: tree (split down the switch levels), block, cyclic, current."},
	{"neighbour pairs", "ranks i and i+1, which rings and halo exchanges pair."},
	{"node-bound ranks", "ranks whose predicted time is set by what they share (their node's link or memory, " +
		"a switch's uplinks, a routed link), not by their own transfers."},
	{"perfect interconnect", "the run with communication that takes no time: a bound no placement beats."},
	{"PMPI", "MPI's profiling interface: every MPI_X function can also be called as PMPI_X, so a library can define MPI_X, measure, and call PMPI_X."},
	{"QAP, QAPLIB", "the quadratic assignment problem, which placement is a case of; QAPLIB is its library of test instances (place --qaplib)."},
	{"rankfile", "Open MPI's placement file, lines rank 0=node1 slot=3 (latmap help files)."},
	{"round trip", "a message there and back between two ranks (a ping-pong); the one-way latency is half of it."},
	{"scope", "which pairs a survey measures: all, nodes or sample:K (latmap help phases)."},
	{"send-late", "time a receive waited because the matching send had not started (profile --slt, " +
		"timed with small token messages on shadow communicators; MPInside's w_xxx): load imbalance, " +
		"which no placement removes."},
	{"slot", "one cpu of one host in the survey: a place a rank can go."},
	{"Slurm hostfile", "the file SLURM_HOSTFILE names, one host a rank, for srun --distribution=arbitrary; latmap adds its --cpu-bind=map_cpu: list."},
	{"switch group, uplinks", "the hosts behind one switch, and the links by which their traffic leaves it."},
	{"verdict", "place's judgement of its proposal: use it, can't tell, will not help much, not worth changing (latmap help model)."},
}

// glossaryText is latmap help glossary: each term on a line, its meaning
// wrapped below it.
func glossaryText() string {
	var b strings.Builder
	b.WriteString("The words of latmap's help and reports\n")
	for _, e := range glossary {
		b.WriteString("\n" + e.term + "\n")
		b.WriteString(wrapIndented(e.meaning, "    ", 78))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// wrapIndented wraps text into lines of at most width characters (a word
// longer than that stands alone), each starting with indent.
func wrapIndented(text, indent string, width int) string {
	var b strings.Builder
	line := indent
	for _, w := range strings.Fields(text) {
		if line != indent && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += w
	}
	return b.String() + line + "\n"
}
