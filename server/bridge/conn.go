package bridge

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"pp-lsp/server/frame"
	"pp-lsp/server/plist"
)

// conn is one client connection. Its goroutines: the one running serveConn
// reads frames and dispatches them; a writer drains the outbox; each request
// the backend serves runs in its own goroutine.
type conn struct {
	s       *Server
	nc      net.Conn
	guard   *guardedConn
	rd      *frame.Reader
	out     *outbox
	log     *slog.Logger
	session string
	// seq orders connections by arrival: the oldest handshaking one is
	// evicted first.
	seq uint64
	// authed is set once the client's token is accepted and it is counted
	// among the authenticated connections (Server.promote).
	authed atomic.Bool

	// ctx ends with the connection: every request's context derives from it.
	ctx    context.Context
	cancel context.CancelFunc

	// gentle is set when the daemon closes the connection itself (a protocol
	// error, the shutdown): the last :LOG is flushed and the close lingers.
	gentle     atomic.Bool
	writerDone chan struct{}

	mu    sync.Mutex
	calls map[string]*call // running requests by request key
	wg    sync.WaitGroup   // request goroutines
}

// guardedConn lets the daemon stop a connection's reader for good: once
// aborted, every deadline the frame reader sets is replaced by one in the
// past, so a shutdown cannot be undone by the reader clearing its deadline.
type guardedConn struct {
	net.Conn
	mu      sync.Mutex
	aborted bool
	// heard is set once the client has sent a byte.
	heard atomic.Bool
}

func (g *guardedConn) Read(p []byte) (int, error) {
	n, err := g.Conn.Read(p)
	if n > 0 {
		g.heard.Store(true)
	}
	return n, err
}

// pastDeadline is a deadline that has passed: reads fail at once.
func pastDeadline() time.Time { return time.Unix(1, 0) }

func (g *guardedConn) SetReadDeadline(t time.Time) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.aborted {
		t = pastDeadline()
	}
	return g.Conn.SetReadDeadline(t)
}

func (g *guardedConn) abort() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.aborted = true
	_ = g.Conn.SetReadDeadline(pastDeadline())
}

func (g *guardedConn) isAborted() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.aborted
}

// serveConn runs one connection from accept to close; id is its number
// in the order of arrival.
func (s *Server) serveConn(ctx context.Context, nc net.Conn, id uint64) {
	c := &conn{
		s:          s,
		nc:         nc,
		guard:      &guardedConn{Conn: nc},
		out:        newOutbox(s.cfg.QueueBytes),
		log:        s.log.With("conn", id, "remote", nc.RemoteAddr().String()),
		session:    rand.Text(),
		seq:        id,
		writerDone: make(chan struct{}),
		calls:      make(map[string]*call),
	}
	c.rd = frame.NewReader(c.guard, s.cfg.MaxPayload)
	c.rd.SetStallTimeout(s.cfg.StallTimeout)
	c.ctx, c.cancel = context.WithCancel(ctx)
	defer c.cancel()

	s.admit(c)
	defer s.unregister(c)
	c.log.Debug("bridge connection accepted") // Info once authenticated: a flood must not flood the log

	go c.writeLoop()
	stopShutdown := context.AfterFunc(ctx, c.shutdown)
	defer stopShutdown()

	if c.handshake() {
		c.readLoop()
	}

	// Reading is over: end every request, let the writer finish (it drains
	// a last :LOG when the daemon closes, drops the queue otherwise), close.
	c.cancel()
	if !c.gentle.Load() {
		c.out.drop()
	}
	<-c.writerDone
	if c.gentle.Load() {
		c.lingeringClose()
	} else {
		nc.Close()
	}
	c.waitRequests()
}

// lingeringClose closes the connection without losing what was just sent:
// closing a socket that still has unread input makes the kernel reset the
// connection, which can destroy our last :LOG before the client reads it. So
// the daemon half-closes, reads and discards what the client still sends
// (bounded in time and size), then closes. A connection that never sent a
// byte (an idle one evicted or timed out) has nothing to reset it: it is
// closed at once, so that a flood of them holds nothing after its :LOG.
func (c *conn) lingeringClose() {
	if !c.guard.heard.Load() {
		c.nc.Close()
		return
	}
	if hc, ok := c.nc.(interface{ CloseWrite() error }); ok {
		_ = hc.CloseWrite()
		_ = c.nc.SetReadDeadline(time.Now().Add(c.closeTimeout()))
		_, _ = io.CopyN(io.Discard, c.nc, 1<<20)
	}
	c.nc.Close()
}

