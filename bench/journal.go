package bench

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/latmap/latmap/bench/journal"
	"github.com/latmap/latmap/mapper/survey"
)

// Journals. Every rank appends the round trips it measured to its own
// file beside the output (bench/journal): after a pass when 0.1 s has
// passed since its last write, and at the end of each size. A job killed
// without a word (mpirun's SIGKILL a second after passing a signal on, a
// rank's death) so leaves what it measured, and --resume turns the
// journals into the stopped survey they describe and goes on from it.
// Rank 0 removes them once the survey is written. A rank that cannot
// write its journal (-o not on a file system every node sees) measures
// on without one, and rank 0 says so.

// openJournal starts this rank's journal (every rank; one broadcast and
// one gather).
func (rs *rankSurvey) openJournal(facts survey.Rank, env rankEnv, start time.Time, stderr io.Writer) {
	dir := journal.Dir(rs.opt.Out)
	if rs.rank == 0 {
		os.RemoveAll(dir)
		os.Mkdir(dir, 0o755)
	}
	if _, err := rs.c.Bcast(nil); err != nil {
		return
	}
	h := journal.Header{Rank: rs.rank, Ranks: rs.n, Facts: facts, Sizes: rs.opt.Sizes, Repeats: rs.trips.repeats,
		Scope: rs.scope.name, Schedule: string(rs.opt.Schedule), MPIVersion: env.MPIVersion, Launcher: env.Launcher,
		CommandLine: rs.opt.CommandLine, Start: start}
	for i := range rs.data.samples[0] {
		h.Peers = append(h.Peers, rs.peerAt(i))
	}
	var failed []byte
	w, err := journal.Create(dir, h)
	if err != nil {
		failed = []byte(err.Error())
	}
	rs.data.journal = w
	all, err := rs.c.Gather(failed)
	if rs.rank != 0 || err != nil {
		return
	}
	if msg := journal.Unopened(all); msg != "" {
		fmt.Fprintf(stderr, "latmap: warning: %s\n", msg)
	}
}

// journalAdd records that every pair has upto round trips at size index
// si (journal.Writer.Add); a rank whose write fails keeps no journal from
// then on.
func (rs *rankSurvey) journalAdd(si, upto int, flush bool) {
	if rs.data.journal == nil {
		return
	}
	if err := rs.data.journal.Add(si, upto, flush, func(i int) []float64 { return rs.data.samples[si][i] }); err != nil {
		rs.data.journal.Close()
		rs.data.journal = nil
	}
}
