package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/providers"
	"pp-lsp/server/workspace"
)

// Setup is what Open wires an agent from: the process's surroundings, read
// the way DESIGN §11 says (the configuration file, then the environment).
type Setup struct {
	// Roots are the memex roots (default: the current directory).
	Roots []string
	// ConfigFile is the configuration file; "" is
	// $XDG_CONFIG_HOME/passepartout/config.json when it exists.
	ConfigFile string
	// Getenv reads the environment (os.Getenv in the binary).
	Getenv func(string) string
	// Logger is where logs go besides the agent's ring (nil: nowhere).
	Logger *slog.Logger
	// Workspace is the attached editor, if any.
	Workspace workspace.Workspace
	// Memex is the live memex to use; nil opens one over Roots (and Close
	// closes it).
	Memex *memory.Memex
	// Serve opens that memex for a long-running server: its store in the
	// data directory, embeddings computed in the background, auto-saved.
	Serve bool
	// RequireProvider makes Open fail, before any work, when no model is
	// configured (`pp-lsp ask`).
	RequireProvider bool
	// Context renders the foveal context (nil: memory/foveal's Renderer).
	Context ContextSource
}

// ErrUsage is wrapped by Open's errors about its input: a root that is not
// a folder, a configuration that does not parse.
var ErrUsage = errors.New("bad input")

// Open builds the agent a command or a server needs: the gate stack from
// the "gates" section and the vault, the provider cascade from the
// "providers" section and PASSEPARTOUT_PROVIDERS, the agent's own
// settings, the data directory, and the memex. Close releases what it
// opened.
func Open(ctx context.Context, s Setup) (*Agent, error) {
	getenv := s.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	base := s.Logger
	if base == nil {
		base = slog.New(slog.DiscardHandler)
	}
	roots := s.Roots
	if len(roots) == 0 {
		roots = []string{"."}
	}
	for _, r := range roots {
		if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("--root %s is not a folder: %w", r, ErrUsage)
		}
	}
	world := gates.DefaultWorld(getenv, roots)
	cfgPath, optional := s.ConfigFile, false
	if cfgPath == "" {
		cfgPath, optional = filepath.Join(world.ConfigDir, "config.json"), true
	}
	sections, err := ReadConfigFile(cfgPath, optional)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if _, err := os.Stat(cfgPath); err == nil {
		world.ConfigFile = cfgPath
	}

	var pc providers.Config
	if len(sections.Providers) > 0 {
		if err := json.Unmarshal(sections.Providers, &pc); err != nil {
			return nil, fmt.Errorf("the \"providers\" section of %s: %w: %w", cfgPath, err, ErrUsage)
		}
	}
	if err := pc.ApplyEnv(getenv); err != nil {
		return nil, fmt.Errorf("%w: %w", err, ErrUsage)
	}
	if err := pc.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", err, ErrUsage)
	}
	if s.RequireProvider && len(pc.Providers) == 0 {
		return nil, ErrNoProvider
	}

	gc := gates.DefaultConfig()
	if len(sections.Gates) > 0 {
		if gc, err = gates.ParseConfig(sections.Gates); err != nil {
			return nil, fmt.Errorf("%s: %w: %w", cfgPath, err, ErrUsage)
		}
	}
	ac, err := ParseConfig(sections.Agent)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", cfgPath, err, ErrUsage)
	}
	if err := ac.ApplyEnv(getenv); err != nil {
		return nil, fmt.Errorf("%w: %w", err, ErrUsage)
	}
	ac = ac.withDefaults()
	logs := NewLogRing(*ac.LogLimit)
	log := slog.New(logs.Handler(base.Handler()))

	stack, err := gates.New(gc, gates.WithLogger(log))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, ErrUsage)
	}
	vaultPath := gc.Vault
	if vaultPath == "" {
		vaultPath = gates.DefaultVaultPath(world)
	}
	var pvault providers.Vault
	switch v, err := gates.OpenVault(vaultPath); {
	case err == nil:
		world.Vault, pvault = v, vaultKeys{v}
	case !errors.Is(err, fs.ErrNotExist):
		world.VaultErr = err
		log.Error("the vault is refused: every action is denied until it is fixed", "err", err)
	}
	popts := providers.Options{Getenv: getenv, Vault: pvault, Logger: log}
	var provider providers.Provider
	if len(pc.Providers) > 0 {
		c, err := providers.New(pc, popts)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", err, ErrUsage)
		}
		provider = c
	}
	dataDir, err := memory.DataDir(getenv)
	if err != nil {
		return nil, err
	}

	var closers []func(context.Context) error
	mx := s.Memex
	if mx == nil {
		mo := memory.Options{Roots: roots, Logger: log}
		if s.Serve {
			mo.DataDir, mo.Embed = dataDir, true
			if mo.AutoSave, err = memory.AutoSaveInterval(getenv); err != nil {
				return nil, fmt.Errorf("%w: %w", err, ErrUsage)
			}
			if e, err := providers.NewEmbedder(ctx, pc, popts); err == nil {
				mo.Embedder = e
			} else if !errors.Is(err, providers.ErrTrigramEmbedder) {
				log.Warn("the configured embedder does not answer; using the built-in trigram embedder", "err", err)
			}
		}
		if mx, err = memory.Open(ctx, mo); err != nil {
			if errors.Is(err, memory.ErrRoot) {
				return nil, fmt.Errorf("%w: %w", err, ErrUsage)
			}
			return nil, err
		}
		closers = append(closers, mx.Close)
	}
	a, err := New(Options{
		Roots: roots, Stack: stack, World: world, Provider: provider, Memex: mx, Context: s.Context,
		Workspace: s.Workspace, DataDir: dataDir, Config: ac, Logs: logs, Logger: log, Getenv: getenv,
	})
	if err != nil {
		for _, c := range closers {
			c(ctx)
		}
		return nil, err
	}
	a.closers = closers
	return a, nil
}

// Close releases what Open opened (the memex it opened, saved first when
// it serves).
func (a *Agent) Close(ctx context.Context) error {
	var errs []error
	for _, c := range a.closers {
		errs = append(errs, c(ctx))
	}
	a.closers = nil
	return errors.Join(errs...)
}

// vaultKeys lets the providers read keys from the gates' vault.
type vaultKeys struct{ v *gates.Vault }

// Get returns the key stored under name.
func (k vaultKeys) Get(name string) (string, error) {
	if s, ok := k.v.Get(name); ok {
		return s, nil
	}
	return "", fmt.Errorf("the vault holds no entry %q", name)
}
