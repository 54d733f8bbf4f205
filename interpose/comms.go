package interpose

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gocarina/gocsv"

	"github.com/latmap/latmap/internal/atomicdir"
	"github.com/latmap/latmap/mapper/profile"
)

// Raw files of the per-communicator matrices (interpose/c/comms.c).
const (
	rawCommsFile    = "comms.csv"    // rank,comm,name,function,size: the groups each rank met
	rawCommSentFile = "commsent.csv" // comm,src,dst,bytes,messages,time_s: sends on them
)

type rawComm struct {
	Rank     int    `csv:"rank"`
	Comm     string `csv:"comm"`
	Name     string `csv:"name"`
	Function string `csv:"function"`
	Size     int    `csv:"size"` // 0: the rank sent on it but is in no instance
}

// finishComms writes comms.csv and, when a communicator other than
// MPI_COMM_WORLD carried traffic, commmatrix.csv: each group's rows, and
// MPI_COMM_WORLD's own (sent.csv's rows less the groups'). sentBytes and
// sentMsgs are sent.csv's totals. A raw directory without the files (a
// library of an older latmap) writes neither.
func finishComms(raw, dir string, ranks int, sentBytes, sentMsgs int64) error {
	var rc []rawComm
	if err := readRaw(filepath.Join(raw, rawCommsFile), &rc); err != nil {
		return err
	}
	var rs []profile.CommTransfer
	if err := readRaw(filepath.Join(raw, rawCommSentFile), &rs); err != nil {
		return err
	}
	if rc == nil && rs == nil {
		return nil
	}
	comms, idx := commTable(rc)
	world := profile.Comm{Comm: profile.CommWorld, Name: profile.CommWorld, Members: ranks, Size: ranks, Bytes: sentBytes, Messages: sentMsgs}
	type pair struct{ src, dst int }
	type sum struct {
		bytes, msgs int64
		time        float64
	}
	groups := map[pair]sum{}
	for _, t := range rs {
		i, ok := idx[t.Comm]
		if !ok {
			return fmt.Errorf("%s: communicator %q has traffic but is not in %s", rawCommSentFile, t.Comm, rawCommsFile)
		}
		comms[i].Bytes += t.Bytes
		comms[i].Messages += t.Messages
		world.Bytes -= t.Bytes
		world.Messages -= t.Messages
		g := groups[pair{t.Src, t.Dst}]
		groups[pair{t.Src, t.Dst}] = sum{g.bytes + t.Bytes, g.msgs + t.Messages, g.time + t.Time}
	}
	keep := []profile.Comm{world}
	for _, c := range comms {
		if c.Bytes > 0 || c.Messages > 0 || (c.Members > 0 && c.Comm != profile.CommSelf) {
			keep = append(keep, c)
		}
	}
	if err := atomicdir.CreateFile(filepath.Join(dir, profile.CommsFile), func(w io.Writer) error { return gocsv.Marshal(keep, w) }); err != nil {
		return err
	}
	if len(rs) == 0 {
		return nil
	}
	// MPI_COMM_WORLD's own rows: what was sent less what was sent on the
	// groups, pair by pair (sent.csv has one row per pair).
	var own []profile.CommTransfer
	err := streamPairs(filepath.Join(raw, sentFile), func(t profile.Transfer) {
		g := groups[pair{t.Src, t.Dst}]
		if b, m := t.Bytes-g.bytes, t.Messages-g.msgs; b > 0 || m > 0 {
			own = append(own, profile.CommTransfer{Comm: profile.CommWorld, Src: t.Src, Dst: t.Dst, Bytes: b, Messages: m, Time: max(0, t.Time-g.time)})
		}
	})
	if err != nil {
		return err
	}
	sortCommTransfers(rs, idx)
	return atomicdir.CreateFile(filepath.Join(dir, profile.CommMatrixFile), func(w io.Writer) error { return gocsv.Marshal(append(own, rs...), w) })
}

// readRaw reads a raw CSV file into out; a missing file leaves out nil.
func readRaw(path string, out any) error {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := gocsv.Unmarshal(f, out); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return nil
}

// commTable merges the ranks' rows into one row per group, in creation
// order (w.0, w.1, ..., w.0.0 after w.0), named by the name most of its
// members gave it (ties: the lowest rank's).
func commTable(rc []rawComm) ([]profile.Comm, map[string]int) {
	idx := map[string]int{}
	var comms []profile.Comm
	names := map[string]map[string]int{}
	for _, r := range rc {
		i, ok := idx[r.Comm]
		if !ok {
			i = len(comms)
			idx[r.Comm] = i
			comms = append(comms, profile.Comm{Comm: r.Comm, Function: r.Function})
			names[r.Comm] = map[string]int{}
		}
		c := &comms[i]
		if r.Size > 0 {
			c.Members++
			c.Size = max(c.Size, r.Size)
		}
		if r.Name != "" {
			names[r.Comm][r.Name]++
			if n := names[r.Comm][r.Name]; n > names[r.Comm][c.Name] {
				c.Name = r.Name
			}
		}
	}
	sort.SliceStable(comms, func(a, b int) bool { return commLess(comms[a].Comm, comms[b].Comm) })
	for i, c := range comms {
		idx[c.Comm] = i
	}
	return comms, idx
}

// commLess orders creation paths number by number (w.2 before w.10),
// then self and other last.
func commLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	if (pa[0] == "w") != (pb[0] == "w") {
		return pa[0] == "w"
	}
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, ex := strconv.Atoi(pa[i])
		y, ey := strconv.Atoi(pb[i])
		if ex == nil && ey == nil && x != y {
			return x < y
		}
		if ex != nil || ey != nil {
			if pa[i] != pb[i] {
				return pa[i] < pb[i]
			}
		}
	}
	return len(pa) < len(pb)
}

func sortCommTransfers(rs []profile.CommTransfer, idx map[string]int) {
	sort.Slice(rs, func(a, b int) bool {
		x, y := rs[a], rs[b]
		if x.Comm != y.Comm {
			return idx[x.Comm] < idx[y.Comm]
		}
		if x.Src != y.Src {
			return x.Src < y.Src
		}
		return x.Dst < y.Dst
	})
}
