package testutil

import "testing"

// TestRecord: with RecordEnv set, a passing subtest's rows land in the
// process's records file, named, in order and with their package; a
// failing subtest's do not; unset, nothing is written.
func TestRecord(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(RecordEnv, dir)
	t.Run("pass", func(t *testing.T) {
		Record(t, "a table", "case", "x", "measured", 1.5, "bound", "1-2")
		Record(t, "a table", "case", "y", "measured", 3)
	})
	// A failed test's rows: a real failing subtest would fail this test
	// too, so a stand-in that has failed runs the rows' cleanup.
	f := &failed{T: t}
	Record(f, "a table", "case", "z", "measured", 9)
	f.run()
	lines, err := ReadRecords(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 {
		t.Fatalf("%d records, want the passing subtest's 2: %v", len(lines), lines)
	}
	want := Recorded{Test: "TestRecord/pass", Package: "internal/testutil", Table: "a table", Fields: [][2]any{{"case", "x"}, {"measured", 1.5}, {"bound", "1-2"}}}
	if got := lines[0]; got.Test != want.Test || got.Package != want.Package || got.Table != want.Table || len(got.Fields) != 3 || got.Fields[1][1] != 1.5 || got.Fields[2][1] != "1-2" {
		t.Errorf("first record %+v, want %+v", got, want)
	}
	if lines[1].Fields[0][1] != "y" {
		t.Errorf("second record %+v, want case y", lines[1])
	}

	t.Setenv(RecordEnv, "")
	t.Run("unset", func(t *testing.T) { Record(t, "a table", "case", "w") })
	if again, err := ReadRecords(dir); err != nil || len(again) != 2 {
		t.Errorf("with %s unset, the records are %v (%v), want the 2 of before", RecordEnv, again, err)
	}
}

// failed is a test that has failed: its cleanups are run by run.
type failed struct {
	*testing.T
	cleanups []func()
}

func (f *failed) Failed() bool          { return true }
func (f *failed) Cleanup(fn func())     { f.cleanups = append(f.cleanups, fn) }
func (f *failed) Name() string          { return "TestFailed" }
func (f *failed) Errorf(string, ...any) {}
func (f *failed) run() {
	for _, fn := range f.cleanups {
		fn()
	}
}
