package interpose

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/latmap/latmap/internal/atomicdir"
	"github.com/latmap/latmap/mapper/profile"
)

// Partial profiles. A run ended before MPI_Finalize (a job's time limit,
// scancel, a crash) writes no raw profile; with LATMAP_FLUSH_SECONDS every
// rank writes its rows as they stand now and then into
// partial/RANK/ of the raw directory (interpose/c/output.c), the same
// rows the gather would, with snapshot.json last. finishPartial joins the
// last snapshots into the raw files, rank by rank, as the gather would
// have, and writes the profile marked partial.

// partialDir is the raw directory's subdirectory of the ranks' snapshots.
const partialDir = "partial"

// snapshotMeta is a rank's snapshot.json.
type snapshotMeta struct {
	At          float64 `json:"at_s"`
	Ranks       int     `json:"ranks"`
	Rank        int     `json:"rank"`
	Clock       string  `json:"clock"`
	TickHz      float64 `json:"tick_hz"`
	SLT         bool    `json:"slt"`
	CollWait    bool    `json:"collective_wait"`
	CollMatrix  bool    `json:"collectives_in_matrix"`
	ThreadLevel int     `json:"thread_level"`
}

// finishPartial writes the partial profile of a run whose launch failed
// (launchErr, an *ExitError or not) from the ranks' snapshots in raw, and
// returns launchErr saying what it wrote; without a snapshot of every
// rank it returns launchErr as it is (nothing written).
func finishPartial(raw string, opt RunOptions, meta profile.Meta, launchErr error) error {
	snaps, err := readSnapshots(filepath.Join(raw, partialDir))
	if err != nil || len(snaps) == 0 {
		return launchErr
	}
	if err := joinSnapshots(raw, snaps); err != nil {
		return fmt.Errorf("%w; the ranks' snapshots could not be joined: %v", launchErr, err)
	}
	first, last := snaps[0].At, snaps[0].At
	for _, s := range snaps {
		first, last = min(first, s.At), max(last, s.At)
	}
	var ee *ExitError
	reason := launchErr.Error()
	if errors.As(launchErr, &ee) {
		reason = fmt.Sprintf("the launch command failed (%v)", ee.Err)
	}
	meta.Partial = &profile.Partial{Reason: reason, FromSeconds: first, ToSeconds: last}
	meta.Warnings = append(meta.Warnings, fmt.Sprintf(
		"partial profile: the run ended before MPI_Finalize (%s); each rank's figures are its last snapshot's, %.1f-%.1f s into the run",
		reason, first, last))
	if err := FinishProfile(raw, opt.Out, opt.Force, meta); err != nil {
		return fmt.Errorf("%w; its partial profile: %v", launchErr, err)
	}
	what := fmt.Sprintf("the partial profile %s (each rank up to its last snapshot, %.1f-%.1f s into the run)", opt.Out, first, last)
	if ee != nil {
		ee.Partial = what
		return ee
	}
	return fmt.Errorf("%w: wrote %s", launchErr, what)
}

// readSnapshots reads every rank's snapshot.json under dir, in rank
// order; it returns none unless every rank of the run left one.
func readSnapshots(dir string) ([]snapshotMeta, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var snaps []snapshotMeta
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "snapshot.json"))
		if err != nil {
			continue
		}
		var s snapshotMeta
		if json.Unmarshal(b, &s) == nil && strconv.Itoa(s.Rank) == e.Name() {
			snaps = append(snaps, s)
		}
	}
	slices.SortFunc(snaps, func(a, b snapshotMeta) int { return a.Rank - b.Rank })
	for i, s := range snaps {
		if s.Rank != i || s.Ranks != snaps[0].Ranks {
			return nil, fmt.Errorf("rank %d's snapshot is missing", i)
		}
	}
	if len(snaps) == 0 || len(snaps) != snaps[0].Ranks {
		return nil, fmt.Errorf("%d of the ranks left a snapshot", len(snaps))
	}
	return snaps, nil
}

// joinSnapshots writes raw's files from the ranks' snapshots: each file
// rank 0 has, its header once then every rank's rows in rank order (what
// the gather writes), and library.json from the snapshots.
func joinSnapshots(raw string, snaps []snapshotMeta) error {
	dir := filepath.Join(raw, partialDir)
	ents, err := os.ReadDir(filepath.Join(dir, "0"))
	if err != nil {
		return err
	}
	for _, e := range ents {
		name := e.Name()
		if name == "snapshot.json" || filepath.Ext(name) == ".tmp" {
			continue
		}
		if err := atomicdir.CreateFile(filepath.Join(raw, name), func(w io.Writer) error {
			for r := range snaps {
				if err := appendRows(w, filepath.Join(dir, strconv.Itoa(r), name), r == 0); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	s := snaps[0]
	lib := libraryMeta{Ranks: s.Ranks, SLT: s.SLT, CollectiveWait: s.CollWait, CollMatrix: s.CollMatrix, Clock: s.Clock,
		TickHz: s.TickHz, ThreadLevel: s.ThreadLevel, WallSeconds: s.At}
	return atomicdir.WriteJSON(filepath.Join(raw, libraryFile), lib)
}

// appendRows copies the file at path to w, its first line (the header)
// only when header is true.
func appendRows(w io.Writer, path string, header bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	if !header {
		if _, err := r.ReadString('\n'); err != nil && err != io.EOF {
			return err
		}
	}
	_, err = io.Copy(w, r)
	return err
}
