package interpose

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/profile"
)

// writeSnapshot writes rank r's snapshot of a 2-rank run into raw: one
// ranks.csv row, one functions.csv row, r sending 100 B to the other.
func writeSnapshot(t *testing.T, raw string, r int, at string) {
	t.Helper()
	dir := filepath.Join(raw, partialDir, string(rune('0'+r)))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	peer := string(rune('0' + 1 - r))
	files := map[string]string{
		"ranks.csv":     "rank,host,cpu,cpu_end,cpuset,socket,numa,l3,migrated,elapsed_s,comput_s\n" + string(rune('0'+r)) + ",h,0,0,\"0\",0,0,0,false,2.0,1.5\n",
		"functions.csv": "rank,function,calls,time_s,late_s,sync_s,bytes_sent,bytes_recv,reqs_sent,reqs_recv\n" + string(rune('0'+r)) + ",MPI_Send,1,0.5,0,0,100,0,1,0\n",
		"sizes.csv":     "rank,function,bin_low,bin_high,calls,time_s\n",
		"sent.csv":      "src,dst,bytes,messages,time_s\n" + string(rune('0'+r)) + "," + peer + ",100,1,0.5\n",
		"received.csv":  "src,dst,bytes,messages,time_s,late_s\n" + peer + "," + string(rune('0'+r)) + ",100,1,0.5,0\n",
		"ranks.csv.tmp": "torn",
		"snapshot.json": `{"at_s": ` + at + `, "ranks": 2, "rank": ` + string(rune('0'+r)) + `, "clock": "tsc", "tick_hz": 1e9}`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFinishPartial: two ranks' snapshots (2.0 and 2.5 s) join into a
// partial profile whose ranks, functions and matrix are both ranks' rows
// (a torn .tmp file ignored), marked partial from 2.0 to 2.5 s, and the
// launch's error says where it is; with rank 1's snapshot missing, or its
// snapshot.json naming another rank, nothing is written and the launch's
// error is returned as it was.
func TestFinishPartial(t *testing.T) {
	launch := &ExitError{Code: 143, Err: errors.New("exit status 143")}
	raw := t.TempDir()
	writeSnapshot(t, raw, 0, "2.0")
	writeSnapshot(t, raw, 1, "2.5")
	out := filepath.Join(t.TempDir(), "p")
	err := finishPartial(raw, RunOptions{Out: out}, profile.Meta{Command: []string{"mpirun"}}, launch)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 143 || !strings.Contains(err.Error(), "wrote the partial profile "+out+" (each rank up to its last snapshot, 2.0-2.5 s") {
		t.Fatalf("error %v", err)
	}
	p, err := profile.ReadProfile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Ranks) != 2 || len(p.Functions) != 2 || len(p.Matrix) != 2 || p.Meta.Partial == nil || p.Meta.Partial.FromSeconds != 2 || p.Meta.Partial.ToSeconds != 2.5 || p.Meta.Partial.Reason != "the launch command failed (exit status 143)" {
		t.Fatalf("ranks %d, functions %d, matrix %+v, partial %+v", len(p.Ranks), len(p.Functions), p.Matrix, p.Meta.Partial)
	}
	for _, spoil := range []func(){
		func() { os.Remove(filepath.Join(raw, partialDir, "1", "snapshot.json")) },
		func() {
			os.WriteFile(filepath.Join(raw, partialDir, "1", "snapshot.json"), []byte(`{"at_s": 1, "ranks": 2, "rank": 0}`), 0o644)
		},
	} {
		writeSnapshot(t, raw, 1, "2.5")
		spoil()
		out := filepath.Join(t.TempDir(), "p")
		launch := &ExitError{Code: 143, Err: errors.New("exit status 143")}
		if err := finishPartial(raw, RunOptions{Out: out}, profile.Meta{}, launch); err != launch || launch.Partial != "" {
			t.Errorf("a rank without its snapshot: %v", err)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s written without every rank's snapshot", out)
		}
	}
}
