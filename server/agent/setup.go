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
	"pp-lsp/internal/plainerr"
	"pp-lsp/memory"
	"pp-lsp/providers"
	"pp-lsp/server/actuate/sandbox"
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
	// PrivacyTags, when set, replace the "gates" section's privacy tags
	// (the editor's settings): the memex hides and the gates guard them.
	PrivacyTags []string
	// Sandbox is the editor's sandbox setting. It can only make the
	// sandbox stricter than the configuration file and the environment
	// say: a project's editor settings are within a hostile note's reach.
	Sandbox string
	// Progress is called while a memex Open or OpenMemex opens is first
	// read, with the files indexed so far and the total.
	Progress func(done, total int)
}

// ErrUsage marks Open's errors about its input (a root that is not a
// folder, a configuration that does not parse): errors.Is(err, ErrUsage)
// holds for them, without changing their text.
var ErrUsage = errors.New("bad input")

// usageError marks err as the caller's input at fault.
type usageError struct{ error }

func (e usageError) Is(target error) bool { return target == ErrUsage }
func (e usageError) Unwrap() error        { return e.error }

func usage(err error) error { return usageError{err} }

// Open builds the agent a command or a server needs: the gate stack from
// the "gates" section and the vault, the provider cascade from the
// "providers" section and PASSEPARTOUT_PROVIDERS, the agent's own
// settings, the data directory, and the memex. Close releases what it
// opened.
func Open(ctx context.Context, s Setup) (*Agent, error) {
	st, err := readSettings(s)
	if err != nil {
		return nil, err
	}
	if s.RequireProvider && len(st.pc.Providers) == 0 {
		return nil, ErrNoProvider
	}
	ac, err := ParseConfig(st.sections.Agent)
	if err != nil {
		return nil, usage(fmt.Errorf("%s: %w", st.cfgPath, err))
	}
	if err := ac.ApplyEnv(st.getenv); err != nil {
		return nil, usage(err)
	}
	ac = ac.withDefaults()
	logs := NewLogRing(*ac.LogLimit)
	log := slog.New(logs.Handler(st.base.Handler()))
	if s.Sandbox != "" {
		want, err := sandbox.ParseMode(s.Sandbox)
		if err != nil {
			return nil, usage(fmt.Errorf("the editor's sandbox setting: %w", err))
		}
		if mode := sandbox.Stricter(want, sandbox.Mode(ac.Sandbox), sandbox.Probe()); mode != want {
			log.Warn("the editor's sandbox setting is weaker than the configuration's and is ignored", "editor", want, "configuration", mode)
		} else {
			ac.Sandbox = string(mode)
		}
	}

	// The one registry of tools: the gates judge them, the actuators run
	// them, the model is offered them (New takes them from the stack).
	stack, err := gates.New(st.gc, gates.WithTools(gates.BuiltinTools()), gates.WithLogger(log))
	if err != nil {
		return nil, usage(err)
	}
	world := st.world
	var pvault providers.Vault
	var refused *gates.Vault
	v, secrets, err := st.vault()
	if v != nil {
		world.Vault, pvault = v, vaultKeys{v}
	}
	if err != nil {
		world.VaultErr, refused = err, secrets
		log.Error("the vault is refused: every action is denied until it is fixed", "err", err)
	}
	popts := providers.Options{Getenv: st.getenv, Vault: pvault, Logger: log}
	var provider providers.Provider
	if len(st.pc.Providers) > 0 {
		c, err := providers.New(st.pc, popts)
		if err != nil {
			return nil, usage(err)
		}
		provider = c
	}
	dataDir, err := memory.DataDir(st.getenv)
	if err != nil {
		return nil, err
	}

	var closers []func(context.Context) error
	mx := s.Memex
	if mx == nil {
		if mx, err = st.openMemex(ctx, s, popts, log, func() *gates.Vault { return secrets }); err != nil {
			return nil, err
		}
		closers = append(closers, mx.Close)
	}
	a, err := New(Options{
		Roots: st.roots, Stack: stack, World: world, RefusedVault: refused, Provider: provider, Memex: mx, Context: s.Context,
		Workspace: s.Workspace, DataDir: dataDir, Config: ac, Logs: logs, Logger: log, Getenv: st.getenv,
		Protected: []string{st.vaultPath()}, ConfigFile: st.cfgPath,
	})
	if err != nil {
		for _, c := range closers {
			c(ctx)
		}
		return nil, err
	}
	a.closers = closers
	// The binary's own log — the language server's, the bridge's, the
	// SDKs' records, which the agent's ring never sees — passes the
	// agent's one redactor from now on: the vault's secrets too.
	if st.base != nil {
		UseRedactor(st.base.Handler(), a.redact)
	}
	return a, nil
}

