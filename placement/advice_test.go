package placement

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/placefile"
)

// TestAdviceGolden pins the advice schema (latmap place --json) on a real
// survey (Blue Waters 4 x 32) and a real profile: every field name and
// value, the solver's time and the paths normalised away. A change of the
// schema must show here, and raise placefile.AdviceSchema when a field
// changes meaning or goes.
func TestAdviceGolden(t *testing.T) {
	root := testutil.RepoRoot(t)
	var out bytes.Buffer
	_, err := runJSON(Options{Survey: filepath.Join(root, "testdata", "mmpi", "bw_4x32_ammpi_128_64_100.dat"),
		Profile: filepath.Join(root, "testdata", "profile", "splitcoll-slt-cw")}, &out)
	if err != nil {
		t.Fatal(err)
	}
	got := bytes.ReplaceAll(out.Bytes(), []byte(root), []byte("REPO"))
	got = regexp.MustCompile(`"(seconds|version)": [^,\n]+`).ReplaceAll(got, []byte(`"$1": X`))
	golden := filepath.Join("testdata", "advice.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./placement -run TestAdviceGolden -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("latmap place --json differs from %s (rerun with -update if the change is intended, and raise AdviceSchema if a field changed meaning)\n%s", golden, got)
	}
	// What verify and report read back: the schema version and the
	// predictions compared.
	var a placefile.Advice
	if err := json.Unmarshal(out.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	if a.Schema != placefile.AdviceSchema || a.Reference().Name == "" || a.ProposalPrediction().Name != "proposal" {
		t.Errorf("schema %d reference %q proposal %q", a.Schema, a.Reference().Name, a.ProposalPrediction().Name)
	}
}

// TestReadAdviceRefusesNewerSchema: advice from a newer latmap is refused
// with a way out, not misread.
func TestReadAdviceRefusesNewerSchema(t *testing.T) {
	p := filepath.Join(t.TempDir(), "advice.json")
	os.WriteFile(p, []byte(`{"schema_version": 99, "predictions": [{"name": "block"}, {"name": "proposal"}]}`), 0o644)
	if _, err := placefile.ReadAdvice(p); err == nil || !regexp.MustCompile(`schema version 99 is newer`).MatchString(err.Error()) {
		t.Errorf("ReadAdvice of schema 99: %v", err)
	}
}
