package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/latmap/latmap/internal/exitcode"
	"github.com/latmap/latmap/internal/version"
)

// newGenManCmd is the hidden "latmap gen-man DIR" that make man and make
// install run: one man page per command (latmap.1, latmap-place.1,
// latmap-completion-bash.1, ...) and per help topic (latmap-routing.1,
// latmap-glossary.1, ...) from the command tree itself, so the pages say
// what the binary does; every command's page has the exit statuses
// (exitcode.Help) as its EXIT STATUS section. The date is
// $SOURCE_DATE_EPOCH's when set (make sets it to the commit's date), so
// the pages are reproducible.
func newGenManCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "gen-man DIR",
		Short:  "write latmap's man pages (section 1) into DIR",
		Hidden: true,
		Args:   exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true
			manText(root)
			header := &doc.GenManHeader{
				Section: "1",
				Source:  "latmap " + version.Version,
				Manual:  "latmap manual",
			}
			if err := genManTree(root, header, dir); err != nil {
				return fmt.Errorf("man pages in %s: %w", dir, err)
			}
			return nil
		},
	}
}

// genManTree writes c's page and those of its commands and help topics
// into dir, as doc.GenManTree does for commands alone (it leaves topics
// out).
func genManTree(c *cobra.Command, header *doc.GenManHeader, dir string) error {
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
			if err := genManTree(sub, header, dir); err != nil {
				return err
			}
		}
	}
	var page bytes.Buffer
	h := *header
	if err := doc.GenMan(c, &h, &page); err != nil {
		return err
	}
	name := strings.ReplaceAll(c.CommandPath(), " ", "-") + "." + header.Section
	return os.WriteFile(filepath.Join(dir, name), []byte(manSections(c, page.String(), header.Section)), 0o644)
}

// manSections completes a page cobra rendered: a topic's synopsis is
// "latmap help TOPIC"; a command's page gets its EXIT STATUS; SEE ALSO
// names the root's topics and the topics a page's text points to ("latmap
// help routing").
func manSections(c *cobra.Command, page, section string) string {
	topic := c.IsAdditionalHelpTopicCommand()
	if topic {
		page = strings.Replace(page, `\fB`+c.CommandPath()+`\fP`, `\fB`+c.Root().Name()+" help "+c.Name()+`\fP`, 1)
	}
	var see []string
	for _, t := range c.Root().Commands() {
		if !t.IsAdditionalHelpTopicCommand() || t == c {
			continue
		}
		if !c.HasParent() || strings.Contains(c.Long, "help "+t.Name()) {
			see = append(see, `\fB`+strings.ReplaceAll(t.CommandPath(), " ", "-")+"("+section+`)\fP`)
		}
	}
	var extra strings.Builder
	if !topic {
		extra.WriteString(roffExitStatus(exitcode.Help))
	}
	seeAlso := "\n.SH SEE ALSO\n"
	if len(see) > 0 {
		if i := strings.Index(page, seeAlso); i >= 0 {
			j := i + len(seeAlso) + strings.Index(page[i+len(seeAlso):], "\n")
			page = page[:j] + ", " + strings.Join(see, ", ") + page[j:]
		} else {
			extra.WriteString(seeAlso[1:] + strings.Join(see, ", ") + "\n")
		}
	}
	if i := strings.Index(page, seeAlso); i >= 0 {
		return page[:i+1] + extra.String() + page[i+1:]
	}
	return page + extra.String()
}

// roffExitStatus is help (exitcode.Help: a title line, then "  N  what"
// lines, continued by deeper-indented ones) as a man page's EXIT STATUS
// section.
func roffExitStatus(help string) string {
	lines := strings.Split(help, "\n")
	var b strings.Builder
	title := strings.TrimSuffix(lines[0], ":")
	if _, in, ok := strings.Cut(title, "("); ok {
		// "Exit status (the same for every command)" under the heading
		// EXIT STATUS: "The same for every command."
		in = strings.TrimSuffix(in, ")")
		title = strings.ToUpper(in[:1]) + in[1:]
	}
	b.WriteString(".SH EXIT STATUS\n" + roffEscape(title) + ".\n")
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if _, err := strconv.Atoi(f[0]); err == nil && len(f[0]) == 1 {
			b.WriteString(".TP\n.B " + f[0] + "\n")
			f = f[1:]
		}
		b.WriteString(roffEscape(strings.Join(f, " ")) + "\n")
	}
	return b.String()
}

// roffEscape makes text safe in a roff line: backslashes and hyphens
// escaped, a leading control character neutralised.
func roffEscape(text string) string {
	text = strings.ReplaceAll(text, `\`, `\e`)
	text = strings.ReplaceAll(text, "-", `\-`)
	if strings.HasPrefix(text, ".") || strings.HasPrefix(text, "'") {
		text = `\&` + text
	}
	return text
}

// manText rewrites every command's long help for the man pages, which
// cobra renders as Markdown: the indented lines of the help (examples,
// tables of arguments) become preformatted blocks, as they are on the
// terminal, instead of being run together into one paragraph. A
// command's exit statuses leave its description for the EXIT STATUS
// section (a topic keeps them), and a topic takes no options (not even
// --help).
func manText(c *cobra.Command) {
	if c.IsAdditionalHelpTopicCommand() {
		c.Flags().BoolP("help", "h", false, "")
		c.Flags().MarkHidden("help")
	} else {
		c.Long = strings.TrimSpace(strings.Replace(c.Long, exitcode.Help, "", 1))
	}
	c.Long = preformatIndented(c.Long)
	for _, sub := range c.Commands() {
		manText(sub)
	}
}

// preformatIndented turns each run of lines indented by two or more spaces
// into a Markdown code block (a blank line around it, four more spaces).
func preformatIndented(text string) string {
	var out []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		indented := strings.HasPrefix(line, "  ") && strings.TrimSpace(line) != ""
		switch {
		case indented && !in:
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
			in = true
		case !indented && in && strings.TrimSpace(line) != "":
			out = append(out, "")
			in = false
		case !indented && in:
			in = false
		}
		if indented {
			line = "    " + line
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