// OpenMemex opens the memex Open would open for s, for a caller that keeps
// the memex itself (the language server, which shows the indexing's
// progress and hands the memex to Open): with Serve, its store in the data
// directory, embeddings in the background with the embedder the
// configuration names, auto-saved; always with the privacy tags the gates
// guard.
func OpenMemex(ctx context.Context, s Setup) (*memory.Memex, error) {
	st, err := readSettings(s)
	if err != nil {
		return nil, err
	}
	log := st.base
	return st.openMemex(ctx, s, providers.Options{Getenv: st.getenv, Logger: log}, log, st.redactVault)
}

// OpenMemexRedacted is OpenMemex, and the redactor Open's agent would have
// for s — the vault's secrets (a refused vault's too), then every secret
// the gates' rules find — from one reading of the settings and the vault,
// for a caller that shows what the model gets without an agent (pp-lsp
// context): the memex and the redactor are of the same configuration.
func OpenMemexRedacted(ctx context.Context, s Setup) (*memory.Memex, func(string) string, error) {
	st, err := readSettings(s)
	if err != nil {
		return nil, nil, err
	}
	secrets := st.redactVault()
	m, err := st.openMemex(ctx, s, providers.Options{Getenv: st.getenv, Logger: st.base}, st.base, func() *gates.Vault { return secrets })
	if err != nil {
		return m, nil, err
	}
	return m, gates.Redactor(secrets), nil
}

// settings is what Open and OpenMemex read from a Setup's surroundings.
type settings struct {
	getenv   func(string) string
	base     *slog.Logger
	roots    []string
	world    gates.World
	cfgPath  string
	sections FileSections
	pc       providers.Config
	gc       gates.Config
}

// readSettings reads the roots, the configuration file and the
// environment, DESIGN §11's way (the file, then the environment, then
// Setup's own overrides).
func readSettings(s Setup) (*settings, error) {
	st := &settings{getenv: s.Getenv, base: s.Logger, roots: s.Roots}
	if st.getenv == nil {
		st.getenv = os.Getenv
	}
	if st.base == nil {
		st.base = slog.New(slog.DiscardHandler)
	}
	if len(st.roots) == 0 {
		st.roots = []string{"."}
	}
	for _, r := range st.roots {
		switch fi, err := os.Stat(r); {
		case errors.Is(err, fs.ErrNotExist):
			return nil, usage(fmt.Errorf("--root %s does not exist", r))
		case err != nil:
			return nil, usage(fmt.Errorf("--root %s cannot be read: %w", r, errors.Unwrap(err)))
		case !fi.IsDir():
			return nil, usage(fmt.Errorf("--root %s is not a folder", r))
		}
	}
	st.world = gates.DefaultWorld(st.getenv, st.roots)
	cfgPath, optional := s.ConfigFile, false
	if cfgPath == "" {
		cfgPath, optional = filepath.Join(st.world.ConfigDir, "config.json"), true
	}
	st.cfgPath = cfgPath
	sections, err := ReadConfigFile(cfgPath, optional)
	if err != nil {
		return nil, usage(err)
	}
	st.sections = sections
	if _, err := os.Stat(cfgPath); err == nil {
		st.world.ConfigFile = cfgPath
	}
	if len(sections.Providers) > 0 {
		if err := json.Unmarshal(sections.Providers, &st.pc); err != nil {
			return nil, usage(plainerr.JSON("the \"providers\" section of "+cfgPath, sections.Providers, err))
		}
	}
	if err := st.pc.ApplyEnv(st.getenv); err != nil {
		return nil, usage(err)
	}
	if err := st.pc.Validate(); err != nil {
		return nil, usage(err)
	}
	st.gc = gates.DefaultConfig()
	if len(sections.Gates) > 0 {
		if st.gc, err = gates.ParseConfig(sections.Gates); err != nil {
			return nil, usage(fmt.Errorf("%s: %w", cfgPath, err))
		}
	}
	if s.PrivacyTags != nil {
		st.gc.Privacy.Tags = s.PrivacyTags
	}
	return st, nil
}

