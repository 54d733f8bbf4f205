package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/latmap/latmap/internal/exitcode"
	"github.com/latmap/latmap/internal/launcher"
	"github.com/latmap/latmap/internal/stats"
	"github.com/latmap/latmap/internal/text"
	"github.com/latmap/latmap/internal/version"
	"github.com/latmap/latmap/mapper/placefile"
)

// Options are latmap verify's settings.
type Options struct {
	Output string // the verification directory to write
	File   string // the placement file latmap place wrote
	// Place is latmap place --json's output for the same placement, to
	// compare the measured speedup with the predicted one.
	Place    string
	Runs     int      // runs per variant (default 5)
	Command  []string // the launch command as run today
	Launcher string   // openmpi, hydra or slurm; "" detects it
	// Format is File's format (openmpi, mpich, slurm) for a file without
	// latmap's header (made by hand or by another tool); "" reads it from
	// the header.
	Format string
	Force  bool
	// Lib is the preload library that times the application's run
	// (latmap's interposer in timing mode); "" finds it beside latmap
	// (launcher.FindLibrary), "none" times the launches only.
	Lib string
	// Out receives the commands run and the result (default os.Stdout);
	// a failed run's output goes there too.
	Out io.Writer
}

// Run runs the launch command as given and with the placement file,
// alternating, Runs times each, and writes the verification directory.
func Run(ctx context.Context, opt Options) (*placefile.Verification, error) {
	if opt.Out == nil {
		opt.Out = os.Stdout
	}
	if err := opt.check(); err != nil {
		return nil, err
	}
	var l launcher.Launcher
	var err error
	if opt.Launcher != "" {
		l, err = launcher.Parse(opt.Launcher)
	} else {
		l, err = launcher.Detect(ctx, opt.Command[0])
	}
	if err != nil {
		return nil, err
	}
	format, bind, err := placefile.Detect(opt.File, opt.Format)
	if err != nil {
		return nil, err
	}
	prop, env, err := proposalCommand(l, opt.Command, opt.File, format, bind)
	if err != nil {
		return nil, err
	}
	if err := sameRanks(opt.Command, opt.File); err != nil {
		return nil, err
	}
	var advice *placefile.Advice
	if opt.Place != "" {
		if advice, err = readPlace(opt.Place); err != nil {
			return nil, err
		}
	}
	if l == launcher.OpenMPI {
		if err := sameOpenMPI(launcher.OpenMPIMajor(ctx, opt.Command[0]), opt.File, format); err != nil {
			return nil, err
		}
	}
	v := &placefile.Verification{Tool: "latmap", Version: version.Version, Start: time.Now(), RunsPerVariant: opt.Runs,
		VerifyCommands: placefile.VerifyCommands{CurrentCommand: opt.Command, ProposalCommand: prop, ProposalEnv: env, PlacementFile: opt.File, Place: opt.Place}}
	fmt.Fprintf(opt.Out, "latmap verify: current:  %s\nlatmap verify: proposal: %s\n",
		text.ShellJoin(opt.Command), text.ShellJoin(append(append([]string(nil), env...), prop...)))
	tm, note := newTimer(l, opt.Lib, opt.Output)
	if note != "" {
		fmt.Fprintf(opt.Out, "latmap verify: %s; comparing wall times only\n", note)
	}
	runs, err := alternate(ctx, opt, prop, env, tm)
	if err != nil {
		return nil, err
	}
	v.End = time.Now()
	summarise(v, runs)
	if v.AppNote == "" {
		v.AppNote = note
	}
	if advice != nil {
		predicted(v, advice)
	}
	if err := placefile.WriteVerification(opt.Output, opt.Force, v, runs); err != nil {
		return nil, err
	}
	if v.AppTimed {
		fmt.Fprintf(opt.Out, "latmap verify: application (MPI_Init to MPI_Finalize, slowest rank): current %.3f s, proposal %.3f s: "+
			"measured speedup %.2fx (95%% interval %.2f-%.2f)\n",
			v.CurrentAppMedian, v.ProposalAppMedian, v.AppSpeedup, v.AppSpeedupCI95[0], v.AppSpeedupCI95[1])
		fmt.Fprintf(opt.Out, "latmap verify: whole launch: current %.3f s, proposal %.3f s (medians of %d runs each, launch %.3f s of each): "+
			"%.2fx (95%% interval %.2f-%.2f)",
			v.CurrentMedian, v.ProposalMedian, opt.Runs, v.LaunchMedian, v.Speedup, v.SpeedupCI95[0], v.SpeedupCI95[1])
	} else {
		fmt.Fprintf(opt.Out, "latmap verify: current %.3f s, proposal %.3f s (medians of %d runs each): measured speedup %.2fx (95%% interval %.2f-%.2f)",
			v.CurrentMedian, v.ProposalMedian, opt.Runs, v.Speedup, v.SpeedupCI95[0], v.SpeedupCI95[1])
	}
	if v.PredictedSpeedup > 0 {
		fmt.Fprintf(opt.Out, "; predicted %.2fx against %s, predicted/measured %.2f (%s)",
			v.PredictedSpeedup, v.PredictedAgainst, v.PredictedOver, measuredOnText[v.MeasuredOn])
	}
	fmt.Fprintf(opt.Out, "\nlatmap verify: wrote %s\n", opt.Output)
	return v, nil
}

