package interpose

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/latmap/latmap/internal/atomicdir"
	"github.com/latmap/latmap/internal/launcher"
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/mapper/profile"
	"github.com/latmap/latmap/mapper/survey"
)

// RunOptions are latmap profile's settings.
type RunOptions struct {
	Out            string // profile directory to write
	Force          bool   // replace Out if it exists
	SLT            bool   // send-late time by tokens
	CollectiveWait bool   // timed barrier before each blocking collective
	// CollectivesInMatrix adds each collective's generic point-to-point
	// equivalent to matrix.csv (see docs/profile.md).
	CollectivesInMatrix bool
	// CallSites records MPI time per call site, with this many return
	// addresses above each MPI call (0: off; at most 16).
	CallSites int
	// FlushSeconds is how often each rank writes its figures so far (a
	// partial profile if the run is ended before MPI_Finalize); 0: never.
	FlushSeconds float64
	// Reorder renumbers the processes of MPI_Cart_create(reorder = 1)
	// calls from a survey (reorder.c), or the world at MPI_Init (remap.c).
	Reorder        ReorderOptions
	Window         string   // FUNC:START:END, "" for the whole run
	Lib            string   // liblatmap.so; "" finds it (see launcher.FindLibrary)
	Launcher       string   // openmpi, hydra, slurm; "" detects it
	Command        []string // the launch command, e.g. mpirun -np 4 ./app
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// ReorderOptions are latmap profile --reorder's and --remap's: the survey of the
// machine the job runs on (none: MPI's own numbering), an earlier
// profile's matrix.csv for the graph's weights (none: one message a
// neighbour) and how long each call's latmap place may take.
type ReorderOptions struct {
	Survey, Matrix string
	Timeout        float64
	// Remap is a latmap place --json advice whose proposal MPI_COMM_WORLD
	// is renumbered to at MPI_Init (--remap; "" for none).
	Remap string
}

// ExitError is returned when the launch command failed: Code is its exit
// status, which latmap profile passes through. No profile is written.
type ExitError struct {
	Code int
	Err  error
	Hint string // a likely cause, when latmap can tell
	// Partial, when set, is the partial profile written from the ranks'
	// last snapshots.
	Partial string
}

// Error says the launch command failed and what was written.
func (e *ExitError) Error() string {
	msg := fmt.Sprintf("the launch command failed (%v); no profile written", e.Err)
	if e.Partial != "" {
		msg = fmt.Sprintf("the launch command failed (%v): wrote %s", e.Err, e.Partial)
	}
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// Unwrap returns the launcher's error.
func (e *ExitError) Unwrap() error { return e.Err }

// Window is a parsed --window FUNC:START:END: profile from the START-th call
// of the collective Func up to (not including) its END-th call.
type Window struct {
	Func       string
	Start, End int
}

// ParseWindow parses FUNC:START:END (FUNC with or without the MPI_ prefix).
func ParseWindow(s string) (Window, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return Window{}, fmt.Errorf("window %q: want FUNC:START:END, for example MPI_Allreduce:10:20", s)
	}
	f := parts[0]
	if !strings.HasPrefix(f, "MPI_") {
		f = "MPI_" + f
	}
	if profile.FunctionKind(f) != "collective" {
		return Window{}, fmt.Errorf("window %q: %s is not a collective latmap wraps (for example MPI_Allreduce, MPI_Barrier)", s, f)
	}
	a, err1 := strconv.Atoi(parts[1])
	b, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || a < 1 || b <= a {
		return Window{}, fmt.Errorf("window %q: START and END must be call numbers with 1 <= START < END", s)
	}
	return Window{Func: f, Start: a, End: b}, nil
}

// String returns the window as FUNC:START:END.
func (w Window) String() string { return fmt.Sprintf("%s:%d:%d", w.Func, w.Start, w.End) }

// Run runs the launch command with liblatmap.so injected into every
// rank and writes the profile directory opt.Out atomically. When the
// command fails, nothing is written and an *ExitError carries its status.
func Run(ctx context.Context, opt RunOptions) error {
	if len(opt.Command) == 0 {
		return errors.New("no launch command; give it after --, for example: latmap profile -o app/ -- mpirun -np 4 ./app")
	}
	if opt.FlushSeconds < 0 {
		return fmt.Errorf("--flush-every %g: want seconds between snapshots, or 0 for none", opt.FlushSeconds)
	}
	if opt.CallSites < 0 || opt.CallSites > maxCallSiteDepth {
		return fmt.Errorf("--call-sites=%d: the depth is 1 to %d frames above each MPI call", opt.CallSites, maxCallSiteDepth)
	}
	if err := opt.Reorder.check(); err != nil {
		return err
	}
	remap, err := readRemap(opt.Reorder.Remap)
	if err != nil {
		return err
	}
	lib, err := launcher.FindLibrary(opt.Lib)
	if err != nil {
		return err
	}
	var win Window
	if opt.Window != "" {
		if win, err = ParseWindow(opt.Window); err != nil {
			return err
		}
	}
	if err := atomicdir.CheckDest(opt.Out, opt.Force); err != nil {
		return err
	}
	l, err := runLauncher(ctx, opt)
	if err != nil {
		return err
	}
	out, err := filepath.Abs(opt.Out)
	if err != nil {
		return err
	}
	raw, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".raw-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(raw)

	env, modes := profileEnv(opt, lib, raw, win)
	if remap != nil {
		slots := filepath.Join(raw, "remap.rankfile")
		if err := atomicdir.CreateFile(slots, func(w io.Writer) error { _, err := w.Write(remap); return err }); err != nil {
			return fmt.Errorf("--remap %s: %w", opt.Reorder.Remap, err)
		}
		env = append(env, [2]string{"LATMAP_REMAP", slots})
		modes = append(modes, profile.ModeRemap)
	}
	cmd, err := launchCommand(ctx, opt, l, env)
	if err != nil {
		return err
	}
	start := time.Now()
	launchErr := runLaunch(cmd, opt.Command[0], l, lib)
	end := time.Now()
	meta := profile.Meta{
		Tool: "latmap", Command: opt.Command, Modes: modes, Start: start, End: end,
		WallSeconds: end.Sub(start).Seconds(), Launcher: string(l),
	}
	if opt.Window != "" {
		meta.Window = win.String()
	}
	if launchErr != nil {
		return finishPartial(raw, opt, meta, launchErr)
	}
	if err := checkRawProfile(raw, opt.Command[0], l, lib); err != nil {
		return err
	}
	return FinishProfile(raw, opt.Out, opt.Force, meta)
}

// runLauncher is the launcher opt.Launcher names, or the one the launch
// command's first word is detected as.
func runLauncher(ctx context.Context, opt RunOptions) (launcher.Launcher, error) {
	if opt.Launcher != "" {
		return launcher.Parse(opt.Launcher)
	}
	return launcher.Detect(ctx, opt.Command[0])
}

// profileEnv is the environment every rank gets (liblatmap.so preloaded
// before any LD_PRELOAD already set, the raw output directory, the
// modes and window asked for) and the modes meta.json records.
func profileEnv(opt RunOptions, lib, raw string, win Window) (env [][2]string, modes []string) {
	preload := lib
	if old := os.Getenv("LD_PRELOAD"); old != "" {
		preload += ":" + old
	}
	env = [][2]string{{"LD_PRELOAD", preload}, {"LATMAP_PROFILE_DIR", raw}}
	modes = []string{profile.ModeBasic}
	if opt.SLT {
		env = append(env, [2]string{"LATMAP_SLT", "1"})
		modes = append(modes, profile.ModeSLT)
	}
	if opt.CollectiveWait {
		env = append(env, [2]string{"LATMAP_COLLWAIT", "1"})
		modes = append(modes, profile.ModeCollectiveWait)
	}
	if opt.CollectivesInMatrix {
		env = append(env, [2]string{"LATMAP_COLLMATRIX", "1"})
		modes = append(modes, profile.ModeCollectivesInMatrix)
	}
	if opt.CallSites > 0 {
		env = append(env, [2]string{"LATMAP_CALL_SITES", strconv.Itoa(opt.CallSites)})
		modes = append(modes, profile.ModeCallSites)
	}
	if opt.Window != "" {
		env = append(env, [2]string{"LATMAP_WINDOW", win.String()})
	}
	if opt.Reorder.Survey != "" {
		env = append(env, reorderEnv(opt.Reorder)...)
		modes = append(modes, profile.ModeReorder)
	}
	if opt.FlushSeconds > 0 {
		env = append(env, [2]string{"LATMAP_FLUSH_SECONDS", strconv.FormatFloat(opt.FlushSeconds, 'g', -1, 64)})
	}
	return env, modes
}

// launchCommand is the launch command with env passed to every rank
// through launcher l, and the standard streams of opt.
func launchCommand(ctx context.Context, opt RunOptions, l launcher.Launcher, env [][2]string) (*exec.Cmd, error) {
	argv, err := launcher.WithEnv(l, opt.Command, env)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = opt.Stdin, opt.Stdout, opt.Stderr
	return cmd, nil
}

// runLaunch runs the launch command cmd (named by its first word, name);
// one that exits non-zero returns an *ExitError with its status and a
// hint when liblatmap.so (lib) and launcher l look mismatched.
func runLaunch(cmd *exec.Cmd, name string, l launcher.Launcher, lib string) error {
	if err := runForwardingSignals(cmd); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code := ee.ExitCode()
			if code <= 0 {
				code = 1
			}
			return &ExitError{Code: code, Err: err, Hint: launcher.MismatchHint(l, lib)}
		}
		return fmt.Errorf("running %s: %w", name, err)
	}
	return nil
}

