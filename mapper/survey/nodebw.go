package survey

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/latmap/latmap/internal/csvfile"
)

// NodeBandwidthFile is the node aggregate-bandwidth file of a survey
// directory (written when the survey spans at least two hosts). A fan-out
// row (bench/fanout.go) names its peers joined by FanOutPeers; the both-ways
// row (bench/bothways.go) its peer after BothWaysPeer.
const NodeBandwidthFile, FanOutPeers, BothWaysPeer = "nodebw.csv", "+", "<>"

// NodeBandwidthHeader is the exact header of nodebw.csv.
func NodeBandwidthHeader() []string {
	return []string{"host", "peer_host", "ranks", "size_bytes", "messages", "seconds", "aggregate_MBps", "pair_MBps"}
}

// NodeBandwidth is one row of nodebw.csv: one step of the node shift
// pattern, host sending to peer with all its ranks at once; or of the
// fan-out, one rank to each peer, PairMBps then the same ranks to the
// first peer.
type NodeBandwidth struct {
	Host, Peer string // the sending node, the receiving node(s)
	// Ranks is how many ranks of Host sent at once.
	Ranks int
	// Size is the message size in bytes; Messages how many messages each
	// rank sent.
	Size, Messages int
	// Seconds is the wall time of the step (the slowest of Host's ranks).
	Seconds float64
	// AggregateMBps is Ranks*Messages*Size/Seconds/1e6: the node's
	// injection bandwidth with all its ranks sending.
	AggregateMBps float64
	// PairMBps is the same measured with one rank of Host sending alone.
	PairMBps float64
}

// NodeBandwidthMeta is meta.json's record of the node bandwidth phase.
type NodeBandwidthMeta struct {
	SizeBytes int `json:"size_bytes"`
	Steps     int `json:"steps"`
	// Seconds is the phase's wall time.
	Seconds float64 `json:"seconds,omitempty"`
}

// WriteNodeBandwidth writes nodebw.csv.
func WriteNodeBandwidth(w io.Writer, rows []NodeBandwidth) error {
	bw := bufio.NewWriter(w)
	cw := csv.NewWriter(bw)
	if err := cw.Write(NodeBandwidthHeader()); err != nil {
		return err
	}
	f := func(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	for _, r := range rows {
		rec := []string{r.Host, r.Peer, strconv.Itoa(r.Ranks), strconv.Itoa(r.Size), strconv.Itoa(r.Messages),
			f(r.Seconds, 6), f(r.AggregateMBps, 3), f(r.PairMBps, 3)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

// ReadNodeBandwidth reads nodebw.csv, validating every field of every row.
// It uses encoding/csv rather than gocsv (the model's reader for ranks.csv,
// fit.csv and the profile's files) because each field is checked with its
// column named in the error: gocsv would take a 0 count or a NaN rate.
// FuzzReadSurvey fuzzes it.
func ReadNodeBandwidth(r io.Reader) ([]NodeBandwidth, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("empty file (want the header %s)", strings.Join(NodeBandwidthHeader(), ","))
	}
	if err != nil {
		return nil, err
	}
	if strings.Join(head, ",") != strings.Join(NodeBandwidthHeader(), ",") {
		return nil, fmt.Errorf("header %q, want %q", strings.Join(head, ","), strings.Join(NodeBandwidthHeader(), ","))
	}
	var rows []NodeBandwidth
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		row, err := parseNodeBandwidth(rec)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		rows = append(rows, row)
	}
}

func parseNodeBandwidth(rec []string) (NodeBandwidth, error) {
	var r NodeBandwidth
	if len(rec) != len(NodeBandwidthHeader()) {
		return r, fmt.Errorf("%d fields, want %d", len(rec), len(NodeBandwidthHeader()))
	}
	if rec[0] == "" || rec[1] == "" {
		return r, errors.New("empty host or peer_host")
	}
	r.Host, r.Peer = rec[0], rec[1]
	ints := []*int{&r.Ranks, &r.Size, &r.Messages}
	for i, p := range ints {
		v, err := strconv.Atoi(rec[2+i])
		if err != nil || v < 1 {
			return r, fmt.Errorf("%s: %q is not a positive integer", NodeBandwidthHeader()[2+i], rec[2+i])
		}
		*p = v
	}
	floats := []*float64{&r.Seconds, &r.AggregateMBps, &r.PairMBps}
	for i, p := range floats {
		col := 5 + i
		v, err := strconv.ParseFloat(rec[col], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return r, fmt.Errorf("%s: %q is not a non-negative number", NodeBandwidthHeader()[col], rec[col])
		}
		*p = v
	}
	return r, nil
}

func readNodeBandwidthFile(path string) ([]NodeBandwidth, error) {
	return csvfile.ReadOptional(path, NodeBandwidthFile, ReadNodeBandwidth)
}
