package placefile

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// RankSlot is where a placement file puts one rank: its host (or, for a
// Cray rank order, the index of its group: which node a group lands on is
// the allocation's choice) and cpu (-1 when the file does not say), or
// for an Open MPI 5 rankfile the logical index of its core (-1 otherwise).
type RankSlot struct {
	Host  string
	Group int // Cray: the line the rank is on; -1 otherwise
	CPU   int
	Core  int
}

var (
	rankfileLine = regexp.MustCompile(`^rank\s+(\d+)\s*=\s*(\S+)\s+slot\s*=\s*(\d+)\s*$`)
	machineLine  = regexp.MustCompile(`^([^\s:#]+)(?::(\d+))?(?:\s+binding=user:([\d,]+))?\s*$`)
	rankOrder    = regexp.MustCompile(`^\d+(\s*,\s*\d+)*$`)
)

// Read reads a placement in any format latmap place writes
// (Open MPI rankfile, MPICH machine file with its binding lists, Slurm
// SLURM_HOSTFILE with the --cpu-bind=map_cpu list of its header, Cray
// MPICH_RANK_ORDER) or one written by hand or another tool in those
// formats, and returns where each rank goes and the format it read.
func Read(path string) ([]RankSlot, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("--current: %w", err)
	}
	defer f.Close()
	var lines []string
	var lineNo []int
	mapCPU, v5 := "", false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "#") {
			v5 = v5 || strings.Contains(l, openMPI5Title)
			if _, b, ok := strings.Cut(l, "--cpu-bind=map_cpu:"); ok {
				mapCPU, _, _ = strings.Cut(b, " ")
			}
			continue
		}
		if l != "" {
			lines, lineNo = append(lines, l), append(lineNo, n)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, "", fmt.Errorf("--current %s: %w", path, err)
	}
	if len(lines) == 0 {
		return nil, "", fmt.Errorf("--current %s: no placement in it", path)
	}
	bad := func(i int, want string) error {
		return fmt.Errorf("--current %s line %d: %q is not %s", path, lineNo[i], lines[i], want)
	}
	switch {
	case rankfileLine.MatchString(lines[0]):
		return readRankfile(lines, v5, bad)
	case rankOrder.MatchString(lines[0]):
		return readRankOrder(lines, bad)
	case strings.Contains(lines[0], ":") || strings.Contains(lines[0], "binding="):
		return readMachineFile(lines, bad)
	}
	return readHostfile(lines, mapCPU, bad)
}

// readRankfile reads an Open MPI rankfile: slot is the OS cpu number (v4
// with rmaps_rank_file_physical, as latmap writes them), or the logical
// core when the header says the file is for Open MPI 5 (v5).
func readRankfile(lines []string, v5 bool, bad func(int, string) error) ([]RankSlot, string, error) {
	out := make([]RankSlot, len(lines))
	seen := make([]bool, len(lines))
	for i, l := range lines {
		m := rankfileLine.FindStringSubmatch(l)
		if m == nil {
			return nil, "", bad(i, "an Open MPI rankfile line (rank N=HOST slot=CPU)")
		}
		r, _ := strconv.Atoi(m[1])
		cpu, _ := strconv.Atoi(m[3])
		if r >= len(lines) || seen[r] {
			return nil, "", bad(i, fmt.Sprintf("a new rank below %d (each rank 0..N-1 once)", len(lines)))
		}
		seen[r] = true
		out[r] = RankSlot{Host: m[2], Group: -1, CPU: cpu, Core: -1}
		if v5 {
			out[r].CPU, out[r].Core = -1, cpu
		}
	}
	if v5 {
		return out, FormatOpenMPI5, nil
	}
	return out, FormatOpenMPI, nil
}

func readMachineFile(lines []string, bad func(int, string) error) ([]RankSlot, string, error) {
	var out []RankSlot
	for i, l := range lines {
		m := machineLine.FindStringSubmatch(l)
		if m == nil {
			return nil, "", bad(i, "a Hydra machine file line (HOST[:COUNT] [binding=user:CPU,...])")
		}
		count := 1
		if m[2] != "" {
			count, _ = strconv.Atoi(m[2])
		}
		if count < 1 || count > maxRanks {
			return nil, "", bad(i, fmt.Sprintf("a machine file line with 1 to %d ranks (HOST:COUNT)", maxRanks))
		}
		var cpus []string
		if m[3] != "" {
			cpus = strings.Split(m[3], ",")
			if len(cpus) != count {
				return nil, "", bad(i, fmt.Sprintf("a line whose binding lists %d cpus", count))
			}
		}
		for k := 0; k < count; k++ {
			cpu := -1
			if cpus != nil {
				cpu, _ = strconv.Atoi(cpus[k])
			}
			out = append(out, RankSlot{Host: m[1], Group: -1, CPU: cpu, Core: -1})
		}
	}
	return out, FormatMPICH, nil
}

// readHostfile reads a SLURM_HOSTFILE: the host of each rank, and the cpu
// of each rank from the map_cpu list (indexed by the rank's position among
// its host's ranks) when the header gives it.
func readHostfile(lines []string, mapCPU string, bad func(int, string) error) ([]RankSlot, string, error) {
	var cpus []int
	if mapCPU != "" {
		for _, c := range strings.Split(mapCPU, ",") {
			v, err := strconv.Atoi(c)
			if err != nil {
				return nil, "", fmt.Errorf("--current: map_cpu list %q: %w", mapCPU, err)
			}
			cpus = append(cpus, v)
		}
	}
	local := map[string]int{}
	out := make([]RankSlot, len(lines))
	for i, h := range lines {
		if strings.ContainsAny(h, " \t,=") {
			return nil, "", bad(i, "a SLURM_HOSTFILE line (one host name)")
		}
		out[i] = RankSlot{Host: h, Group: -1, CPU: -1, Core: -1}
		if k := local[h]; k < len(cpus) {
			out[i].CPU = cpus[k]
		}
		local[h]++
	}
	return out, FormatSlurm, nil
}

// readRankOrder reads a Cray MPICH_RANK_ORDER: one line of ranks per node.
func readRankOrder(lines []string, bad func(int, string) error) ([]RankSlot, string, error) {
	var all [][2]int // rank, group
	for i, l := range lines {
		if !rankOrder.MatchString(l) {
			return nil, "", bad(i, "a Cray rank order line (RANK,RANK,...)")
		}
		for _, f := range strings.Split(l, ",") {
			r, _ := strconv.Atoi(strings.TrimSpace(f))
			all = append(all, [2]int{r, i})
		}
	}
	out := make([]RankSlot, len(all))
	seen := make([]bool, len(all))
	for _, x := range all {
		if x[0] >= len(all) || seen[x[0]] {
			return nil, "", fmt.Errorf("--current: rank %d is out of range or given twice (each rank 0..%d once)", x[0], len(all)-1)
		}
		seen[x[0]] = true
		out[x[0]] = RankSlot{Group: x[1], CPU: -1, Core: -1}
	}
	return out, FormatCray, nil
}

// maxRanks bounds the ranks one placement file line may give (2^24, far
// above any job), so that a corrupt count fails rather than allocates.
const maxRanks = 1 << 24