// measuredOnText says what the predicted/measured ratio compares with.
var measuredOnText = map[string]string{"app": "of the application's run", "wall": "of whole launches: the launch time is not predicted"}

// alternate runs current, proposal, current, ... and stops at the first
// failed run, with its output. tm, when not nil, times each run's
// application.
func alternate(ctx context.Context, opt Options, prop, env []string, tm *timer) ([]placefile.VerifyRun, error) {
	var runs []placefile.VerifyRun
	defer tm.close()
	for i := 0; i < 2*opt.Runs; i++ {
		variant, argv, extra := "current", opt.Command, []string(nil)
		if i%2 == 1 {
			variant, argv, extra = "proposal", prop, env
		}
		argv, appFile, err := tm.wrap(argv, i)
		if err != nil {
			return nil, err
		}
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), extra...)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		wall := time.Since(start).Seconds()
		code := 0
		if err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				return nil, fmt.Errorf("%s run %d: %w", variant, i/2+1, err)
			}
			code = ee.ExitCode()
			opt.Out.Write(out)
			hint := ""
			if tm != nil {
				hint = "; if it runs without latmap's timing library, give --lib none"
			}
			return nil, exitcode.With(exitcode.JobFailed, fmt.Errorf("%s run %d failed with exit status %d (its output is above): %s%s",
				variant, i/2+1, code, text.ShellJoin(argv), hint))
		}
		app := readAppTime(appFile)
		runs = append(runs, placefile.VerifyRun{Run: i + 1, Variant: variant, Wall: wall, App: app, Exit: code})
		if app > 0 {
			fmt.Fprintf(opt.Out, "latmap verify: run %d/%d %s %.3f s (application %.3f s)\n", i+1, 2*opt.Runs, variant, wall, app)
		} else {
			fmt.Fprintf(opt.Out, "latmap verify: run %d/%d %s %.3f s\n", i+1, 2*opt.Runs, variant, wall)
		}
	}
	return runs, nil
}

// summarise fills the medians, the speedups and their bootstrap intervals.
func summarise(v *placefile.Verification, runs []placefile.VerifyRun) {
	var cur, prop, curApp, propApp, launch []float64
	timed := len(runs) > 0
	for _, r := range runs {
		timed = timed && r.App > 0
		if r.Variant == "current" {
			cur, curApp = append(cur, r.Wall), append(curApp, r.App)
		} else {
			prop, propApp = append(prop, r.Wall), append(propApp, r.App)
		}
		launch = append(launch, r.Wall-r.App)
	}
	v.CurrentMedian, v.ProposalMedian = stats.Median(cur), stats.Median(prop)
	v.Speedup = v.CurrentMedian / v.ProposalMedian
	v.SpeedupCI95 = bootstrapRatio(cur, prop, 2000)
	if !timed {
		if slices.ContainsFunc(runs, func(r placefile.VerifyRun) bool { return r.App > 0 }) {
			v.AppNote = "some runs wrote no application time"
		}
		return
	}
	v.AppTimed = true
	v.CurrentAppMedian, v.ProposalAppMedian = stats.Median(curApp), stats.Median(propApp)
	v.AppSpeedup = v.CurrentAppMedian / v.ProposalAppMedian
	v.AppSpeedupCI95 = bootstrapRatio(curApp, propApp, 2000)
	v.LaunchMedian = stats.Median(launch)
}

// bootstrapRatio is the 95% percentile bootstrap interval of
// median(a) / median(b), resampling each with replacement (fixed seed).
func bootstrapRatio(a, b []float64, resamples int) [2]float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	ratios := make([]float64, resamples)
	ra, rb := make([]float64, len(a)), make([]float64, len(b))
	for k := range ratios {
		for i := range ra {
			ra[i] = a[rng.IntN(len(a))]
		}
		for i := range rb {
			rb[i] = b[rng.IntN(len(b))]
		}
		ratios[k] = stats.Median(ra) / stats.Median(rb)
	}
	sort.Float64s(ratios)
	return [2]float64{ratios[int(0.025*float64(resamples))], ratios[int(0.975*float64(resamples))-1]}
}

// predicted reads latmap place --json's output and sets the predicted
// speedup: the current placement's predicted run (or the reference
// place compared with, when the current one was unknown) over the
// proposal's.
func predicted(v *placefile.Verification, a *placefile.Advice) {
	ref, prop := a.Reference(), a.ProposalPrediction()
	v.PredictedSpeedup, v.PredictedAgainst = ref.Run/prop.Run, ref.Name
	v.PredictedOver, v.MeasuredOn = v.PredictedSpeedup/v.Speedup, "wall"
	if v.AppTimed {
		v.PredictedOver, v.MeasuredOn = v.PredictedSpeedup/v.AppSpeedup, "app"
	}
}

