package text

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Count says n of a thing in English: "1 host", "4 hosts", "0 hosts".
func Count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Percent prints a fraction as a percentage with one decimal: 0.123 is
// "12.3%".
func Percent(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// shellSpecial are the characters that make a POSIX shell word need
// quoting (whitespace, quotes, expansions, operators, globs, comments).
const shellSpecial = " \t\n'\"$&;|<>()*?[]#~`\\{}!"

// ShellJoin prints a command line for people to paste into a POSIX
// shell: each argument as it is when it is safe, else in single quotes
// (a single quote inside closes the quotes, adds an escaped quote and
// opens them again).
func ShellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, shellSpecial) {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// Size writes a byte count with a binary suffix as latmap's --sizes takes
// it: 64, 64K, 1M, 1.5M (three digits at most after the point).
func Size(b float64) string {
	for _, u := range []struct {
		s string
		v float64
	}{{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if b >= u.v {
			return strconv.FormatFloat(math.Round(b/u.v*1000)/1000, 'f', -1, 64) + u.s
		}
	}
	return strconv.FormatFloat(math.Round(b), 'f', -1, 64)
}

// HostList names hosts for a message: all of them, or the first 8 and
// how many there are.
func HostList(h []string) string {
	if len(h) > 8 {
		return fmt.Sprintf("%s, ... (%d hosts)", strings.Join(h[:8], ","), len(h))
	}
	return strings.Join(h, ",")
}

// MaxSize is the largest size ParseSize accepts (1 GiB).
const MaxSize = 1 << 30

// ParseSizes parses a comma-separated list of message sizes in bytes with
// optional binary suffixes: "64", "8,64,1K", "1M" (K = 1024, M = 1024², G =
// 1024³; a trailing "B" or "iB" is accepted: "4KiB", "64B").
func ParseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, fmt.Errorf("empty message size in %q", s)
		}
		v, err := ParseSize(f)
		if err != nil {
			return nil, fmt.Errorf("message size %q: %w", f, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// ParseSize parses one size of ParseSizes.
func ParseSize(f string) (int, error) {
	u := strings.ToUpper(f)
	u = strings.TrimSuffix(u, "IB")
	u = strings.TrimSuffix(u, "B")
	mult := 1
	switch {
	case strings.HasSuffix(u, "K"):
		mult = 1 << 10
	case strings.HasSuffix(u, "M"):
		mult = 1 << 20
	case strings.HasSuffix(u, "G"):
		mult = 1 << 30
	}
	if mult != 1 {
		u = u[:len(u)-1]
	}
	v, err := strconv.Atoi(u)
	if err != nil {
		return 0, fmt.Errorf("want a number of bytes such as 64, 4K or 1M")
	}
	if v < 0 {
		return 0, fmt.Errorf("negative size")
	}
	if v > MaxSize/mult {
		return 0, fmt.Errorf("larger than 1G")
	}
	return v * mult, nil
}
