package testutil

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ErrNoBinary is TimeCommand's error when bin/latmap or /usr/bin/time is
// missing.
var ErrNoBinary = errors.New("no bin/latmap or /usr/bin/time (make build)")

// TimeBinary runs the latmap binary (bin/latmap or $LATMAP_BIN) under
// /usr/bin/time -v, as a user meets it, and returns its wall time, cpu
// time and maximum resident set size; ok is false (with a log line) when
// the binary or /usr/bin/time is missing. A failing command fails b.
func TimeBinary(b *testing.B, args ...string) (secs, cpu, rssMiB float64, ok bool) {
	secs, cpu, rssMiB, msg, err := TimeCommand(b, args...)
	if errors.Is(err, ErrNoBinary) {
		b.Log(err)
		return 0, 0, 0, false
	}
	if err != nil {
		b.Fatalf("latmap %v: %v\n%s", args, err, msg)
	}
	return secs, cpu, rssMiB, true
}

// TimeCommand is TimeBinary returning a failing command's error and its
// stderr (without time's report) instead of failing b.
func TimeCommand(b testing.TB, args ...string) (secs, cpu, rssMiB float64, stderr string, err error) {
	bin := os.Getenv("LATMAP_BIN")
	if bin == "" {
		bin = filepath.Join(RepoRoot(b), "bin", "latmap")
	}
	if _, err := os.Stat(bin); err != nil {
		return 0, 0, 0, "", ErrNoBinary
	}
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		return 0, 0, 0, "", ErrNoBinary
	}
	cmd := exec.Command("/usr/bin/time", append([]string{"-v", bin}, args...)...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	start := time.Now()
	runErr := cmd.Run()
	secs = time.Since(start).Seconds()
	out, report, _ := strings.Cut(errb.String(), "\tCommand being timed:")
	out, _, _ = strings.Cut(out, "Command exited with non-zero status") // time's, not latmap's
	sc := bufio.NewScanner(strings.NewReader(report))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if v, found := strings.CutPrefix(line, "Maximum resident set size (kbytes): "); found {
			kb, _ := strconv.ParseFloat(v, 64)
			rssMiB = kb / 1024
		}
		for _, p := range []string{"User time (seconds): ", "System time (seconds): "} {
			if v, found := strings.CutPrefix(line, p); found {
				t, _ := strconv.ParseFloat(v, 64)
				cpu += t
			}
		}
	}
	return secs, cpu, rssMiB, out, runErr
}
