package placefile

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
)

// FuzzReadVerification reads verification directories whose meta.json
// and runs.csv (gocsv) are fuzzed: never a panic, and what it reads
// writes back and reads again the same.
func FuzzReadVerification(f *testing.F) {
	f.Add([]byte(`{"tool":"latmap verify","runs_per_placement":3}`), []byte("placement,run,seconds\nproposal,1,2.5\n"))
	f.Add([]byte(`{}`), []byte("placement,run\n\"x\n"))
	f.Add([]byte(`{"tool":"latmap","app_timed":true,"app_speedup":4.4,"measured_on":"app"}`), []byte("run,variant,wall_s,app_s,exit_status\n1,current,2.7,2.2,0\n2,proposal,1,0.5,0\n"))
	dir := f.TempDir()
	n := 0
	f.Fuzz(func(t *testing.T, meta, runs []byte) {
		n++
		d := filepath.Join(dir, strconv.Itoa(n))
		os.MkdirAll(d, 0o755)
		defer os.RemoveAll(d)
		os.WriteFile(filepath.Join(d, VerifyMetaFile), meta, 0o644)
		os.WriteFile(filepath.Join(d, VerifyRunsFile), runs, 0o644)
		v, rs, err := ReadVerification(d)
		if err != nil {
			return
		}
		// What is read is written back and read again unchanged (runs with
		// a NaN or infinite time compare by their text).
		again := filepath.Join(d, "again")
		if err := WriteVerification(again, false, v, rs); err != nil {
			t.Fatalf("read %+v %+v, cannot write it back: %v", v, rs, err)
		}
		v2, rs2, err := ReadVerification(again)
		if err != nil {
			t.Fatalf("written back, not read: %v", err)
		}
		if fmt.Sprintf("%+v %+v", v, rs) != fmt.Sprintf("%+v %+v", v2, rs2) {
			t.Fatalf("round trip changed it:\n%+v %+v\n%+v %+v", v, rs, v2, rs2)
		}
	})
}

// TestVerificationRoundTrip: every field of a verification that timed the
// application survives writing and reading.
func TestVerificationRoundTrip(t *testing.T) {
	v := &Verification{Tool: "latmap", Version: "x", RunsPerVariant: 1,
		VerifyCommands: VerifyCommands{CurrentCommand: []string{"mpirun", "./a"}, ProposalCommand: []string{"mpirun", "-rf", "f", "./a"}, ProposalEnv: []string{"A=1"}, PlacementFile: "f", Place: "p.json"},
		Measured: Measured{CurrentMedian: 3, ProposalMedian: 1, Speedup: 3, SpeedupCI95: [2]float64{2.5, 3.5}, AppTimed: true,
			CurrentAppMedian: 2.5, ProposalAppMedian: 0.5, AppSpeedup: 5, AppSpeedupCI95: [2]float64{4, 6}, LaunchMedian: 0.5},
		PredictedGain: PredictedGain{PredictedSpeedup: 4.5, PredictedOver: 0.9, PredictedAgainst: "current", MeasuredOn: "app"}}
	runs := []VerifyRun{{Run: 1, Variant: "current", Wall: 3, App: 2.5}, {Run: 2, Variant: "proposal", Wall: 1, App: 0.5, Exit: 0}}
	dir := filepath.Join(t.TempDir(), "v")
	if err := WriteVerification(dir, false, v, runs); err != nil {
		t.Fatal(err)
	}
	got, gr, err := ReadVerification(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, v) || !reflect.DeepEqual(gr, runs) {
		t.Errorf("read back %+v %+v, wrote %+v %+v", got, gr, v, runs)
	}
}
