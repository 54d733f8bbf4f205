package sysmem

import (
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAvailable: MemAvailable alone, then lowered by a cgroup v2 limit,
// then a cgroup without a limit ("max") leaves MemAvailable.
func TestAvailable(t *testing.T) {
	d := t.TempDir()
	mi := filepath.Join(d, "meminfo")
	write(t, mi, "MemTotal:       24000000 kB\nMemFree:        1000 kB\nMemAvailable:   20000000 kB\n")
	cg := filepath.Join(d, "cg")
	if got, ok := available(mi, cg); !ok || got != 20000000<<10 {
		t.Fatalf("no cgroup: %d %v", got, ok)
	}
	write(t, filepath.Join(cg, "memory.max"), "4294967296\n")
	write(t, filepath.Join(cg, "memory.current"), "1073741824\n")
	if got, ok := available(mi, cg); !ok || got != 3<<30 {
		t.Fatalf("cgroup 4 GiB, 1 GiB used: %d %v, want %d", got, ok, 3<<30)
	}
	write(t, filepath.Join(cg, "memory.max"), "max\n")
	if got, _ := available(mi, cg); got != 20000000<<10 {
		t.Fatalf("cgroup max: %d", got)
	}
	if _, ok := available(filepath.Join(d, "none"), cg); ok {
		t.Fatal("no meminfo: ok")
	}
	if got, ok := Available(); ok && got == 0 {
		t.Fatal("this machine: 0 bytes available")
	}
}
