package placefile

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// FuzzReadVerification reads verification directories whose meta.json
// and runs.csv (gocsv) are fuzzed: never a panic.
func FuzzReadVerification(f *testing.F) {
	f.Add([]byte(`{"tool":"latmap verify","runs_per_placement":3}`), []byte("placement,run,seconds\nproposal,1,2.5\n"))
	f.Add([]byte(`{}`), []byte("placement,run\n\"x\n"))
	dir := f.TempDir()
	n := 0
	f.Fuzz(func(t *testing.T, meta, runs []byte) {
		n++
		d := filepath.Join(dir, strconv.Itoa(n))
		os.MkdirAll(d, 0o755)
		defer os.RemoveAll(d)
		os.WriteFile(filepath.Join(d, VerifyMetaFile), meta, 0o644)
		os.WriteFile(filepath.Join(d, VerifyRunsFile), runs, 0o644)
		ReadVerification(d)
	})
}