// readPlace reads --place's advice, before anything is launched.
func readPlace(path string) (*placefile.Advice, error) {
	a, err := placefile.ReadAdvice(path)
	if err != nil {
		return nil, fmt.Errorf("--place: %w (give the file latmap place --json wrote)", err)
	}
	if prop := a.ProposalPrediction(); prop.Name != "proposal" || prop.Run <= 0 || a.Reference().Run <= 0 {
		return nil, fmt.Errorf("--place %s: no proposal prediction (give the file latmap place --json wrote)", path)
	}
	return a, nil
}

// Launch-line options that choose a mapping, which the placement file
// replaces (Open MPI refuses a rankfile beside one: "only one policy"):
// the options that take a value, and those that do not.
var mappingOptions = map[launcher.Launcher]struct{ withValue, flags []string }{
	launcher.OpenMPI: {
		withValue: []string{"--map-by", "-map-by", "--bind-to", "-bind-to", "--rank-by", "-rank-by", "-npernode", "--npernode",
			"-N", "-npersocket", "--npersocket", "--ppr", "-ppr", "-rf", "--rankfile", "-rankfile"},
		flags: []string{"--bynode", "-bynode", "--byslot", "-byslot", "--bycore", "-bycore", "--bysocket", "-bysocket"},
	},
	launcher.Hydra: {
		withValue: []string{"-bind-to", "--bind-to", "-binding", "-map-by", "--map-by", "-ppn", "-f", "-machinefile", "-hostfile", "-hosts", "-host"},
	},
	launcher.Slurm: {
		withValue: []string{"-m", "--distribution", "--cpu-bind", "--cpu_bind", "-N", "--nodes", "--ntasks-per-node", "-w", "--nodelist"},
	},
}

// sameOpenMPI refuses a rankfile (of format got, as placefile.Detect
// read it) written for the other Open MPI than the launcher's (major 0:
// unknown, trusted): 4 reads slots as OS cpus, 5 as logical cores.
func sameOpenMPI(major int, file, got string) error {
	switch {
	case major >= 5 && got == placefile.FormatOpenMPI:
		return fmt.Errorf("%s is a rankfile for Open MPI 4 (OS cpu numbers), but the launcher is Open MPI %d, which reads slots as logical cores and has no -rf: "+
			"write it with latmap place --format openmpi5", file, major)
	case major > 0 && major < 5 && got == placefile.FormatOpenMPI5:
		return fmt.Errorf("%s is a rankfile for Open MPI 5 (logical cores), but the launcher is Open MPI %d: write it with latmap place --format openmpi",
			file, major)
	}
	return nil
}

// ProposalCommand is the launch command with its mapping options replaced
// by the placement file, the way launcher l takes it, and the variables to
// set for it: Open MPI 4 -rf FILE (physical cpu numbers), Open MPI 5
// --map-by rankfile:file=FILE (logical cores), Hydra -f FILE
// (the machine file carries each line's binding), srun
// --distribution=arbitrary with SLURM_HOSTFILE and the file's cpu list.
// format names the file's format when it has no latmap header ("": read
// the header).
func ProposalCommand(l launcher.Launcher, cmd []string, file, format string) (argv, env []string, err error) {
	want, bind, err := placefile.Detect(file, format)
	if err != nil {
		return nil, nil, err
	}
	return proposalCommand(l, cmd, file, want, bind)
}

// proposalCommand is ProposalCommand for a file of format want (and, for
// Slurm, the cpu binding bind) as placefile.Detect read them.
func proposalCommand(l launcher.Launcher, cmd []string, file, want, bind string) (argv, env []string, err error) {
	need := map[launcher.Launcher]string{
		launcher.OpenMPI: placefile.FormatOpenMPI,
		launcher.Hydra:   placefile.FormatMPICH,
		launcher.Slurm:   placefile.FormatSlurm,
	}[l]
	if want == placefile.FormatOpenMPI5 && l == launcher.OpenMPI {
		need = want
	}
	if want != need {
		return nil, nil, fmt.Errorf("%s is a %s file, but the launcher is %s, which takes a %s file (latmap place --format %s)", file, want, l, need, need)
	}
	opts := mappingOptions[l]
	argv = []string{cmd[0]}
	switch l {
	case launcher.OpenMPI:
		if want == placefile.FormatOpenMPI5 {
			argv = append(argv, "--map-by", "rankfile:file="+file)
		} else {
			argv = append(argv, "--mca", "rmaps_rank_file_physical", "1", "-rf", file)
		}
	case launcher.Hydra:
		argv = append(argv, "-f", file)
	case launcher.Slurm:
		argv = append(argv, "--distribution=arbitrary")
		if bind != "" {
			argv = append(argv, "--cpu-bind="+bind)
		}
		env = []string{"SLURM_HOSTFILE=" + file}
	}
	for i := 1; i < len(cmd); i++ {
		a := cmd[i]
		name, _, hasEq := strings.Cut(a, "=")
		switch {
		case slices.Contains(opts.flags, a):
			continue
		case slices.Contains(opts.withValue, name) && hasEq:
			continue
		case slices.Contains(opts.withValue, a):
			i++ // and its value
			continue
		}
		argv = append(argv, a)
	}
	return argv, env, nil
}
