package placefile

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// Detect tells which launcher file latmap place wrote at path, from
// its comment header (or format, when given), and for Slurm the cpu
// binding the header gives.
func Detect(path, format string) (string, string, error) {
	switch format {
	case "", FormatOpenMPI, FormatOpenMPI5, FormatMPICH, FormatSlurm:
	default:
		return "", "", fmt.Errorf("--format %q: verify takes openmpi, openmpi5, mpich or slurm files", format)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", "", fmt.Errorf("--rankfile: %w", err)
	}
	defer f.Close()
	var found, bind string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "#") {
			break
		}
		switch {
		case strings.Contains(line, openMPITitle):
			found = FormatOpenMPI
		case strings.Contains(line, openMPI5Title):
			found = FormatOpenMPI5
		case strings.Contains(line, "MPICH (Hydra) machine file"):
			found = FormatMPICH
		case strings.Contains(line, "Slurm SLURM_HOSTFILE"):
			found = FormatSlurm
		}
		if _, b, ok := strings.Cut(line, "--cpu-bind="); ok {
			bind, _, _ = strings.Cut(b, " ")
		}
	}
	if format != "" {
		return format, bind, nil
	}
	if found == "" {
		return "", "", fmt.Errorf("%s has no latmap header naming its format: give a file written by latmap place -o, or say which with --format openmpi|openmpi5|mpich|slurm", path)
	}
	return found, bind, nil
}
