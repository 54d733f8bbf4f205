package verify

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/latmap/latmap/internal/launcher"
)

// timer times each run's application with latmap's preload library in
// timing mode: with LATMAP_APPTIME set and no profile directory, the
// library's wrappers pass every call through, and at MPI_Finalize rank 0
// writes the slowest rank's time from MPI_Init (after a barrier, as a
// profile's elapsed time) to MPI_Finalize to that file. That is the run
// latmap place predicts; the launcher's own start and end are not.
type timer struct {
	l   launcher.Launcher
	lib string
	// dir holds the runs' files, beside the verification directory: on a
	// cluster that is a shared filesystem rank 0 writes to, where /tmp is
	// not.
	dir string
}

// newTimer finds the library for launcher l (lib as --lib gives it: ""
// finds it, "none" turns timing off). Without one it returns nil and the
// reason, and verify compares wall times only.
func newTimer(l launcher.Launcher, lib, output string) (*timer, string) {
	if lib == "none" {
		return nil, "the application's run is not timed (--lib none)"
	}
	path, err := launcher.FindLibrary(lib)
	if err != nil {
		return nil, "the application's run is not timed: " + err.Error()
	}
	if h := launcher.MismatchHint(l, path); h != "" {
		// The library built for the launcher's MPI, beside this one.
		other := map[launcher.Launcher]string{launcher.Hydra: "liblatmap-mpich.so", launcher.OpenMPI: "liblatmap.so"}[l]
		alt := filepath.Join(filepath.Dir(path), other)
		if _, err := os.Stat(alt); err != nil || lib != "" || launcher.MismatchHint(l, alt) != "" {
			return nil, "the application's run is not timed: " + h
		}
		path = alt
	}
	abs, err := filepath.Abs(output)
	if err != nil {
		return nil, "the application's run is not timed: " + err.Error()
	}
	dir, err := os.MkdirTemp(filepath.Dir(abs), "."+filepath.Base(abs)+"-runs-")
	if err != nil {
		return nil, "the application's run is not timed: " + err.Error()
	}
	return &timer{l: l, lib: path, dir: dir}, ""
}

// wrap returns run i's launch command with the library and its file
// forwarded to every rank, and the file (argv as it is on a nil timer).
func (tm *timer) wrap(argv []string, i int) ([]string, string, error) {
	if tm == nil {
		return argv, "", nil
	}
	file := filepath.Join(tm.dir, fmt.Sprintf("run-%d.csv", i+1))
	pre := tm.lib
	if cur := os.Getenv("LD_PRELOAD"); cur != "" {
		pre += ":" + cur
	}
	out, err := launcher.WithEnv(tm.l, argv, [][2]string{{"LD_PRELOAD", pre}, {"LATMAP_APPTIME", file}})
	return out, file, err
}

// close removes the runs' files.
func (tm *timer) close() {
	if tm != nil {
		os.RemoveAll(tm.dir)
	}
}

// readAppTime reads the slowest rank's time from a LATMAP_APPTIME file
// ("slowest_s,fastest_s,ranks" and one row); 0 when there is none (no
// file: the program did not reach MPI_Finalize through the library).
func readAppTime(path string) float64 {
	if path == "" {
		return 0
	}
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "slowest_s,") || !sc.Scan() {
		return 0
	}
	first, _, _ := strings.Cut(sc.Text(), ",")
	v, err := strconv.ParseFloat(first, 64)
	if err != nil || !(v > 0) {
		return 0
	}
	return v
}
