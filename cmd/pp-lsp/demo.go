package main

import (
	"context"

	"pp-lsp/server/demo"
)

// runDemo is `pp-lsp demo [--keep]`: the guided tour on a temporary copy of
// the example memex (DESIGN §2).
func runDemo(ctx context.Context, c *cli, args []string) error {
	fs := newFlagSet("demo", "pp-lsp demo [--keep]")
	keep := fs.Bool("keep", false, "keep the tour's temporary directory (memex, data, configuration) to explore it afterwards")
	log, err := fs.parseLogged(c, args)
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q", fs.Arg(0))
	}
	return demo.Run(ctx, demo.Options{Out: c.stdout, Getenv: c.getenv, Keep: *keep, Logger: log})
}
