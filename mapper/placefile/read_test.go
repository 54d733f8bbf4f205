package placefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRead: any file is read or refused with an error, never a panic; what
// is read places each rank once, on a host or a Cray group.
func FuzzRead(f *testing.F) {
	f.Add("rank 0=n1 slot=3\nrank 1=n2 slot=0\n")
	f.Add("# --cpu-bind=map_cpu:1,0 x\nn1\nn1\nn2\n")
	f.Add("n1:2 binding=user:0,1\nn2:1\n")
	f.Add("0,2\n1,3\n")
	f.Add("rank 1=n1 slot=0\nrank 1=n1 slot=1\n")
	f.Fuzz(func(t *testing.T, in string) {
		p := filepath.Join(t.TempDir(), "place")
		if err := os.WriteFile(p, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		ranks, format, err := Read(p)
		if err != nil {
			return
		}
		if len(ranks) == 0 || format == "" {
			t.Fatalf("read %d ranks, format %q, no error", len(ranks), format)
		}
		for r, rs := range ranks {
			if rs.Host == "" && rs.Group < 0 {
				t.Fatalf("rank %d has neither host nor group: %+v", r, rs)
			}
		}
	})
}

// TestWriteReadRoundTrip: every format latmap writes reads back to the
// same hosts (and cpus, where the format carries them).
func TestWriteReadRoundTrip(t *testing.T) {
	// Both nodes take their cpus in one order, as Slurm's one map_cpu list needs.
	// The logical cores differ from the cpus (sockets interleaved), and
	// only the Open MPI 5 rankfile carries them.
	place := []RankSlot{{Host: "a", CPU: 1, Core: 4}, {Host: "b", CPU: 1, Core: 4}, {Host: "a", CPU: 0, Core: 0}, {Host: "b", CPU: 0, Core: 0}}
	for _, f := range Formats() {
		lf, err := Write(f, place, []string{"header"}, "F", nil)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), f)
		os.WriteFile(p, lf.Data, 0o644)
		got, format, err := Read(p)
		if err != nil || format != f || len(got) != len(place) {
			t.Fatalf("%s: read %v as %s: %v", f, got, format, err)
		}
		for r := range place {
			if f == FormatCray {
				continue // groups, not hosts
			}
			want := place[r]
			if f == FormatOpenMPI5 {
				want.CPU = -1
			} else {
				want.Core = -1
			}
			if got[r].Host != want.Host || got[r].CPU != want.CPU || got[r].Core != want.Core {
				t.Errorf("%s rank %d: %+v, wrote %+v", f, r, got[r], place[r])
			}
		}
	}
	// A survey without logical cores cannot give Open MPI 5 its file.
	place[2].Core = -1
	if _, err := Write(FormatOpenMPI5, place, nil, "F", nil); err == nil || !strings.Contains(err.Error(), "rank 2's cpu (a cpu 0) has no logical core number") {
		t.Errorf("openmpi5 without logical cores: %v", err)
	}
}
