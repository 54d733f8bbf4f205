package survey

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ReadRanks reads a ranks.csv (the survey's or the profile's: extra columns
// are ignored).
func ReadRanks(r io.Reader) ([]Rank, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(h)] = i // the last of two of one name, as gocsv
	}
	// Each column by name; a missing column leaves its field zero.
	at := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	var rows []Rank
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		var k Rank
		k.Host, k.CPUSet = at(rec, "host"), at(rec, "cpuset")
		for _, f := range []struct {
			name string
			v    *int
		}{{"rank", &k.Rank}, {"cpu", &k.CPU}, {"cpu_end", &k.CPUEnd}, {"socket", &k.Socket}, {"numa", &k.NUMA}, {"l3", &k.L3}, {"core", &k.Core}} {
			if *f.v, err = rankInt(at(rec, f.name)); err != nil {
				return nil, fmt.Errorf("line %d: %s: %w", line, f.name, err)
			}
		}
		if _, ok := col["core"]; !ok {
			k.Core = -1 // not recorded
		}
		if k.Migrated, err = rankBool(at(rec, "migrated")); err != nil {
			return nil, fmt.Errorf("line %d: migrated: %w", line, err)
		}
		rows = append(rows, k)
	}
}

// rankInt parses an integer field of ranks.csv (spaces around it
// ignored): empty is 0, and a
// fraction is cut off ("3.0" is 3), as the files' other readers took it.
func rankInt(s string) (int, error) {
	if s = strings.TrimSpace(s); s == "" {
		return 0, nil
	}
	s, _, _ = strings.Cut(s, ".")
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: want a whole number", s)
	}
	return int(v), nil
}

// rankBool parses a boolean field of ranks.csv: empty, no and false are
// false; yes, true and 1 are true.
func rankBool(s string) (bool, error) {
	switch s = strings.TrimSpace(s); {
	case strings.EqualFold(s, "yes"):
		return true, nil
	case s == "" || strings.EqualFold(s, "no"):
		return false, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, fmt.Errorf("%q: want true or false", s)
	}
	return b, nil
}

func readRanksFile(path string) ([]Rank, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := ReadRanks(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return rows, nil
}