// checkRawProfile fails when the command (named by its first word, name)
// exited without liblatmap.so writing its raw profile in raw.
func checkRawProfile(raw, name string, l launcher.Launcher, lib string) error {
	if _, err := os.Stat(filepath.Join(raw, libraryFile)); err != nil {
		hint := noProfileHint(l, lib)
		if hint != "" {
			hint = " (" + hint + ")"
		}
		return fmt.Errorf("%s exited without writing a profile: did every rank reach MPI_Finalize, "+
			"and does the program use the MPI that liblatmap.so was built with%s? (%w)", name, hint, err)
	}
	return nil
}

// runForwardingSignals runs cmd and survives the signals that stop it, so
// that the raw output is removed and the launcher's status reported: an
// interrupt from the terminal reaches the launcher directly (same process
// group), a SIGTERM sent to latmap alone (a batch system) is forwarded.
func runForwardingSignals(cmd *exec.Cmd) error {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case s := <-sigs:
				if s == syscall.SIGTERM {
					cmd.Process.Signal(s)
				}
			case <-done:
				return
			}
		}
	}()
	return cmd.Wait()
}

// check refuses --reorder-matrix without --reorder, a survey or matrix
// that is not there, and a timeout of no time.
func (r ReorderOptions) check() error {
	if r.Survey == "" {
		if r.Matrix != "" {
			return fmt.Errorf("--reorder-matrix needs --reorder SURVEY: the matrix weighs the grid that --reorder renumbers")
		}
		return nil
	}
	if st, err := os.Stat(filepath.Join(r.Survey, "meta.json")); err != nil || st.IsDir() {
		return fmt.Errorf("--reorder %s: not a survey directory (latmap survey -o DIR writes one)", r.Survey)
	}
	// Read here, before the launch: each rank's renumbering reads them
	// again, and a broken file found there fails the job, not the check.
	one := survey.LoadOptions{SkipFit: true, KeepSparse: true, Metrics: []survey.Metric{survey.Median}}
	if _, err := survey.ReadSurvey(r.Survey, one); err != nil {
		return fmt.Errorf("--reorder: %w", err)
	}
	if r.Matrix != "" {
		if _, _, err := profile.ReadMatrixFile(r.Matrix); err != nil {
			return fmt.Errorf("--reorder-matrix: %w", err)
		}
	}
	if r.Timeout < 0 {
		return fmt.Errorf("--reorder-timeout %g: want the seconds latmap place may take (0: 60)", r.Timeout)
	}
	return nil
}

