package export

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"

	"github.com/google/pprof/profile"

	lp "github.com/latmap/latmap/mapper/profile"
)

// PprofSampleTypes are the values of each sample, in order; the first is
// the default (pprof shows MPI time unless -sample_index says otherwise).
// Each call makes new ones: a profile written holds its own, never a
// package variable another could change.
func PprofSampleTypes() []*profile.ValueType {
	return []*profile.ValueType{
		{Type: "mpi_time", Unit: "nanoseconds"},
		{Type: "calls", Unit: "count"},
		{Type: "bytes_sent", Unit: "bytes"},
		{Type: "bytes_received", Unit: "bytes"},
		{Type: "send_late", Unit: "nanoseconds"},
		{Type: "collective_wait", Unit: "nanoseconds"},
	}
}

// Pprof converts a profile to pprof's format: one sample per rank, MPI
// function, communicator and call site, whose locations are the site's
// frames (innermost first, as pprof wants) and whose labels are the MPI
// function, the rank and the communicator (its MPI_Comm_set_name name, else
// its comms.csv key). Without call sites each MPI function is its own
// location (and no sample has a communicator).
func Pprof(p *lp.Profile) (*profile.Profile, error) {
	types := PprofSampleTypes()
	out := &profile.Profile{
		SampleType:        types,
		DefaultSampleType: types[0].Type,
		TimeNanos:         p.Meta.Start.UnixNano(),
		DurationNanos:     int64(p.Meta.WallSeconds * 1e9),
		Comments:          []string{fmt.Sprintf("latmap profile of %d ranks: %q", p.Meta.Ranks, p.Meta.Command)},
	}
	b := pprofBuilder{p: out, fns: map[[2]string]*profile.Function{}, locs: map[string]*profile.Location{}}
	commName := map[string]string{}
	for _, c := range p.Comms {
		commName[c.Comm] = c.Label()
	}
	for _, c := range p.CallPaths() {
		var stack []*profile.Location
		for _, f := range c.Frames {
			stack = append(stack, b.location(f))
		}
		if len(stack) == 0 {
			stack = append(stack, b.location(lp.SiteFrame{Function: c.Function}))
		}
		// The rank is a string label: pprof drops a numeric label of 0.
		labels := map[string][]string{"function": {c.Function}, "rank": {strconv.Itoa(c.Rank)}}
		if c.Comm != "" {
			name := commName[c.Comm]
			if name == "" {
				name = c.Comm
			}
			labels["communicator"] = []string{name}
		}
		out.Sample = append(out.Sample, &profile.Sample{
			Location: stack,
			Value:    []int64{nanos(c.MPITime()), c.Calls, c.BytesSent, c.BytesRecv, nanos(c.Late), nanos(c.Sync)},
			Label:    labels,
		})
	}
	if err := out.CheckValid(); err != nil {
		return nil, fmt.Errorf("pprof export: %w", err)
	}
	return out, nil
}

// WritePprof writes the profile directory dir as a gzipped profile.proto.
func WritePprof(w io.Writer, dir string) error {
	p, err := lp.ReadProfile(dir)
	if err != nil {
		return err
	}
	pp, err := Pprof(p)
	if err != nil {
		return err
	}
	return pp.Write(w)
}

func nanos(s float64) int64 { return int64(math.Round(s * 1e9)) }

// pprofBuilder gives each distinct function and frame one entry in the
// profile's tables.
type pprofBuilder struct {
	p    *profile.Profile
	fns  map[[2]string]*profile.Function
	locs map[string]*profile.Location
}

// location is the frame's Location: one line of its function, file and
// line; a frame with no symbol is named by its object and offset.
func (b *pprofBuilder) location(f lp.SiteFrame) *profile.Location {
	key := f.Object + "+" + f.Offset + "|" + f.Function
	if l := b.locs[key]; l != nil {
		return l
	}
	name := f.Function
	if name == "" {
		name = filepath.Base(f.Object) + "+" + f.Offset
	}
	fk := [2]string{name, f.File}
	fn := b.fns[fk]
	if fn == nil {
		fn = &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: name, SystemName: name, Filename: f.File}
		b.fns[fk] = fn
		b.p.Function = append(b.p.Function, fn)
	}
	l := &profile.Location{ID: uint64(len(b.p.Location) + 1), Line: []profile.Line{{Function: fn, Line: int64(f.Line)}}}
	b.locs[key] = l
	b.p.Location = append(b.p.Location, l)
	return l
}
