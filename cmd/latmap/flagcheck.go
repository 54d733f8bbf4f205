package main

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagRange is a numeric flag's range: the values it takes, in words,
// and whether v is one of them.
type flagRange struct {
	name, want string
	ok         func(v float64) bool
}

// checkRanges refuses a numeric flag given out of its range, saying the
// range: before any input is read or anything launched.
func checkRanges(cmd *cobra.Command, ranges ...flagRange) error {
	for _, r := range ranges {
		fl := cmd.Flags().Lookup(r.name)
		if fl == nil {
			continue
		}
		var v float64
		if _, err := fmt.Sscan(fl.Value.String(), &v); err != nil {
			continue
		}
		if !r.ok(v) {
			return fmt.Errorf("--%s %s: want %s", r.name, fl.Value.String(), r.want)
		}
	}
	return nil
}

// atLeast is a flag's range of whole numbers from lo.
func atLeast(name string, lo float64) flagRange {
	return flagRange{name, fmt.Sprintf("at least %g", lo), func(v float64) bool { return v >= lo }}
}

// positive is a flag's range above 0.
func positive(name, unit string) flagRange {
	return flagRange{name, unit + " above 0", func(v float64) bool { return v > 0 }}
}

// requires refuses flag given without other (a flag that only matters
// with another).
func requires(cmd *cobra.Command, flag, other, why string) error {
	if cmd.Flags().Changed(flag) && !cmd.Flags().Changed(other) {
		return fmt.Errorf("--%s needs --%s: %s", flag, other, why)
	}
	return nil
}

// alone refuses flag given with any flag but those of keep: a mode that
// takes no other input, so that another flag would be ignored.
func alone(cmd *cobra.Command, flag string, keep []string, why string) error {
	if !cmd.Flags().Changed(flag) {
		return nil
	}
	var other string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if other == "" && f.Name != flag && !slices.Contains(keep, f.Name) {
			other = f.Name
		}
	})
	if other != "" {
		return fmt.Errorf("--%s takes no --%s: %s; drop one of them", flag, other, why)
	}
	return nil
}

// strconvError matches what pflag says of a number it cannot parse.
var strconvError = regexp.MustCompile(`strconv\.Parse\w+: parsing "([^"]*)": (invalid syntax|value out of range)`)

// flagError says a flag that could not be parsed in plain words, with
// where to look.
func flagError(cmd *cobra.Command, err error) error {
	msg := strconvError.ReplaceAllStringFunc(err.Error(), func(m string) string {
		if strings.HasSuffix(m, "out of range") {
			return "out of range"
		}
		return "not a number of the kind it takes"
	})
	if fl := findFlagIn(cmd.Flags(), msg); fl != nil && fl.Value.Type() == "uint64" {
		msg += " (a whole number, 0 or more)"
	}
	return fmt.Errorf("%s; see latmap %s --help", msg, cmd.Name())
}

// findFlagIn is the flag an error message names ("--NAME" in quotes).
func findFlagIn(fs *pflag.FlagSet, msg string) *pflag.Flag {
	var found *pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if strings.Contains(msg, `"--`+f.Name+`"`) {
			found = f
		}
	})
	return found
}

// parseDuration reads a duration as every flag takes one: 30s, 10m, 1h,
// or bare seconds (30, 0.5).
func parseDuration(s string) (time.Duration, error) {
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if secs < 0 || math.IsNaN(secs) || math.IsInf(secs, 0) {
			return 0, fmt.Errorf("want a duration of 0 or more")
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want a duration: 30s, 10m, 1h, or seconds")
	}
	return d, nil
}

// secondsFlag is a flag of seconds (a float64) that takes any duration
// parseDuration reads.
type secondsFlag struct{ p *float64 }

func (v secondsFlag) String() string {
	return time.Duration(*v.p * float64(time.Second)).String()
}
func (v secondsFlag) Set(s string) error {
	d, err := parseDuration(s)
	if err == nil {
		*v.p = d.Seconds()
	}
	return err
}
func (v secondsFlag) Type() string { return "duration" }

// durationFlag is a time.Duration flag that also takes bare seconds.
type durationFlag struct{ p *time.Duration }

func (v durationFlag) String() string { return v.p.String() }
func (v durationFlag) Set(s string) error {
	d, err := parseDuration(s)
	if err == nil {
		*v.p = d
	}
	return err
}
func (v durationFlag) Type() string { return "duration" }

// secondsVar defines a flag of seconds that takes durations.
func secondsVar(f *pflag.FlagSet, p *float64, name string, value float64, usage string) {
	*p = value
	f.Var(secondsFlag{p}, name, usage)
}

// durationVar defines a duration flag that also takes bare seconds.
func durationVar(f *pflag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	f.Var(durationFlag{p}, name, usage)
}

// wrote says "latmap: wrote PATH" on standard error once a command has
// written path without error (err), and returns err.
func wrote(cmd *cobra.Command, path string, err error) error {
	if err == nil && path != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "latmap: wrote %s\n", path)
	}
	return err
}

// requiredMissing says the required flags (cobra's MarkFlagRequired) cmd
// was run without, the one way every command says a missing flag:
// "--NAME is required (what its help says it is)". Root's persistent
// pre-run calls it, before cobra's own check would say it otherwise.
func requiredMissing(cmd *cobra.Command) error {
	var missing []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if req, ok := f.Annotations[cobra.BashCompOneRequiredFlag]; ok && req[0] == "true" && !f.Changed {
			what := strings.TrimSpace(strings.ReplaceAll(strings.TrimSuffix(f.Usage, " (required)"), "`", ""))
			missing = append(missing, fmt.Sprintf("--%s is required (%s)", f.Name, what))
		}
	})
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%s; see latmap %s --help", strings.Join(missing, "; "), cmd.Name())
}

// exactArgs is cobra.ExactArgs said in latmap's words: the usage line
// (what the arguments are) and how many were given.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return argsError(cmd, fmt.Sprintf("%d", n), len(args))
		}
		return nil
	}
}

// minArgs is cobra.MinimumNArgs said in latmap's words.
func minArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return argsError(cmd, fmt.Sprintf("at least %d", n), len(args))
		}
		return nil
	}
}

// argsError says that cmd takes want arguments and was given got.
func argsError(cmd *cobra.Command, want string, got int) error {
	return fmt.Errorf("takes %s argument(s), %d given: latmap %s; see latmap %s --help", want, got, cmd.Use, cmd.Name())
}
