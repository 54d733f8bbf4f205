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
