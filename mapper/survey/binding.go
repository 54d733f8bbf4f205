package survey

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/latmap/latmap/internal/sysfs"
)

// BindingWarnings says what in the ranks' placement makes their latencies
// untrustworthy: hosts where more ranks may run than there are cpus for
// them (from the union of their cpusets: the ranks take turns, and round
// trips measure the scheduler), and ranks not bound to one cpu (they may
// move, and where one ran says little). Ranks without a cpuset (mmpi logs)
// are left out.
func BindingWarnings(ranks []Rank) []string {
	type hostUse struct {
		ranks int
		cpus  map[int]bool
	}
	hosts := map[string]*hostUse{}
	var order []string
	var unbound []int
	for _, r := range ranks {
		if r.CPUSet == "" {
			continue
		}
		cpus, err := sysfs.ParseCPUList(r.CPUSet)
		if err != nil || len(cpus) == 0 {
			continue
		}
		h := hosts[r.Host]
		if h == nil {
			h = &hostUse{cpus: map[int]bool{}}
			hosts[r.Host] = h
			order = append(order, r.Host)
		}
		h.ranks++
		for _, c := range cpus {
			h.cpus[c] = true
		}
		if len(cpus) > 1 {
			unbound = append(unbound, r.Rank)
		}
	}
	var w []string
	for _, name := range order {
		h := hosts[name]
		if h.ranks > len(h.cpus) {
			cpus := make([]int, 0, len(h.cpus))
			for c := range h.cpus {
				cpus = append(cpus, c)
			}
			sort.Ints(cpus)
			w = append(w, fmt.Sprintf("%s: %d ranks may run on only %d cpus (%s): they take turns, so what they measure includes waiting for a cpu; "+
				"run at most one rank per cpu", name, h.ranks, len(cpus), sysfs.FormatCPUList(cpus)))
		}
	}
	if len(unbound) > 0 {
		who := "ranks " + RankRanges(unbound, 0) + " are"
		if len(unbound) == 1 {
			who = fmt.Sprintf("rank %d is", unbound[0])
		}
		w = append(w, fmt.Sprintf("%s not bound to one cpu (cpuset %s for rank %d): they may move, so their cpu says little; "+
			"bind ranks to cores (mpirun --bind-to core, mpiexec -bind-to core with MPICH, srun --cpu-bind=cores)",
			who, rankCPUSet(ranks, unbound[0]), unbound[0]))
	}
	return w
}

func rankCPUSet(ranks []Rank, r int) string {
	for _, x := range ranks {
		if x.Rank == r {
			return x.CPUSet
		}
	}
	return ""
}

// RankRanges prints sorted ranks as ranges, "0-3,7,9-12", cut with "..."
// after max parts (0: no cut).
func RankRanges(r []int, max int) string {
	var parts []string
	for i := 0; i < len(r); {
		j := i
		for j+1 < len(r) && r[j+1] == r[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", r[i], r[j]))
		} else {
			parts = append(parts, fmt.Sprint(r[i]))
		}
		i = j + 1
		if max > 0 && len(parts) == max && i < len(r) {
			parts = append(parts, "...")
			break
		}
	}
	return strings.Join(parts, ",")
}

// Migrated lists the ranks that ran on another cpu at the end than at
// the start, comma-separated ("" when none moved).
func Migrated(ranks []Rank) string {
	var moved []string
	for _, r := range ranks {
		if r.Migrated {
			moved = append(moved, strconv.Itoa(r.Rank))
		}
	}
	return strings.Join(moved, ", ")
}
