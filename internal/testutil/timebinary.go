package testutil

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TimeBinary runs the latmap binary (bin/latmap or $LATMAP_BIN) under
// /usr/bin/time -v, as a user meets it, and returns its wall time, cpu
// time and maximum resident set size; ok is false (with a log line) when
// the binary or /usr/bin/time is missing.
func TimeBinary(b *testing.B, args ...string) (secs, cpu, rssMiB float64, ok bool) {
	bin := os.Getenv("LATMAP_BIN")
	if bin == "" {
		bin = filepath.Join(RepoRoot(b), "bin", "latmap")
	}
	if _, err := os.Stat(bin); err != nil {
		b.Logf("no %s: run make build to also measure the binary's max RSS", bin)
		return 0, 0, 0, false
	}
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		b.Logf("no /usr/bin/time: binary not measured")
		return 0, 0, 0, false
	}
	cmd := exec.Command("/usr/bin/time", append([]string{"-v", bin}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = nil
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %v: %v\n%s", bin, args, err, stderr.String())
	}
	secs = time.Since(start).Seconds()
	sc := bufio.NewScanner(&stderr)
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
	return secs, cpu, rssMiB, true
}
