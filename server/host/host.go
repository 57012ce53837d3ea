// Package host is the one memex and agent a pp-lsp process serves, shared
// by its front ends: the language server, the bridge, MCP. Whoever learns
// where the memex is brings the agent up — the language server from its
// editor's settings, `pp-lsp serve` from --root — and every front end
// serves that same agent; its heartbeat runs once, and the agent and its
// memex are closed once, when the front ends are done with them.
//
// Invariant: an agent published with Up is closed exactly once, after the
// heartbeat and every front end but the one closing it have stopped; no
// front end is handed an agent that is closed or closing.
package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"unicode/utf8"

	"pp-lsp/gates"
	"pp-lsp/server/agent"
)

// FrontEnd serves the agent to the clients of one protocol. It is built
// knowing its host (the language server's Options.Host, the bridge's
// ForHost backend) and asks it for the agent when it needs one.
type FrontEnd interface {
	// Name says what it is and where, for the log ("the bridge on
	// 127.0.0.1:7655").
	Name() string
	// Serve serves until ctx ends (nil) or it cannot go on (why).
	Serve(ctx context.Context) error
}

// ErrClosed is Agent's error once the host is closed.
var ErrClosed = errors.New("the server is shutting down")

// Host holds the process's agent for its front ends.
type Host struct {
	log *slog.Logger

	mu     sync.Mutex
	up     chan struct{} // closed by the first Up
	agent  *agent.Agent
	err    error
	closer func(context.Context) error
	closed bool
	// others stops the front ends Run started after the first, and the
	// heartbeat; running counts them until they have returned.
	others  context.CancelFunc
	running sync.WaitGroup
}

// New makes a host with no agent yet.
func New(log *slog.Logger) *Host {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Host{log: log, up: make(chan struct{}), others: func() {}}
}

// Up publishes the agent the front ends share — nil and err when it could
// not be opened (a front end then says why to its clients) — and close,
// which releases it and its memex once they are done (nil: nothing to
// release). Only the first call counts; a later one, or one after Close,
// releases what it was given at once.
func (h *Host) Up(a *agent.Agent, err error, release func(context.Context) error) {
	h.mu.Lock()
	select {
	case <-h.up:
	default:
		if a == nil {
			err = NotRunning(err)
		}
		h.agent, h.err, h.closer = a, err, release
		close(h.up)
		h.mu.Unlock()
		return
	}
	h.mu.Unlock()
	if release != nil {
		if err := release(context.Background()); err != nil {
			h.log.Warn("closing an agent the server no longer needed", "err", err)
		}
	}
}

// Agent waits until the agent is up and returns it, or why it could not
// come up, or ctx's error, or ErrClosed once the host is closing.
func (h *Host) Agent(ctx context.Context) (*agent.Agent, error) {
	select {
	case <-h.up:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	return h.agent, h.err
}

// ErrNotUp is Ready's error while the agent is still coming up.
var ErrNotUp = errors.New("the agent is still coming up (the memex is being read)")

// Ready is Agent without the wait: ErrNotUp until the agent is up.
func (h *Host) Ready() (*agent.Agent, error) {
	select {
	case <-h.up:
	default:
		return nil, ErrNotUp
	}
	return h.Agent(context.Background())
}

// Run serves fronts until the first of them returns, or ctx ends: the
// first leads (the language server, whose editor ends the process). The
// others, and the agent's heartbeat once it is up, run beside it; one of
// them that stops early is logged and the rest go on. When the first
// returns, the others are stopped and waited for and the agent closed
// (Close). Run returns the first front end's error.
func (h *Host) Run(ctx context.Context, fronts ...FrontEnd) error {
	if len(fronts) == 0 {
		return errors.New("host: no front end to run")
	}
	others, stop := context.WithCancel(context.WithoutCancel(ctx))
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		stop()
		return ErrClosed
	}
	h.others = stop
	h.running.Go(func() {
		defer h.recover("the agent's heartbeat")
		h.heartbeat(others)
	})
	for _, f := range fronts[1:] {
		h.running.Go(func() {
			defer h.recover(f.Name())
			if err := f.Serve(others); err != nil && others.Err() == nil {
				h.log.Error(f.Name()+" stopped; the others go on", "err", err)
			}
		})
	}
	h.mu.Unlock()
	err := fronts[0].Serve(ctx)
	if cerr := h.Close(context.WithoutCancel(ctx)); cerr != nil {
		h.log.Warn("closing the agent", "err", cerr)
	}
	return err
}

// recover stops a panic in what runs beside the first front end: what
// panicked is stopped and logged, and the process goes on.
func (h *Host) recover(what string) {
	if r := recover(); r != nil {
		h.log.Error(what+" panicked; it is stopped, the others go on", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	}
}

// heartbeat runs the agent's heartbeat from the moment it is up until ctx
// ends.
func (h *Host) heartbeat(ctx context.Context) {
	a, err := h.Agent(ctx)
	if err != nil || a == nil {
		return
	}
	if err := a.Heartbeat(ctx); err != nil && ctx.Err() == nil {
		h.log.Warn("the agent's heartbeat stopped", "err", err)
	}
}

// Close stops the front ends Run started after the first and the
// heartbeat, waits for them, and releases the agent and its memex; the
// leading front end calls it when its session ends (the language server
// at shutdown, so that the memex is saved before the editor says exit).
// Later calls do nothing.
func (h *Host) Close(ctx context.Context) error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	select {
	case <-h.up:
	default:
		h.err = ErrClosed
		close(h.up) // nothing comes up any more: wake whoever waits
	}
	stop, closer := h.others, h.closer
	h.closer = nil
	h.mu.Unlock()
	stop()
	h.running.Wait()
	if closer == nil {
		return nil
	}
	return closer(ctx)
}

// NotRunning is the error every client gets while the agent is not
// running because err kept it from opening: one plain sentence that says
// why, the reason scrubbed of every secret the gates' rules find (a
// provider URL's credentials, a key) and kept to one bounded line.
// errors.Is still sees err.
func NotRunning(err error) error {
	if err == nil {
		return errors.New("the agent is not running")
	}
	why := strings.Join(strings.Fields(gates.RedactSecrets(err.Error())), " ")
	if len(why) > maxReason {
		cut := maxReason
		for cut > 0 && !utf8.RuneStart(why[cut]) {
			cut--
		}
		why = why[:cut] + "…"
	}
	return &notRunning{msg: "the agent is not running: " + why, err: err}
}

// maxReason bounds NotRunning's reason, in bytes.
const maxReason = 500

type notRunning struct {
	msg string
	err error
}

func (e *notRunning) Error() string { return e.msg }
func (e *notRunning) Unwrap() error { return e.err }
