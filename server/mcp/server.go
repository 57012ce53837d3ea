package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"pp-lsp/gates"
	"pp-lsp/server/agent"
	"pp-lsp/server/host"
)

// Options are what a Server is built from. Host is required.
type Options struct {
	// Host holds the agent the tools call (waited for while the memex is
	// being read).
	Host *host.Host
	// Version is pp-lsp's, for the initialize answer.
	Version string
	// Logger is where the server logs (nil: nowhere).
	Logger *slog.Logger
	// Progress tells how far the first reading of the memex has got: files
	// done and the total (nil: nothing to tell). A call that waits for the
	// memex and carries a progress token is sent it.
	Progress func() (done, total int)
	// Rescan is how often the roots are read again for files changed by
	// other programs (0: DefaultRescan).
	Rescan time.Duration
	// Tools is the registry propose_action's description lists (nil:
	// gates.BuiltinTools(), what agent.Open gates and runs).
	Tools *gates.Tools
}

// DefaultRescan is how often the roots are read again: another process
// (the editor's pp-lsp, git, a sync client) may change them at any time.
const DefaultRescan = 5 * time.Second

// Server is pp-lsp as an MCP server: the tools of DESIGN §16 over a host's
// agent.
type Server struct {
	opts Options
	log  *slog.Logger
	srv  *sdk.Server
	// session names this server's clients in the journal.
	session string
	// inFlight counts the tool calls running or waiting for a turn, and
	// running holds a token for each one running (see guard).
	inFlight atomic.Int32
	running  chan struct{}
}

// The bounds on a client's calls: the SDK reads every message as it comes
// and runs each call in a goroutine of its own, so that without them a
// client sending calls faster than they end (memex_context's views run to
// megabytes) grows the process without limit.
const (
	// MaxRunning is how many tool calls run at once; the others wait for
	// a turn.
	MaxRunning = 4
	// MaxInFlight is how many tool calls may be running or waiting at
	// once; a call beyond them is answered at once with a tool error.
	MaxInFlight = 64
)

// New builds the server and its tools.
func New(opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Rescan <= 0 {
		opts.Rescan = DefaultRescan
	}
	if opts.Tools == nil {
		opts.Tools = gates.BuiltinTools()
	}
	s := &Server{opts: opts, log: log, session: "mcp-" + uuid.NewString()[:8], running: make(chan struct{}, MaxRunning)}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "pp-lsp", Title: "Passepartout (pp-lsp)", Version: opts.Version},
		&sdk.ServerOptions{Instructions: instructions, Logger: log, HasTools: true})
	s.srv.AddReceivingMiddleware(s.guard)
	s.addTools()
	return s
}

// instructions is what the initialize answer tells the client's model.
const instructions = `pp-lsp serves the user's Org-mode memex (their notes) and runs actions under deterministic gates (no model decides).
Read with memex_search, memex_context, node_read and backlinks. Private notes are never shown: a private node is reported as not found.
Act only through propose_action. Every action is gated: "allow" runs it now (shell commands sandboxed, output privacy-filtered); "ask" files a Flight Plan that the human approves in their editor (nothing runs until they do, and you cannot approve it); "deny" runs nothing and says why.
Every call is written to the user's audit journal.`

