package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/memory/foveal"
	"pp-lsp/providers"
	"pp-lsp/server/actuate"
	"pp-lsp/server/actuate/sandbox"
	"pp-lsp/server/chat"
	"pp-lsp/server/checkpoint"
	"pp-lsp/server/flightplan"
	"pp-lsp/server/journal"
	"pp-lsp/server/protect"
	"pp-lsp/server/seal"
	"pp-lsp/server/skills"
	"pp-lsp/server/workspace"
)

// Memex is what the agent needs of the live memex (memory.Memex): the
// snapshot it reasons over, the rollback after a failed pass, the news
// that a file changed on disk, and the look at the disk before text
// leaves for a model.
type Memex interface {
	Snapshot() *memory.Snapshot
	Rollback(ctx context.Context, to *memory.Snapshot) (*memory.RollbackResult, error)
	ReloadFiles(ctx context.Context, paths ...string) (*memory.Snapshot, error)
	Refresh(ctx context.Context) (*memory.Snapshot, error)
	// Recheck is the snapshot after a look at the disk, taken before any
	// text of the memex leaves for a model (memory.Memex.Recheck).
	Recheck(ctx context.Context) (*memory.Snapshot, error)
}

// Options are what an Agent is built from. Roots, Stack, Memex and DataDir
// are required.
type Options struct {
	// Roots are the memex roots; flightplans.org and journal.org live in
	// the first.
	Roots []string
	// Stack is the gate stack; its tools (Stack.Tools) are the ones the
	// model is offered and the actuators run. World is the gates'
	// environment without its Memex, which every pass fills with the
	// snapshot it reasons over.
	Stack *gates.Stack
	World gates.World
	// RefusedVault is the secrets of a vault the gates refused
	// (World.VaultErr; gates.VaultSecretsForRedaction), which text bound
	// for a model or a log is scrubbed of all the same (nil: none).
	RefusedVault *gates.Vault
	// Provider answers (the cascade); nil makes asking ErrNoProvider.
	Provider providers.Provider
	Memex    Memex
	// Context renders the foveal context (nil: a memory/foveal Renderer
	// with CONTEXT_BUDGET and CONTEXT_SEMANTIC_THRESHOLD from Getenv).
	Context ContextSource
	// Workspace is the attached editor (nil: none).
	Workspace workspace.Workspace
	// DataDir holds the install key, the plans' filing and run records and
	// locks, and the journal's head; it must not be inside a root.
	DataDir string
	Config  Config
	// Logs keep the recent log lines for the prompt. nil makes a ring fed
	// by the agent's own logger; a ring given here must already be fed by
	// Logger (built on Logs.Handler, as Open does), so that the gates',
	// providers' and memory's lines reach it too.
	Logs *LogRing
	// Logger is where the agent logs (nil: nowhere but the ring).
	Logger *slog.Logger
	// Actuators replace the actuators of some tools (see actuate.Config).
	Actuators map[gates.Tool]actuate.Actuator
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Getenv reads the process environment for the few variables actions
	// inherit (PATH, locale, HOME); nil is os.Getenv.
	Getenv func(string) string
	// ConfigFile is the user's configuration file, where "approve and
	// allow similar" adds its rules ("": none can be added).
	ConfigFile string
	// Protected are further places no shell or eval command may read or
	// write (the vault, wherever it is); the data, config and runtime
	// folders of World are always protected.
	Protected []string
}

// Agent runs the pipeline. It is safe for concurrent use: many signals may
// be handled at once; what they change is serialised.
type Agent struct {
	roots []string
	// stack is the gate stack; approving a plan and allowing similar
	// actions replaces it by one with the new rule (gates()).
	stack     atomic.Pointer[gates.Stack]
	cfgPath   string
	tools     *gates.Tools
	world     gates.World
	provider  providers.Provider
	memex     Memex
	ctxsrc    ContextSource
	files     workspace.Files
	chats     *chat.Store
	acts      *actuate.Actuators
	store     *flightplan.Store
	journal   *journal.Journal
	plansPath string
	cfg       Config
	logs      *LogRing
	log       *slog.Logger
	now       func() time.Time
	redact    func(string) string

	// foreign remembers the foreign plans already journalled (by ID and
	// text), so that each is journalled once per process, not every tick.
	foreignMu sync.Mutex
	foreign   map[string]bool

	// checkpoints keep what each change did to files, for undo.
	checkpoints *checkpoint.Store

	// actMu serialises the actions (and undos): one runs at a time, with
	// the snapshot and rollback around it. The agent's own changes of
	// files — a conversation's turn, a plan filed or its state written, a
	// schedule moved on — never take it, so that none waits for an action
	// that waits for the editor's user or for a command: they take the
	// lock of their file (locks), and are kept out of what an action is
	// taken to have changed (own; actMark is where the running action
	// began, guarded by actMu). Lock order: actMu, files, own's, journalMu.
	actMu   sync.Mutex
	actMark uint64
	locks   fileLocks
	own     *actuate.OwnWrites
	// journalMu serialises the journal's appends with the moment of a
	// rollback that keeps journal.org out of it (rollbackLocked), so that
	// no rollback undoes an entry. It is never held while anything waits
	// for an editor or a command, so that journalling a read (an MCP
	// call) never waits for an action; taken after actMu, never before.
	journalMu sync.Mutex
	// startJournalled reports that this start's entry (how commands are
	// confined) is in the journal; guarded by journalMu.
	startJournalled bool
	// wake nudges the heartbeat to pick up approved plans now.
	wake chan struct{}
	// behind is the server's last write of flightplans.org on disk under
	// an open buffer (planfile.go).
	behind plansBehind
	// closers release what Open opened.
	closers []func(context.Context) error
	// skills reads the skills of each snapshot once.
	skills *skills.Cache
	// dataDir holds the records of scheduled runs.
	dataDir string
	// search is what Search, Node and Backlinks share.
	search searchState
}

