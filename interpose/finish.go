package interpose

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gocarina/gocsv"

	"github.com/latmap/latmap/internal/atomicdir"
	"github.com/latmap/latmap/internal/version"
	"github.com/latmap/latmap/mapper/profile"
)

// Raw files liblatmap.so writes at MPI_Finalize (rank 0, into
// $LATMAP_PROFILE_DIR); FinishProfile turns them into a profile directory.
const (
	libraryFile  = "library.json" // written last: its presence means complete
	sentFile     = "sent.csv"     // src,dst,bytes,messages,time_s: sender's view
	receivedFile = "received.csv" // src,dst,bytes,messages,time_s,late_s: receiver's view
	// collectiveFile holds src,dst,bytes,messages of the collectives'
	// generic point-to-point equivalent (only with --collectives-in-matrix).
	collectiveFile = "collective.csv"
)

// libraryMeta is library.json.
type libraryMeta struct {
	MPIVersion      string   `json:"mpi_version"`
	Ranks           int      `json:"ranks"`
	SLT             bool     `json:"slt"`
	CollectiveWait  bool     `json:"collective_wait"`
	CollMatrix      bool     `json:"collectives_in_matrix"`
	Window          string   `json:"window"`
	Clock           string   `json:"clock"`
	TickHz          float64  `json:"tick_hz"`
	TokenLatency    float64  `json:"token_latency_us"`
	ThreadLevel     int      `json:"thread_level"`
	WallSeconds     float64  `json:"wall_s"`
	TokenMismatches int64    `json:"token_mismatches"`
	TokenResynced   int64    `json:"token_resynced"`
	Unmeasured      []string `json:"unmeasured"`
}

type sentRow struct {
	Src      int     `csv:"src"`
	Dst      int     `csv:"dst"`
	Bytes    int64   `csv:"bytes"`
	Messages int64   `csv:"messages"`
	Time     float64 `csv:"time_s"`
}

// merger joins the sender's and the receiver's views of point-to-point
// traffic into matrix.csv rows: bytes and messages as sent (what the
// application asked to send), time and late time as the receiver waited.
// The collectives' generic point-to-point equivalent (only with
// --collectives-in-matrix) adds bytes and messages without time. Feed it
// every sent row, then every received row, then the collective rows; it
// keeps one row per pair and one index entry per pair.
type merger struct {
	idx                  map[uint64]int32
	m                    []profile.Transfer
	sentBytes, recvBytes int64
	sentMsgs             int64
}

func newMerger() *merger { return &merger{idx: map[uint64]int32{}} }

func (g *merger) at(src, dst int) (x *profile.Transfer, seen bool) {
	k := uint64(uint32(src))<<32 | uint64(uint32(dst))
	i, ok := g.idx[k]
	if !ok {
		i = int32(len(g.m))
		g.idx[k] = i
		g.m = append(g.m, profile.Transfer{Src: src, Dst: dst})
	}
	return &g.m[i], ok
}

func (g *merger) sent(src, dst int, bytes, msgs int64) {
	x, _ := g.at(src, dst)
	x.Bytes += bytes
	x.Messages += msgs
	g.sentBytes += bytes
	g.sentMsgs += msgs
}

func (g *merger) received(r profile.Transfer) {
	x, seen := g.at(r.Src, r.Dst)
	if !seen { // received but never seen sent (a sender outside the window)
		x.Bytes, x.Messages = r.Bytes, r.Messages
	}
	x.Time += r.Time
	x.Late += r.Late
	g.recvBytes += r.Bytes
}

func (g *merger) collective(src, dst int, bytes, msgs int64) {
	x, _ := g.at(src, dst)
	x.Bytes += bytes
	x.Messages += msgs
}

// matrix returns the rows sorted by source and destination.
func (g *merger) matrix() []profile.Transfer {
	m := g.m
	sort.Slice(m, func(a, b int) bool {
		if m[a].Src != m[b].Src {
			return m[a].Src < m[b].Src
		}
		return m[a].Dst < m[b].Dst
	})
	return m
}

// mergeMatrix merges rows held in memory (see merger) and returns the
// matrix and the total point-to-point bytes on each side.
func mergeMatrix(sent []sentRow, recv []profile.Transfer, coll []sentRow) (m []profile.Transfer, sentBytes, recvBytes int64) {
	g := newMerger()
	for _, r := range sent {
		g.sent(r.Src, r.Dst, r.Bytes, r.Messages)
	}
	for _, r := range recv {
		g.received(r)
	}
	for _, r := range coll {
		g.collective(r.Src, r.Dst, r.Bytes, r.Messages)
	}
	return g.matrix(), g.sentBytes, g.recvBytes
}

// streamPairs reads a raw pair file (sent.csv, received.csv,
// collective.csv) row by row, without holding it (encoding/csv with a
// reused record, not gocsv, which would hold every row of a file of
// millions): row gets src, dst,
// bytes, messages, and time_s and late_s where the file has them (else 0).
func streamPairs(path string, row func(t profile.Transfer)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReaderSize(f, 1<<20))
	r.ReuseRecord = true
	r.FieldsPerRecord = -1
	name := filepath.Base(path)
	head, err := r.Read()
	if err != nil {
		return fmt.Errorf("%s: header: %w", name, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, need := range []string{"src", "dst", "bytes", "messages"} {
		if _, ok := col[need]; !ok {
			return fmt.Errorf("%s: no %s column (header %q)", name, need, strings.Join(head, ","))
		}
	}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if len(rec) != len(head) {
			return fmt.Errorf("%s line %d: %d fields, want %d", name, line, len(rec), len(head))
		}
		var t profile.Transfer
		var perr error
		num := func(c string, bits int) int64 {
			v, err := strconv.ParseInt(rec[col[c]], 10, bits)
			if err != nil && perr == nil {
				perr = fmt.Errorf("%s line %d: %s: %q is not an integer", name, line, c, rec[col[c]])
			}
			return v
		}
		flt := func(c string) float64 {
			i, ok := col[c]
			if !ok {
				return 0
			}
			v, err := strconv.ParseFloat(rec[i], 64)
			if err != nil && perr == nil {
				perr = fmt.Errorf("%s line %d: %s: %q is not a number", name, line, c, rec[i])
			}
			return v
		}
		t.Src, t.Dst = int(num("src", 32)), int(num("dst", 32))
		t.Bytes, t.Messages = num("bytes", 64), num("messages", 64)
		t.Time, t.Late = flt("time_s"), flt("late_s")
		if perr != nil {
			return perr
		}
		row(t)
	}
}

