package lsp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"

	"pp-lsp/memory"
	"pp-lsp/memory/orgfeat"
	"pp-lsp/server/agent"
	"pp-lsp/server/host"
	"pp-lsp/server/lsp/transport"
)

// ErrExitWithoutShutdown is returned by Serve when the client sent exit
// without shutdown first, or went away without either: the process should
// exit with status 1, as the specification asks.
var ErrExitWithoutShutdown = errors.New("the client ended the session without a shutdown request")

// Options configure a Server.
type Options struct {
	// Getenv reads the environment (os.Getenv in the binary, a map in
	// tests). The editor's settings are laid over it (see Settings).
	Getenv func(string) string
	// ConfigFile is the configuration file given on the command line
	// (--config); the setting "configFile" overrides it.
	ConfigFile string
	// Logger receives the server's own log (stderr in the binary; never
	// stdout, which carries the protocol). nil discards it.
	Logger *slog.Logger
	// Version is reported in serverInfo.
	Version string
	// WorkDir is the memex root when neither the settings nor the client
	// name one (default: the process's working directory).
	WorkDir string
	// Host is the process's one memex and agent, which the server brings
	// up from its editor's settings and shares with the process's other
	// front ends (`pp-lsp --stdio --tcp ADDR`: the bridge); run them all
	// with Host.Run(ctx, srv.FrontEnd(rwc), …). nil: a host of its own.
	Host *host.Host
	// ManageMemory lets the server set the process's soft memory limit
	// (budget.go): the binary's choice, not a library's.
	ManageMemory bool
}

// Server is one language server session. It is made by New and runs
// once, by Serve.
type Server struct {
	opts   Options
	log    *slog.Logger
	getenv func(string) string
	host   *host.Host
	conn   jsonrpc2.Conn

	// mu guards the session state below.
	mu       sync.Mutex
	state    lifecycle
	client   clientCaps
	settings Settings
	// projectTags are the privacy tags the project's settings
	// (workspace/configuration, didChangeConfiguration) added: they only
	// ever add to the tags in force (projectSettings).
	projectTags []string
	// settingsNotes are what the project's settings had to say (a key
	// ignored, a value refused) while the memex was being indexed: said
	// after "indexed N files", which would otherwise hide them in an
	// editor with one echo area (eglot); indexed tells they are said at
	// once. warned is the latest such note said, not said again.
	settingsNotes []heldMessage
	indexed       bool
	warned        string
	folders       []string
	shutdown      bool
	watching      bool
	initialized   chan struct{}
	exit          chan struct{}
	exitOnce      sync.Once

	// ready is closed once the memex and the agent are up, or failed to
	// come up (readyErr); mx and agent are set before.
	ready    chan struct{}
	readyErr error
	mx       *memory.Memex
	agent    *agent.Agent
	roots    []string

	// syncMu serialises every change to the documents and the memex made
	// on the client's behalf: the notifications, and the memex coming up
	// (which takes over the buffers opened before it was ready).
	syncMu sync.Mutex
	docs   *docTable
	// pending are the edits folded while more input was queued, by path
	// (pending.go); under syncMu.
	pending map[string]*pendingText
	// stream is the connection's transport (what input is queued).
	stream *transport.Stream
	// disk serialises the reads of changed files; seen is the last
	// snapshot whose changes were handled (see watch).
	disk        sync.Mutex
	diskPending atomic.Int64
	seen        seen

	views     renderers
	calls     map[string]call
	notes     map[string]func(ctx context.Context, params jsonrpc2.RawMessage) error
	commands  []lspCommand
	running   *inflight
	progress  *progressTokens
	diags     *diagnoser
	symbols   *orgfeat.SymbolIndex
	outlines  outlineCache
	noteIndex *orgfeat.NoteIndex
	answer    lastAnswer

	// bg is the server's lifetime: background work stops when it ends.
	bg       context.Context
	bgCancel context.CancelFunc
	wg       sync.WaitGroup
}

// lifecycle is where the session stands (LSP's lifecycle messages).
type lifecycle uint8

const (
	stateNew lifecycle = iota
	stateRunning
	stateShutdown
)

