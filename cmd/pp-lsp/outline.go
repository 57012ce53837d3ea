package main

import (
	"context"
	"fmt"
	"os"

	"pp-lsp/internal/plainerr"
	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// runOutline prints the outline of each FILE, as Emacs's org-element reads
// it, in the JSON of DESIGN §3 (orgast renders it; this only reads files).
// A file that cannot be read, or is not text, is bad input: nothing is
// printed for any file.
func runOutline(ctx context.Context, c *cli, args []string) error {
	const usageLine = "pp-lsp outline --json FILE..."
	fs := newFlagSet("outline", usageLine)
	asJSON := fs.Bool("json", false, "print the outline as JSON (required: it is the only format)")
	if err := fs.parse(c, args); err != nil {
		return err
	}
	if !*asJSON {
		return usageErrorf("--json is required (usage: %s)", usageLine)
	}
	files := fs.Args()
	if len(files) == 0 {
		return usageErrorf("no FILE given (usage: %s)", usageLine)
	}
	outlines := make([]*orgast.File, len(files))
	for i, name := range files {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("interrupted before %s: %w", name, err)
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return &usageError{msg: plainerr.File("read", "", name, err).Error()}
		}
		if err := memory.CheckText(src); err != nil {
			return notTextError(name, err)
		}
		outlines[i] = orgast.Parse(src)
	}
	if _, err := c.stdout.Write(orgast.Outlines(files, outlines)); err != nil {
		return fmt.Errorf("cannot write the outline: %w", err)
	}
	return nil
}
