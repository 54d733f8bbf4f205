package csvfile

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strings"
)

// Records reads a CSV with exactly header, calling row for each
// record (with its line in errors).
func Records(r io.Reader, header []string, row func(rec []string) error) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err == io.EOF {
		return fmt.Errorf("empty file (want the header %s)", strings.Join(header, ","))
	}
	if err != nil {
		return err
	}
	if strings.Join(head, ",") != strings.Join(header, ",") {
		return fmt.Errorf("header %q, want %q", strings.Join(head, ","), strings.Join(header, ","))
	}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if len(rec) != len(header) {
			return fmt.Errorf("line %d: %d fields, want %d", line, len(rec), len(header))
		}
		if err := row(rec); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
}

// ReadOptional opens path and reads it with read, or returns the zero
// value when the file does not exist; errors name the file.
func ReadOptional[T any](path, name string, read func(io.Reader) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return zero, nil
	}
	if err != nil {
		return zero, err
	}
	defer f.Close()
	v, err := read(f)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}
