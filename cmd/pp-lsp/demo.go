package main

import (
	"context"
	"fmt"
	"log/slog"

	"pp-lsp/server/demo"
)

// runDemo is `pp-lsp demo [--keep]`: the guided tour on a temporary copy of
// the example memex (DESIGN §2).
func runDemo(ctx context.Context, c *cli, args []string) error {
	fs := newFlagSet("demo", "pp-lsp demo [--keep]", c.stderr)
	keep := fs.Bool("keep", false, "keep the tour's temporary directory to explore it afterwards")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("demo: unexpected argument %q", fs.Arg(0))
	}
	err := demo.Run(ctx, demo.Options{
		Out: c.stdout, Getenv: c.getenv, Keep: *keep,
		Logger: slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	return nil
}