// mergeFiles streams the raw pair files of raw into a matrix.
func mergeFiles(raw string, collectives bool) (*merger, error) {
	g := newMerger()
	if err := streamPairs(filepath.Join(raw, sentFile), func(t profile.Transfer) { g.sent(t.Src, t.Dst, t.Bytes, t.Messages) }); err != nil {
		return nil, err
	}
	if err := streamPairs(filepath.Join(raw, receivedFile), g.received); err != nil {
		return nil, err
	}
	if collectives {
		if err := streamPairs(filepath.Join(raw, collectiveFile), func(t profile.Transfer) { g.collective(t.Src, t.Dst, t.Bytes, t.Messages) }); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// FinishProfile reads the raw files in raw, merges the matrix, completes
// meta with what the library reported, and writes the profile directory out
// atomically (validated before it is renamed into place).
func FinishProfile(raw, out string, force bool, meta profile.Meta) error {
	b, err := os.ReadFile(filepath.Join(raw, libraryFile))
	if err != nil {
		return err
	}
	var lib libraryMeta
	if err := json.Unmarshal(b, &lib); err != nil {
		return fmt.Errorf("%s: %w", libraryFile, err)
	}
	g, err := mergeFiles(raw, lib.CollMatrix)
	if err != nil {
		return err
	}
	matrix, sb, rb := g.matrix(), g.sentBytes, g.recvBytes
	meta.Tool = "latmap"
	meta.Version = version.Version
	meta.Ranks = lib.Ranks
	meta.MPIVersion = lib.MPIVersion
	meta.Clock = lib.Clock
	meta.ThreadLevel = lib.ThreadLevel
	if lib.SLT {
		meta.TokenLatencyMicros = lib.TokenLatency
	}
	meta.Unmeasured = append(meta.Unmeasured, lib.Unmeasured...)
	if meta.Reorders, err = readReorders(raw); err != nil {
		return err
	}
	if sb != rb {
		meta.Warnings = append(meta.Warnings, fmt.Sprintf("point-to-point bytes sent (%d) differ from bytes received (%d): "+
			"messages outside the observation window, cancelled, received with a function latmap does not wrap, or never received", sb, rb))
	}
	return atomicdir.Write(out, force, func(tmp string) error {
		for _, name := range []string{profile.RanksFile, profile.FunctionsFile, profile.SizesFile} {
			if err := copyFile(filepath.Join(raw, name), filepath.Join(tmp, name)); err != nil {
				return err
			}
		}
		if err := atomicdir.CreateFile(filepath.Join(tmp, profile.MatrixFile), func(w io.Writer) error { return gocsv.Marshal(matrix, w) }); err != nil {
			return err
		}
		if err := atomicdir.WriteJSON(filepath.Join(tmp, profile.MetaFile), meta); err != nil {
			return err
		}
		if err := finishCallSites(raw, tmp); err != nil {
			return err
		}
		if err := finishComms(raw, tmp, lib.Ranks, g.sentBytes, g.sentMsgs); err != nil {
			return err
		}
		p, err := profile.ReadProfile(tmp)
		if err != nil {
			return fmt.Errorf("the library's output is not a valid profile: %w", err)
		}
		if len(p.Ranks) != lib.Ranks {
			return fmt.Errorf("%s has %d ranks, the run had %d", profile.RanksFile, len(p.Ranks), lib.Ranks)
		}
		return nil
	})
}

// copyFile copies src to dst without holding it in memory.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return atomicdir.CreateFile(dst, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}

// readReorders reads reorders.tsv, rank 0's line about each call
// --reorder met (reorder.c): call, index, ranks, outcome, predicted
// speedup, the new ranks comma-separated. No file: none.
func readReorders(raw string) ([]profile.Reorder, error) {
	b, err := os.ReadFile(filepath.Join(raw, "reorders.tsv"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var out []profile.Reorder
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			return nil, fmt.Errorf("reorders.tsv line %d: %d fields, want 6", i+1, len(f))
		}
		r := profile.Reorder{Call: f[0], Outcome: f[3]}
		var err1, err2, err3 error
		r.Index, err1 = strconv.Atoi(f[1])
		r.Ranks, err2 = strconv.Atoi(f[2])
		r.PredictedSpeedup, err3 = strconv.ParseFloat(f[4], 64)
		for _, x := range strings.Split(f[5], ",") {
			n, err := strconv.Atoi(x)
			err1 = cmp.Or(err1, err)
			r.NewRanks = append(r.NewRanks, n)
		}
		if err := cmp.Or(err1, err2, err3); err != nil || len(r.NewRanks) != r.Ranks {
			return nil, fmt.Errorf("reorders.tsv line %d: %q", i+1, line)
		}
		out = append(out, r)
	}
	return out, nil
}
