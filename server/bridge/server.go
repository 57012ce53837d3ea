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

	// HandshakeTimeout is how long a new connection has to authenticate (2s):
	// a genuine client needs one round trip on this machine.
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
	// MaxConnections is how many authenticated clients may be connected at
	// once (64); a client that authenticates beyond it is refused.
	MaxConnections int
	// MaxHandshaking is how many connections may wait to authenticate at
	// once (64). A connection that arrives beyond it evicts the one that
	// has waited longest, so that idle connections can never lock a
	// genuine client out.
	MaxHandshaking int
	// MaxInFlight is how many requests one connection may have running at
	// once (32); beyond it a request is answered with an error.
	MaxInFlight int
	// QueueBytes bounds each connection's queue of outgoing frames (4 MiB).
	QueueBytes int
}

func (c Config) withDefaults() Config {
	if c.HandshakeTimeout <= 0 {
		c.HandshakeTimeout = 2 * time.Second
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
	if c.MaxHandshaking <= 0 {
		c.MaxHandshaking = 64
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

	// mu guards the connections still waiting to authenticate (evicted
	// oldest first) and the count of authenticated ones.
	mu          sync.Mutex
	handshaking map[*conn]struct{}
	authed      int
	// evicted counts the evictions not logged yet: a flood is logged once
	// a second, not once a connection.
	evicted int

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
		cfg:         cfg,
		log:         log,
		digest:      tokenDigest(cfg.Token),
		started:     time.Now(),
		handshaking: make(map[*conn]struct{}),
	}, nil
}

// Stats are the daemon's own figures, as :STATUS reports them.
type Stats struct {
	// Connections counts the authenticated clients connected now.
	Connections int
	// Handshaking counts the connections waiting to authenticate.
	Handshaking int
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
	authed, handshaking := s.authed, len(s.handshaking)
	s.mu.Unlock()
	return Stats{Connections: authed, Handshaking: handshaking, InFlight: s.inFlight.Load(), Served: s.served.Load(), Uptime: time.Since(s.started)}
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
		// Numbered here, in the order of arrival: the goroutines start in
		// any order, and eviction must take the connection that has
		// waited longest, never a client that came after a burst.
		id := s.nextConn.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.serveConn(ctx, nc, id)
		}()
	}
}

// admit adds a new connection to the handshaking ones. When they are
// already MaxHandshaking, the one that has waited longest is evicted (it is
// told so and closed): a genuine client, which authenticates within a round
// trip, always gets in, however many idle connections are opened.
func (s *Server) admit(c *conn) {
	s.mu.Lock()
	var oldest *conn
	if len(s.handshaking) >= s.cfg.MaxHandshaking {
		for h := range s.handshaking {
			if oldest == nil || h.seq < oldest.seq {
				oldest = h
			}
		}
		delete(s.handshaking, oldest)
		s.evicted++
		if s.evicted == 1 {
			time.AfterFunc(time.Second, s.logEvictions)
		}
	}
	s.handshaking[c] = struct{}{}
	s.mu.Unlock()
	if oldest != nil {
		oldest.evict()
	}
}

// logEvictions logs how many connections were evicted in the second
// since the first of them.
func (s *Server) logEvictions() {
	s.mu.Lock()
	n := s.evicted
	s.evicted = 0
	s.mu.Unlock()
	s.log.Warn("bridge evicted connections that did not authenticate: more were waiting than the budget allows", "evicted", n, "within", time.Second, "max", s.cfg.MaxHandshaking)
}

// errEvicted and errFull are why an authenticated client is not served.
var (
	errEvicted = errors.New("evicted while authenticating")
	errFull    = errors.New("too many authenticated clients")
)

// promote counts c, which has just presented a good token, among the
// authenticated connections, unless it was evicted meanwhile (it is
// closing) or MaxConnections clients are already authenticated.
func (s *Server) promote(c *conn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.handshaking[c]; !ok {
		return errEvicted
	}
	delete(s.handshaking, c)
	if s.authed >= s.cfg.MaxConnections {
		return errFull
	}
	s.authed++
	c.authed.Store(true)
	return nil
}

func (s *Server) unregister(c *conn) {
	s.mu.Lock()
	delete(s.handshaking, c)
	if c.authed.Load() {
		s.authed--
	}
	s.mu.Unlock()
}
