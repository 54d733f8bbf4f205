package main

import (
	"github.com/spf13/cobra"

	"github.com/latmap/latmap/internal/exitcode"
)

// helpTopics are latmap's help topics ("latmap help routing"): commands
// with no Run and only a Long, which cobra lists under "Additional help
// topics" and gen-man writes as pages of their own. The commands' --help
// stays one screen and points here for the longer explanations.
func helpTopics() []*cobra.Command {
	topic := func(name, short, long string) *cobra.Command {
		return &cobra.Command{Use: name, Short: short, Long: long}
	}
	return []*cobra.Command{
		topic("routing", "how place routes traffic over a network: static, adaptive, d-mod-k", routingHelp),
		topic("phases", "the survey's phases, its scopes (all, nodes, sample:K) and schedules", phasesHelp),
		topic("model", "what place predicts, what it shares between ranks, and its verdict", modelHelp),
		topic("files", "placement files: what place writes for mpirun, mpiexec, srun, Cray", filesHelp),
		topic("exit-codes", "latmap's exit statuses, the same for every command", exitCodesHelp),
		topic("glossary", "the words latmap's help and reports use, in plain words", glossaryText()),
	}
}

const exitCodesHelp = exitcode.Help + `

Every check latmap can make (flags, input files, output paths) is made
before it launches anything or measures anything, so status 2 means that
nothing was started and nothing was written. A script can branch on them:

  latmap place --survey s/ --profile p/ -o rf && mpirun -rf rf ./app

runs the application only when place advised its proposal and wrote rf
(status 3: the gain was too small, and nothing was written).`

const routingHelp = `How latmap place routes traffic over a network

place prices each flow between two nodes over the links it crosses: the
load a link carries, over its bandwidth, is a time every rank whose traffic
crosses that link waits for. Which links a flow crosses is the network's
routing. The network comes from:

  --topology FILE  the site's description (repeat the flag for its parts):
                   a SimGrid platform, Slurm's topology.conf or
                   topology.yaml, latmap's plain torus or dragonfly file,
                   an ibnetdiscover dump with its forwarding tables and a
                   map of names, a Cray XC wiring list, a list of links
                   (docs/fabrics.md)
  the survey       when nothing is declared: a torus's or a mesh's links, a
                   dragonfly whose routes the round trips follow, the links
                   between a dragonfly's routers, or the fat tree that the
                   switch levels describe (latmap topo names what it finds)
  neither          node links, and each switch group's uplinks priced as one
                   link of their summed bandwidth

The report's network line says where the network and its routes came from.

Static and adaptive routing (--routing)

  static    (the default) one path for each pair of nodes, the one the
            machine takes: its forwarding tables where given, else its
            kind's rule: d-mod-k on a fat tree, dimension order on a
            torus, minimal routing on a dragonfly, else shortest paths
  adaptive  traffic spread evenly: over a switch group's parallel uplinks
            on a fat tree (priced as one link), over every shortest path
            on a torus or a dragonfly (longer paths are not priced)

--routing matters only where there are parallel paths: a Slurm
topology.conf names no parallel uplinks, so both are the same there. Where
the round trips cannot tell the routing (a torus not numbered in the
hosts' order, routers that form no dragonfly), flows spread over their
shortest paths either way, and a proposal must also win so.

The routes

  forwarding tables  what a real switch follows: for each destination, the
                     port to send on (on InfiniBand the subnet manager,
                     OpenSM, writes them: opensm-lfts.dump, opensm.fdbs;
                     ibroute, dump_fts and ibdiagnet's .fdbs read them
                     back). Given beside an ibnetdiscover dump, every flow
                     takes exactly the ports they name; a missing entry or
                     a loop is an error naming the switch and the host.
  d-mod-k            a fat tree's static routing (OpenSM's ftree, SimGrid's
                     FatTreeZone): a message climbs through the uplink its
                     destination picks, the destination's number modulo
                     the uplinks at that level, so flows whose destinations
                     pick the same uplink share it however many the group
                     has. A fat tree found in the survey numbers the
                     destinations in the hosts' order.
  dimension order    a torus's static routing: along x first, then y, then
                     z, each dimension the shorter way round (at exactly
                     half a ring: up from the lower half, down from the
                     upper).
  minimal            a dragonfly's static routing: local links inside the
                     source group to the router that holds the global link,
                     that one global link, then local links inside the
                     destination group; never through a third group.
  shortest paths     a graph without tables (a list of links, a dump
                     alone): one path a pair, fewest hops, then least
                     latency, then the destination's number modulo the
                     paths left; adaptive splits a flow evenly at every
                     switch among the next hops nearer its target.

How flows share a link, and how declared bandwidths are derated to what
the survey measured: latmap help model. More: docs/place.md, "Routed
networks", and docs/fabrics.md.`

