package interpose

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

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
	Unmeasured      []string `json:"unmeasured"`
}

type sentRow struct {
	Src      int     `csv:"src"`
	Dst      int     `csv:"dst"`
	Bytes    int64   `csv:"bytes"`
	Messages int64   `csv:"messages"`
	Time     float64 `csv:"time_s"`
}

func readCSV(path string, out any) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := gocsv.Unmarshal(f, out); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return nil
}

// mergeMatrix joins the sender's and the receiver's views of point-to-point
// traffic into matrix.csv rows: bytes and messages as sent (what the
// application asked to send), time and late time as the receiver waited.
// coll, the collectives' generic point-to-point equivalent (only with
// --collectives-in-matrix), adds bytes and messages without time. It also
// returns the total point-to-point bytes on each side.
func mergeMatrix(sent []sentRow, recv []profile.Transfer, coll []sentRow) (m []profile.Transfer, sentBytes, recvBytes int64) {
	type key struct{ s, d int }
	idx := map[key]int{}
	at := func(src, dst int) *profile.Transfer {
		k := key{src, dst}
		i, ok := idx[k]
		if !ok {
			i = len(m)
			idx[k] = i
			m = append(m, profile.Transfer{Src: src, Dst: dst})
		}
		return &m[i]
	}
	for _, r := range sent {
		x := at(r.Src, r.Dst)
		x.Bytes += r.Bytes
		x.Messages += r.Messages
		sentBytes += r.Bytes
	}
	for _, r := range recv {
		_, seen := idx[key{r.Src, r.Dst}]
		x := at(r.Src, r.Dst)
		if !seen { // received but never seen sent (a sender outside the window)
			x.Bytes, x.Messages = r.Bytes, r.Messages
		}
		x.Time += r.Time
		x.Late += r.Late
		recvBytes += r.Bytes
	}
	for _, r := range coll {
		x := at(r.Src, r.Dst)
		x.Bytes += r.Bytes
		x.Messages += r.Messages
	}
	sort.Slice(m, func(a, b int) bool {
		if m[a].Src != m[b].Src {
			return m[a].Src < m[b].Src
		}
		return m[a].Dst < m[b].Dst
	})
	return m, sentBytes, recvBytes
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
	var sent []sentRow
	var recv []profile.Transfer
	if err := readCSV(filepath.Join(raw, sentFile), &sent); err != nil {
		return err
	}
	if err := readCSV(filepath.Join(raw, receivedFile), &recv); err != nil {
		return err
	}
	var coll []sentRow
	if lib.CollMatrix {
		if err := readCSV(filepath.Join(raw, collectiveFile), &coll); err != nil {
			return err
		}
	}
	matrix, sb, rb := mergeMatrix(sent, recv, coll)
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

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}
