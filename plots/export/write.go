package export

import (
	"bytes"
	"fmt"
	"io"

	"github.com/latmap/latmap/internal/atomicdir"
)

// Formats are the formats Write knows, with what reads them.
var Formats = map[string]struct {
	write func(io.Writer, string) error
	what  string
}{
	"pprof":   {WritePprof, "gzipped profile.proto for go tool pprof (MPI time, calls, bytes, send-late and collective wait per call site; labels rank and function)"},
	"hatchet": {WriteHatchet, "Hatchet's literal call tree JSON (hatchet.GraphFrame.from_literal), summed over ranks"},
}

// Options says what Write converts and where it goes.
type Options struct {
	Format  string // pprof or hatchet
	Profile string // profile directory
	Output  string
	Force   bool // replace an existing Output
}

// Write converts a profile directory to o.Format in o.Output, whole or not
// at all (an existing file is kept unless o.Force).
func Write(o Options) error {
	f, ok := Formats[o.Format]
	if !ok {
		return fmt.Errorf("unknown format %q (known: hatchet, pprof)", o.Format)
	}
	if o.Output == "" {
		return fmt.Errorf("no output file: give -o FILE")
	}
	var b bytes.Buffer
	if err := f.write(&b, o.Profile); err != nil {
		return err
	}
	return atomicdir.WriteFile(o.Output, o.Force, b.Bytes())
}
