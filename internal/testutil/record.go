package testutil

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
)

// RecordEnv names the environment variable of the directory where Record
// writes the figures the tests asserted (make validation sets it, and
// internal/validation writes docs/validation.md from what they wrote).
// Unset, Record does nothing.
const RecordEnv = "LATMAP_VALIDATION_DIR"

// RecordFile is the name of the file each test process appends its
// records to in RecordEnv's directory, with the process id in place of
// the star.
const RecordFile = "records-*.jsonl"

// Recorded is one line of a records file: a figure a test asserted.
type Recorded struct {
	// Test is the test's full name (t.Name(): subtests included), Package
	// the directory of the file that recorded it, from the repository's
	// root (slash-separated).
	Test    string `json:"test"`
	Package string `json:"package"`
	// Table names the table of docs/validation.md the row belongs to;
	// Fields are its columns in order, each a name and a value.
	Table  string   `json:"table"`
	Fields [][2]any `json:"fields"`
}

// Record writes a row of figures the test has just asserted, under
// table, when RecordEnv names a directory, and does nothing otherwise.
// fields alternate a column's name (a string) and its value (a number or
// a string): record the measured value and the bound the test holds it
// to ("0.75-1.33"). The row is written when the test ends, and only if it
// passed: a figure whose check failed is not a validated one.
func Record(t testing.TB, table string, fields ...any) {
	t.Helper()
	dir := os.Getenv(RecordEnv)
	if dir == "" {
		return
	}
	if len(fields)%2 != 0 {
		t.Fatalf("testutil.Record(%q): %d fields, want name and value pairs", table, len(fields))
	}
	r := Recorded{Test: t.Name(), Package: callerPackage(t), Table: table}
	for i := 0; i < len(fields); i += 2 {
		name, ok := fields[i].(string)
		if !ok {
			t.Fatalf("testutil.Record(%q): field %d's name is %v, not a string", table, i/2, fields[i])
		}
		r.Fields = append(r.Fields, [2]any{name, fields[i+1]})
	}
	line, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("testutil.Record(%q): %v", table, err)
	}
	pending.Lock()
	defer pending.Unlock()
	if _, ok := pending.rows[t]; !ok {
		// One cleanup a test writes its rows in the order recorded
		// (cleanups run last first).
		t.Cleanup(func() { writeRows(t, dir) })
	}
	pending.rows[t] = append(pending.rows[t], line)
}

// pending holds each running test's rows until it ends.
var pending = struct {
	sync.Mutex
	rows map[testing.TB][][]byte
}{rows: map[testing.TB][][]byte{}}

// writeRows appends t's rows to this process's records file in dir when
// t passed, and forgets them.
func writeRows(t testing.TB, dir string) {
	pending.Lock()
	defer pending.Unlock()
	rows := pending.rows[t]
	delete(pending.rows, t)
	if t.Failed() || len(rows) == 0 {
		return
	}
	name := strings.Replace(RecordFile, "*", fmt.Sprint(os.Getpid()), 1)
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.Write(append(bytes.Join(rows, []byte("\n")), '\n'))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Errorf("testutil.Record: %v", err)
	}
}

// callerPackage is the directory, from the repository's root, of the
// file that called Record.
func callerPackage(t testing.TB) string {
	_, file, _, ok := runtime.Caller(2)
	if !ok {
		return ""
	}
	rel, err := filepath.Rel(RepoRoot(t), filepath.Dir(file))
	if err != nil {
		return ""
	}
	return filepath.ToSlash(rel)
}

// ReadRecords reads every records file in dir (RecordFile), each file's
// rows in the order written.
func ReadRecords(dir string) ([]Recorded, error) {
	files, err := filepath.Glob(filepath.Join(dir, RecordFile))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []Recorded
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for line := 1; sc.Scan(); line++ {
			var r Recorded
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				f.Close()
				return nil, fmt.Errorf("%s:%d: %w", name, line, err)
			}
			out = append(out, r)
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return out, nil
}
