package verify

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/latmap/latmap/internal/atomicdir"
	"github.com/latmap/latmap/mapper/placefile"
)

// check refuses what would fail only after the runs: runs below one, an
// output whose parent directory is missing or that is not a directory
// to replace, a --lib that is not there.
func (opt Options) check() error {
	if len(opt.Command) == 0 {
		return errors.New("no launch command; give it after --, for example: latmap verify -o v/ --rankfile app.rankfile -- mpirun -np 4 ./app")
	}
	if opt.Output == "" || opt.File == "" {
		return errors.New("give -o DIR for the results and --rankfile FILE (the file latmap place wrote)")
	}
	if err := atomicdir.CheckDest(opt.Output, opt.Force); err != nil {
		return err
	}
	if opt.Runs < 1 {
		return fmt.Errorf("--runs %d: want at least 1 run of each variant", opt.Runs)
	}
	if opt.Lib != "" && opt.Lib != "none" {
		if _, err := os.Stat(opt.Lib); err != nil {
			return fmt.Errorf("--lib %s: %w (give latmap's timing library, lib/liblatmap.so, or --lib none to compare wall times only)", opt.Lib, errors.Unwrap(err))
		}
	}
	return nil
}

// sameRanks refuses a placement file whose ranks are not the launch
// command's: -np, -n, --np, -c (Open MPI, Hydra) or --ntasks (Slurm),
// where the command gives one.
func sameRanks(command []string, file string) error {
	np := launchRanks(command)
	if np <= 0 {
		return nil
	}
	ranks, _, err := placefile.Read(file)
	if err != nil {
		return fmt.Errorf("--rankfile %s: %w", file, errors.Unwrap(err))
	}
	if len(ranks) != np {
		return fmt.Errorf("--rankfile %s places %d ranks, the launch command starts %d: give the file latmap place wrote for this job", file, len(ranks), np)
	}
	return nil
}

// launchRanks is the number of ranks the launch command's options name
// (0: none). The options end at the program: the first word that is a
// path, or the second of two words in a row that are not options (an
// option's value, then the program).
func launchRanks(command []string) int {
	bare := false
	for i := 1; i < len(command); i++ {
		a := command[i]
		if !strings.HasPrefix(a, "-") {
			if bare || strings.Contains(a, "/") {
				return 0
			}
			bare = true
			continue
		}
		bare = false
		name, value, eq := strings.Cut(a, "=")
		switch name {
		case "-np", "--np", "-n", "-c", "--ntasks":
		default:
			continue
		}
		if !eq {
			if i+1 >= len(command) {
				return 0
			}
			value = command[i+1]
		}
		if n, err := strconv.Atoi(value); err == nil {
			return n
		}
		return 0
	}
	return 0
}

// Unconfirmed says why v's measured speedup does not confirm a gain (its
// 95% interval reaches 1: the application's run where it was timed, else
// whole launches), or "" when it does.
func Unconfirmed(v *placefile.Verification) string {
	what, s, ci := "whole launches", v.Speedup, v.SpeedupCI95
	if v.AppTimed {
		what, s, ci = "the application's run", v.AppSpeedup, v.AppSpeedupCI95
	}
	if ci[0] > 1 {
		return ""
	}
	return fmt.Sprintf("the proposal's gain is not confirmed: %s measured %.2fx faster (95%% interval %.2f-%.2f, which reaches 1; the runs are written)", what, s, ci[0], ci[1])
}
