package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/placefile"
)

func TestBootstrapRatio(t *testing.T) {
	a := []float64{10, 10.5, 9.5, 10.2, 9.8}
	b := []float64{5, 5.1, 4.9, 5.05, 4.95}
	ci := bootstrapRatio(a, b, 2000)
	// The medians' ratio is 10/5 = 2; every resampled ratio lies within
	// min(a)/max(b) .. max(a)/min(b).
	if !(ci[0] <= 2 && 2 <= ci[1]) || ci[0] < 9.5/5.1 || ci[1] > 10.5/4.9 {
		t.Errorf("interval %v does not hold 2 within [%.3f, %.3f]", ci, 9.5/5.1, 10.5/4.9)
	}
	if again := bootstrapRatio(a, b, 2000); again != ci {
		t.Errorf("not reproducible: %v then %v", ci, again)
	}
}

// TestVerifyOpenMPIVersion: a rankfile for Open MPI 4 under Open MPI 5's
// mpirun (OS cpus read as logical cores: ranks on the wrong cores, or a
// refusal) is refused with the --format to write, and the other way
// round; an unknown version is trusted.
func TestVerifyOpenMPIVersion(t *testing.T) {
	file := func(format string) string {
		lf, err := placefile.Write(format, []placefile.RankSlot{{Host: "n", CPU: 1, Core: 4}, {Host: "n", CPU: 0, Core: 0}}, nil, "F", nil)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), format)
		if err := os.WriteFile(p, lf.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	v4, v5 := file(placefile.FormatOpenMPI), file(placefile.FormatOpenMPI5)
	for _, c := range []struct {
		major int
		file  string
		want  string
	}{
		{5, v4, "launcher is Open MPI 5, which reads slots as logical cores and has no -rf: write it with latmap place --format openmpi5"},
		{4, v5, "launcher is Open MPI 4: write it with latmap place --format openmpi"},
		{5, v5, ""}, {4, v4, ""}, {0, v4, ""}, {0, v5, ""},
	} {
		got, _, err := placefile.Detect(c.file, "")
		if err != nil {
			t.Fatal(err)
		}
		err = sameOpenMPI(c.major, c.file, got)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("Open MPI %d, %s: %v, want %q", c.major, filepath.Base(c.file), err, c.want)
		}
	}
}