// preAuthCloseTimeout bounds the last :LOG and the lingering close of a
// connection that never authenticated: an idle flood must not pile up
// closing connections for long.
const preAuthCloseTimeout = 250 * time.Millisecond

// closeTimeout is how long the daemon spends closing c: CloseTimeout for
// an authenticated client, at most preAuthCloseTimeout for any other.
func (c *conn) closeTimeout() time.Duration {
	if c.authed.Load() {
		return c.s.cfg.CloseTimeout
	}
	return min(c.s.cfg.CloseTimeout, preAuthCloseTimeout)
}

// waitRequests gives the connection's request goroutines CloseTimeout to
// notice their cancelled context; a backend that ignores it is left to
// finish on its own (its answer goes nowhere).
func (c *conn) waitRequests() {
	done := make(chan struct{})
	go func() {
		c.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(c.s.cfg.CloseTimeout):
		c.log.Warn("bridge requests still running after their connection closed; the backend ignores cancellation")
	}
}

// writeLoop sends queued frames, several per system call.
func (c *conn) writeLoop() {
	defer close(c.writerDone)
	for {
		frames, done := c.out.take()
		if done {
			return
		}
		bufs := net.Buffers(frames)
		if _, err := bufs.WriteTo(c.nc); err != nil {
			if !c.gentle.Load() {
				c.log.Info("bridge connection lost while writing", "err", err)
			}
			// The client is gone or stuck past a close deadline: stop.
			c.out.drop()
			c.guard.abort()
			return
		}
	}
}

// closeWith makes the daemon close the connection after a last :LOG frame
// saying why. Only the first call has an effect.
func (c *conn) closeWith(level plist.Keyword, text string) {
	if c.gentle.Swap(true) {
		return
	}
	f, err := encode(logMessage(level, text))
	if err != nil {
		c.log.Error("bridge could not encode a log frame", "err", err)
		c.out.drop()
		return
	}
	_ = c.nc.SetWriteDeadline(time.Now().Add(c.closeTimeout()))
	c.out.pushLast(f)
}

// evict closes a connection that has not authenticated yet to make room
// for a newer one (Server.admit): a :LOG saying why, and its reader stops.
func (c *conn) evict() {
	c.log.Debug("bridge handshake refused", "reason", "evicted: the oldest of too many unauthenticated connections")
	c.closeWith(levelError, fmt.Sprintf("handshake refused: more than %d connections were waiting to authenticate and this one had waited longest; connect again", c.s.cfg.MaxHandshaking))
	c.guard.abort()
}

// shutdown runs when the daemon stops: a last :LOG, and the reader is stopped.
func (c *conn) shutdown() {
	c.closeWith(levelInfo, "the daemon is shutting down")
	c.guard.abort()
}

// send queues a message, waiting while the client's queue is full.
func (c *conn) send(msg plist.Plist) error {
	f, err := encode(msg)
	if err != nil {
		return err
	}
	return c.out.push(c.ctx, f)
}

// sendLog tells the client about a message the daemon ignored.
func (c *conn) sendLog(level plist.Keyword, text string) {
	_ = c.send(logMessage(level, text))
}

// maxHandshakePayload bounds the frames of a client that has not
// authenticated yet: a handshake is a few hundred bytes.
const maxHandshakePayload = 64 << 10

