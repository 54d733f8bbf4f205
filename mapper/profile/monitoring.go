package profile

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gocarina/gocsv"
	"github.com/latmap/latmap/internal/atomicdir"
)

// MatrixRow is one row of the plain communication matrix latmap place
// --matrix takes: src,dst,bytes,messages.
type MatrixRow struct {
	Src      int   `csv:"src"`
	Dst      int   `csv:"dst"`
	Bytes    int64 `csv:"bytes"`
	Messages int64 `csv:"messages"`
}

// ReadOMPIMonitoring reads the files Open MPI's PML monitoring writes
// (mpirun --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3
// --mca pml_monitoring_filename DIR/prof: one DIR/prof.RANK.prof per rank)
// and returns their point-to-point traffic: the "E src dst N bytes M msgs
// sent" lines (application messages; collectives' internal ones are "I"
// lines and are left out), summed per pair, sorted by src then dst. path
// is the directory or the filename prefix given to Open MPI.
func ReadOMPIMonitoring(path string) ([]MatrixRow, error) {
	files, err := monitoringFiles(path)
	if err != nil {
		return nil, err
	}
	sum := map[[2]int]*MatrixRow{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		err = parseMonitoring(fh, func(r MatrixRow) {
			k := [2]int{r.Src, r.Dst}
			if x := sum[k]; x != nil {
				x.Bytes += r.Bytes
				x.Messages += r.Messages
			} else {
				sum[k] = &r
			}
		})
		fh.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	out := make([]MatrixRow, 0, len(sum))
	for _, r := range sum {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Src != out[j].Src {
			return out[i].Src < out[j].Src
		}
		return out[i].Dst < out[j].Dst
	})
	return out, nil
}

// monitoringFiles lists the .prof files of a directory or a prefix.
func monitoringFiles(path string) ([]string, error) {
	pattern := path + ".*.prof"
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		pattern = filepath.Join(path, "*.prof")
	}
	files, err := filepath.Glob(pattern)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no Open MPI monitoring files %s "+
			"(run mpirun with --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 --mca pml_monitoring_filename DIR/prof)", pattern)
	}
	return files, nil
}

// parseMonitoring calls fn for every "E" line of one monitoring file.
func parseMonitoring(r io.Reader, fn func(MatrixRow)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Split(sc.Text(), "\t")
		if len(f) == 0 || f[0] != "E" {
			if w := strings.Fields(sc.Text()); len(w) > 1 && w[0] == "E" {
				return fmt.Errorf("line %d: an E line not separated by tabs, as Open MPI writes them (\"E\\tsrc\\tdst\\tN bytes\\tM msgs sent\")", line)
			}
			continue
		}
		if len(f) < 5 {
			return fmt.Errorf("line %d: %d tab-separated fields, want \"E src dst N bytes M msgs sent ...\"", line, len(f))
		}
		var row MatrixRow
		var err error
		if row.Src, err = strconv.Atoi(f[1]); err == nil && row.Src >= 0 {
			row.Dst, err = strconv.Atoi(f[2])
		}
		if err != nil || row.Src < 0 || row.Dst < 0 {
			return fmt.Errorf("line %d: bad ranks %q %q", line, f[1], f[2])
		}
		if row.Bytes, err = countField(f[3], " bytes"); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if row.Messages, err = countField(f[4], " msgs sent"); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		fn(row)
	}
	return sc.Err()
}

// countField parses "5000 bytes" or "5 msgs sent".
func countField(s, unit string) (int64, error) {
	v, ok := strings.CutSuffix(s, unit)
	n, err := strconv.ParseInt(v, 10, 64)
	if !ok || err != nil || n < 0 {
		return 0, fmt.Errorf("%q: want a count followed by %q", s, unit)
	}
	return n, nil
}

// ImportOMPIMonitoring turns Open MPI's monitoring files at path into the
// matrix CSV out (src,dst,bytes,messages) that latmap place --matrix
// takes, atomically (an existing out is replaced only with force), and
// writes a one-line summary to report when it is not nil.
func ImportOMPIMonitoring(path, out string, force bool, report io.Writer) error {
	rows, err := ReadOMPIMonitoring(path)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := gocsv.Marshal(rows, &b); err != nil {
		return err
	}
	if err := atomicdir.WriteFile(out, force, b.Bytes()); err != nil {
		return err
	}
	if report != nil {
		var bytes, msgs int64
		ranks := 0
		for _, r := range rows {
			bytes, msgs = bytes+r.Bytes, msgs+r.Messages
			ranks = max(ranks, r.Src+1, r.Dst+1)
		}
		fmt.Fprintf(report, "latmap: wrote %s: %d rank pairs among %d ranks, %d messages, %d bytes (point to point)\n", out, len(rows), ranks, msgs, bytes)
	}
	return nil
}