// readRemap reads --remap's advice (latmap place --json's output with a
// proposal of bound slots) and returns the proposal's slots as remap.c
// reads them; none without --remap.
func readRemap(path string) ([]byte, error) {
	if path == "" {
		return nil, nil
	}
	a, err := placefile.ReadAdvice(path)
	if err != nil {
		return nil, fmt.Errorf("--remap: %w", err)
	}
	var b bytes.Buffer
	if err := placefile.WriteRemapSlots(&b, a); err != nil {
		return nil, fmt.Errorf("--remap %s: %w", path, err)
	}
	return b.Bytes(), nil
}

// reorderEnv is what reorder.c reads: this latmap binary, the survey and
// matrix by absolute path (the ranks may start elsewhere), the timeout.
func reorderEnv(r ReorderOptions) [][2]string {
	self, _ := os.Executable()
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil && p != "" {
			return a
		}
		return p
	}
	env := [][2]string{{"LATMAP_REORDER_CMD", self}, {"LATMAP_REORDER_SURVEY", abs(r.Survey)}}
	if r.Matrix != "" {
		env = append(env, [2]string{"LATMAP_REORDER_MATRIX", abs(r.Matrix)})
	}
	if r.Timeout > 0 {
		env = append(env, [2]string{"LATMAP_REORDER_TIMEOUT", strconv.FormatFloat(r.Timeout, 'g', -1, 64)})
	}
	return env
}
