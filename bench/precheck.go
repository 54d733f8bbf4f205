package bench

import (
	"fmt"
	"os"

	"github.com/latmap/latmap/bench/journal"
	"github.com/latmap/latmap/mapper/survey"
)

// checkBeforeMPI is what rank 0 (or a process that does not know its
// rank) checks of its files before MPI starts: the outputs (-o, --mmpi)
// and what it can of --resume without the other ranks (ranks is the
// number of ranks its launcher started, -1 when unknown). Run calls it
// after Validate; measure checks the same again once MPI is up, where
// every rank learns rank 0's answer.
func checkBeforeMPI(opt *Options, ranks int) error {
	if opt.Resume != "" {
		host, _ := os.Hostname()
		if err := checkResume(opt, ranks, host); err != nil {
			return fmt.Errorf("--resume %s: %w", opt.Resume, err)
		}
	}
	return checkOutputs(opt)
}

// endsJobOnExit reports whether the launcher named (DetectLauncher's
// name) ends the whole job when one process exits with an error before
// MPI_Init: Open MPI's mpirun does. MPICH's Hydra mpiexec does not (the
// others wait in MPI_Init for the rank that is gone, seen with MPICH
// 4.0), nor does srun by default (--kill-on-bad-exit).
func endsJobOnExit(name string) bool {
	return name == "openmpi"
}

// checkResume reads --resume's stopped survey into opt.stopped and
// checks it against this job as far as one rank knows it: its number of
// ranks (ranks; -1: unknown), rank 0's host (host; "": unknown), the
// scope. A survey killed without a word left journals that only the job
// turns into its stopped survey (planResume): they are left to it.
func checkResume(opt *Options, ranks int, host string) error {
	if _, err := os.Stat(journal.Dir(opt.Resume)); err == nil {
		return nil
	}
	old, err := survey.ReadSurvey(opt.Resume, survey.LoadOptions{KeepSparse: true})
	if err != nil {
		return err
	}
	var hosts []string
	if host != "" {
		hosts = []string{host}
	}
	if _, err := matchStopped(old, *opt, ranks, hosts); err != nil {
		return err
	}
	opt.stopped = old
	return nil
}

// matchStopped checks that the stopped survey old can be resumed by this
// job: its ranks (-1: unknown) and the hosts of its first ranks (the
// first len(hosts)), the scope; it returns the scope to measure with.
func matchStopped(old *survey.Survey, opt Options, ranks int, hosts []string) (string, error) {
	if old.Meta.Stopped == "" {
		return "", fmt.Errorf("a survey that was not stopped early: nothing to resume; give -o DIR for a new survey")
	}
	if ranks >= 0 && old.N() != ranks {
		return "", fmt.Errorf("%d ranks, this job %d: resume it with as many ranks on the same hosts", old.N(), ranks)
	}
	for r, h := range hosts {
		if r < old.N() && old.Ranks[r].Host != h {
			return "", fmt.Errorf("rank %d ran on %s, and runs on %s now: resume it on the same hosts in the same order", r, old.Ranks[r].Host, h)
		}
	}
	scope := opt.Scope
	if scope == ScopeAuto {
		scope = old.Meta.Scope
	}
	if scope != old.Meta.Scope {
		return "", fmt.Errorf("scope %s, this job %s: resume it with --scope %s", old.Meta.Scope, scope, old.Meta.Scope)
	}
	return scope, nil
}