// handshake sends the daemon's handshake and waits for the client's, with
// the token. It reports whether the client is authenticated; if not, the
// connection is closing.
func (c *conn) handshake() bool {
	// The nonce and proof let the client check it reached the daemon
	// before it sends the token (daemonProof).
	nonce := rand.Text()
	hello := message(typeEvent, nil, plist.Plist{}.Add(kAction, actHandshake).Add(kVersion, c.s.cfg.Version).
		Add(kNonce, nonce).Add(kProof, daemonProof(c.s.digest, nonce, c.nc.RemoteAddr(), c.nc.LocalAddr())))
	if err := c.send(hello); err != nil {
		return false
	}
	// Until the token is checked, a frame costs little memory and time.
	c.rd.SetIdleDeadline(time.Now().Add(c.s.cfg.HandshakeTimeout))
	c.rd.SetMaxPayload(min(c.s.cfg.MaxPayload, maxHandshakePayload))
	p, ok := c.readMessage()
	if !ok {
		return false
	}
	refuse := func(why string) bool {
		c.log.Warn("bridge handshake refused", "reason", why)
		c.closeWith(levelError, "handshake refused: "+why)
		return false
	}
	env, err := parseEnvelope(p)
	if err != nil {
		return refuse("the first message must be the handshake; " + err.Error())
	}
	if a, _ := env.payload.Keyword(kAction); env.typ != typeEvent || a != actHandshake {
		return refuse("the first message must be (:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :TOKEN \"…\"))")
	}
	tok, ok := env.payload.String(kToken)
	if !ok {
		return refuse("the handshake carries no :TOKEN string")
	}
	if !tokenMatches(c.s.digest, tok) {
		return refuse("bad token")
	}
	switch err := c.s.promote(c); {
	case errors.Is(err, errEvicted):
		return false // evict has told the client and is closing
	case errors.Is(err, errFull):
		c.log.Warn("bridge connection refused: too many clients", "max", c.s.cfg.MaxConnections)
		c.closeWith(levelError, fmt.Sprintf("the daemon already serves %d clients; try again later", c.s.cfg.MaxConnections))
		return false
	}
	c.rd.SetIdleDeadline(time.Time{})
	c.rd.SetMaxPayload(c.s.cfg.MaxPayload)
	caps, _ := env.payload.Get(kCaps)
	c.log.Info("bridge client authenticated", "capabilities", describeCaps(caps))
	ack := message(typeStatus, plist.Plist{}.Add(kSource, sourceDaemon), plist.Plist{}.
		Add(kAction, actHandshake).Add(kStatus, statusOK).Add(kSessionID, c.session).Add(kVersion, c.s.cfg.Version))
	return c.send(ack) == nil
}

// describeCaps prints a client's capabilities for the log, bounded.
func describeCaps(caps any) string {
	b, err := plist.Marshal(caps)
	if err != nil {
		return "unprintable"
	}
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// readLoop serves an authenticated client until it leaves, breaks the
// protocol, or the daemon stops.
func (c *conn) readLoop() {
	for {
		p, ok := c.readMessage()
		if !ok {
			return
		}
		c.dispatch(p)
	}
}

// readMessage reads one frame and its plist. On failure it has logged why
// and, if the client is at fault and still there, started closing with a
// :LOG saying so.
func (c *conn) readMessage() (plist.Plist, bool) {
	payload, err := c.rd.Next()
	if err != nil {
		c.readFailed(err)
		return nil, false
	}
	v, err := plist.ReadWith(payload, c.s.cfg.Limits)
	if err != nil {
		c.malformed("the payload is not one readable plist: " + err.Error())
		return nil, false
	}
	p, err := plist.AsPlist(v)
	if err != nil || len(p) == 0 {
		why := "the payload is nil"
		if err != nil {
			why = err.Error()
		}
		c.malformed("the payload is not a property list: " + why)
		return nil, false
	}
	return p, true
}

// malformed closes the connection over a frame that breaks the protocol.
func (c *conn) malformed(why string) {
	c.log.Warn("bridge closing a connection: malformed frame", "reason", why)
	c.closeWith(levelError, "malformed frame: "+why+"; closing the connection")
}

// readFailed sorts out why reading a frame failed.
func (c *conn) readFailed(err error) {
	var he *frame.HeaderError
	switch {
	case c.guard.isAborted() || c.ctx.Err() != nil:
		// Shutdown or a dead writer: already handled.
	case errors.Is(err, io.EOF):
		c.log.Info("bridge connection closed by the client")
	case errors.Is(err, io.ErrUnexpectedEOF):
		c.log.Warn("bridge connection closed by the client in the middle of a frame")
	case errors.As(err, &he), errors.Is(err, frame.ErrTooLarge):
		c.malformed(err.Error())
	case errors.Is(err, os.ErrDeadlineExceeded):
		if c.rd.Buffered() > 0 {
			c.malformed(err.Error())
			return
		}
		// Only the handshake has a deadline between frames.
		why := fmt.Sprintf("no handshake within %s", c.s.cfg.HandshakeTimeout)
		c.log.Warn("bridge handshake refused", "reason", why)
		c.closeWith(levelError, "handshake refused: "+why)
	default:
		c.log.Info("bridge connection lost", "err", err)
	}
}
