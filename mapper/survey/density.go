package survey

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/latmap/latmap/internal/sysmem"
)

// SparseBelow is the part of the triangle under which a table is read
// sparse, whatever meta.json says (scope missing, "all" with holes, an
// import or a merge of partial surveys): a sparse row takes 8 bytes more
// than a dense slot, so below a tenth of the triangle sparse is several
// times smaller, and a few thousand pairs of 64,000 ranks take kilobytes,
// not the 57 GB of their triangle. A chosen policy, not a measurement.
const SparseBelow = 0.10

// MaxFillBytes is the largest dense copy of a sparse survey that a reader
// makes to fill its unmeasured cross-node pairs by CrossNodeMedians (4
// bytes of samples and 4 a metric per pair of ranks): about 6,000 ranks
// with every metric, 11,000 with one. A larger sparse survey stays
// as measured and its readers work node by node. Chosen so that a filled
// survey and the work on it stay under 1 GiB.
const MaxFillBytes = 512 << 20

// denseBytes is the memory of dense tables holding every pair of n ranks
// at the given number of sizes with the given number of metrics.
func denseBytes(n, sizes, metrics int) int64 {
	return int64(TriLen(n)) * int64(sizes) * int64(4+4*metrics)
}

// sparseBytes is the memory of sparse tables holding rows pairs: key,
// samples and metrics per row, twice over while they settle.
func sparseBytes(rows int64, metrics int) int64 { return 2 * rows * int64(12+4*metrics) }

// estimateRows estimates the rows of a pairs.csv from its size and the mean
// length of the lines at its start and end (rank numbers grow down the
// file), without reading it; the count is exact for a file of up to twice
// the sample.
func estimateRows(f *os.File) (int64, error) {
	const sample = 64 << 10
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	buf := make([]byte, min(size, 2*sample))
	if size <= 2*sample {
		if _, err := f.ReadAt(buf, 0); err != nil && err != io.EOF {
			return 0, err
		}
		return max(0, int64(bytes.Count(buf, []byte{'\n'}))-1), nil
	}
	if _, err := f.ReadAt(buf[:sample], 0); err != nil {
		return 0, err
	}
	if _, err := f.ReadAt(buf[sample:], size-sample); err != nil && err != io.EOF {
		return 0, err
	}
	lines := bytes.Count(buf, []byte{'\n'})
	if lines < 2 {
		return 1, nil
	}
	return size * int64(lines) / int64(len(buf)), nil
}

// memAvailable is sysmem.Available; tests lower it.
var memAvailable = sysmem.Available

// chooseSparse says whether ReadSurvey holds the tables of pairs.csv f,
// of n ranks at the given sizes, sparse (only the measured pairs) rather
// than dense, from the rows f holds; it refuses, before anything is
// allocated, a survey the memory at hand cannot hold.
// It also returns the estimated rows per size, to reserve sparse tables.
func chooseSparse(f *os.File, n, sizes, metrics int) (bool, int, error) {
	rows, err := estimateRows(f)
	if err != nil {
		return false, 0, err
	}
	sizes = max(sizes, 1)
	sparse := float64(rows) < SparseBelow*float64(TriLen(n))*float64(sizes)
	need := denseBytes(n, sizes, metrics)
	if sparse {
		need = sparseBytes(rows, metrics)
	}
	if avail, ok := memAvailable(); ok && need > int64(avail) {
		return sparse, 0, fmt.Errorf("pairs.csv holds about %d rows of %d ranks (%.1f%% of the %d pairs at %d size(s)): "+
			"holding them takes about %.1f GiB, and %.1f GiB is free; "+
			"load one metric (--metric), read it on a machine with more memory, or survey a machine this size with --scope nodes",
			rows, n, 100*float64(rows)/float64(TriLen(n))/float64(sizes), TriLen(n), sizes, float64(need)/(1<<30), float64(avail)/(1<<30))
	}
	return sparse, int(rows / int64(sizes)), nil
}
