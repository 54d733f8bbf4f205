package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/latmap/latmap/internal/exitcode"
	"github.com/latmap/latmap/internal/vcluster"
)

func main() {
	out := flag.String("o", "demo-cluster", "directory for the results")
	bin := flag.String("latmap", "bin/latmap", "the MPI-enabled latmap binary (make build)")
	flag.Parse()
	if err := run(*out, *bin); err != nil {
		fmt.Fprintf(os.Stderr, "latmap demo-cluster: %v\n", err)
		os.Exit(1)
	}
}

func run(out, bin string) error {
	if why := vcluster.Unavailable(); why != "" {
		return fmt.Errorf("%s: run make demo instead, or as root", why)
	}
	bin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	os.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
	os.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
	c, err := vcluster.New(vcluster.Options{Nodes: 2, SlotsPerNode: 2, Rate: "400mbit", Dir: out})
	if err != nil {
		return err
	}
	defer c.Close()
	p := func(name string) string { return filepath.Join(out, name) }
	// Bound to cores: each rank is one slot of the survey.
	mpirun := append(c.MpirunArgs(4), "--bind-to", "core")
	app := []string{p("pairs"), "40", "1048576", "12"}
	poor := append(append(append([]string(nil), mpirun...), "--map-by", "node"), app...)
	steps := []struct {
		say  string
		argv []string
		to   string // stdout to this file too
	}{
		{
			"1. survey the cluster: round trips at 64 B and 256 KiB, every pair of 4 ranks on 2 nodes, " +
				"one pair at a time (2 cpus serve all 4)",
			append(append([]string(nil), mpirun...),
				bin, "survey", "-o", p("survey"), "--sizes", "64,256K", "--repeats", "20", "--schedule", "sequential"),
			"",
		},
		{"   its topology (inferred at 256 KiB, where the 400 Mbit/s links decide)", []string{bin, "topo", p("survey"), "--size", "262144"}, p("topo.txt")},
		{"   its picture", []string{bin, "plot", p("survey"), "--size", "262144", "--order", "host", "-o", p("survey.png")}, ""},
		{
			"2. build a program whose ranks compute 12 ms, then exchange 1 MiB with a partner, 40 times (testdata/mpi/pairs.c)",
			[]string{"mpicc", "-O2", "-o", p("pairs"), "testdata/mpi/pairs.c"},
			"",
		},
		{"   profile it in a poor layout: --map-by node puts every pair across the link", append([]string{bin, "profile", "-o", p("profile"), "--"}, poor...), ""},
		{
			"3. placement advice",
			append([]string{bin, "place", "--survey", p("survey"), "--profile", p("profile"), "-o", p("pairs.rankfile"), "--"}, app...),
			p("advice.txt"),
		},
		{"", append([]string{bin, "place", "--survey", p("survey"), "--profile", p("profile"), "--json", "--"}, app...), p("advice.json")},
		{
			"4. verify: the poor layout against the proposal, 3 runs each, alternating",
			append([]string{bin, "verify", "-o", p("verify"), "--rankfile", p("pairs.rankfile"), "--place", p("advice.json"), "--runs", "3", "--"}, poor...),
			"",
		},
		{
			"   the advice again, its model judged on verify's runs of the poor layout (out of sample: not the profile's run)",
			append([]string{bin, "place", "--survey", p("survey"), "--profile", p("profile"), "--reruns", p("verify"), "--"}, app...),
			p("advice-reruns.txt"),
		},
		{"5. one page of it all", []string{bin, "report", "--html", "-o", p("report.html"), p("survey"), p("profile"), p("advice.json"), p("verify")}, ""},
	}
	for _, s := range steps {
		if s.say != "" {
			fmt.Printf("\nlatmap demo-cluster: %s\n", s.say)
		}
		cmd := exec.Command(s.argv[0], s.argv[1:]...)
		cmd.Stderr = os.Stderr
		var o strings.Builder
		cmd.Stdout = &o
		// A verify that measured no gain exits 3 with its runs written:
		// the page shows them beside the prediction.
		var ee *exec.ExitError
		if err := cmd.Run(); err != nil && !(s.argv[1] == "verify" && errors.As(err, &ee) && ee.ExitCode() == exitcode.NoAdvice) {
			fmt.Print(o.String())
			return fmt.Errorf("%s: %w", strings.Join(s.argv, " "), err)
		}
		if s.to != "" {
			if err := os.WriteFile(s.to, []byte(o.String()), 0o644); err != nil {
				return err
			}
		}
		if !strings.HasSuffix(s.to, ".json") {
			fmt.Print(o.String())
		}
	}
	fmt.Printf("\nlatmap demo-cluster: done; open %s: its advice and verification sections put the predicted and the "+
		"measured speedup side by side\n", p("report.html"))
	return nil
}