// New builds an agent.
func New(opts Options) (*Agent, error) {
	if len(opts.Roots) == 0 || opts.Stack == nil || opts.Memex == nil || opts.DataDir == "" {
		return nil, errors.New("agent: roots, a gate stack, a memex and a data directory are required")
	}
	roots := make([]string, len(opts.Roots))
	for i, r := range opts.Roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("agent: root %s: %w", r, err)
		}
		roots[i] = abs
	}
	cfg := opts.Config.withDefaults()
	log := opts.Logger
	logs := opts.Logs
	if logs == nil {
		logs = NewLogRing(*cfg.LogLimit)
		var next slog.Handler
		if log != nil {
			next = log.Handler()
		}
		log = slog.New(logs.Handler(next))
	} else if log == nil {
		log = slog.New(logs.Handler(nil))
	}
	// One redactor for everything bound for a model or a log: the
	// vault's secrets by name, and every secret the gates' rules find.
	v := opts.World.Vault
	if v == nil {
		v = opts.RefusedVault
	}
	redact := gates.Redactor(v)
	logs.SetRedactor(redact)
	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, fmt.Errorf("agent: the data directory %s: %w", opts.DataDir, err)
	}
	if r, in := protect.Inside(dataDir, roots); in {
		return nil, usage(fmt.Errorf("the data directory %s is inside the memex root %s, where actions could reach the install key and the plans' records: set PASSEPARTOUT_DATA_DIR to a folder outside every root", dataDir, r))
	}
	key, err := seal.LoadOrCreate(dataDir)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	files := workspace.Files{Workspace: opts.Workspace}
	shell, eval, httpLim := cfg.actuatorLimits()
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var protected []string
	for _, p := range append([]string{opts.DataDir, opts.World.DataDir, opts.World.ConfigDir, opts.World.RuntimeDir, opts.World.ConfigFile}, opts.Protected...) {
		if p != "" {
			protected = append(protected, p)
		}
	}
	jr := journal.Open(filepath.Join(roots[0], journal.FileName), dataDir, key)
	own := &actuate.OwnWrites{}
	acts, err := actuate.New(actuate.Config{
		Roots: roots, Home: opts.World.Home, Files: files, Memex: opts.Memex, Redact: redact, Journal: jr, Own: own,
		Protected: []string{dataDir, opts.World.DataDir, opts.World.ConfigDir, opts.World.ConfigFile, opts.World.RuntimeDir},
		Getenv:    getenv, Shell: shell, Eval: actuate.EvalConfig{Limits: eval, Interpreters: cfg.Interpreters},
		HTTP: httpLim, Channels: cfg.Channels, Tools: opts.Stack.Tools(), Override: opts.Actuators, Logger: log,
		Sandbox: cfg.sandboxConfig(protected...),
	})
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	ctxsrc := opts.Context
	if ctxsrc == nil {
		fo, err := foveal.EnvOptions(getenv)
		if err != nil {
			return nil, usage(fmt.Errorf("agent: %w", err))
		}
		fo.Redact = redact
		r, err := foveal.NewRenderer(fo)
		if err != nil {
			return nil, fmt.Errorf("agent: %w", err)
		}
		ctxsrc = r
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	world := opts.World
	world.Roots = roots
	plans := filepath.Join(roots[0], flightplan.FileName)
	chats, err := chat.New(chat.Config{Roots: roots, Dir: cfg.ChatDir, LockDir: filepath.Join(dataDir, "chats"), Files: files,
		Reserved: []string{flightplan.FileName, journal.FileName}, Home: opts.World.Home, Write: ownWriter(own, files, opts.Memex)})
	if err != nil {
		return nil, usage(fmt.Errorf("agent: %w", err))
	}
	// The gates guard the folder the conversations are made in, whatever
	// set it (the chatDir setting, the environment).
	world.ChatDir = chats.Dir()
	a := &Agent{
		roots: roots, tools: opts.Stack.Tools(), cfgPath: opts.ConfigFile, world: world, provider: opts.Provider, memex: opts.Memex,
		ctxsrc: ctxsrc, files: files, chats: chats, acts: acts, store: flightplan.OpenStore(dataDir, key),
		journal: jr, own: own,
		plansPath: plans, cfg: cfg, logs: logs, log: log, now: now, redact: redact,
		wake: make(chan struct{}, 1), foreign: map[string]bool{},
		skills: skills.NewCache(opts.Stack.Tools(), skills.Builtins()), dataDir: dataDir,
	}
	a.stack.Store(opts.Stack)
	a.checkpoints = checkpoint.Open(dataDir, key, cfg.CheckpointCap, a.now)
	return a, nil
}

