package placement

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Launcher file formats.
const (
	FormatOpenMPI = "openmpi"
	FormatMPICH   = "mpich"
	FormatSlurm   = "slurm"
	FormatCray    = "cray"
)

// Formats lists the launcher file formats.
var Formats = []string{FormatOpenMPI, FormatMPICH, FormatSlurm, FormatCray}

// LaunchFile is a written placement: the file's bytes, the command line
// that uses it, and warnings about what the format cannot express.
type LaunchFile struct {
	Data     []byte
	Launch   []string
	Warnings []string
}

// rankSlot is where one rank goes.
type rankSlot struct {
	host string
	cpu  int
}

// nodeRuns lists the hosts in order of their first rank, each with its
// ranks in rank order.
func nodeRuns(m *Machine, place []int32) (hosts []string, ranks map[string][]int) {
	ranks = map[string][]int{}
	for r, s := range place {
		h := m.Slots[s].Host
		if _, ok := ranks[h]; !ok {
			hosts = append(hosts, h)
		}
		ranks[h] = append(ranks[h], r)
	}
	return hosts, ranks
}

// localCPUList is the cpu of each node-local rank index, the same list for
// every node when possible (the form Slurm's map_cpu takes). ok is false when nodes disagree; the first node's list is
// returned then.
func localCPUList(m *Machine, place []int32) (list []int, ok bool, agree, nodes int) {
	hosts, ranks := nodeRuns(m, place)
	ok = true
	for k, h := range hosts {
		var l []int
		for _, r := range ranks[h] {
			l = append(l, m.Slots[place[r]].CPU)
		}
		if k == 0 {
			list = l
			agree = 1
			continue
		}
		same := len(l) <= len(list)
		for i := 0; same && i < len(l); i++ {
			same = l[i] == list[i]
		}
		if same {
			agree++
		} else {
			ok = false
		}
	}
	return list, ok, agree, len(hosts)
}

func joinInts(v []int, sep string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, sep)
}

func comment(b *bytes.Buffer, header []string) {
	for _, h := range header {
		for _, line := range strings.Split(h, "\n") {
			b.WriteString("# " + line + "\n")
		}
	}
}

// cpuList writes the header and usage comments of a format that binds by
// node-local cpu list (usage has one %s for the list), warns when nodes
// disagree, and returns the list.
func (lf *LaunchFile) cpuList(b *bytes.Buffer, m *Machine, place []int32, header []string, what, title, usage string) string {
	list, ok, agree, nodes := localCPUList(m, place)
	cpus := joinInts(list, ",")
	comment(b, header)
	comment(b, []string{title, fmt.Sprintf(usage, cpus)})
	if !ok {
		w := fmt.Sprintf("the cpu order differs between nodes (%d of %d nodes follow the %s list); use --format openmpi for exact cpus", agree, nodes, what)
		lf.Warnings = append(lf.Warnings, w)
		comment(b, []string{"warning: " + w})
	}
	return cpus
}

