package fabric

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// nameMap is a map of names given beside a fabric: InfiniBand GUIDs to
// names (a site's guid2host map, "H-003048c74e4a0000 x5570comp1";
// OpenSM's node name map, `0x0002c9030008b7b0 "x5570comp1 HCA-1"`), or
// hosts' names in the fabric to the names a job sees ("c0-0c0s3n1
// nid00013"; the output of Cray's xtprocadmin, whose NID and NODENAME
// columns give the cnames' nid numbers).
type nameMap struct {
	file string
	guid map[uint64]string
	name map[string]string
}

// nameMapGUID is a GUID as the maps spell it: H-, S- or R- and 16 hex
// digits (ibnetdiscover's node names), 0x and hex digits, or 16 bare hex
// digits.
var nameMapGUID = regexp.MustCompile(`^(?:[SHRshr]-([0-9a-fA-F]{16})|0[xX]([0-9a-fA-F]{1,16})|([0-9a-fA-F]{16}))$`)

// parseGUID reads a GUID spelt as nameMapGUID says.
func parseGUID(s string) (uint64, bool) {
	m := nameMapGUID.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseUint(m[1]+m[2]+m[3], 16, 64)
	return v, err == nil
}

// parseNameMap reads a map of names (see nameMap); # starts a comment.
// An error names the line that is neither a GUID and a name, a name and
// a name, nor a row of xtprocadmin's table.
func parseNameMap(b []byte, file string) (*nameMap, error) {
	m := &nameMap{file: file, guid: map[uint64]string{}, name: map[string]string{}}
	procadmin := false
	err := eachLine(b, false, func(_ int, text string) error {
		f := strings.Fields(text)
		if f[0] == "NID" && slices.Contains(f, "NODENAME") {
			procadmin = true
			return nil
		}
		return m.add(text, f, procadmin)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(m.guid)+len(m.name) == 0 {
		return nil, fmt.Errorf("%s: a map of names with no name in it", file)
	}
	return m, nil
}

// add reads one line of a map (fields f): a GUID and a name (quoted
// where it has spaces), a name and a name, or, after xtprocadmin's
// header, a row "NID (HEX) NODENAME ...".
func (m *nameMap) add(text string, f []string, procadmin bool) error {
	if procadmin {
		nid, err := strconv.Atoi(f[0])
		if err != nil || len(f) < 3 {
			return fmt.Errorf("%q: want xtprocadmin's NID, (HEX) and NODENAME columns", text)
		}
		m.name[f[2]] = fmt.Sprintf("nid%05d", nid)
		return nil
	}
	rest := strings.TrimSpace(strings.TrimPrefix(text, f[0]))
	if g, ok := parseGUID(f[0]); ok {
		name := strings.Trim(rest, `"`)
		if name == "" {
			return fmt.Errorf("GUID %s names nothing", f[0])
		}
		m.guid[g] = name
		return nil
	}
	if len(f) != 2 || strings.ContainsAny(text, `="`) {
		return fmt.Errorf("%q: want a GUID (H-0002c903000b8d32, 0x0002c903000b8d32) and a name, or a host's name and the name to give it", text)
	}
	m.name[f[0]] = f[1]
	return nil
}

// isNameMap says whether b reads as a map of names.
func isNameMap(b []byte) bool {
	_, err := parseNameMap(b, "")
	return err == nil
}

// rename gives f's hosts the names m gives them (in place: a fabric
// routed otherwise shares f's hosts); an error where two hosts would
// then share a name.
func (m *nameMap) rename(f *Fabric) error {
	seen := make(map[string]int, len(f.Hosts))
	for i, h := range f.Hosts {
		if to, ok := m.name[h]; ok {
			f.Hosts[i] = to
		}
		if j, ok := seen[f.Hosts[i]]; ok {
			return fmt.Errorf("%s names hosts %d and %d of %s both %s", m.file, j, i, f.Source, f.Hosts[i])
		}
		seen[f.Hosts[i]] = i
	}
	return nil
}
