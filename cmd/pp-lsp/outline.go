package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"pp-lsp/orgast"
)

// runOutline prints the outline of each FILE, as Emacs's org-element reads
// it, in the JSON of DESIGN §3 (orgast renders it; this only reads files).
func runOutline(ctx context.Context, c *cli, args []string) error {
	fset := newFlagSet("outline", "pp-lsp outline --json FILE...", c.stderr)
	asJSON := fset.Bool("json", false, "print the outline as JSON (required: it is the only format)")
	// Flags may come after the files too ("outline notes.org --json");
	// "--" ends them.
	var flagArgs, files []string
	for i, a := range args {
		if a == "--" {
			files = append(files, args[i+1:]...)
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			flagArgs = append(flagArgs, a)
		} else {
			files = append(files, a)
		}
	}
	if err := parseFlags(fset, flagArgs); err != nil {
		return err
	}
	if !*asJSON {
		return usageErrorf("outline: --json is required (usage: pp-lsp outline --json FILE...)")
	}
	if len(files) == 0 {
		return usageErrorf("outline: no FILE given (usage: pp-lsp outline --json FILE...)")
	}
	outlines := make([]*orgast.File, len(files))
	for i, name := range files {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("outline was interrupted before %s: %w", name, err)
		}
		src, err := os.ReadFile(name)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return fmt.Errorf("cannot read %s: %w", name, err)
		}
		outlines[i] = orgast.Parse(src)
	}
	if _, err := c.stdout.Write(orgast.Outlines(files, outlines)); err != nil {
		return fmt.Errorf("writing the outline: %w", err)
	}
	return nil
}
