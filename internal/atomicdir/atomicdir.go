package atomicdir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// ErrExists is returned when the destination exists and force is false.
var ErrExists = errors.New("exists")

// CheckDest fails when dir exists and force is false, so a command can refuse
// before it spends time measuring.
func CheckDest(dir string, force bool) error { return checkOutput(dir, force, true) }

// checkOutput fails when the output at path (a directory with dir, else
// a file) cannot be written: none given, the other kind there, there and
// force false, or its parent directory missing.
func checkOutput(path string, force, dir bool) error {
	kind, other := "file", "is a directory; give a file name"
	if dir {
		kind, other = "directory", "is a file, not a directory; choose another -o"
	}
	if path == "" {
		return fmt.Errorf("no output %s given", kind)
	}
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() != dir {
			return fmt.Errorf("output %s %s", path, other)
		}
		if !force {
			return fmt.Errorf("output %s: %w; use --force to replace it or choose another -o", path, ErrExists)
		}
	} else if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("output %s: %w; give another path", path, bare(err))
	}
	parent := filepath.Dir(filepath.Clean(path))
	st, err := os.Stat(parent)
	switch {
	case errors.Is(err, syscall.ENOTDIR) || err == nil && !st.IsDir():
		return fmt.Errorf("output %s: %s is a file, not a directory; give a path in a directory", path, fileOf(parent))
	case err != nil:
		return fmt.Errorf("output %s: parent directory %s does not exist (create it first, or give another path)", path, parent)
	}
	if err := writable(parent); err != nil {
		return fmt.Errorf("output %s: cannot write in %s (%v); give a path in a directory you can write", path, parent, err)
	}
	return nil
}

// fileOf is the first element of path, from its root, that is a file
// (path itself when none is): the one that makes it no directory.
func fileOf(path string) string {
	for p := path; ; {
		up := filepath.Dir(p)
		if up == p {
			return path
		}
		if st, err := os.Stat(up); err == nil && st.IsDir() {
			return p
		}
		p = up
	}
}

// Write creates dir by calling fill on an empty temporary directory beside
// it and renaming that directory to dir when fill succeeds. With force an
// existing dir is replaced; without it an existing dir is an error. On any
// error the temporary directory is removed and dir is left as it was.
func Write(dir string, force bool, fill func(tmp string) error) (err error) {
	if err := CheckDest(dir, force); err != nil {
		return err
	}
	clean := filepath.Clean(dir)
	tmp, err := os.MkdirTemp(filepath.Dir(clean), "."+filepath.Base(clean)+".tmp-")
	if err != nil {
		return fmt.Errorf("output %s: %w", dir, bare(err))
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := fill(tmp); err != nil {
		return err
	}
	var old string
	if _, statErr := os.Stat(clean); statErr == nil {
		old = tmp + ".old"
		if err := os.Rename(clean, old); err != nil {
			return fmt.Errorf("output %s: moving the old result aside: %w", dir, err)
		}
	}
	if err := os.Rename(tmp, clean); err != nil {
		if old != "" {
			os.Rename(old, clean)
		}
		return fmt.Errorf("output %s: %w", dir, bare(err))
	}
	if old != "" {
		os.RemoveAll(old)
	}
	return nil
}

// CheckFile fails when the file path cannot be written: its parent
// directory is missing, path is a directory, or it exists and force is
// false; so a command can refuse before it spends time.
func CheckFile(path string, force bool) error { return checkOutput(path, force, false) }

// bare is err without the temporary file it names (an *os.PathError's
// own error), so that messages name the user's path only.
func bare(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// WriteFile writes one file atomically: to a temporary sibling, then renamed.
func WriteFile(path string, force bool, data []byte) error {
	if err := CheckFile(path, force); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return fmt.Errorf("output %s: %w", path, bare(err))
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("output %s: %w", path, bare(err))
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("output %s: %w", path, bare(err))
	}
	os.Chmod(tmp, 0o644)
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("output %s: %w", path, bare(err))
	}
	return nil
}

// CreateFile creates path (typically inside the directory Write is filling)
// and lets write fill it; errors name the file.
func CreateFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return f.Close()
}

// WriteJSON writes v as indented JSON with a final newline to path.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