// New makes a server.
func New(opts Options) *Server {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := opts.Host
	if h == nil {
		h = host.New(log)
	}
	s := &Server{
		opts:        opts,
		log:         log,
		getenv:      opts.Getenv,
		host:        h,
		initialized: make(chan struct{}),
		exit:        make(chan struct{}),
		ready:       make(chan struct{}),
		docs:        newDocTable(),
		pending:     map[string]*pendingText{},
		running:     newInflight(),
		progress:    newProgressTokens(),
	}
	s.calls = s.callTable()
	s.notes = s.notificationTable()
	s.commands = s.commandTable()
	s.diags = newDiagnoser(s)
	s.symbols = orgfeat.NewSymbolIndex()
	s.noteIndex = orgfeat.NewNoteIndex()
	return s
}

// Serve speaks the protocol on rwc (LSP's Content-Length framing) until
// the client sends exit, the input ends, or ctx is done: the session as
// the only front end of the server's host (Host.Run). It returns nil after
// shutdown and exit, and ErrExitWithoutShutdown when the session ended any
// other way. It closes rwc, and every goroutine it started has ended when
// it returns.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	return s.host.Run(ctx, s.FrontEnd(rwc))
}

// FrontEnd is the session on rwc as a front end of the server's host: the
// first given to Host.Run, since the editor ends the process.
func (s *Server) FrontEnd(rwc io.ReadWriteCloser) host.FrontEnd { return session{s, rwc} }

type session struct {
	s   *Server
	rwc io.ReadWriteCloser
}

func (f session) Name() string                    { return "the language server" }
func (f session) Serve(ctx context.Context) error { return f.s.serve(ctx, f.rwc) }

// serve is the session: see Serve.
func (s *Server) serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	s.bg, s.bgCancel = context.WithCancel(context.WithoutCancel(ctx))
	defer s.bgCancel()
	// The transport answers malformed messages itself and reads on:
	// jsonrpc2's own stream ends the connection on the first one.
	s.stream = transport.NewStream(rwc, transport.Options{Logger: s.log})
	s.conn = jsonrpc2.NewConn(s.stream, jsonrpc2.WithCodec(codec{}))
	connCtx, connCancel := context.WithCancel(context.WithoutCancel(ctx))
	defer connCancel()
	s.conn.Go(connCtx, s.handle)

	s.spawn(s.diags.run)

	select {
	case <-s.exit:
	case <-s.conn.Done():
		if err := s.conn.Err(); err != nil {
			s.log.Warn("the connection to the client ended", "err", err)
		}
	case <-ctx.Done():
	}
	s.teardown(ctx)
	s.mu.Lock()
	clean := s.shutdown
	s.mu.Unlock()
	select {
	case <-s.exit:
		if clean {
			return nil
		}
	default:
	}
	return ErrExitWithoutShutdown
}

// teardown ends the session: every running request is cancelled and
// waited for, the connection closed, background work stopped and the
// memex saved.
func (s *Server) teardown(ctx context.Context) {
	// No request is admitted any more; those running are cancelled and
	// waited for (what they write is written before the memex is saved).
	s.mu.Lock()
	s.state = stateShutdown
	s.mu.Unlock()
	s.drainRequests("")
	// Close waits for the read goroutine; a reader blocked on a stdin that
	// the client keeps open cannot be interrupted, so it gets a moment
	// and is then left to the process's exit (eglot kills the server
	// right after exit: it must be gone by then).
	closed := make(chan struct{})
	go func() {
		s.conn.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(200 * time.Millisecond):
		s.log.Debug("the client's input stayed open after exit; leaving it to the process's end")
	}
	s.closeMemex(context.WithoutCancel(ctx))
}

// spawn runs f in the background for the server's lifetime, unless the
// server is already ending.
func (s *Server) spawn(f func(ctx context.Context)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bg.Err() != nil {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("a background task of the server panicked; it is stopped, the server goes on", "panic", r, "stack", string(debug.Stack()))
			}
		}()
		f(s.bg)
	}()
}

// closeMemex stops the background work, then the host's other front ends
// and the agent's heartbeat, and closes the agent and saves the memex,
// once.
func (s *Server) closeMemex(ctx context.Context) {
	s.mu.Lock()
	s.bgCancel()
	s.agent, s.mx = nil, nil
	s.mu.Unlock()
	s.wg.Wait()
	if err := s.host.Close(ctx); err != nil {
		s.log.Warn("closing the memex", "err", err)
	}
}
