package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/latmap/latmap/internal/version"
)

// newGenManCmd is the hidden "latmap gen-man DIR" that make man and make
// install run: one man page per command (latmap.1, latmap-place.1,
// latmap-completion-bash.1, ...) from the command tree itself, so the pages
// say what the binary does. The date is $SOURCE_DATE_EPOCH's when set
// (make sets it to the commit's date), so the pages are reproducible.
func newGenManCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "gen-man DIR",
		Short:  "write latmap's man pages (section 1) into DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
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
			if err := doc.GenManTree(root, header, dir); err != nil {
				return fmt.Errorf("man pages in %s: %w", dir, err)
			}
			return nil
		},
	}
}

// manText rewrites every command's long help for the man pages, which
// cobra renders as Markdown: the indented lines of the help (examples,
// tables of arguments) become preformatted blocks, as they are on the
// terminal, instead of being run together into one paragraph.
func manText(c *cobra.Command) {
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
