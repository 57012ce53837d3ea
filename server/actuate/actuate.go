package actuate

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"net/http"
	"time"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/server/actuate/sandbox"
	"pp-lsp/server/redact"
	"pp-lsp/server/workspace"
)

// Request is one action to carry out.
type Request struct {
	Action gates.Action
	// Approval is set only when the action runs from an approved Flight
	// Plan; http, send and eval (and reads outside the roots) need it.
	Approval *Approval
	// File (absolute) and Line (0-based) are where the user asked from (a
	// message's answer is shown, never written there: DESIGN §13).
	File string
	Line int
	// Question is what the user asked.
	Question string
	// Snapshot is the memex as the caller checked it against the disk
	// (Memex.Recheck) for this action: the privacy filter of its output,
	// and file_read's privacy tags, read it (or the memex's current
	// snapshot, when that is newer). nil: Run rechecks the memex itself.
	Snapshot *memory.Snapshot
}

// Approval says a human approved exactly this action in a Flight Plan.
type Approval struct {
	PlanID string
	// ActionHash is the hash of the approved action; the actuator checks
	// that it is the hash of the action it is asked to run.
	ActionHash string
	// Before, for a file_write or memory_edit, names the text (HashOf)
	// the file held when the human saw the plan's diff: a file that holds
	// anything else now is not changed (ErrTargetChanged). "" checks
	// nothing.
	Before string
}

// Result is what an action did.
type Result struct {
	// OK is false when the action ran but did not succeed (a non-zero exit
	// status, an HTTP error status, an answer the editor declined).
	OK bool
	// Summary says what happened in one line ("exit status 0", "wrote 120
	// bytes to notes/a.org").
	Summary string
	// Output is what the action produced, bounded, scrubbed of vault
	// secrets and of those the gates' rules find, and with the text of
	// private notes replaced by [private]: a command's output, a file's
	// text, an HTTP body.
	Output string
	// ExitCode is a process's exit status (-1 when killed).
	ExitCode int
	// Feedback reports that Output is for the model: it goes back into the
	// pipeline as the next signal (shell, file_read).
	Feedback bool
	// Shown is text to show the user where no editor took it (a message).
	Shown string
	// Changed lists the files written, absolute.
	Changed []string
	// Edits are the files a file_write or memory_edit changed, with their
	// text before and after.
	Edits []FileEdit
	// Warnings are things the user must hear about even though the action
	// ran (a protected file a command touched, and what was done about it).
	Warnings []string
}

// Actuator carries out the actions of one tool.
type Actuator interface {
	Run(ctx context.Context, req Request) (Result, error)
}

// ActuatorFunc adapts a function to Actuator.
type ActuatorFunc func(ctx context.Context, req Request) (Result, error)

// Run calls f.
func (f ActuatorFunc) Run(ctx context.Context, req Request) (Result, error) { return f(ctx, req) }

// Memex is what the actuators need of the live memex: the snapshot to find
// nodes (memory_edit) and privacy (file_read), and the news that a file
// changed on disk.
type Memex interface {
	Snapshot() *memory.Snapshot
	Recheck(ctx context.Context) (*memory.Snapshot, error)
	ReloadFiles(ctx context.Context, paths ...string) (*memory.Snapshot, error)
}

