package survey

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/latmap/latmap/internal/csvfile"
)

// The switch files of a survey directory, written when the survey found
// levels above the nodes (switches) in its latencies:
//
//   - SwitchesFile names each host's group at each switch level (level 1
//     is the innermost: the hosts behind one leaf switch; level 2 the
//     groups of leaves behind one middle switch; ...);
//   - SwitchBandwidthFile is the switch bandwidth phase: every rank of
//     every host of a group sending at once to the hosts of another group
//     of the same level, so the rate out of a group is what its uplinks
//     carry when all its hosts talk outside it.
const (
	SwitchesFile        = "switches.csv"
	SwitchBandwidthFile = "switchbw.csv"
)

// SwitchesHeader is the exact header of switches.csv.
func SwitchesHeader() []string { return []string{"host", "level", "group"} }

// SwitchBandwidthHeader is the exact header of switchbw.csv.
func SwitchBandwidthHeader() []string {
	return []string{"level", "group", "peer_group", "hosts", "ranks", "size_bytes", "messages", "seconds", "aggregate_MBps"}
}

// HostGroup is one row of switches.csv: Host's group at switch level
// Level (1 = innermost). Groups are numbered 0, 1, ... within a level.
type HostGroup struct {
	Host         string
	Level, Group int
}

// SwitchBandwidth is one row of switchbw.csv: one step of the switch
// phase, every rank of Group's hosts sending at once to the hosts of
// PeerGroup (same level). PeerGroup equal to Group means "to the rest":
// at a level whose groups are joined by links of their own (a
// dragonfly's), each host of the group sent to another group at once.
type SwitchBandwidth struct {
	Level, Group, PeerGroup int
	// Hosts and Ranks are how many of Group's hosts and ranks sent.
	Hosts, Ranks int
	// Size is the message size; Messages how many each rank sent.
	Size, Messages int
	// Seconds is the step's wall time (the slowest sending rank).
	Seconds float64
	// AggregateMBps is Ranks*Messages*Size/Seconds/1e6: what left the
	// group through its uplinks.
	AggregateMBps float64
}

// SwitchBandwidthMeta is meta.json's record of the switch phase.
type SwitchBandwidthMeta struct {
	// Levels is how many switch levels were found.
	Levels    int `json:"levels"`
	SizeBytes int `json:"size_bytes"`
	Steps     int `json:"steps"`
	// Seconds is the phase's wall time.
	Seconds float64 `json:"seconds,omitempty"`
	// Planned is where the levels came from: "latencies", or the
	// network description's path (latmap survey --topology).
	Planned string `json:"planned,omitempty"`
}

// SwitchLevels is switches.csv as a table: Of[k][host] is the host's
// group at switch level k+1 (hosts numbered as in hosts). ok is false
// when some host has no group at some level.
func SwitchLevels(rows []HostGroup, hosts []string) (of [][]int, ok bool) {
	levels := 0
	for _, r := range rows {
		levels = max(levels, r.Level)
	}
	idx := make(map[string]int, len(hosts))
	for i, h := range hosts {
		idx[h] = i
	}
	of = make([][]int, levels)
	for k := range of {
		of[k] = make([]int, len(hosts))
		for i := range of[k] {
			of[k][i] = -1
		}
	}
	for _, r := range rows {
		if i, in := idx[r.Host]; in {
			of[r.Level-1][i] = r.Group
		}
	}
	for _, l := range of {
		for _, g := range l {
			if g < 0 {
				return nil, false
			}
		}
	}
	return of, levels > 0
}

// checkSwitches checks that switches.csv names every level once per host
// and that the levels nest: two hosts in one group at a level are in one
// group at every level above it.
func checkSwitches(rows []HostGroup) error {
	type hl struct {
		h string
		l int
	}
	seen := map[hl]int{}
	levels := 0
	for _, r := range rows {
		if _, dup := seen[hl{r.Host, r.Level}]; dup {
			return fmt.Errorf("%s: host %s has two groups at level %d", SwitchesFile, r.Host, r.Level)
		}
		seen[hl{r.Host, r.Level}] = r.Group
		levels = max(levels, r.Level)
	}
	// parent[k][g]: the level-k+1 group of level-k group g.
	for _, r := range rows {
		for l := 1; l <= levels; l++ {
			if _, ok := seen[hl{r.Host, l}]; !ok {
				return fmt.Errorf("%s: host %s has no group at level %d (every host needs one at every level)", SwitchesFile, r.Host, l)
			}
		}
	}
	for l := 1; l < levels; l++ {
		up := map[int]int{}
		for _, r := range rows {
			if r.Level != l {
				continue
			}
			p := seen[hl{r.Host, l + 1}]
			if q, ok := up[r.Group]; ok && q != p {
				return fmt.Errorf("%s: level %d group %d spans level %d groups %d and %d; the levels must nest", SwitchesFile, l, r.Group, l+1, q, p)
			}
			up[r.Group] = p
		}
	}
	return nil
}

// WriteSwitches writes switches.csv.
func WriteSwitches(w io.Writer, rows []HostGroup) error {
	recs := make([][]string, 0, len(rows))
	for _, r := range rows {
		recs = append(recs, []string{r.Host, strconv.Itoa(r.Level), strconv.Itoa(r.Group)})
	}
	return writeCSV(w, SwitchesHeader(), recs)
}

