package fabric

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Read reads a network description file, its format told by its
// content: a SimGrid platform (XML: one cluster, or a zone of hosts,
// routers and links), ibnetdiscover's output (either format), a Cray XC
// wiring list (rtr --interconnect), Slurm's topology.yaml (a YAML list
// of topologies) or topology.conf (SwitchName lines), latmap's plain
// description of a torus or a dragonfly, or a list of links. The
// formats are described in docs/fabrics.md. ReadAll reads a fabric with
// its forwarding tables and a map of names.
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

// The formats Read tells apart (sniff).
const (
	formatSimGrid   = "a SimGrid platform"
	formatIB        = "ibnetdiscover output"
	formatLFT       = "forwarding tables (ibroute, OpenSM or ibdiagnet dumps)"
	formatCray      = "a Cray XC wiring list"
	formatSlurm     = "Slurm's topology.conf"
	formatSlurmYAML = "Slurm's topology.yaml"
	formatPlain     = "a plain torus or dragonfly description"
	formatLinks     = "a list of links"
	formatNames     = "a map of names"
)

// sniff tells b's format by its content ("": none latmap reads).
func sniff(b []byte) string {
	t := bytes.TrimSpace(b)
	switch {
	case len(t) == 0:
		return ""
	case t[0] == '<':
		return formatSimGrid
	case isIBNetDiscover(b):
		return formatIB
	case isLFT(b):
		return formatLFT
	case isCray(b):
		return formatCray
	case bytes.Contains(bytes.ToLower(t), []byte("switchname")):
		return formatSlurm
	case bytes.HasPrefix(t, []byte("---")) || bytes.HasPrefix(t, []byte("- topology:")):
		return formatSlurmYAML
	}
	if first := strings.ToLower(strings.Fields(string(t))[0]); first == KindTorus || first == KindDragonfly {
		return formatPlain
	}
	if isLinkList(b) {
		return formatLinks
	}
	if isNameMap(b) {
		return formatNames
	}
	return ""
}

// Parse reads a network description from its bytes (see Read).
func Parse(b []byte) (*Fabric, error) {
	format := sniff(b)
	switch format {
	case formatSimGrid:
		return ReadSimGrid(bytes.NewReader(b))
	case formatIB:
		ib, err := parseIBNetDiscover(b)
		if err != nil {
			return nil, err
		}
		return ib.fabric(nil, nil)
	case formatCray:
		return readCray(b)
	case formatSlurm:
		return ReadSlurmTopology(bytes.NewReader(b))
	case formatSlurmYAML:
		return ReadSlurmYAML(b)
	case formatPlain:
		return ReadPlain(bytes.NewReader(b))
	case formatLinks:
		return readLinkList(b)
	case formatLFT, formatNames:
		return nil, fmt.Errorf("%s, not a network: give it with the network it belongs to (ReadAll; --topology more than once)", format)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("the network description is empty")
	}
	return nil, fmt.Errorf("not a network description latmap reads: want a SimGrid platform (XML), ibnetdiscover's output, " +
		"a Cray XC wiring list (rtr --interconnect), Slurm's topology.conf (SwitchName=...) or topology.yaml (- topology: ...), " +
		"a plain description starting with torus or dragonfly, or a list of links \"a b bandwidth latency\" (docs/fabrics.md)")
}

// eachLine calls do with each line of b and its number, trimmed, but
// blank lines and lines starting with # (cut: anything from a # on);
// do's first error stops it, returned as "line N: ...". errStop stops it
// without an error.
func eachLine(b []byte, cut bool, do func(line int, text string) error) error {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if cut {
			text, _, _ = strings.Cut(text, "#")
		}
		if text = strings.TrimSpace(text); text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if err := do(line, text); errors.Is(err, errStop) {
			return nil
		} else if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading line by line: %w", err)
	}
	return nil
}

// errStop stops eachLine early.
var errStop = errors.New("stop")
