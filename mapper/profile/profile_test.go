package profile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadProfileErrors(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "profile", "splitcoll-slt-cw")
	for _, tc := range []struct {
		name, file, content, want string
	}{
		{"bad rank order", RanksFile, "rank,host,cpu,cpu_end,cpuset,socket,numa,l3,migrated,elapsed_s,comput_s\n1,h,0,0,0,0,0,0,false,1,1\n", "want 0"},
		{"pair outside", MatrixFile, "src,dst,bytes,messages,time_s,late_s\n0,99,1,1,0,0\n", "outside ranks"},
		{"negative bytes", MatrixFile, "src,dst,bytes,messages,time_s,late_s\n0,1,-1,1,0,0\n", "negative"},
		{"bad json", MetaFile, "{", "meta.json"},
		{"bad number", FunctionsFile, "rank,function,calls\nx,MPI_Send,1\n", "functions.csv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, n := range []string{MetaFile, RanksFile, FunctionsFile, MatrixFile, SizesFile} {
				b, err := os.ReadFile(filepath.Join(src, n))
				if err != nil {
					t.Fatal(err)
				}
				if n == tc.file {
					b = []byte(tc.content)
				}
				os.WriteFile(filepath.Join(dir, n), b, 0o644)
			}
			if _, err := ReadProfile(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadProfile: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// BenchmarkReadProfile measures reading a profile directory.
func BenchmarkReadProfile(b *testing.B) {
	dir := filepath.Join("..", "..", "testdata", "profile", "splitcoll-slt-cw")
	for b.Loop() {
		if _, err := ReadProfile(dir); err != nil {
			b.Fatal(err)
		}
	}
}