// WriteSwitchBandwidth writes switchbw.csv.
func WriteSwitchBandwidth(w io.Writer, rows []SwitchBandwidth) error {
	recs := make([][]string, 0, len(rows))
	f := func(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	for _, r := range rows {
		recs = append(recs, []string{strconv.Itoa(r.Level), strconv.Itoa(r.Group), strconv.Itoa(r.PeerGroup), strconv.Itoa(r.Hosts),
			strconv.Itoa(r.Ranks), strconv.Itoa(r.Size), strconv.Itoa(r.Messages), f(r.Seconds, 6), f(r.AggregateMBps, 3)})
	}
	return writeCSV(w, SwitchBandwidthHeader(), recs)
}

// writeCSV writes header and recs.
func writeCSV(w io.Writer, header []string, recs [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	if err := cw.WriteAll(recs); err != nil {
		return err
	}
	return cw.Error()
}

// ReadSwitches reads switches.csv, checking every field and that the
// levels nest.
func ReadSwitches(r io.Reader) ([]HostGroup, error) {
	var rows []HostGroup
	err := csvfile.Records(r, SwitchesHeader(), func(rec []string) error {
		if rec[0] == "" {
			return errors.New("empty host")
		}
		l, err1 := strconv.Atoi(rec[1])
		g, err2 := strconv.Atoi(rec[2])
		switch {
		case err1 != nil || l < 1:
			return fmt.Errorf("level: %q is not a positive integer", rec[1])
		case err2 != nil || g < 0:
			return fmt.Errorf("group: %q is not a non-negative integer", rec[2])
		}
		rows = append(rows, HostGroup{Host: rec[0], Level: l, Group: g})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rows, checkSwitches(rows)
}

// ReadSwitchBandwidth reads switchbw.csv, checking every field.
func ReadSwitchBandwidth(r io.Reader) ([]SwitchBandwidth, error) {
	var rows []SwitchBandwidth
	err := csvfile.Records(r, SwitchBandwidthHeader(), func(rec []string) error {
		var b SwitchBandwidth
		ints := []*int{&b.Level, &b.Group, &b.PeerGroup, &b.Hosts, &b.Ranks, &b.Size, &b.Messages}
		for i, p := range ints {
			v, err := strconv.Atoi(rec[i])
			lo := 1
			if i == 1 || i == 2 {
				lo = 0 // group numbers start at 0
			}
			if err != nil || v < lo {
				return fmt.Errorf("%s: %q is not an integer >= %d", SwitchBandwidthHeader()[i], rec[i], lo)
			}
			*p = v
		}
		for i, p := range []*float64{&b.Seconds, &b.AggregateMBps} {
			col := len(ints) + i
			v, err := strconv.ParseFloat(rec[col], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return fmt.Errorf("%s: %q is not a non-negative number", SwitchBandwidthHeader()[col], rec[col])
			}
			*p = v
		}
		rows = append(rows, b)
		return nil
	})
	return rows, err
}

// The words latmap topo and latmap place both use for a level of rank
// pairs, by the group its pairs share: one vocabulary, so that the same
// survey's levels read the same in both (SwitchWord names the levels
// between node and network).
const (
	WordSocket  = "socket"
	WordNode    = "node"
	WordSwitch  = "switch"
	WordNetwork = "network"
)

// SwitchWord names switch level k (0 the lowest) of n between the node
// and the network: switch when it is the only one, else switch1,
// switch2, ...
func SwitchWord(k, n int) string {
	if n == 1 {
		return WordSwitch
	}
	return fmt.Sprintf("%s%d", WordSwitch, k+1)
}

// The names PairLevels gives the two levels inside a node (the levels of
// meta.json's fit_factors).
const (
	LevelSameSocket = "same socket"
	LevelSameNode   = "same node"
)

// PairLevels names the level of the machine's hierarchy two ranks share,
// from ranks.csv (host, socket) and switches.csv: 0 the same socket, 1
// the same node, 2 the same level-1 switch group, ..., and the last, the
// rest of the network. names are the levels' names, by number.
func (s *Survey) PairLevels() (level func(a, b int) int, names []string) {
	hostIdx, nh := HostIndex(s.Ranks)
	hosts := make([]string, nh)
	for r, h := range hostIdx {
		hosts[h] = s.Ranks[r].Host
	}
	of, _ := SwitchLevels(s.Switches, hosts)
	names = []string{LevelSameSocket, LevelSameNode}
	for k := range of {
		names = append(names, fmt.Sprintf("same level-%d switch", k+1))
	}
	names = append(names, "network")
	level = func(a, b int) int {
		ha, hb := hostIdx[a], hostIdx[b]
		if ha == hb {
			if sa, sb := s.Ranks[a].Socket, s.Ranks[b].Socket; sa >= 0 && sa == sb {
				return 0
			}
			return 1
		}
		for k, g := range of {
			if g[ha] == g[hb] {
				return 2 + k
			}
		}
		return len(names) - 1
	}
	return level, names
}
