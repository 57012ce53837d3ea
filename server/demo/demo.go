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
// such) unless PASSEPARTOUT_PROVIDERS names a real one that answers a
// preflight; whatever the model answers, every step shows what happened
// and the tour goes on to its end.
package demo

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"pp-lsp/examples"
	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/memory/foveal"
	"pp-lsp/providers"
	"pp-lsp/server/agent"
)

// Options configure a tour.
type Options struct {
	// Out receives the tour.
	Out io.Writer
	// Getenv reads the environment; only PASSEPARTOUT_PROVIDERS, the
	// providers' keys, HOME and PATH pass through to the tour.
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

// preflightTimeout bounds the check that the user's model answers before
// the tour relies on it: a person is waiting.
const preflightTimeout = 3 * time.Second

// Run runs the tour. It fails only when the tour's own ground fails (its
// temporary directory, the example memex); the model's answers, the gates'
// verdicts and the plan's outcome are part of what it shows.
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
	t := &tour{out: o.Out, dir: dir, root: filepath.Join(dir, "memex"), dataDir: filepath.Join(dir, "data", "passepartout"), keep: o.Keep}
	if err := copyMemex(t.root); err != nil {
		return err
	}
	env, modelNote, err := t.environment(ctx, o.Getenv)
	if err != nil {
		return err
	}
	t.intro(modelNote)

	mx, err := memory.Open(ctx, memory.Options{Roots: []string{t.root}, Home: gates.DefaultWorld(env, []string{t.root}).Home, Embed: true, Logger: o.Logger})
	if err != nil {
		return fmt.Errorf("cannot index the demo's memex: %w", err)
	}
	defer mx.Close(context.WithoutCancel(ctx))
	if err := mx.WaitEmbedded(ctx); err != nil {
		return fmt.Errorf("cannot embed the demo's memex: %w", err)
	}
	a, err := agent.Open(ctx, agent.Setup{
		Roots: []string{t.root}, Getenv: env, Logger: o.Logger,
		Memex: mx, RequireProvider: true,
	})
	if err != nil {
		return fmt.Errorf("cannot set up the demo's agent: %w", err)
	}
	defer a.Close(context.WithoutCancel(ctx))
	t.agent, t.memex = a, mx
	if t.renderer, err = foveal.NewRenderer(foveal.Options{}); err != nil {
		return fmt.Errorf("cannot set up the demo's context renderer: %w", err)
	}

	steps := []func(context.Context) error{t.outline, t.figures, t.foveal, t.question, t.proposal, t.approval, t.journal, t.skills}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("the tour was interrupted: %w", err)
		}
	}
	t.outro()
	return nil
}

// recordedNote says that the model is the recorded transcript.
const recordedNote = "The model is the replay provider: a recorded transcript (examples/demo-replay.jsonl),\n" +
	"no network. Set PASSEPARTOUT_PROVIDERS to take the tour with a real model."

// environment is the tour's own environment: everything under its temporary
// directory, the model from the user's PASSEPARTOUT_PROVIDERS when it
// answers a preflight, else the recorded transcript.
func (t *tour) environment(ctx context.Context, getenv func(string) string) (func(string) string, string, error) {
	env := map[string]string{
		"HOME":                  getenv("HOME"),
		"PATH":                  getenv("PATH"),
		"XDG_CONFIG_HOME":       filepath.Join(t.dir, "config"),
		"XDG_DATA_HOME":         filepath.Join(t.dir, "data"),
		"XDG_RUNTIME_DIR":       filepath.Join(t.dir, "run"),
		"PASSEPARTOUT_DATA_DIR": t.dataDir,
	}
	lookup := func(k string) string { return env[k] }
	note := recordedNote
	if p := strings.TrimSpace(getenv(providers.EnvProviders)); p != "" {
		keys := map[string]string{}
		for _, k := range []string{providers.EnvOpenAIKey, providers.EnvAnthropicKey} {
			keys[k] = getenv(k)
		}
		userEnv := func(k string) string {
			if k == providers.EnvProviders {
				return p
			}
			return keys[k]
		}
		if problem := preflight(ctx, userEnv); problem != "" {
			note = fmt.Sprintf("Your model (PASSEPARTOUT_PROVIDERS=%s) is not ready: %s.\n"+
				"The tour goes on with the recorded model instead: a transcript, no network.", p, problem)
		} else {
			env[providers.EnvProviders] = p
			for k, v := range keys {
				env[k] = v
			}
			return lookup, "The model is yours (PASSEPARTOUT_PROVIDERS=" + p + "):\n" +
				"its answers will differ from the recorded tour's, and that is the point.", nil
		}
	}
	replay := filepath.Join(t.dir, "demo-replay.jsonl")
	if err := os.WriteFile(replay, examples.DemoReplay, 0o600); err != nil {
		return nil, "", fmt.Errorf("cannot write the demo's transcript: %w", err)
	}
	env[providers.EnvProviders] = "replay:" + replay
	t.recorded = true
	return lookup, note, nil
}

// preflight asks each configured provider, briefly, whether it is there
// and has its model, as doctor does. It returns "" when at least one
// does (the cascade falls through the others), else why none does.
func preflight(ctx context.Context, getenv func(string) string) string {
	var cfg providers.Config
	if err := cfg.ApplyEnv(getenv); err != nil {
		return err.Error()
	}
	if err := cfg.Validate(); err != nil {
		return err.Error()
	}
	ctx, cancel := context.WithTimeout(ctx, preflightTimeout)
	defer cancel()
	var problems []string
	diags := providers.DiagnoseProviders(ctx, cfg, providers.Options{Getenv: getenv, Logger: slog.New(slog.DiscardHandler)})
	for _, d := range diags {
		if d.Status != providers.StatusFail {
			return ""
		}
		if len(diags) == 1 {
			return strings.TrimRight(d.Detail, ".")
		}
		problems = append(problems, strings.TrimPrefix(d.Subject, "provider ")+": "+strings.TrimRight(d.Detail, "."))
	}
	return strings.Join(problems, "; ")
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
		return fmt.Errorf("cannot copy the example memex: %w", err)
	}
	return nil
}
