package report_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/latmap/latmap/internal/testutil"
	"github.com/latmap/latmap/mapper/placefile"
	"github.com/latmap/latmap/placement"
	"github.com/latmap/latmap/plots/report"
)

// reportInputs are a real survey (Blue Waters 4 x 32), a real profile,
// the advice latmap place gives for them and a verification directory.
func reportInputs(t *testing.T) []string {
	t.Helper()
	root := testutil.RepoRoot(t)
	sv := filepath.Join(root, "testdata", "mmpi", "bw_4x32_ammpi_128_64_100.dat")
	prof := filepath.Join(root, "testdata", "profile", "splitcoll-slt-cw")
	var adv bytes.Buffer
	a, err := placement.Run(placement.Options{Survey: sv, Profile: prof})
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Place(&adv, a, true); err != nil {
		t.Fatal(err)
	}
	advice := filepath.Join(t.TempDir(), "advice.json")
	if err := os.WriteFile(advice, adv.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{sv, prof, advice, filepath.Join(root, "testdata", "report", "verify-example")}
}

// dataURI is an embedded PNG (html/template writes + as &#43;).
var dataURI = regexp.MustCompile(`data:image/png;base64,([^"]+)`)

func buildReport(t *testing.T, inputs []string) string {
	t.Helper()
	var b bytes.Buffer
	if err := report.BuildHTML(&b, report.HTMLOptions{Inputs: inputs, Now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestHTMLGolden covers the page's structure: sections, tables, captions,
// with the embedded pictures (checked by their own golden images) and the
// paths of temporary files normalised away.
func TestHTMLGolden(t *testing.T) {
	in := reportInputs(t)
	page := buildReport(t, in)
	norm := dataURI.ReplaceAllString(page, "PNG")
	norm = strings.ReplaceAll(norm, in[2], "ADVICE")
	norm = strings.ReplaceAll(norm, testutil.RepoRoot(t), "REPO")
	norm = regexp.MustCompile(`latmap [^ ]+ on 2026`).ReplaceAllString(norm, "latmap VERSION on 2026")
	norm = regexp.MustCompile(`content="latmap [^"]*"`).ReplaceAllString(norm, `content="latmap VERSION"`)
	golden := filepath.Join(testutil.RepoRoot(t), "testdata", "report", "bw4x32-splitcoll.golden.html")
	if flag.Lookup("update").Value.(flag.Getter).Get().(bool) { // the flag of report_test.go, in the same test binary
		if err := os.WriteFile(golden, []byte(norm), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./plots/report -run TestHTMLGolden -update)", err)
	}
	if norm != string(want) {
		t.Errorf("the report differs from %s (rerun with -update if intended)", golden)
	}
	for _, s := range []string{`id="machine"`, `id="application"`, `id="advice"`, `id="verification"`,
		"4 nodes x 32 ranks, block", "<th class=\"l\">function</th>", "Measured speedup <b>2.00x</b>", "perfect interconnect"} {
		if !strings.Contains(page, s) {
			t.Errorf("the report lacks %q", s)
		}
	}
	// Six pictures (heat map, histogram, four of the profile), each a
	// PNG that decodes.
	m := dataURI.FindAllStringSubmatch(page, -1)
	if len(m) != 6 {
		t.Errorf("%d embedded pictures, want 6", len(m))
	}
	for i, x := range m {
		b, err := base64.StdEncoding.DecodeString(html.UnescapeString(x[1]))
		if err != nil {
			t.Fatalf("picture %d: %v", i, err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil || img.Bounds().Dx() < 100 {
			t.Errorf("picture %d does not decode as a PNG: %v", i, err)
		}
	}
	// Self-contained: nothing to fetch.
	if r := regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:|//)|url\(|<script|<link`); r.MatchString(page) {
		t.Errorf("the page refers outside itself or runs a script: %q", r.FindString(page))
	}
}

func TestHTMLInputErrors(t *testing.T) {
	root := testutil.RepoRoot(t)
	sv := filepath.Join(root, "testdata", "mmpi", "bw_4x32_ammpi_128_64_100.dat")
	for _, tc := range []struct {
		name   string
		inputs []string
		want   string
	}{
		{"nothing", nil, "nothing to report"},
		{"two surveys", []string{sv, sv}, "two survey inputs"},
		{"unknown file", []string{filepath.Join(root, "go.mod")}, "is not a survey"},
		{"missing", []string{filepath.Join(root, "no-such-dir")}, "no such file"},
		{"empty dir", []string{t.TempDir()}, "is not a survey, profile or verification directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := report.BuildHTML(&bytes.Buffer{}, report.HTMLOptions{Inputs: tc.inputs})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestHTMLInChromium opens the report in real headless Chromium: the
// screenshot is not blank, the DOM holds the six pictures and the four
// sections, and Chromium, told to resolve no host at all, renders it the
// same (the page fetches nothing).
func TestHTMLInChromium(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		testutil.Missing(t, testutil.NeedChromium, "chromium not found (apt-get install chromium, or make test)")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, []byte(buildReport(t, reportInputs(t))), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=" + filepath.Join(dir, "profile")}
	run := func(args ...string) string {
		cmd := exec.Command(bin, append(append([]string(nil), base...), args...)...)
		var out bytes.Buffer
		cmd.Stdout = &out
		done := make(chan error, 1)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("chromium %v: %v", args, err)
			}
		case <-time.After(90 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("chromium %v took over 90 s", args)
		}
		return out.String()
	}
	run("--hide-scrollbars", "--window-size=1200,3000", "--screenshot="+shot, "file://"+page)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if n := testutil.Colours(img, 4); n < 20 {
		t.Errorf("the screenshot has %d colours: blank?", n)
	}
	dom := run("--dump-dom", "file://"+page)
	if n := strings.Count(dom, "<img "); n != 6 {
		t.Errorf("the rendered DOM has %d images, want 6", n)
	}
	for _, id := range []string{"machine", "application", "advice", "verification"} {
		if !strings.Contains(dom, `id="`+id+`"`) {
			t.Errorf("the rendered DOM lacks section %s", id)
		}
	}
}

// TestHTMLVerificationTimed: a verification that timed the application
// shows the application's medians and speedup, the launch apart, and the
// ratio of the prediction to the application's speedup.
func TestHTMLVerificationTimed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "verify")
	v := &placefile.Verification{Tool: "latmap", RunsPerVariant: 1,
		VerifyCommands: placefile.VerifyCommands{CurrentCommand: []string{"mpirun", "./app"}, ProposalCommand: []string{"mpirun", "-rf", "f", "./app"}},
		Measured: placefile.Measured{CurrentMedian: 3.25, ProposalMedian: 1.0, Speedup: 3.25, SpeedupCI95: [2]float64{3, 3.5},
			AppTimed: true, CurrentAppMedian: 2.75, ProposalAppMedian: 0.5, AppSpeedup: 5.5, AppSpeedupCI95: [2]float64{5, 6}, LaunchMedian: 0.5},
		PredictedGain: placefile.PredictedGain{PredictedSpeedup: 5, PredictedOver: 5 / 5.5, PredictedAgainst: "current", MeasuredOn: "app"}}
	runs := []placefile.VerifyRun{{Run: 1, Variant: "current", Wall: 3.25, App: 2.75}, {Run: 2, Variant: "proposal", Wall: 1, App: 0.5}}
	if err := placefile.WriteVerification(dir, false, v, runs); err != nil {
		t.Fatal(err)
	}
	html := buildReport(t, []string{dir})
	for _, want := range []string{"median application run", "<td>2.75 s</td>", "<b>5.50x</b>", "predicted / measured 0.91", "500 ms of each is the launcher", "<td>500 ms</td>"} {
		if !strings.Contains(html, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}

// TestHTMLCallSitesAndComms: the application section lists the call sites
// of a --call-sites profile with their source lines, and the
// communicators of a profile where several carried traffic, by name.
func TestHTMLCallSitesAndComms(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"../export/testdata/callsites", []string{"Where the MPI time comes from", "<code>main (/tmp/lmx/callsites.c:34)</code></td><td class=\"l\">MPI_Recv</td>", "lib_send (/tmp/lmx/callsites_lib.c:9)"}},
		{"../../testdata/profile/commgrid", []string{"<h3>Communicators</h3>", "<td class=\"l\">rows</td><td class=\"l\">w.1</td><td class=\"l\">MPI_Comm_split</td><td>2</td><td>8</td>", "<td class=\"l\">cols</td><td class=\"l\">w.2</td>"}},
	} {
		out := filepath.Join(t.TempDir(), "r.html")
		if err := report.WriteHTML(report.HTMLOptions{Inputs: []string{c.in}, Output: out}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s: the report lacks %q", c.in, w)
			}
		}
	}
}

// TestHTMLPredictionRanges: an advice whose predictions carry their
// range over the networks the round trips allow (placement.Run gives it
// where the job's routers are far apart) shows each range beside its run
// and says why in the caption; one without (TestHTMLGolden's) does not.
func TestHTMLPredictionRanges(t *testing.T) {
	in := reportInputs(t)
	if page := buildReport(t, in); strings.Contains(page, "In brackets") {
		t.Errorf("an advice without ranges is said to have them")
	}
	b, err := os.ReadFile(in[2])
	if err != nil {
		t.Fatal(err)
	}
	var a placefile.Advice
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	for i := range a.Predictions {
		p := &a.Predictions[i]
		p.Low, p.High = p.Run/2, p.Run*1.5
	}
	if b, err = json.Marshal(a); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in[2], b, 0o644); err != nil {
		t.Fatal(err)
	}
	page := buildReport(t, in)
	p := a.Predictions[0]
	cell := regexp.MustCompile(`<td class="l">` + regexp.QuoteMeta(p.Name) + `</td><td>[^<]+ \(([^<]+)-([^<]+)\)</td>`)
	if !strings.Contains(page, "In brackets, the run over every network the round trips allow") || !cell.MatchString(page) {
		t.Errorf("the ranges (%s: %g-%g s) are not in the page's advice table", p.Name, p.Low, p.High)
	}
}