const phasesHelp = `The phases of latmap survey

Rank 0 writes the survey directory DIR: meta.json (how it was measured),
ranks.csv (where each rank ran: host, cpu, socket, NUMA node, L3) and each
phase's files. The phases, in the order they run:

  pairs           each pair's round trip at each of --sizes (pairs.csv):
                  --warmup untimed round trips, then --repeats timed ones in
                  passes of --burst, so a pair's samples spread over the run.
                  Two sizes or more give fit.csv: each pair's latency and
                  bandwidth, the line T(s) = L + s/B through its sizes.
  isolation       a sample of pairs measured again alone (--isolated-fraction
                  of them: at least N, at most 4,096, at most 16 with
                  sequential): meta.json's interference, the median of
                  concurrent over alone; above 1.25 latmap warns.
  node bandwidth  (--node-bandwidth; ranks on 2 or more hosts) every rank of
                  each node sends off the node at once, then one rank alone:
                  what a node's link carries (nodebw.csv).
  fan-out         (with it; 3 or more hosts) a node sends to its nearest
                  hosts at once, against to one: how many links it drives.
  both-ways       (with it) two nodes send to each other at once, against
                  one alone: the share of a message its way back carries.
  switch          (--switch-bandwidth) each group of hosts behind a switch,
                  found in the latencies or declared by --topology, sends
                  out all at once: what its uplinks carry (switches.csv,
                  switchbw.csv). With --topology FILE, latmap place
                  --topology FILE prices each class of FILE's links at
                  what this phase measured of it.
  probe           (--probe on; 4 or more hosts) flows between the hosts'
                  first ranks, moved alone, in random matchings, then two
                  at a time: which flows slow each other, crossing a
                  common link the way their bytes go (shares.csv). A
                  flow stands for every flow from its source's switch to
                  its destination host, as switches route by destination.
  size sweep      (--size-sweep) rank 0 with one rank of each kind (same
                  socket, other socket, the second and the last host) at
                  every size from 64 B to the largest of --sizes (at least
                  1 MiB), doubling (sweep.csv): MPI's time is no straight
                  line between two sizes, so place prices each message at
                  its own size.

Scopes (--scope): which pairs the pairs phase measures

  all       every pair
  nodes     every pair inside each node, all nodes at once, then every pair
            of node leaders (each host's lowest rank)
  sample:K  nodes, plus K random pairs a node between nodes, each checked
            against its nodes' leaders (a warning when 1.5x off)
  auto      all up to 2,048 ranks (or on one host, or with --mmpi), else
            sample:4

Readers fill the pairs between nodes that a nodes or sample:K survey did
not measure from the pairs measured between the same two nodes (the
leaders' pair; for sample:K the median of it and the samples), and say so.

Schedules (--schedule)

  rounds      circle-method rounds: N-1 rounds (N for odd N), each rank in
              at most one pair a round, every pair once; a round's pairs
              measure at the same time, with a barrier between rounds.
  sequential  one pair at a time in mmpi's order (0,1), (0,2), ...: slower,
              no two pairs at once; its isolation sample measures with the
              waiting ranks asleep.

Stopping, resuming and budgets

A signal (SIGTERM, Ctrl-C, a job's time limit) stops the survey at the end
of its pass and writes what was measured (meta.json's stopped says where).
Every rank also keeps a journal in DIR.journal: --resume DIR turns a
stopped or killed survey back into one, keeps its sizes measured with at
least 10 round trips a pair, measures the other sizes and phases, and
writes the whole survey over DIR; run it on the same hosts in the same
order. --time-budget D measures a probe round at each size, estimates the
survey, and lowers --repeats (never below 10), then narrows scope all to
nodes, to fit; its decisions are printed and kept in meta.json.

  mpirun -np 32 latmap survey -o run/ --sizes 256 --mmpi run.dat
  srun -n 1024 latmap survey -o df/ --topology /etc/slurm/topology.conf
  srun -n 1024 latmap survey --resume df/

More: docs/survey.md.`

