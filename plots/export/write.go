package export

import (
	"bytes"
	"fmt"
	"io"

	"github.com/latmap/latmap/internal/atomicdir"
)

// formats are the formats Write knows: pprof's profile.proto (WritePprof)
// and Hatchet's literal call tree (WriteHatchet).
var formats = map[string]func(w io.Writer, profileDir string) error{
	"pprof":   WritePprof,
	"hatchet": WriteHatchet,
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
	write, ok := formats[o.Format]
	if !ok {
		return fmt.Errorf("unknown format %q (want hatchet or pprof)", o.Format)
	}
	if o.Output == "" {
		return fmt.Errorf("--output is required (file to write)")
	}
	var b bytes.Buffer
	if err := write(&b, o.Profile); err != nil {
		return err
	}
	return atomicdir.WriteFile(o.Output, o.Force, b.Bytes())
}
