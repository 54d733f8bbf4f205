package testutil

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ReadScotchMapping reads scotch_gmap's output for a graph of n vertices: a
// count, then "vertex terminal" lines; it returns each vertex's terminal.
func ReadScotchMapping(path string, n int) ([]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fields := strings.Fields(string(b))
	if len(fields) < 1+2*n {
		return nil, fmt.Errorf("mapping %s: %d fields, want %d", path, len(fields), 1+2*n)
	}
	out := make([]int, n)
	for k := 0; k < n; k++ {
		v, err1 := strconv.Atoi(fields[1+2*k])
		p, err2 := strconv.Atoi(fields[2+2*k])
		if err1 != nil || err2 != nil || v < 0 || v >= n {
			return nil, fmt.Errorf("mapping %s: bad row %d", path, k+1)
		}
		out[v] = p
	}
	return out, nil
}

// ReadParts reads a partitioner's output for a graph of n vertices, one
// part per line as gpmetis and kaffpa write it; every part must be below
// k. It returns each vertex's part.
func ReadParts(path string, n, k int) ([]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fields := strings.Fields(string(b))
	if len(fields) != n {
		return nil, fmt.Errorf("parts %s: %d parts, want %d", path, len(fields), n)
	}
	out := make([]int, n)
	for v, f := range fields {
		if out[v], err = strconv.Atoi(f); err != nil || out[v] < 0 || out[v] >= k {
			return nil, fmt.Errorf("parts %s: part %q of vertex %d, want 0-%d", path, f, v, k-1)
		}
	}
	return out, nil
}