// Config is what the actuators are built from.
type Config struct {
	// Roots are the memex roots; the first holds flightplans.org and
	// journal.org.
	Roots []string
	// Home is the user's home folder, for "~/" paths.
	Home string
	// Protected are the folders and files, besides flightplans.org and
	// journal.org in every root, that no file action reads or writes, by
	// any spelling: the data, config and runtime folders and the
	// configuration file (DESIGN §8).
	Protected []string
	// Files reads and writes through the attached editor, if any.
	Files workspace.Files
	// Journal is the agent's own journal, which it appends to while
	// commands run (a read journalled meanwhile): the guard around a
	// command does not take those appends for the command's (nil: every
	// change of journal.org during a command is the command's).
	Journal OwnJournal
	// Own are the server's own changes of files outside actions, which the
	// guard around a command does not take for the command's (nil: none
	// are made).
	Own *OwnWrites
	// Memex is the live memex (nil: memory_edit is unavailable and
	// file_read cannot hide private nodes of Org files, so it refuses them).
	Memex Memex
	// Redact scrubs secrets from every output, after the privacy filter:
	// the agent's one redactor, the vault's secrets and those the gates'
	// rules find (gates.Redactor; nil: none).
	Redact func(string) string
	// Getenv reads the process environment, for the few variables a clean
	// environment keeps (PATH, LANG…).
	Getenv func(string) string
	// Sandbox confines the processes of shell and eval actions (see
	// package sandbox); its Roots, Home, Getenv, Private and Logger are
	// filled in from this Config, and the protected files of the roots are
	// added to its Protected (give it the data, config and runtime
	// folders).
	Sandbox sandbox.Config
	// Shell, Eval and HTTP bound processes and requests.
	Shell Limits
	Eval  EvalConfig
	HTTP  Limits
	// Channels are the configured ways to send a message.
	Channels map[string]Channel
	// HTTPClient is used for http and webhooks (nil: one is made).
	HTTPClient *http.Client
	// Tools are the tools actions may use (nil: gates.BuiltinTools): the
	// gates' registry, which says which of them run only from an approved
	// Flight Plan. Each needs an actuator: a builtin one, or Override's.
	Tools *gates.Tools
	// Override replaces the actuators of some tools (tests, embedders) or
	// adds those of tools beyond the builtin ones. The checks of Run —
	// approval, protected files — still apply.
	Override map[gates.Tool]Actuator
	// Logger receives one line per action run (never an argument's value).
	Logger *slog.Logger
}

// Limits bound one process or request.
type Limits struct {
	// Timeout ends it (default 60s).
	Timeout time.Duration
	// OutputCap bounds what is kept of its output (default 64 KiB).
	OutputCap int
}

func (l Limits) withDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = 60 * time.Second
	}
	if l.OutputCap <= 0 {
		l.OutputCap = 64 << 10
	}
	return l
}

// EvalConfig bounds eval and names its interpreters.
type EvalConfig struct {
	Limits
	// Interpreters maps a language to the command that runs its code: the
	// code goes on standard input, or into a temp file named where an
	// argument is "{file}". It is added to DefaultInterpreters.
	Interpreters map[string][]string `json:"interpreters"`
}

// Channel is a configured way to send: a command (its arguments may hold
// {to}; the text comes on standard input) or a webhook (POSTed JSON
// {"channel","to","text"}).
type Channel struct {
	Command []string `json:"command,omitempty"`
	Webhook string   `json:"webhook,omitempty"`
}

// Actuators holds one actuator per tool and the checks every action passes
// on its way to one.
type Actuators struct {
	cfg     Config
	paths   *paths
	tools   *gates.Tools
	acts    map[gates.Tool]Actuator
	log     *slog.Logger
	sandbox *sandbox.Sandbox
	// private is the privacy filter of the latest memex snapshot.
	private redact.Cache
	// looks are the guard's hashes of the protected files (guard.go).
	looks lookCache
}

// OwnJournal is the journal this process appends to (journal.Journal).
type OwnJournal interface {
	Path() string
	// Written is the file's size just after this process's last append.
	Written() int64
}

