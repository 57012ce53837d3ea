package bridge

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"pp-lsp/server/frame"
	"pp-lsp/server/plist"
)

// Config is what a Server needs. Backend and Token are required; every zero
// duration or size takes the default named beside it.
type Config struct {
	// Backend serves :ASK, :CONTEXT, :PLANS, :APPROVE and :REJECT.
	Backend Backend
	// Token is the shared secret a client must present (see LoadOrCreateToken).
	Token string
	// Version is the daemon's version, sent in the handshake.
	Version string
	// Logger receives connection events (never a token or a payload);
	// nil discards them.
	Logger *slog.Logger

	// HandshakeTimeout is how long a new connection has to authenticate (10s).
	HandshakeTimeout time.Duration
	// StallTimeout is how long a frame that has begun may go without a byte (30s).
	StallTimeout time.Duration
	// CloseTimeout bounds the flushing of a last :LOG before the daemon closes
	// a connection, and of everything queued at shutdown (2s).
	CloseTimeout time.Duration
	// MaxPayload is the largest frame payload accepted from a client (4 MiB,
	// at most frame.MaxPayload).
	MaxPayload int
	// Limits bound the plist in a payload (plist.DefaultLimits, with
	// MaxBytes set to MaxPayload).
	Limits plist.Limits
	// MaxConnections is how many clients may be connected at once (64).
	MaxConnections int
	// MaxInFlight is how many requests one connection may have running at
	// once (32); beyond it a request is answered with an error.
	MaxInFlight int
	// QueueBytes bounds each connection's queue of outgoing frames (4 MiB).
	QueueBytes int
}

func (c Config) withDefaults() Config {
	if c.HandshakeTimeout <= 0 {
		c.HandshakeTimeout = 10 * time.Second
	}
	if c.StallTimeout <= 0 {
		c.StallTimeout = 30 * time.Second
	}
	if c.CloseTimeout <= 0 {
		c.CloseTimeout = 2 * time.Second
	}
	if c.MaxPayload <= 0 || c.MaxPayload > frame.MaxPayload {
		c.MaxPayload = 4 << 20
	}
	if c.Limits.MaxBytes <= 0 || c.Limits.MaxBytes > c.MaxPayload {
		c.Limits.MaxBytes = c.MaxPayload
	}
	if c.MaxConnections <= 0 {
		c.MaxConnections = 64
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = 32
	}
	if c.QueueBytes <= 0 {
		c.QueueBytes = 4 << 20
	}
	if c.Version == "" {
		c.Version = "0.0.0"
	}
	return c
}

// Server is the framed-TCP daemon. One Server may serve several listeners.
type Server struct {
	cfg     Config
	log     *slog.Logger
	digest  [sha256.Size]byte
	started time.Time

	mu    sync.Mutex
	conns map[*conn]struct{}

	nextConn atomic.Uint64
	inFlight atomic.Int64
	served   atomic.Int64
}

// New checks cfg and makes a Server.
func New(cfg Config) (*Server, error) {
	if cfg.Backend == nil {
		return nil, errors.New("the bridge needs a backend")
	}
	if cfg.Token == "" {
		return nil, errors.New("the bridge needs a token")
	}
	cfg = cfg.withDefaults()
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{
		cfg:     cfg,
		log:     log,
		digest:  tokenDigest(cfg.Token),
		started: time.Now(),
		conns:   make(map[*conn]struct{}),
	}, nil
}

// Stats are the daemon's own figures, as :STATUS reports them.
type Stats struct {
	// Connections counts the clients connected now, authenticated or not.
	Connections int
	// InFlight counts the requests running now, over all connections.
	InFlight int64
	// Served counts the requests answered since the start.
	Served int64
	// Uptime is the time since New.
	Uptime time.Duration
}

// Stats returns the daemon's current figures.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	n := len(s.conns)
	s.mu.Unlock()
	return Stats{Connections: n, InFlight: s.inFlight.Load(), Served: s.served.Load(), Uptime: time.Since(s.started)}
}

// Serve accepts connections on ln until ctx ends, then shuts down
// gracefully: it stops accepting, cancels every request, tells each client
// with a :LOG, flushes what is queued (bounded by CloseTimeout), closes every
// connection and returns nil. It closes ln. An error is returned only if
// accepting fails for another reason.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.log.Info("bridge listening", "addr", ln.Addr().String(), "version", s.cfg.Version)
	var wg sync.WaitGroup
	defer wg.Wait() // runs last: every connection has wound down
	// Connections live on the parent's context, so that a failing listener
	// (below) also ends them instead of leaving Serve waiting for them.
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	backoff := 5 * time.Millisecond
	for {
		nc, err := ln.Accept()
		if err != nil {
			if parent.Err() != nil {
				s.log.Info("bridge shutting down", "addr", ln.Addr().String())
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				// Out of file descriptors and the like: wait, do not spin.
				time.Sleep(backoff)
				backoff = min(2*backoff, time.Second)
				continue
			}
			return fmt.Errorf("accepting bridge connections on %s: %w", ln.Addr(), err)
		}
		backoff = 5 * time.Millisecond
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.serveConn(ctx, nc)
		}()
	}
}

// register adds c unless the daemon is full.
func (s *Server) register(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.conns) >= s.cfg.MaxConnections {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) unregister(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}
