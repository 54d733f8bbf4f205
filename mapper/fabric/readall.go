package fabric

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ReadAll reads a network from the files that describe it, each
// file's format told by its content: one network description (any that
// Read reads) and, beside it, the switches' forwarding tables of an
// ibnetdiscover dump (ibroute, dump_lfts.sh or dump_fts output,
// OpenSM's opensm-lfts.dump or opensm.fdbs, ibdiagnet's .fdbs: a file of
// one or more switches, or a directory of such files) and a map of names (of
// GUIDs to hosts for an ibnetdiscover dump, of the description's host
// names to the job's for any). With tables every message takes exactly
// the ports they name. Its Source names every file. An error when no
// description or two are given, tables or a map without a description,
// tables beside a description that is not ibnetdiscover's, or two maps.
func ReadAll(paths []string) (*Fabric, error) {
	var desc []byte
	var descPath string
	var lfts map[uint64]*lft
	var names *nameMap
	var tables []string
	for _, p := range paths {
		files, err := filesOf(p)
		if err != nil {
			return nil, err
		}
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				return nil, fmt.Errorf("reading network description: %w", err)
			}
			switch format := sniff(b); {
			case format == "":
				_, err := Parse(b)
				return nil, fmt.Errorf("%s: %w", file, err)
			case format == formatLFT:
				if lfts == nil {
					lfts = map[uint64]*lft{}
				}
				if err := parseLFTs(b, file, lfts); err != nil {
					return nil, err
				}
				tables = append(tables, file)
			case len(files) > 1 || p != file:
				return nil, fmt.Errorf("%s (in directory %s): not a dump of forwarding tables (%s); "+
					"a directory given with the network holds its switches' forwarding tables", file, p, lftFormats)
			case format == formatNames && names == nil:
				if names, err = parseNameMap(b, file); err != nil {
					return nil, err
				}
			case format == formatNames:
				return nil, fmt.Errorf("two maps of names, %s and %s: give one", names.file, file)
			case format != "" && desc != nil:
				return nil, fmt.Errorf("two network descriptions, %s and %s: give one (with its forwarding tables and a map of names, if any)", descPath, file)
			default:
				desc, descPath = b, file
			}
		}
	}
	return assemble(desc, descPath, lfts, tables, names, paths)
}

// filesOf is path itself, or the regular files in it if it is a
// directory (in name order).
func filesOf(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("reading network description: %w", err)
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("reading forwarding tables: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, filepath.Join(path, e.Name()))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: a directory with no file (want the switches' forwarding tables)", path)
	}
	slices.Sort(out)
	return out, nil
}

// assemble builds the network of the description desc (read from
// descPath) with the tables and the map of names read beside it.
func assemble(desc []byte, descPath string, lfts map[uint64]*lft, tables []string, names *nameMap, paths []string) (*Fabric, error) {
	if desc == nil {
		switch {
		case len(tables) > 0:
			return nil, fmt.Errorf("forwarding tables (%s) without the network they route: give its ibnetdiscover output too", strings.Join(clip(tables, 3), ", "))
		case names != nil:
			return nil, fmt.Errorf("a map of names (%s) without the network it names: give the network too", names.file)
		}
		return nil, fmt.Errorf("no network description given")
	}
	var f *Fabric
	var err error
	if format := sniff(desc); format == formatIB {
		var ib *ibFabric
		if ib, err = parseIBNetDiscover(desc); err == nil {
			f, err = ib.fabric(names, lfts)
		}
	} else {
		switch {
		case lfts != nil:
			return nil, fmt.Errorf("forwarding tables (%s) route an ibnetdiscover dump; %s is %s", strings.Join(clip(tables, 3), ", "), descPath, format)
		case names != nil && len(names.name) == 0:
			return nil, fmt.Errorf("%s maps InfiniBand GUIDs; %s is %s, whose hosts have names: map names to names", names.file, descPath, format)
		}
		if f, err = Parse(desc); err == nil && names != nil {
			err = names.rename(f)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", descPath, err)
	}
	f.Source = descPath
	if len(paths) > 1 {
		f.Source = fmt.Sprintf("%s (with %s)", descPath, strings.Join(slices.DeleteFunc(slices.Clone(paths), func(p string) bool { return p == descPath }), ", "))
	}
	return f, nil
}