// New builds the actuators.
func New(cfg Config) (*Actuators, error) {
	if len(cfg.Roots) == 0 {
		return nil, errors.New("actuate: no memex root")
	}
	cfg.Shell = cfg.Shell.withDefaults()
	cfg.Eval.Limits = cfg.Eval.Limits.withDefaults()
	cfg.HTTP = cfg.HTTP.withDefaults()
	if cfg.Getenv == nil {
		cfg.Getenv = func(string) string { return "" }
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p, err := newPaths(cfg.Roots, cfg.Home, cfg.Protected)
	if err != nil {
		return nil, err
	}
	tools := cfg.Tools
	if tools == nil {
		tools = gates.BuiltinTools()
	}
	if cfg.Own == nil {
		cfg.Own = &OwnWrites{}
	}
	a := &Actuators{cfg: cfg, paths: p, log: log, tools: tools, looks: lookCache{seed: maphash.MakeSeed()}}
	sc := cfg.Sandbox
	sc.Roots, sc.Home, sc.Getenv, sc.Logger = p.roots, cfg.Home, cfg.Getenv, log
	sc.Protected = append(p.protectedPaths(), sc.Protected...)
	sc.Private = a.privateFiles
	if a.sandbox, err = sandbox.New(sc); err != nil {
		return nil, fmt.Errorf("actuate: %w", err)
	}
	a.acts = map[gates.Tool]Actuator{
		gates.ToolMessage:    ActuatorFunc(a.message),
		gates.ToolFileRead:   ActuatorFunc(a.fileRead),
		gates.ToolFileWrite:  ActuatorFunc(a.fileWrite),
		gates.ToolMemoryEdit: ActuatorFunc(a.memoryEdit),
		gates.ToolShell:      ActuatorFunc(a.shell),
		gates.ToolHTTP:       ActuatorFunc(a.http),
		gates.ToolSend:       ActuatorFunc(a.send),
		gates.ToolEval:       ActuatorFunc(a.eval),
	}
	for t, o := range cfg.Override {
		a.acts[t] = o
	}
	for _, s := range tools.Specs() {
		if a.acts[s.Name] == nil {
			return nil, fmt.Errorf("actuate: the tool %s has no actuator", s.Name)
		}
	}
	return a, nil
}

// WritesNothing reports whether the actions of tool change no file and
// start no process: the builtin message and file_read actuators, when no
// Override replaced them. Anything else may.
func (a *Actuators) WritesNothing(tool gates.Tool) bool {
	if _, replaced := a.cfg.Override[tool]; replaced {
		return false
	}
	return tool == gates.ToolMessage || tool == gates.ToolFileRead
}

// ErrNeedsApproval is wrapped by the error for an action that runs only
// from an approved Flight Plan and came without one.
var ErrNeedsApproval = errors.New("runs only from an approved Flight Plan")

// Sandbox is the sandbox shell and eval actions run in.
func (a *Actuators) Sandbox() *sandbox.Sandbox { return a.sandbox }

// Close ends what the actuators keep running between actions (the
// sandbox's helper started ahead).
func (a *Actuators) Close() { a.sandbox.Close() }

// Run carries out req.Action with the actuator of its tool, after the
// checks the package doc lists; a panic inside an actuator is returned as
// an error. Whatever the action returns passes the vault's scrubbing and
// the privacy filter.
func (a *Actuators) Run(ctx context.Context, req Request) (res Result, err error) {
	act, ok := a.acts[req.Action.Tool]
	if _, known := a.tools.Spec(req.Action.Tool); !ok || !known {
		return Result{}, fmt.Errorf("no actuator for the tool %q", req.Action.Tool)
	}
	if req.Approval != nil && req.Approval.ActionHash != req.Action.Hash() {
		return Result{}, fmt.Errorf("%s: the approval of plan %s is for another action (%s, not %s)", req.Action.Tool, req.Approval.PlanID, req.Approval.ActionHash, req.Action.Hash())
	}
	if a.tools.NeedsApproval(req.Action.Tool) && req.Approval == nil {
		return Result{}, fmt.Errorf("%s %w", req.Action.Tool, ErrNeedsApproval)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if req.Snapshot == nil && a.cfg.Memex != nil {
		// No snapshot checked against the disk came with the action: one
		// is made, or nothing runs (its output could not be filtered).
		snap, err := a.cfg.Memex.Recheck(ctx)
		if err != nil {
			return Result{}, fmt.Errorf("%s: the memex could not be checked against the disk: %w", req.Action.Tool, err)
		}
		req.Snapshot = snap
	}
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the %s actuator panicked: %v", req.Action.Tool, r)
		}
		res.Output = a.filter(a.checkedAfter(ctx, req), res.Output)
		a.log.InfoContext(ctx, "actuator ran", "tool", req.Action.Tool, "hash", req.Action.Hash(), "ok", res.OK && err == nil,
			"summary", res.Summary, "elapsed", time.Since(start).Round(time.Millisecond), "approved", req.Approval != nil)
	}()
	switch req.Action.Tool {
	case gates.ToolShell, gates.ToolEval, gates.ToolFileRead:
		return a.guarded(ctx, req, act)
	}
	return act.Run(ctx, req)
}

