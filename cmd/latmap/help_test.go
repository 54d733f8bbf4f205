package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Bounds of latmap's help (issue 71): a command's --help is one screen a
// person reads to the end; a help topic, where the longer explanations
// live, is a page.
const (
	maxCommandHelp = 2500
	maxTopicHelp   = 6000
	maxFlagUsage   = 100
)

// helpPages runs latmap as a user would and returns what each help shows:
// every command's --help (hidden ones, cobra's help and completion
// included) by its command line ("latmap place --help"), and every help
// topic's text by its own ("latmap help routing").
func helpPages(t *testing.T) (commands, topics map[string]string) {
	t.Helper()
	root := newRootCmd()
	root.SetOut(new(strings.Builder))
	root.SetArgs([]string{"--help"})
	if err := root.Execute(); err != nil { // adds cobra's help and completion commands
		t.Fatal(err)
	}
	commands, topics = map[string]string{}, map[string]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		args := strings.Fields(c.CommandPath())[1:]
		if c.IsAdditionalHelpTopicCommand() {
			out, err := runLatmap(t, "help", c.Name())
			if err != nil {
				t.Fatalf("latmap help %s: %v", c.Name(), err)
			}
			topics["latmap help "+c.Name()] = out
			return
		}
		out, err := runLatmap(t, append(args, "--help")...)
		if err != nil {
			t.Fatalf("%s --help: %v", c.CommandPath(), err)
		}
		commands[c.CommandPath()+" --help"] = out
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if len(commands) < 12 || len(topics) < 5 {
		t.Fatalf("only %d commands and %d topics seen", len(commands), len(topics))
	}
	return commands, topics
}

// TestHelpFitsOneScreen: every command's --help stays under
// maxCommandHelp bytes and every topic under maxTopicHelp; the topics the
// commands' help sends people to exist, and so do the ones issue 71 asks
// for.
func TestHelpFitsOneScreen(t *testing.T) {
	commands, topics := helpPages(t)
	for line, out := range commands {
		if len(out) > maxCommandHelp {
			t.Errorf("%s is %d bytes (limit %d): move explanations to a help topic", line, len(out), maxCommandHelp)
		}
	}
	for line, out := range topics {
		if len(out) > maxTopicHelp {
			t.Errorf("%s is %d bytes (limit %d): split the topic", line, len(out), maxTopicHelp)
		}
		if strings.TrimSpace(out) == "" {
			t.Errorf("%s is empty", line)
		}
	}
	for _, name := range []string{"routing", "phases", "model", "exit-codes", "glossary"} {
		if _, ok := topics["latmap help "+name]; !ok {
			t.Errorf("no help topic %s", name)
		}
	}
	mention := regexp.MustCompile(`latmap\s+help\s+([a-z-]+)`)
	for line, out := range mergePages(commands, topics) {
		for _, m := range mention.FindAllStringSubmatch(out, -1) {
			if _, ok := topics["latmap help "+m[1]]; !ok {
				t.Errorf("%s points to latmap help %s, which is no topic", line, m[1])
			}
		}
	}
}

