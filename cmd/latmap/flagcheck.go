package main

import (
	"fmt"
	"regexp"
	"strings"

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
