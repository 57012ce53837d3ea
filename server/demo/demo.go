// Package demo is `pp-lsp demo`: a guided tour on a temporary copy of the
// example memex — the outline Emacs would see, the memex's figures, what the
// model sees from a cursor, a question answered, a proposal denied and then
// gated into a Flight Plan, its approval and execution, and the audit journal
// — printed so that a newcomer sees what happened and why.
//
// Invariant: the tour touches nothing outside its temporary directory. The
// memex, the data directory and the configuration directory all live there;
// the user's own configuration file and data directory are never read or
// written. The model is the replay provider (a recorded transcript, named as
// such) unless PASSEPARTOUT_PROVIDERS names a real one.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"pp-lsp/examples"
	"pp-lsp/memory"
	"pp-lsp/memory/foveal"
	"pp-lsp/server/agent"
)

// Options configure a tour.
type Options struct {
	// Out receives the tour.
	Out io.Writer
	// Getenv reads the environment; only PASSEPARTOUT_PROVIDERS, the
	// providers' keys and HOME pass through to the tour.
	Getenv func(string) string
	// Keep leaves the temporary directory in place for the reader to explore.
	Keep bool
	// Logger receives the pipeline's warnings (nil: discarded).
	Logger *slog.Logger
}

// The cursor of the tour: the node "Gate every proposal" of projects/pp-lsp.org.
const (
	cursorFile  = "projects/pp-lsp.org"
	cursorTitle = "Gate every proposal"
	outlineFile = "projects/pp-lsp.org"
	question    = "What is left to do here?"
	request     = "Make a dated copy of my inbox before I tidy it."
)

// Run runs the tour. It fails only when something the tour relies on fails;
// the gates' verdicts and the plan's outcome are part of what it shows.
func Run(ctx context.Context, o Options) error {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	dir, err := os.MkdirTemp("", "pp-lsp-demo-")
	if err != nil {
		return fmt.Errorf("the demo needs a temporary directory: %w", err)
	}
	if !o.Keep {
		defer os.RemoveAll(dir)
	}
	t := &tour{out: o.Out, dir: dir, root: filepath.Join(dir, "memex"), dataDir: filepath.Join(dir, "data", "passepartout")}
	if err := copyMemex(t.root); err != nil {
		return err
	}
	env, modelNote, err := t.environment(o.Getenv)
	if err != nil {
		return err
	}
	t.intro(modelNote, o.Keep)

	mx, err := memory.Open(ctx, memory.Options{Roots: []string{t.root}, Embed: true, Logger: o.Logger})
	if err != nil {
		return fmt.Errorf("the demo's memex: %w", err)
	}
	defer mx.Close(context.WithoutCancel(ctx))
	if err := mx.WaitEmbedded(ctx); err != nil {
		return fmt.Errorf("the demo's memex: %w", err)
	}
	a, err := agent.Open(ctx, agent.Setup{
		Roots: []string{t.root}, Getenv: env, Logger: o.Logger,
		Memex: mx, RequireProvider: true,
	})
	if err != nil {
		return fmt.Errorf("the demo's agent: %w", err)
	}
	defer a.Close(context.WithoutCancel(ctx))
	t.agent, t.memex = a, mx
	if t.renderer, err = foveal.NewRenderer(foveal.Options{}); err != nil {
		return fmt.Errorf("the demo's context renderer: %w", err)
	}

	steps := []func(context.Context) error{t.outline, t.figures, t.foveal, t.question, t.proposal, t.approval, t.journal}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return err
		}
	}
	t.outro(o.Keep)
	return nil
}

// environment is the tour's own environment: everything under its temporary
// directory, the model from the user's PASSEPARTOUT_PROVIDERS or the
// recorded transcript.
func (t *tour) environment(getenv func(string) string) (func(string) string, string, error) {
	env := map[string]string{
		"HOME":                  getenv("HOME"),
		"PATH":                  getenv("PATH"),
		"XDG_CONFIG_HOME":       filepath.Join(t.dir, "config"),
		"XDG_DATA_HOME":         filepath.Join(t.dir, "data"),
		"XDG_RUNTIME_DIR":       filepath.Join(t.dir, "run"),
		"PASSEPARTOUT_DATA_DIR": t.dataDir,
	}
	note := "The model is the replay provider: a recorded transcript (examples/demo-replay.jsonl),\n" +
		"no network. Set PASSEPARTOUT_PROVIDERS to take the tour with a real model."
	if p := getenv("PASSEPARTOUT_PROVIDERS"); p != "" {
		env["PASSEPARTOUT_PROVIDERS"] = p
		for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY"} {
			env[k] = getenv(k)
		}
		note = "The model is yours (PASSEPARTOUT_PROVIDERS=" + p + "):\nits answers will differ from the recorded tour's, and that is the point."
	} else {
		replay := filepath.Join(t.dir, "demo-replay.jsonl")
		if err := os.WriteFile(replay, examples.DemoReplay, 0o600); err != nil {
			return nil, "", fmt.Errorf("the demo's transcript: %w", err)
		}
		env["PASSEPARTOUT_PROVIDERS"] = "replay:" + replay
	}
	return func(k string) string { return env[k] }, note, nil
}

// copyMemex writes the embedded example memex to root.
func copyMemex(root string) error {
	err := fs.WalkDir(examples.Memex, "memex", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(p, "memex")))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := examples.Memex.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		return fmt.Errorf("copying the example memex: %w", err)
	}
	return nil
}

// errStep marks a step whose premise did not hold (the example memex
// changed, say); it names the step.
func errStep(step, format string, a ...any) error {
	return fmt.Errorf("demo step %q: %s", step, fmt.Sprintf(format, a...))
}

var errNoPlan = errors.New("the model's proposal was not filed as a Flight Plan")