// checkedAfter is the snapshot an action's output is filtered by: the
// request's, and for an action that reads files (shell, eval, file_read),
// the memex checked against the disk again once it ended
// (Memex.Recheck): a note made private on the disk while it ran — after
// the sandbox's list of private files was made, by another process,
// under an open buffer too — is private to the filter of what it
// returns. When the check fails, the request's snapshot (or a newer
// current one) filters it.
func (a *Actuators) checkedAfter(ctx context.Context, req Request) *memory.Snapshot {
	switch req.Action.Tool {
	case gates.ToolShell, gates.ToolEval, gates.ToolFileRead:
	default:
		return req.Snapshot
	}
	if a.cfg.Memex == nil {
		return req.Snapshot
	}
	snap, err := a.cfg.Memex.Recheck(context.WithoutCancel(ctx))
	if err != nil {
		a.log.WarnContext(ctx, "the memex could not be checked against the disk after a command", "err", err)
		return req.Snapshot
	}
	return snap
}

// filter replaces the text of private notes in s with [private], then
// scrubs the secrets with the configured redactor (the privacy filter
// reads the words as they were written, so a secret inside a private
// quote does not break the quote up for it). snap is the request's
// snapshot, checked against the disk (Request.Snapshot).
func (a *Actuators) filter(snap *memory.Snapshot, s string) string {
	if s == "" {
		return s
	}
	if snap = a.newer(snap); snap != nil {
		s, _ = a.private.For(snap, a.cfg.Home).Redact(s)
	}
	if a.cfg.Redact != nil {
		s = a.cfg.Redact(s)
	}
	return s
}

// newer is the newer of snap (the request's, checked against the disk)
// and the memex's current snapshot, which descends from it: a note made
// private in an editor while the action ran is known to the latter.
func (a *Actuators) newer(snap *memory.Snapshot) *memory.Snapshot {
	if a.cfg.Memex == nil {
		return snap
	}
	if cur := a.cfg.Memex.Snapshot(); snap == nil || (cur != nil && cur.Generation() > snap.Generation()) {
		return cur
	}
	return snap
}

// privateFiles lists the files holding private notes, which a confined
// command may not read. It reads the memex's current snapshot, which is
// a.newer(req.Snapshot) of every run: Run rechecks the memex before a
// confined command starts when no snapshot came with the request, and a
// caller's Recheck publishes what it found, so the current snapshot is
// never older than the request's (the sandbox asks at each run, with no
// request at hand).
func (a *Actuators) privateFiles() []string {
	if a.cfg.Memex == nil {
		return nil
	}
	return a.private.For(a.cfg.Memex.Snapshot(), a.cfg.Home).Files()
}

// reload tells the memex about files written on disk.
func (a *Actuators) reload(ctx context.Context, paths ...string) {
	if a.cfg.Memex == nil || len(paths) == 0 {
		return
	}
	if _, err := a.cfg.Memex.ReloadFiles(ctx, paths...); err != nil {
		a.log.WarnContext(ctx, "the memex could not read a written file again", "err", err)
	}
}

// The live memex is the actuators' memex.
var _ Memex = (*memory.Memex)(nil)