// WriteLaunchFile renders a placement (place[rank] = slot of m) in a
// launcher's format. header lines become comments (every format here
// accepts '#' comment lines: Open MPI rankfiles, Hydra machine files,
// Slurm's SLURM_HOSTFILE reader strips '#' to the end of the line, and
// MPICH_RANK_ORDER files). file is the name the launch line refers to; app
// is the program and its arguments.
func WriteLaunchFile(format string, m *Machine, place []int32, header []string, file string, app []string) (*LaunchFile, error) {
	n := len(place)
	var b bytes.Buffer
	lf := &LaunchFile{}
	np := strconv.Itoa(n)
	if len(app) == 0 {
		app = []string{"./app"}
	}
	switch format {
	case FormatOpenMPI, "":
		comment(&b, header)
		comment(&b, []string{
			"Open MPI rankfile; slot numbers are the OS cpu numbers the survey saw.",
			"Open MPI v4: mpirun -np " + np + " --mca rmaps_rank_file_physical 1 -rf " + file + " " + strings.Join(app, " "),
			"Open MPI v5: mpirun -np " + np + " --map-by rankfile:FILE=" + file + " " + strings.Join(app, " "),
		})
		for r, s := range place {
			fmt.Fprintf(&b, "rank %d=%s slot=%d\n", r, m.Slots[s].Host, m.Slots[s].CPU)
		}
		lf.Launch = append([]string{"mpirun", "-np", np, "--mca", "rmaps_rank_file_physical", "1", "-rf", file}, app...)
	case FormatMPICH:
		// Hydra gives consecutive ranks to the machine file's lines in
		// order, starts one proxy per line (merging a line into the one
		// before only when the host is the same) and indexes a -bind-to
		// user: list by the rank's position within its line. So each line
		// carries its own binding: exact cpus however the ranks interleave
		// the nodes (checked with mpiexec.hydra of MPICH 4.0.2).
		comment(&b, header)
		comment(&b, []string{
			"MPICH (Hydra) machine file: one line per run of consecutive ranks on a host,",
			"host:count binding=user:cpu,... (OS cpu numbers the survey saw, in rank order).",
			"mpiexec -f " + file + " -n " + np + " " + strings.Join(app, " "),
		})
		for i := 0; i < n; {
			h := m.Slots[place[i]].Host
			var cpus []int
			for ; i < n && m.Slots[place[i]].Host == h; i++ {
				cpus = append(cpus, m.Slots[place[i]].CPU)
			}
			fmt.Fprintf(&b, "%s:%d binding=user:%s\n", h, len(cpus), joinInts(cpus, ","))
		}
		lf.Launch = append([]string{"mpiexec", "-f", file, "-n", np}, app...)
	case FormatSlurm:
		bind := "map_cpu:" + lf.cpuList(&b, m, place, header, "map_cpu",
			"Slurm SLURM_HOSTFILE: the host of each rank, one line per rank.",
			"SLURM_HOSTFILE="+file+" srun -n "+np+" --distribution=arbitrary --cpu-bind=map_cpu:%s "+strings.Join(app, " "))
		for _, s := range place {
			b.WriteString(m.Slots[s].Host + "\n")
		}
		lf.Launch = append([]string{"SLURM_HOSTFILE=" + file, "srun", "-n", np, "--distribution=arbitrary", "--cpu-bind=" + bind}, app...)
	case FormatCray:
		hosts, ranks := nodeRuns(m, place)
		ppn := 0
		for _, h := range hosts {
			ppn = max(ppn, len(ranks[h]))
		}
		cp := ""
		if filepath.Base(file) != "MPICH_RANK_ORDER" {
			cp = "cp " + file + " MPICH_RANK_ORDER; "
		}
		comment(&b, header)
		comment(&b, []string{
			"Cray MPICH_RANK_ORDER: ranks in the order they fill the nodes, one node per line",
			"(" + strconv.Itoa(ppn) + " per node). It groups ranks on nodes; which physical node each group",
			"lands on is the allocation's choice.",
			cp + "MPICH_RANK_REORDER_METHOD=3 srun -n " + np + " --ntasks-per-node=" + strconv.Itoa(ppn) + " " + strings.Join(app, " "),
		})
		for i, h := range hosts {
			if len(ranks[h]) != ppn && i != len(hosts)-1 {
				w := fmt.Sprintf("node %s holds %d ranks, not %d: MPICH_RANK_ORDER fills nodes evenly, so this grouping cannot be reproduced exactly", h, len(ranks[h]), ppn)
				lf.Warnings = append(lf.Warnings, w)
				comment(&b, []string{"warning: " + w})
				break
			}
		}
		for _, h := range hosts {
			rs := append([]int(nil), ranks[h]...)
			// Within a node, ranks in the order of the cpus they were given.
			sort.SliceStable(rs, func(i, j int) bool { return m.Slots[place[rs[i]]].CPU < m.Slots[place[rs[j]]].CPU })
			b.WriteString(joinInts(rs, ",") + "\n")
		}
		env := "MPICH_RANK_REORDER_METHOD=3"
		if cp != "" {
			lf.Warnings = append(lf.Warnings, "Cray MPICH reads the file named MPICH_RANK_ORDER in the working directory: copy "+file+" there under that name")
		}
		lf.Launch = append([]string{env, "srun", "-n", np, "--ntasks-per-node=" + strconv.Itoa(ppn)}, app...)
	default:
		return nil, fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
	}
	lf.Data = b.Bytes()
	return lf, nil
}
