package interpose_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/profile"
)

// remapOut is what remapcheck and fremap print: where each rank runs, how
// many of the world's checks failed, the checksum.
var remapOut = regexp.MustCompile(`(?m)^(where \d+ \d+\n)+failed (\d+)\nchecksum (\d+)$`)

// TestRemapLocal: latmap profile --remap on this machine, under Open MPI
// and MPICH, two ranks bound to cpus 0 and 1. An advice from latmap place
// --same-slots --json on a plain run's profile, with the proposal's two
// cpus swapped by hand (on one host any numbering ties, so place itself
// keeps the identity): with --remap, rank 0 runs on cpu 1 and rank 1 on
// cpu 0, as the program's own sched_getcpu says (testdata/mpi/
// remapcheck.c; fremap.f90 from Fortran's use mpi, with its own MPI-IO
// file), and every check of
// the world's calls (its group, a duplicate, MPI_Sendrecv's MPI_SOURCE, a
// one-sided window, an MPI-IO file, MPI_TAG_UB, the world's name) that
// passes in the plain run passes renumbered. The profile follows the new
// ranks (ranks.csv's cpus) and meta.json, the report and the HTML page
// say what was done. (Debian's MPICH fails the one-sided check on this machine without
// latmap too: a put to the next rank never lands.) An advice for another host keeps the launcher's numbering and
// says why; unbound processes are matched by host.
func TestRemapLocal(t *testing.T) {
	testutil.Short(t, "MPI runs")
	for _, f := range testutil.Flavors() {
		t.Run(f.Name, func(t *testing.T) {
			bin, lib := f.LatmapBin(t), f.InterposeLib(t)
			dir := t.TempDir()
			prog := flavorProgram(t, f, "remapcheck")
			fprog := f.BuildFortran(t, dir, "fremap", filepath.Join(testutil.RepoRoot(t), "testdata", "mpi", "fremap.f90"))
			bind, unbind := []string{"--bind-to", "core"}, []string{"--bind-to", "none"}
			if f.Name == testutil.MPICH.Name {
				bind, unbind = []string{"-bind-to", "core"}, []string{"-bind-to", "none"}
			}
			sv, p0 := filepath.Join(dir, "survey"), filepath.Join(dir, "p0")
			testutil.MustRun(t, 2*time.Minute, append(append(f.Local(2), bind...), bin, "survey", "-o", sv, "--repeats", "50")...)
			testutil.MustRun(t, time.Minute, append(append(append([]string{bin, "profile", "-o", p0, "--lib", lib, "--"}, f.Local(2)...), bind...), prog)...)
			advice := testutil.MustRun(t, time.Minute, bin, "place", "--survey", sv, "--profile", p0, "--same-slots", "--json")
			swap, other := editAdvice(t, dir, advice, "swap"), editAdvice(t, dir, advice, "other")
			n := 0
			run := func(binding []string, flags []string, app ...string) (where []string, failed, sum string, p *profile.Profile) {
				n++
				out := filepath.Join(dir, "p"+string(rune('a'+n)))
				args := append(app[1:], filepath.Join(dir, "io-"+string(rune('a'+n))))
				o := testutil.MustRun(t, time.Minute, append(append(append(append(append([]string{bin, "profile", "-o", out, "--lib", lib}, flags...), "--"), f.Local(2)...), binding...), append(app[:1], args...)...)...)
				m := remapOut.FindStringSubmatch(o)
				if m == nil {
					t.Fatalf("%v printed no checks:\n%s", app, o)
				}
				pr, err := profile.ReadProfile(out)
				if err != nil {
					t.Fatal(err)
				}
				where = regexp.MustCompile(`where \d+ \d+`).FindAllString(o, -1)
				var fails []string // the checks that failed, whatever rank
				for _, x := range regexp.MustCompile(`(?m)^fail (.*) \(rank`).FindAllStringSubmatch(o, -1) {
					fails = append(fails, x[1])
				}
				slices.Sort(fails)
				return where, m[2] + " " + strings.Join(slices.Compact(fails), ", "), m[3], pr
			}
			for _, app := range []string{prog, fprog} {
				w0, failed0, sum0, _ := run(bind, nil, app)
				if !slices.Equal(w0, []string{"where 0 0", "where 1 1"}) {
					t.Fatalf("%s, plain: %v, want rank r on cpu r", filepath.Base(app), w0)
				}
				w, failed, sum, p := run(bind, []string{"--remap", swap}, app)
				if !slices.Equal(w, []string{"where 0 1", "where 1 0"}) || failed != failed0 || sum != sum0 {
					t.Errorf("%s --remap: %v, %s failed checks (plain %s), checksum %s (plain %s); want the cpus swapped, the same checks and sum",
						filepath.Base(app), w, failed, failed0, sum, sum0)
				}
				r := p.Meta.Reorders
				t.Logf("%s: plain %v, --remap %v (%s failed checks, plain %s)", filepath.Base(app), w0, w, failed, failed0)
				if len(r) != 1 || r[0].Call != "MPI_Init" || r[0].Outcome != "reordered" || !slices.Equal(r[0].NewRanks, []int{1, 0}) ||
					!slices.Contains(p.Meta.Modes, profile.ModeRemap) || p.Ranks[0].CPU != 1 || p.Ranks[1].CPU != 0 {
					t.Errorf("%s --remap: modes %v, reorders %+v, ranks.csv cpus %d %d; want MPI_Init renumbered [1 0], rank 0 on cpu 1",
						filepath.Base(app), p.Meta.Modes, r, p.Ranks[0].CPU, p.Ranks[1].CPU)
				}
			}
			rep := testutil.MustRun(t, time.Minute, bin, "report", filepath.Join(dir, "pc"))
			page := filepath.Join(dir, "page.html")
			testutil.MustRun(t, time.Minute, bin, "report", "--html", "-o", page, filepath.Join(dir, "pc"))
			html, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(rep, "--remap: MPI_COMM_WORLD's 2 ranks renumbered") || !strings.Contains(string(html), "2 ranks renumbered to the advice") {
				t.Errorf("the report or the HTML page does not say what --remap did:\n%s", rep)
			}
			w, failed, _, p := run(bind, []string{"--remap", other}, prog)
			if r := p.Meta.Reorders; !slices.Equal(w, []string{"where 0 0", "where 1 1"}) || failed != "0 " && f.Name == testutil.OpenMPI.Name ||
				len(r) != 1 || !strings.Contains(r[0].Outcome, "a slot the advice's proposal does not hold") {
				t.Errorf("an advice for another host: %v, reorders %+v; want the launcher's numbering and the reason", w, r)
			}
			_, _, _, p = run(unbind, []string{"--remap", swap}, prog)
			if r := p.Meta.Reorders; len(r) != 1 || r[0].Outcome != "reordered" || !slices.Equal(r[0].NewRanks, []int{1, 0}) {
				t.Errorf("unbound processes: reorders %+v; want them matched by host, [1 0]", r)
			}
		})
	}
}

// editAdvice writes latmap place's advice JSON into dir with its proposal
// changed: "swap" exchanges ranks 0 and 1's cpus, "other" moves rank 0 to
// a host the job does not run on.
func editAdvice(t *testing.T, dir, advice, how string) string {
	t.Helper()
	var a map[string]any
	if err := json.Unmarshal([]byte(advice), &a); err != nil {
		t.Fatalf("latmap place --json: %v\n%s", err, advice)
	}
	pl := a["placement"].([]any)
	r0, r1 := pl[0].(map[string]any), pl[1].(map[string]any)
	if how == "swap" {
		r0["cpu"], r1["cpu"] = r1["cpu"], r0["cpu"]
	} else {
		r0["host"] = "not-" + r0["host"].(string)
	}
	b, _ := json.Marshal(a)
	path := filepath.Join(dir, how+".json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
