package atomicdir

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteRefusesExistingWithoutForce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	err := Write(dir, false, func(string) error { return nil })
	if !errors.Is(err, ErrExists) {
		t.Fatalf("Write over existing dir without force: err = %v, want ErrExists", err)
	}
}

func TestWriteFailureLeavesNothing(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	boom := errors.New("boom")
	err := Write(dir, false, func(tmp string) error {
		os.WriteFile(filepath.Join(tmp, "half.csv"), []byte("a,b\n"), 0o644)
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	ents, _ := os.ReadDir(parent)
	if len(ents) != 0 {
		t.Fatalf("after a failed write the parent holds %d entries (%v), want none", len(ents), ents[0].Name())
	}
}

func TestWriteForceReplaces(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	for _, content := range []string{"one", "two"} {
		err := Write(dir, true, func(tmp string) error {
			return os.WriteFile(filepath.Join(tmp, "f"), []byte(content), 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "f"))
	if err != nil || string(b) != "two" {
		t.Fatalf("content = %q, %v; want two", b, err)
	}
	ents, _ := os.ReadDir(filepath.Dir(dir))
	if len(ents) != 1 {
		t.Fatalf("parent holds %d entries, want only the result", len(ents))
	}
}

func TestCreateFileNamesTheFile(t *testing.T) {
	boom := errors.New("boom")
	err := CreateFile(filepath.Join(t.TempDir(), "pairs.csv"), func(io.Writer) error { return boom })
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "pairs.csv: ") {
		t.Fatalf("err = %v, want boom prefixed with the file name", err)
	}
}

func TestWriteJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meta.json")
	if err := WriteJSON(path, map[string]int{"ranks": 4}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if want := "{\n  \"ranks\": 4\n}\n"; string(b) != want {
		t.Fatalf("meta.json = %q, want %q", b, want)
	}
}