const modelHelp = `What latmap place predicts

Pairwise. A message of s bytes between slots a and b takes L(a,b) +
s/B(a,b), L and B from the survey's fit.csv (without it, or with
--ignore-fit, half the smallest size's round trip and the --bandwidth-*
values); the size sweep corrects the line at each pair's mean message
size. A rank's pairwise time adds
messages x L + bytes / B over its peers (between nodes, the busier
direction of each pair). Pairs the survey did not measure take their
level's median (same socket, same node, other node) or their nodes'
leader pair.

Shared. What a node's ranks share makes them wait for each other:

  node link       a node's bytes to other nodes over what its link carries
                  (nodebw.csv or --node-link, else a pair's bandwidth
                  between nodes); a node that drives several links
                  (fan-out) spreads its bytes to its nearest nodes
  memory          the bytes between a node's own ranks over its memory
                  bandwidth (--memory-bandwidth; default: the bandwidth of
                  a pair on the node x half the node's slots)
  switch uplinks  a switch group's bytes out and in over what the survey's
                  switch phase measured (switchbw.csv)
  routed links    on a network (--topology, or one found in the survey),
                  each link's load over its bandwidth, for the ranks whose
                  flows cross it (latmap help routing); declared bandwidths
                  derated to what the survey measured; the flows then
                  share the links by fluid sharing

A rank communicates for the longest of its own transfers and what it waits
for; its on-node and off-node parts overlap. A rank whose time something
shared sets is node-bound. --no-contention models each pair alone.

Predicted run. Each rank's computation, send-late time and collective wait
(no placement changes them) plus its modelled communication, and small
collectives priced by their rounds' latencies; the run is the slowest
rank's. With --matrix and no profile, the slowest rank's communication.

Model check. The prediction for the placement the profile ran under is
set against its measured run, and the error is printed. Where the model is
calibrated on that run, it is also judged out of sample (factors fitted on
the even ranks alone, and on the odd ones, each predict the run), and with
--reruns against latmap verify's runs of that placement.

The verdict, against today's placement (the current one, else the better
of block and cyclic), with a threshold of 2%:

  Use the proposal       predicted at least 2% faster, and by more than
                         the model's measured error
  Can't tell             the gain is smaller than the model's error:
                         measure it with latmap verify
  Placement will not help much
                         under 2%, and send-late time and collective wait
                         are half of MPI's time or more, or MPI is under
                         10% of the run
  Not worth changing     under 2%

Only "Use the proposal" writes -o's file (--always-write writes it
anyway); otherwise latmap exits with status 3. The solver keeps today's
placement too unless it finds one 2% faster: the same margin.

What if. --what-if [CLASS:]bw=FACTOR[,lat=FACTOR] (repeatable) predicts
the run on a changed network: CLASS is a link class of --topology's
network (blue, up-1, torus-x, ...; all by default), bw multiplies its
links' bandwidth, lat the latency between nodes. place prints what runs
today there and a placement made for that network.

--json prints all of it (levels, predictions, the model check, the
solver's candidates, each rank's place) in a versioned schema, and
--qaplib FILE solves a QAPLIB instance with a general QAP local search
instead. More: docs/place.md.`

const filesHelp = `Placement files: the launcher files of latmap place

place writes its proposal (-o FILE, --format F) as the file a launcher
takes, and prints the launch line to use; every file starts with comments
naming latmap, the inputs and the predicted gain.

  openmpi   Open MPI 4 rankfile, lines "rank 0=node1 slot=3" (slot: the
            OS's cpu number): mpirun --mca rmaps_rank_file_physical 1
            -rf FILE
  openmpi5  Open MPI 5 rankfile (slot: hwloc's logical core, which Open
            MPI 5 reads): mpirun --map-by rankfile:file=FILE
  mpich     MPICH Hydra machine file, lines "host:count binding=user:c0,.."
            for each run of ranks on a host: mpiexec -f FILE
  slurm     SLURM_HOSTFILE, one host a rank, for srun
            --distribution=arbitrary with the --cpu-bind=map_cpu: list
  cray      MPICH_RANK_ORDER, the ranks of each node on a line, for Cray
            MPICH with MPICH_RANK_REORDER_METHOD=3
  auto      (the default) openmpi5 when the mpirun on PATH is Open MPI 5,
            else openmpi

Today's placement. --current FILE scores a file of any of these formats as
the placement used today (yours, or another tool's). Ranks without a cpu (a
hostfile without map_cpu, a machine file without bindings) take their
host's slots in socket and cpu order; a Cray rank order's lines take the
survey's hosts in order. Without --current, the profile's ranks.csv says
where each rank ran. A profile whose ranks were not bound to one cpu each
is refused, as where they ran may have moved: profile bound (mpirun
--bind-to core), give --current, or take the cpus they started on with
--accept-unbound.

Renumbering. --same-slots proposes over today's slots only: a new
numbering of the processes where they are. --renumber FILE writes it as
text, line i the new rank of the process that is rank i now. Where the
launcher takes no file, latmap profile applies it inside the job:

  --remap ADVICE   a place --same-slots --json advice: MPI_COMM_WORLD is
                   renumbered at MPI_Init, so that the process on the slot
                   the proposal gives rank r is rank r
  --reorder DIR    a survey of the machine the job runs on: each
                   MPI_Cart_create, MPI_Graph_create and
                   MPI_Dist_graph_create(_adjacent) called with reorder = 1
                   renumbers its processes as place --same-slots would,
                   weighing grid neighbours by --reorder-matrix (an earlier
                   profile's matrix.csv; else one message a neighbour),
                   within --reorder-timeout seconds, else MPI's numbering
                   is kept. Opt-in: a program that uses the new ranks on
                   another communicator breaks.

latmap verify --rankfile FILE measures a written file's gain for real.
More: docs/place.md, "Launcher files" and "Renumbering", and
docs/profile.md.`
