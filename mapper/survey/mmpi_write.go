package survey

import (
	"bufio"
	"fmt"
	"io"
)

// MmpiLog is the content of an mmpi log (the all-pairs latency log written
// by mmpi.c, the tool of the MPI latency surface-plot study).
type MmpiLog struct {
	// Host is the "Testing Hostname": the host of rank 0.
	Host string
	// Names holds each rank's processor name.
	Names []string
	// MsgLen is the message length in MPI_INTs, as mmpi counted it (mmpi's
	// "MsgLen 64" sent 256 bytes).
	MsgLen int
	// Repeats is the number of timed round trips per pair.
	Repeats int
	// Mean and SEM hold each pair's mean round trip and mmpi's "StdDev" (the
	// standard error of the mean, as bench/roundtrip.MmpiStats computes it) in microseconds, as packed
	// upper triangles indexed by TriIndex.
	Mean, SEM []float64
}

// WriteMmpi writes l in mmpi's log format, byte for byte as mmpi.c wrote
// it: three header lines, then every pair with a <= b (self pairs included,
// as 0.00 0.00) in the order (0,0), (0,1) ... (0,N-1), (1,1), (1,2) ...,
// each with the format "%s %03d  %s %03d     %6.2f  %6.2f\n".
func WriteMmpi(w io.Writer, l *MmpiLog) error {
	n := len(l.Names)
	if len(l.Mean) != TriLen(n) || len(l.SEM) != TriLen(n) {
		return fmt.Errorf("mmpi: %d ranks need %d pairs, have %d means and %d deviations", n, TriLen(n), len(l.Mean), len(l.SEM))
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, "# Testing Hostname: %s\n", l.Host)
	fmt.Fprintf(bw, "# Processors: %d MsgLen %d Repeats: %d\n", n, l.MsgLen, l.Repeats)
	fmt.Fprintf(bw, "# ProcName1:rank   ProcName2:rank   AvgCommTime(usecs) StdDev\n")
	for a := 0; a < n; a++ {
		for b := a; b < n; b++ {
			var mean, sem float64
			if a != b {
				i := TriIndex(n, a, b)
				mean, sem = l.Mean[i], l.SEM[i]
			}
			fmt.Fprintf(bw, "%s %03d  %s %03d     %6.2f  %6.2f\n", l.Names[a], a, l.Names[b], b, mean, sem)
		}
	}
	return bw.Flush()
}
