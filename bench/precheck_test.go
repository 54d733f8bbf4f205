package bench

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/latmap/latmap/mapper/survey"
	"github.com/latmap/latmap/mapper/survey/synth"
)

// TestCheckBeforeMPI: what rank 0 refuses of --resume and the outputs
// before MPI starts, each naming the path and the fix, and the stopped
// survey it keeps for planResume when it accepts.
func TestCheckBeforeMPI(t *testing.T) {
	dir := t.TempDir()
	s := synth.New(synth.Spec{Nodes: 2, Sockets: 1, Cores: 2, RTT: [4]float64{1, 2, 10, 10}})
	s.Meta.Stopped = "stopped by SIGTERM"
	stopped := filepath.Join(dir, "stopped")
	if err := survey.WriteSurvey(stopped, s, false); err != nil {
		t.Fatal(err)
	}
	host := s.Ranks[0].Host
	for _, c := range []struct {
		name  string
		opt   func(o *Options)
		ranks int
		host  string
		want  string
	}{
		{"resumes", func(o *Options) {}, 4, host, ""},
		{"unknown size", func(o *Options) {}, -1, "", ""},
		{"other ranks", func(o *Options) {}, 6, host, "4 ranks, this job 6: resume it with as many ranks"},
		{"other host", func(o *Options) {}, 4, "elsewhere", "rank 0 ran on " + host + ", and runs on elsewhere now"},
		{"other scope", func(o *Options) { o.Scope = "nodes" }, 4, host, "scope all, this job nodes: resume it with --scope all"},
		{"output elsewhere", func(o *Options) { o.Out = filepath.Join(dir, "no", "x") }, 4, host, "parent directory " + filepath.Join(dir, "no") + " does not exist"},
	} {
		t.Run(c.name, func(t *testing.T) {
			opt := DefaultOptions("")
			opt.Resume = stopped
			c.opt(&opt)
			if err := opt.Validate(); err != nil {
				t.Fatal(err)
			}
			err := checkResume(&opt, c.ranks, c.host)
			if err == nil {
				err = checkOutputs(&opt)
			}
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want == "" && opt.stopped == nil:
				t.Fatal("the stopped survey is not kept for planResume")
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestEndsJobOnExit: rank 0 exits before MPI_Init only under a launcher
// that then ends the job; elsewhere the others would wait in MPI_Init.
func TestEndsJobOnExit(t *testing.T) {
	for name, want := range map[string]bool{"openmpi": true, "hydra": false, "slurm": false, "pmix": false, "": false} {
		if got := endsJobOnExit(name); got != want {
			t.Errorf("endsJobOnExit(%q) = %v, want %v", name, got, want)
		}
	}
}
