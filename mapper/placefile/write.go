package placefile

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
	FormatOpenMPI  = "openmpi"  // Open MPI 4: slots are OS cpu numbers
	FormatOpenMPI5 = "openmpi5" // Open MPI 5: slots are logical cores
	FormatMPICH    = "mpich"
	FormatSlurm    = "slurm"
	FormatCray     = "cray"
)

// Formats lists the launcher file formats.
func Formats() []string {
	return []string{FormatOpenMPI, FormatOpenMPI5, FormatMPICH, FormatSlurm, FormatCray}
}

// The first lines of the two rankfiles' headers, which Detect and Read
// tell them by.
const (
	openMPITitle  = "Open MPI rankfile"
	openMPI5Title = "Open MPI 5 rankfile"
)

// LaunchFile is a written placement: the file's bytes, the command line
// that uses it, and warnings about what the format cannot express.
type LaunchFile struct {
	Data     []byte
	Launch   []string
	Warnings []string
}

// nodeRuns lists the hosts in order of their first rank, each with its
// ranks in rank order.
func nodeRuns(place []RankSlot) (hosts []string, ranks map[string][]int) {
	ranks = map[string][]int{}
	for r, s := range place {
		h := s.Host
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
func localCPUList(place []RankSlot) (list []int, ok bool, agree, nodes int) {
	hosts, ranks := nodeRuns(place)
	ok = true
	for k, h := range hosts {
		var l []int
		for _, r := range ranks[h] {
			l = append(l, place[r].CPU)
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
func (lf *LaunchFile) cpuList(b *bytes.Buffer, place []RankSlot, header []string, what, title, usage string) string {
	list, ok, agree, nodes := localCPUList(place)
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

// Write renders a placement (place[rank] = the host and cpu it goes to) in
// a launcher's format. header lines become comments (every format here
// accepts '#' comment lines: Open MPI rankfiles, Hydra machine files,
// Slurm's SLURM_HOSTFILE reader strips '#' to the end of the line, and
// MPICH_RANK_ORDER files). file is the name the launch line refers to; app
// is the program and its arguments.
func Write(format string, place []RankSlot, header []string, file string, app []string) (*LaunchFile, error) {
	if len(app) == 0 {
		app = []string{"./app"}
	}
	w := &writer{place: place, header: header, file: file, app: app, np: strconv.Itoa(len(place))}
	switch format {
	case FormatOpenMPI, "":
		w.openMPI()
	case FormatOpenMPI5:
		if err := w.openMPI5(); err != nil {
			return nil, err
		}
	case FormatMPICH:
		w.mpich()
	case FormatSlurm:
		w.slurm()
	case FormatCray:
		w.cray()
	default:
		return nil, fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats(), ", "))
	}
	w.lf.Data = w.b.Bytes()
	return &w.lf, nil
}

// writer holds one launcher file being written.
type writer struct {
	place  []RankSlot
	header []string
	file   string
	app    []string
	np     string // the number of ranks
	b      bytes.Buffer
	lf     LaunchFile
}

func (w *writer) appLine() string { return strings.Join(w.app, " ") }

// openMPI writes an Open MPI 4 rankfile.
func (w *writer) openMPI() {
	comment(&w.b, w.header)
	comment(&w.b, []string{
		openMPITitle + "; slot numbers are the OS cpu numbers the survey saw.",
		"Open MPI 4: mpirun -np " + w.np + " --mca rmaps_rank_file_physical 1 -rf " + w.file + " " + w.appLine(),
		"Open MPI 5 reads slots as logical cores and has no -rf: write its file with latmap place --format openmpi5.",
	})
	for r, s := range w.place {
		fmt.Fprintf(&w.b, "rank %d=%s slot=%d\n", r, s.Host, s.CPU)
	}
	w.lf.Launch = append([]string{"mpirun", "-np", w.np, "--mca", "rmaps_rank_file_physical", "1", "-rf", w.file}, w.app...)
}

// openMPI5 writes an Open MPI 5 rankfile: PRRTE reads a slot as the
// logical index of a core (hwloc's numbering), and has no option for OS
// cpu numbers, so each rank's slot is the logical core the survey
// recorded for its cpu (checked with Open MPI 5.0.7).
func (w *writer) openMPI5() error {
	for r, s := range w.place {
		if s.Core < 0 {
			return fmt.Errorf("rank %d's cpu (%s cpu %d) has no logical core number: the survey was written before latmap recorded them, or imported; "+
				"survey again, or write --format openmpi for Open MPI 4", r, s.Host, s.CPU)
		}
	}
	comment(&w.b, w.header)
	comment(&w.b, []string{
		openMPI5Title + "; slot numbers are logical cores (hwloc's numbering) of the cpus the survey saw.",
		"mpirun -np " + w.np + " --map-by rankfile:file=" + w.file + " " + w.appLine(),
	})
	for r, s := range w.place {
		fmt.Fprintf(&w.b, "rank %d=%s slot=%d\n", r, s.Host, s.Core)
	}
	w.lf.Launch = append([]string{"mpirun", "-np", w.np, "--map-by", "rankfile:file=" + w.file}, w.app...)
	return nil
}

// mpich writes a Hydra machine file. Hydra gives consecutive ranks to the
// machine file's lines in order, starts one proxy per line (merging a line
// into the one before only when the host is the same) and indexes a
// -bind-to user: list by the rank's position within its line. So each
// line carries its own binding: exact cpus however the ranks interleave
// the nodes (checked with mpiexec.hydra of MPICH 4.0.2).
func (w *writer) mpich() {
	comment(&w.b, w.header)
	comment(&w.b, []string{
		"MPICH (Hydra) machine file: one line per run of consecutive ranks on a host,",
		"host:count binding=user:cpu,... (OS cpu numbers the survey saw, in rank order).",
		"mpiexec -f " + w.file + " -n " + w.np + " " + w.appLine(),
	})
	n := len(w.place)
	for i := 0; i < n; {
		h := w.place[i].Host
		var cpus []int
		for ; i < n && w.place[i].Host == h; i++ {
			cpus = append(cpus, w.place[i].CPU)
		}
		fmt.Fprintf(&w.b, "%s:%d binding=user:%s\n", h, len(cpus), joinInts(cpus, ","))
	}
	w.lf.Launch = append([]string{"mpiexec", "-f", w.file, "-n", w.np}, w.app...)
}

// slurm writes a SLURM_HOSTFILE with the --cpu-bind=map_cpu list in its
// header.
func (w *writer) slurm() {
	bind := "map_cpu:" + w.lf.cpuList(&w.b, w.place, w.header, "map_cpu",
		"Slurm SLURM_HOSTFILE: the host of each rank, one line per rank.",
		"SLURM_HOSTFILE="+w.file+" srun -n "+w.np+" --distribution=arbitrary --cpu-bind=map_cpu:%s "+w.appLine())
	for _, s := range w.place {
		w.b.WriteString(s.Host + "\n")
	}
	w.lf.Launch = append([]string{"SLURM_HOSTFILE=" + w.file, "srun", "-n", w.np, "--distribution=arbitrary", "--cpu-bind=" + bind}, w.app...)
}

// cray writes a Cray MPICH_RANK_ORDER.
func (w *writer) cray() {
	hosts, ranks := nodeRuns(w.place)
	ppn := 0
	for _, h := range hosts {
		ppn = max(ppn, len(ranks[h]))
	}
	cp := ""
	if filepath.Base(w.file) != "MPICH_RANK_ORDER" {
		cp = "cp " + w.file + " MPICH_RANK_ORDER; "
	}
	comment(&w.b, w.header)
	comment(&w.b, []string{
		"Cray MPICH_RANK_ORDER: ranks in the order they fill the nodes, one node per line",
		"(" + strconv.Itoa(ppn) + " per node). It groups ranks on nodes; which physical node each group",
		"lands on is the allocation's choice.",
		cp + "MPICH_RANK_REORDER_METHOD=3 srun -n " + w.np + " --ntasks-per-node=" + strconv.Itoa(ppn) + " " + w.appLine(),
	})
	for i, h := range hosts {
		if len(ranks[h]) != ppn && i != len(hosts)-1 {
			msg := fmt.Sprintf("node %s holds %d ranks, not %d: MPICH_RANK_ORDER fills nodes evenly, so this grouping cannot be reproduced exactly",
				h, len(ranks[h]), ppn)
			w.lf.Warnings = append(w.lf.Warnings, msg)
			comment(&w.b, []string{"warning: " + msg})
			break
		}
	}
	for _, h := range hosts {
		rs := append([]int(nil), ranks[h]...)
		// Within a node, ranks in the order of the cpus they were given.
		sort.SliceStable(rs, func(i, j int) bool { return w.place[rs[i]].CPU < w.place[rs[j]].CPU })
		w.b.WriteString(joinInts(rs, ",") + "\n")
	}
	if cp != "" {
		w.lf.Warnings = append(w.lf.Warnings, "Cray MPICH reads the file named MPICH_RANK_ORDER in the working directory: copy "+w.file+" there under that name")
	}
	w.lf.Launch = append([]string{"MPICH_RANK_REORDER_METHOD=3", "srun", "-n", w.np, "--ntasks-per-node=" + strconv.Itoa(ppn)}, w.app...)
}