// openMemex opens the memex over the roots with the gates' privacy tags;
// secrets gives the vault a configured embedder's texts are scrubbed of
// (st.vault's), read only when there is one.
func (st *settings) openMemex(ctx context.Context, s Setup, popts providers.Options, log *slog.Logger, secrets func() *gates.Vault) (*memory.Memex, error) {
	mo := memory.Options{Roots: st.roots, Home: st.world.Home, Logger: log, PrivacyTags: st.gc.Privacy.Tags, Progress: s.Progress}
	if s.Serve {
		dataDir, err := memory.DataDir(st.getenv)
		if err != nil {
			return nil, err
		}
		mo.DataDir, mo.Embed = dataDir, true
		if mo.AutoSave, err = memory.AutoSaveInterval(st.getenv); err != nil {
			return nil, usage(err)
		}
		if e, err := providers.NewEmbedder(ctx, st.pc, popts); err == nil {
			// An embedder is a model too, most often on another machine:
			// every text it is sent passes the one redactor first (the
			// vault's secrets, a refused vault's too).
			mo.Embedder = redactingEmbedder{e, gates.Redactor(secrets())}
		} else if !errors.Is(err, providers.ErrTrigramEmbedder) {
			log.Warn("the configured embedder does not answer; using the built-in trigram embedder", "err", err)
		}
	}
	mx, err := memory.Open(ctx, mo)
	if errors.Is(err, memory.ErrRoot) {
		return nil, usage(err)
	}
	return mx, err
}

// Close releases what Open opened (the memex it opened, saved first when
// it serves).
func (a *Agent) Close(ctx context.Context) error {
	var errs []error
	for _, c := range a.closers {
		errs = append(errs, c(ctx))
	}
	a.closers = nil
	// The calls journalled but not yet fsynced are synced now.
	errs = append(errs, a.journal.Close())
	return errors.Join(errs...)
}

// vaultPath is where the gates' vault is: the configuration's, or beside
// the configuration file.
func (st *settings) vaultPath() string {
	if st.gc.Vault != "" {
		return st.gc.Vault
	}
	return gates.DefaultVaultPath(st.world)
}

// vault opens the gates' vault: v when it is sound (nil when there is
// none, or it is refused), err why it is refused, and secrets the vault
// whose secrets text bound for a model is scrubbed of — v, or a refused
// vault's secrets all the same (gates.VaultSecretsForRedaction).
func (st *settings) vault() (v, secrets *gates.Vault, err error) {
	p := st.vaultPath()
	switch v, err := gates.OpenVault(p); {
	case err == nil:
		return v, v, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, nil
	default:
		return nil, gates.VaultSecretsForRedaction(p), err
	}
}

// redactVault is st.vault's secrets: the vault text bound for a model is
// scrubbed of (nil when there is none).
func (st *settings) redactVault() *gates.Vault {
	_, secrets, _ := st.vault()
	return secrets
}

// redactingEmbedder is a configured embedder (Ollama's, an
// OpenAI-compatible API's) sent every text through redact first: a note's
// secrets reach it as their marks, as they reach the chat model. Its ID
// is the embedder's own (the marks change a vector no more than an edit
// of those words would).
type redactingEmbedder struct {
	memory.Embedder
	redact func(string) string
}

// Embed embeds texts, each redacted; texts itself is left as it was.
func (e redactingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = e.redact(t)
	}
	return e.Embedder.Embed(ctx, out)
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
