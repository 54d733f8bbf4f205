package fabric

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// slurmYAMLTopology is one topology of Slurm's topology.yaml.
type slurmYAMLTopology struct {
	Name    string `yaml:"topology"`
	Default bool   `yaml:"cluster_default"`
	Flat    bool   `yaml:"flat"`
	Tree    *struct {
		Switches []struct {
			Switch   string `yaml:"switch"`
			Children string `yaml:"children"`
			Nodes    string `yaml:"nodes"`
		} `yaml:"switches"`
	} `yaml:"tree"`
	Block *struct {
		Sizes  []int `yaml:"block_sizes"`
		Blocks []struct {
			Block string `yaml:"block"`
			Nodes string `yaml:"nodes"`
		} `yaml:"blocks"`
	} `yaml:"block"`
}

// ReadSlurmYAML reads Slurm's topology.yaml (Slurm 23.11 and later):
// the topology with cluster_default: true, else the only one. A tree
// topology is read as topology.conf is; a block topology is a tree whose
// first level is each block and whose next levels are the block_sizes
// above the first (consecutive blocks: block_sizes [4, 16] groups four
// blocks of 4 nodes). As with topology.conf, the links' bandwidths come
// from the survey.
func ReadSlurmYAML(b []byte) (*Fabric, error) {
	var tops []slurmYAMLTopology
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&tops); err != nil {
		return nil, fmt.Errorf("reading topology.yaml: %w", err)
	}
	var t *slurmYAMLTopology
	for i := range tops {
		if tops[i].Default {
			t = &tops[i]
			break
		}
	}
	if t == nil && len(tops) == 1 {
		t = &tops[0]
	}
	switch {
	case t == nil:
		return nil, fmt.Errorf("topology.yaml has %d topologies and none is cluster_default: true", len(tops))
	case t.Tree != nil:
		var lines []string
		for _, s := range t.Tree.Switches {
			line := "SwitchName=" + s.Switch
			if s.Nodes != "" {
				line += " Nodes=" + s.Nodes
			}
			if s.Children != "" {
				line += " Switches=" + s.Children
			}
			lines = append(lines, line)
		}
		f, err := ReadSlurmTopology(strings.NewReader(strings.Join(lines, "\n")))
		if err != nil {
			return nil, fmt.Errorf("topology.yaml topology %s: %w", t.Name, err)
		}
		return f, nil
	case t.Block != nil:
		return slurmBlocks(t)
	}
	return nil, fmt.Errorf("topology.yaml topology %s is flat (or has no tree or block): nothing to route; leave --topology out", t.Name)
}

// slurmBlocks makes a block topology's tree.
func slurmBlocks(t *slurmYAMLTopology) (*Fabric, error) {
	var hosts []string
	var block []int
	for i, bl := range t.Block.Blocks {
		nodes, err := ExpandHostlist(bl.Nodes)
		if err != nil {
			return nil, fmt.Errorf("topology.yaml block %s: %w", bl.Block, err)
		}
		for _, h := range nodes {
			hosts, block = append(hosts, h), append(block, i)
		}
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("topology.yaml topology %s names no node", t.Name)
	}
	node := TreeLevel{Name: "node", Group: make([]int, len(hosts)), Up: make([]float64, len(hosts)), Down: make([]float64, len(hosts))}
	for h := range hosts {
		node.Group[h] = h
	}
	levels := []TreeLevel{node}
	nb := len(t.Block.Blocks)
	sizes := t.Block.Sizes
	for k := 0; k == 0 || k < len(sizes); k++ {
		per := 1
		if k > 0 {
			if sizes[0] <= 0 || sizes[k] <= sizes[k-1] || sizes[k]%sizes[0] != 0 {
				return nil, fmt.Errorf("topology.yaml topology %s: block_sizes %v: each must be a multiple of the first and larger than the one before", t.Name, sizes)
			}
			per = sizes[k] / sizes[0]
		}
		ng := (nb + per - 1) / per
		lv := TreeLevel{Name: fmt.Sprintf("block-level-%d", k+1), Group: make([]int, len(hosts)), Up: make([]float64, ng), Down: make([]float64, ng)}
		for h := range hosts {
			lv.Group[h] = block[h] / per
		}
		levels = append(levels, lv)
	}
	f, err := NewTree(hosts, levels, false)
	if err != nil {
		return nil, err
	}
	return f, f.Check()
}
