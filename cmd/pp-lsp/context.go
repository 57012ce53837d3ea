package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"pp-lsp/memory"
	"pp-lsp/memory/foveal"
	"pp-lsp/server/agent"
)

// runContext prints the foveal-peripheral context the model would see from
// FILE:LINE (DESIGN §5): the Org text, or with --json the text and its
// figures. The memex is read with its embeddings (kept in the data folder,
// so that only what changed is embedded again), so that related notes
// are there as the language server would show them.
func runContext(ctx context.Context, c *cli, args []string) error {
	const usageLine = "pp-lsp context [--json] [--root DIR]... [--budget N] FILE:LINE"
	fset := newFlagSet("context", usageLine, c.stderr)
	asJSON := fset.Bool("json", false, "print the context and its figures as one JSON object (DESIGN §5)")
	budget := fset.Int("budget", 0, fmt.Sprintf("the most tokens the context may take (default: %s, else %d)", foveal.EnvBudget, foveal.DefaultBudget))
	var roots stringList
	fset.Var(&roots, "root", "a memex root (repeatable; default: the current directory)")
	// Flags may come after FILE:LINE too.
	var pos []string
	for {
		if err := parseFlags(fset, args); err != nil {
			return err
		}
		if fset.NArg() == 0 {
			break
		}
		pos, args = append(pos, fset.Arg(0)), fset.Args()[1:]
	}
	if len(pos) != 1 {
		return usageErrorf("context takes one FILE:LINE (usage: %s)", usageLine)
	}
	file, line, err := parseFileLine(pos[0])
	if err != nil {
		return err
	}
	opts, err := foveal.EnvOptions(c.getenv)
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	if *budget != 0 {
		if *budget < foveal.MinBudget {
			return usageErrorf("--budget %d is below the least budget of %d tokens", *budget, foveal.MinBudget)
		}
		opts.Budget = *budget
	}
	if len(roots) == 0 {
		roots = stringList{"."}
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return usageErrorf("%s: %v", file, err)
	}
	if _, err := os.Stat(abs); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return usageErrorf("%s: %v", file, err)
	}

	m, err := openForContext(ctx, c, roots)
	if err != nil {
		return err
	}
	defer m.Close(ctx)
	if err := m.WaitEmbedded(ctx); err != nil {
		return fmt.Errorf("embedding the memex: %w", err)
	}
	r, err := foveal.NewRenderer(opts)
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	v, err := r.View(ctx, m.Snapshot(), foveal.Cursor{Path: abs, Line: line - 1}, 0)
	switch {
	case errors.Is(err, memory.ErrNotInMemex):
		return usageErrorf("%s is not an Org file of the memex: it must be a visible *.org file under %s", file, rootList(roots))
	case errors.Is(err, foveal.ErrLine):
		lines := 0
		if f, ok := m.Snapshot().File(abs); ok {
			lines = f.Org().Lines.LineCount()
		}
		return usageErrorf("%s has %d lines, so line %d is past its end", file, lines, line)
	case errors.Is(err, foveal.ErrOptions):
		return &usageError{msg: err.Error()}
	case err != nil:
		return fmt.Errorf("rendering the context: %w", err)
	}
	if !*asJSON {
		_, err = fmt.Fprint(c.stdout, v.Text)
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding the context: %w", err)
	}
	_, err = fmt.Fprintf(c.stdout, "%s\n", b)
	return err
}

// openForContext opens the memex as a server keeps it (agent.OpenMemex):
// the store in the data folder, the configured embedder (or the built-in
// trigram one, said on stderr when the configured one does not answer),
// and the privacy tags the gates guard.
func openForContext(ctx context.Context, c *cli, roots []string) (*memory.Memex, error) {
	log := slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	prog := newProgress(c.stderr)
	m, err := agent.OpenMemex(ctx, agent.Setup{Roots: roots, Getenv: c.getenv, Logger: log, Serve: true, Progress: prog.update})
	prog.finish()
	if errors.Is(err, agent.ErrUsage) {
		return nil, &usageError{msg: err.Error()}
	}
	if err != nil {
		return nil, fmt.Errorf("indexing: %w", err)
	}
	return m, nil
}

// rootList names the roots for a message: "--root a" or "--root a, --root b".
func rootList(roots []string) string {
	parts := make([]string, len(roots))
	for i, r := range roots {
		parts[i] = "--root " + r
	}
	return strings.Join(parts, ", ")
}
