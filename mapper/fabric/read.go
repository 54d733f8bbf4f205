package fabric

import (
	"bytes"
	"fmt"
	"os"
	"strings"
)

// Read reads a network description file, its format told by its
// content: a SimGrid platform (XML), Slurm's topology.yaml (a YAML list
// of topologies), Slurm's topology.conf (SwitchName lines) or latmap's
// plain description.
func Read(path string) (*Fabric, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading network description: %w", err)
	}
	f, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f.Source = path
	return f, nil
}

// Parse reads a network description from its bytes (see Read).
func Parse(b []byte) (*Fabric, error) {
	t := bytes.TrimSpace(b)
	switch {
	case len(t) == 0:
		return nil, fmt.Errorf("the network description is empty")
	case t[0] == '<':
		return ReadSimGrid(bytes.NewReader(b))
	case bytes.Contains(bytes.ToLower(t), []byte("switchname")):
		return ReadSlurmTopology(bytes.NewReader(b))
	case bytes.HasPrefix(t, []byte("---")) || bytes.HasPrefix(t, []byte("- topology:")):
		return ReadSlurmYAML(b)
	}
	first := strings.ToLower(strings.Fields(string(t))[0])
	if first == "torus" || first == "dragonfly" {
		return ReadPlain(bytes.NewReader(b))
	}
	return nil, fmt.Errorf("not a network description latmap reads: want a SimGrid platform (XML), Slurm's topology.conf (SwitchName=...) or topology.yaml (- topology: ...), or a plain description starting with torus or dragonfly (docs/place.md)")
}