// TestFlagUsageOneLine: every flag's usage is one line of at most
// maxFlagUsage characters, in the command's --help; the longer story is
// a topic's.
func TestFlagUsageOneLine(t *testing.T) {
	name := regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([\w-]+)`)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		seen := 0
		for _, m := range name.FindAllStringSubmatch(c.LocalFlags().FlagUsages(), -1) {
			f := c.LocalFlags().Lookup(m[1])
			if f == nil {
				t.Fatalf("%s: no flag %s", c.CommandPath(), m[1])
			}
			seen++
			if strings.Contains(f.Usage, "\n") || len(f.Usage) > maxFlagUsage {
				t.Errorf("%s --%s: usage of %d characters (limit %d, one line): %q", c.CommandPath(), f.Name, len(f.Usage), maxFlagUsage, f.Usage)
			}
		}
		if c.Runnable() && c.HasAvailableLocalFlags() && seen == 0 {
			t.Errorf("%s: no flag read from its usage", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd())
}

// jargon are words of latmap's help that a newcomer may not know: each
// must have an entry in latmap help glossary, and still be used by some
// command's help or topic (else it leaves this list).
var jargon = []string{"d-mod-k", "send-late", "circle-method", "halving", "multilevel", "node-bound", "derat", "fluid sharing", "fan-out", "both-ways", "leader", "scope", "collective wait", "PMPI", "rankfile", "machine file", "mmpi"}

// reportJargon are words of latmap's reports, the README and the man
// pages that the glossary defines too.
var reportJargon = []string{"interposition", "Slurm hostfile", "Cray rank order", "perfect interconnect", "slot"}

// TestGlossaryDefinesJargon reads latmap help glossary as a user sees it
// (a term on a line of its own, its meaning indented below) and checks
// that every word of jargon and reportJargon is a term of it, and that
// the terms are in alphabetical order.
func TestGlossaryDefinesJargon(t *testing.T) {
	commands, topics := helpPages(t)
	text := topics["latmap help glossary"]
	var terms []string
	for _, line := range strings.Split(text, "\n")[1:] {
		if line != "" && !strings.HasPrefix(line, " ") {
			terms = append(terms, line)
		}
	}
	if len(terms) < 20 {
		t.Fatalf("latmap help glossary has %d terms:\n%s", len(terms), text)
	}
	if !slices.IsSortedFunc(terms, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) }) {
		t.Errorf("latmap help glossary's terms are not in alphabetical order: %q", terms)
	}
	delete(topics, "latmap help glossary")
	pages := mergePages(commands, topics)
	defined := func(word string) bool {
		return slices.ContainsFunc(terms, func(term string) bool { return strings.Contains(strings.ToLower(term), strings.ToLower(word)) })
	}
	for _, word := range reportJargon {
		if !defined(word) {
			t.Errorf("%q is used in latmap's reports but latmap help glossary has no entry for it", word)
		}
	}
	for _, word := range jargon {
		if !defined(word) {
			t.Errorf("%q is used in latmap's help but latmap help glossary has no entry for it", word)
		}
		used := false
		for _, out := range pages {
			used = used || strings.Contains(strings.ToLower(out), strings.ToLower(word))
		}
		if !used {
			t.Errorf("%q is in no command's help nor topic: remove it from jargon", word)
		}
	}
}

// TestGenManTopicsAndExitStatus: latmap gen-man writes a page for every
// help topic and an EXIT STATUS section, with every status, on every
// command's page; latmap.1 points to the topics.
func TestGenManTopicsAndExitStatus(t *testing.T) {
	dir := t.TempDir()
	if out, err := runLatmap(t, "gen-man", dir); err != nil {
		t.Fatalf("gen-man: %v\n%s", err, out)
	}
	for _, topic := range helpTopics() {
		page := "latmap-" + topic.Name() + ".1"
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Errorf("no man page for help topic %s: %v", topic.Name(), err)
			continue
		}
		if !strings.Contains(string(b), `\fBlatmap help `+topic.Name()+`\fP`) {
			t.Errorf("%s's synopsis is not latmap help %s:\n%.400s", page, topic.Name(), b)
		}
	}
	for _, page := range []string{"latmap.1", "latmap-place.1", "latmap-survey.1", "latmap-verify.1", "latmap-completion-bash.1"} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		_, section, ok := strings.Cut(text, "\n.SH EXIT STATUS\n")
		if !ok {
			t.Errorf("%s has no EXIT STATUS section", page)
			continue
		}
		section, _, _ = strings.Cut(section, "\n.SH ")
		for _, code := range []string{"0", "1", "2", "3", "4"} {
			if !strings.Contains(section, "\n.B "+code+"\n") {
				t.Errorf("%s's EXIT STATUS has no status %s:\n%s", page, code, section)
			}
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "latmap.1")); err == nil && !strings.Contains(string(b), `\fBlatmap-glossary(1)\fP`) {
		t.Errorf("latmap.1's SEE ALSO does not name latmap-glossary(1):\n%s", b)
	}
}

// mergePages is the pages of both maps in one.
func mergePages(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