// Stdio is the MCP stdio transport over r and w (the process's stdin and
// stdout): one JSON-RPC message a line.
func Stdio(r io.Reader, w io.Writer) sdk.Transport {
	return &sdk.IOTransport{Reader: io.NopCloser(r), Writer: nopWriteCloser{w}}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// FrontEnd is the server on one transport as one of a host's front ends:
// it serves until the client goes away or ctx ends, and meanwhile reads
// the roots again every Rescan.
func (s *Server) FrontEnd(t sdk.Transport) host.FrontEnd { return frontEnd{s, t} }

type frontEnd struct {
	s *Server
	t sdk.Transport
}

func (f frontEnd) Name() string { return "the MCP server" }

func (f frontEnd) Serve(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go f.s.watch(ctx)
	err := f.s.srv.Run(ctx, f.t)
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// Connect serves one client on t until it goes away (tests and
// benchmarks connect in-memory transports).
func (s *Server) Connect(ctx context.Context, t sdk.Transport) (*sdk.ServerSession, error) {
	return s.srv.Connect(ctx, t, nil)
}

// watch reads the roots again every Rescan once the agent is up, so that
// the memex follows what other processes change (and a Flight Plan a
// human approved in another editor is picked up), until ctx ends.
func (s *Server) watch(ctx context.Context) {
	a, err := s.opts.Host.Agent(ctx)
	if err != nil {
		return
	}
	t := time.NewTicker(s.opts.Rescan)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := a.Refresh(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("rescanning the memex", "err", err)
		}
	}
}

// agentFor waits for the host's agent. While it waits, a call that
// carries a progress token is told how far the reading of the memex has
// got, at most five times a second.
func (s *Server) agentFor(ctx context.Context, req *sdk.CallToolRequest) (*agent.Agent, error) {
	if a, err := s.opts.Host.Ready(); a != nil || (err != nil && !errors.Is(err, host.ErrNotUp)) {
		return a, err
	}
	token := req.Params.GetProgressToken()
	if token == nil || s.opts.Progress == nil || req.Session == nil {
		return s.opts.Host.Agent(ctx)
	}
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		last := -1
		for {
			done, total := s.opts.Progress()
			if done != last {
				last = done
				msg := "reading the memex"
				if total > 0 {
					msg = fmt.Sprintf("reading the memex: %d of %d files", done, total)
				}
				req.Session.NotifyProgress(pctx, &sdk.ProgressNotificationParams{ProgressToken: token,
					Progress: float64(done), Total: float64(total), Message: msg})
			}
			select {
			case <-pctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return s.opts.Host.Agent(ctx)
}

// guard is the middleware every request passes: a tool call beyond
// MaxInFlight is refused (a tool error, journalled), the others run
// MaxRunning at a time, in their turn; a tool call's arguments are read
// by the tool's own decoder first (a mistake is answered as a tool error
// in one sentence, and journalled); and no panic leaves a handler.
func (s *Server) guard(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (res sdk.Result, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("an MCP request panicked", "method", method, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				res, err = nil, fmt.Errorf("pp-lsp failed to answer %s: an internal error, logged", method)
			}
		}()
		call, ok := req.(*sdk.CallToolRequest)
		if !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		t, known := s.toolNamed(call.Params.Name)
		defer s.inFlight.Add(-1)
		if s.inFlight.Add(1) > MaxInFlight {
			err := fmt.Errorf("%d calls are already running or waiting; wait for one to finish", MaxInFlight)
			name := t.name
			if !known {
				name = "(an unknown tool)"
			}
			s.record(ctx, name, "(not run)", err)
			return toolError(err), nil
		}
		if !known {
			return next(ctx, method, req) // the SDK answers an unknown tool
		}
		if err := t.check(call.Params.Arguments); err != nil {
			s.record(ctx, t.name, "(arguments refused)", err)
			return s.redacted(toolError(err)), nil
		}
		select {
		case s.running <- struct{}{}:
			defer func() { <-s.running }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		res, err = next(ctx, method, req)
		if r, ok := res.(*sdk.CallToolResult); ok && err == nil {
			res = s.redacted(r)
		}
		return res, err
	}
}

// redacted is a tool's result as another agent may be shown it: its
// text and structured content through the agent's one redactor (the
// vault's secrets, then every secret the gates' rules find), whatever
// put them there — a note, an action's output or summary, a gate's
// reason, a Flight Plan's title, an error quoting a file. Before the
// agent is up there is no vault yet, and the rules alone redact.
func (s *Server) redacted(r *sdk.CallToolResult) *sdk.CallToolResult {
	redact := gates.RedactSecrets
	if a, _ := s.opts.Host.Ready(); a != nil {
		redact = a.Redact
	}
	// JSON's strings are read alone, and a text that is not JSON as text.
	js := func(b []byte) []byte { return agent.RedactJSONWith(b, redact) }
	var was, now string
	if r.StructuredContent != nil {
		b, ok := r.StructuredContent.(json.RawMessage)
		if !ok {
			var err error
			if b, err = json.Marshal(r.StructuredContent); err != nil {
				// Not to be shown as it is: nothing of it is.
				return toolError(fmt.Errorf("the result could not be encoded: %w", err))
			}
		}
		if red := js(b); !bytes.Equal(red, b) {
			r.StructuredContent = json.RawMessage(red)
			was, now = string(b), string(red)
		}
	}
	for i, c := range r.Content {
		tc, ok := c.(*sdk.TextContent)
		if !ok {
			continue
		}
		red := tc.Text
		if was != "" && red == was {
			red = now // the structured content's text, redacted once
		} else {
			red = string(js([]byte(red)))
		}
		if red != tc.Text {
			cp := *tc
			cp.Text = red
			r.Content[i] = &cp
		}
	}
	return r
}

// toolError is a tool error result saying err in one sentence.
func toolError(err error) *sdk.CallToolResult {
	var r sdk.CallToolResult
	r.SetError(errors.New(sentence(err.Error())))
	r.Content = []sdk.Content{&sdk.TextContent{Text: sentence(err.Error())}}
	return &r
}

// sentence is s on one line, ending with a full stop.
func sentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "The call failed."
	}
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "!") {
		s += "."
	}
	if first, _, _ := strings.Cut(s, " "); strings.Contains(first, "_") {
		return s // a tool's name keeps its spelling
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// record journals one call (when the agent is up: before, there is no
// journal to write).
func (s *Server) record(ctx context.Context, name, args string, outcome error) error {
	a, _ := s.opts.Host.Ready()
	if a == nil {
		return nil
	}
	c := agent.Call{Source: agent.SourceMCP, Session: s.session, Name: name, Args: args}
	if outcome != nil {
		c.Failed, c.Outcome = true, sentence(outcome.Error())
	}
	return a.Record(ctx, c)
}

// jsonOneLine is v as compact JSON, bounded, for a journal line.
func jsonOneLine(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return clip(string(b), 300)
}