// gates is the gate stack now.
func (a *Agent) gates() *gates.Stack { return a.stack.Load() }

// Tools are the tools the agent offers the model, gates and runs: its gate
// stack's registry.
func (a *Agent) Tools() *gates.Tools { return a.tools }

// Roots are the memex roots, absolute.
func (a *Agent) Roots() []string { return append([]string(nil), a.roots...) }

// PlansPath is the Flight Plans file.
func (a *Agent) PlansPath() string { return a.plansPath }

// JournalPath is the audit journal.
func (a *Agent) JournalPath() string { return a.journal.Path() }

// Sandbox is the sandbox shell and eval actions run in.
func (a *Agent) Sandbox() *sandbox.Sandbox { return a.acts.Sandbox() }

// Config is the agent's configuration, defaults filled in.
func (a *Agent) Config() Config { return a.cfg }

// Logs is the ring the prompt's LOGS come from.
func (a *Agent) Logs() *LogRing { return a.logs }

// HasProvider reports whether a model is configured.
func (a *Agent) HasProvider() bool { return a.provider != nil }

// env prepares the gates' environment over snap.
func (a *Agent) env(ctx context.Context, snap *memory.Snapshot, narrow ...gates.Narrowing) (*gates.Env, error) {
	w := a.world
	w.Memex = snap
	w.Narrowing = narrow
	env, err := a.gates().NewEnv(ctx, w)
	if err != nil {
		return nil, fmt.Errorf("preparing the gates: %w", err)
	}
	return env, nil
}

// appendJournal writes one entry (see journalMu). A journal that cannot
// be written is logged loudly and the error returned: what must be
// journalled before it happens (a proposal's verdict, an approval) then
// does not happen; what already happened is not undone.
func (a *Agent) appendJournal(ctx context.Context, e journal.Entry) error {
	return a.writeJournal(ctx, e, true)
}

// appendJournalDeferred is appendJournal for an entry that records a read,
// which changes nothing: it is written (chained, its head recorded) before
// it returns, and fsynced within journal.SyncDelay, or by the next entry
// that must be durable (every other kind), or when the agent closes.
func (a *Agent) appendJournalDeferred(ctx context.Context, e journal.Entry) error {
	return a.writeJournal(ctx, e, false)
}

// writeJournal writes e, durably or deferred, under journalMu.
func (a *Agent) writeJournal(ctx context.Context, e journal.Entry, durable bool) error {
	if !e.Private && flightplan.ValidID(e.PlanID) {
		// What names a plan a private conversation filed (its approval,
		// its result, its undo) is as private as the plan.
		e.Private = a.privatePlan(e.PlanID)
	}
	a.journalMu.Lock()
	defer a.journalMu.Unlock()
	if !a.startJournalled {
		// Every start records how commands are confined (DESIGN §12), with
		// its first entry: a start that journals nothing writes nothing.
		a.startJournalled = true
		sb := a.acts.Sandbox()
		start := journal.Entry{Kind: journal.KindStart, Title: "sandbox " + sb.Summary(), Text: sb.Describe()}
		if _, err := a.journal.Append(context.WithoutCancel(ctx), start); err != nil {
			a.log.ErrorContext(ctx, "the audit journal could not be written", "err", err)
		}
	}
	write := a.journal.Append
	if !durable {
		write = a.journal.AppendDeferred
	}
	if _, err := write(context.WithoutCancel(ctx), e); err != nil {
		a.log.ErrorContext(ctx, "the audit journal could not be written", "err", err)
		return fmt.Errorf("the audit journal could not be written: %w", err)
	}
	// The memex is not told at once: reading the whole journal again after
	// every entry would cost more as it grows than the entry itself. A
	// watcher or the heartbeat's refresh brings it in.
	return nil
}

// The live memex is the agent's memex, and its snapshots are the gates'.
var (
	_ Memex       = (*memory.Memex)(nil)
	_ gates.Memex = (*memory.Snapshot)(nil)
)
