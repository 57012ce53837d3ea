package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"pp-lsp/memory"
	"pp-lsp/memory/foveal"
	"pp-lsp/server/agent"
)

// runContext prints the foveal-peripheral context the model would see from
// FILE:LINE (DESIGN §5): the Org text, or with --json the text and its
// figures, the secrets in it redacted as they are for the model. The
// memex is read with its embeddings (kept in the data folder, so that
// only what changed is embedded again), so that related notes are there
// as the language server would show them.
func runContext(ctx context.Context, c *cli, args []string) error {
	const usageLine = "pp-lsp context [--json] [--root DIR]... [--budget N] FILE:LINE"
	fs := newFlagSet("context", usageLine)
	asJSON := fs.Bool("json", false, "print the context and its figures as one JSON object (DESIGN §5)")
	budget := fs.Int("budget", 0, fmt.Sprintf("the most tokens the context may take (default: $%s, else %d)", foveal.EnvBudget, foveal.DefaultBudget))
	roots := fs.rootFlag("")
	log, err := fs.parseLogged(c, args)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("takes one FILE:LINE (usage: %s)", usageLine)
	}
	file, line, err := parseFileLine(fs.Arg(0))
	if err != nil {
		return err
	}
	opts, err := foveal.EnvOptions(c.getenv)
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	if *budget != 0 {
		if *budget < foveal.MinBudget {
			return usageErrorf("--budget: %d is below the least budget of %d tokens", *budget, foveal.MinBudget)
		}
		opts.Budget = *budget
	}
	abs, err := orgFileArg(file)
	if err != nil {
		return err
	}

	// The view the model gets: the vault's secrets and those the gates'
	// rules find are replaced by their marks, within the budget.
	m, redact, err := openForContext(ctx, c, *roots, log)
	if err != nil {
		return err
	}
	defer m.Close(ctx)
	if err := m.WaitEmbedded(ctx); err != nil {
		return fmt.Errorf("cannot embed the memex: %w", err)
	}
	opts.Redact = redact
	r, err := foveal.NewRenderer(opts)
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	v, err := r.View(ctx, m.Snapshot(), foveal.Cursor{Path: abs, Line: line - 1}, 0)
	switch {
	case errors.Is(err, memory.ErrNotInMemex):
		for _, f := range m.Snapshot().FileFindings(abs) {
			return &usageError{msg: f.Message} // left out: too large, unreadable
		}
		return usageErrorf("%s is not an Org file of the memex: it must be a visible *.org file under %s", file, rootList(*roots))
	case errors.Is(err, foveal.ErrLine):
		lines := 0
		if f, ok := m.Snapshot().File(abs); ok {
			lines = f.Org().Lines.LineCount()
		}
		return usageErrorf("%s has %d lines, so line %d is past its end", file, lines, line)
	case errors.Is(err, foveal.ErrOptions):
		return &usageError{msg: err.Error()}
	case err != nil:
		return fmt.Errorf("cannot render the context: %w", err)
	}
	if !*asJSON {
		_, err = fmt.Fprint(c.stdout, v.Text)
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("cannot encode the context: %w", err)
	}
	_, err = fmt.Fprintf(c.stdout, "%s\n", b)
	return err
}

// openForContext opens the memex as a server keeps it (agent.OpenMemex):
// the store in the data folder, the configured embedder (or the built-in
// trigram one, said on stderr when the configured one does not answer),
// and the privacy tags the gates guard; and the redactor the agent would
// have, from the same one reading of the settings.
func openForContext(ctx context.Context, c *cli, roots []string, log *slog.Logger) (*memory.Memex, func(string) string, error) {
	prog := newProgress(c.stderr)
	m, redact, err := agent.OpenMemexRedacted(ctx, agent.Setup{Roots: roots, Getenv: c.getenv, Logger: log, Serve: true, Progress: prog.update})
	prog.finish()
	if err != nil && !errors.Is(err, agent.ErrUsage) {
		return nil, nil, fmt.Errorf("cannot index the memex: %w", err)
	}
	return m, redact, err
}

// rootList names the roots for a message: "--root a" or "--root a, --root b".
func rootList(roots []string) string {
	parts := make([]string, len(roots))
	for i, r := range roots {
		parts[i] = "--root " + r
	}
	return strings.Join(parts, ", ")
}
