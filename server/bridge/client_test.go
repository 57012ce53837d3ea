package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/server/plist"
)

// This file holds a client written from DESIGN §9 alone: it frames by hand
// (fmt's %06X, strconv for the header) and writes its payloads as literal
// text, without the daemon's frame package or its printer. It reads the
// daemon's payloads with plist.Read, whose agreement with the real Emacs
// reader is tested on its own (plist/emacs_test.go).

// wireClient is one connection to the daemon under test.
type wireClient struct {
	t  *testing.T
	nc net.Conn
	// pending holds messages about other requests that exchange read past.
	pending []plist.Plist
}

// dial connects to addr.
func dial(t *testing.T, addr string) *wireClient {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	return &wireClient{t: t, nc: nc}
}

// raw writes bytes as they are.
func (c *wireClient) raw(b string) {
	c.t.Helper()
	_, err := c.nc.Write([]byte(b))
	require.NoError(c.t, err)
}

// send writes one frame carrying payload.
func (c *wireClient) send(payload string) {
	c.t.Helper()
	c.raw(fmt.Sprintf("%06X%s", len(payload), payload))
}

// request sends a :REQUEST with a string id and the given payload keys.
func (c *wireClient) request(id, payload string) {
	c.t.Helper()
	c.send(fmt.Sprintf(`(:TYPE :REQUEST :META (:SOURCE :TEST :REQUEST-ID %q) :PAYLOAD (%s))`, id, payload))
}

// readFrame reads one frame's payload text, failing after five seconds.
func (c *wireClient) readFrame() (string, error) {
	_ = c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	var h [6]byte
	if _, err := io.ReadFull(c.nc, h[:]); err != nil {
		return "", err
	}
	n, err := strconv.ParseUint(string(h[:]), 16, 32)
	if err != nil {
		return "", fmt.Errorf("the daemon sent the header %q: %w", h, err)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(c.nc, buf); err != nil {
		return "", err
	}
	return string(buf), nil
}

// next reads one message.
func (c *wireClient) next() plist.Plist {
	c.t.Helper()
	text, err := c.readFrame()
	require.NoError(c.t, err)
	v, err := plist.Read([]byte(text))
	require.NoError(c.t, err, "the daemon sent %q", text)
	p, err := plist.AsPlist(v)
	require.NoError(c.t, err, "the daemon sent %q", text)
	return p
}

// handshake reads the daemon's handshake, answers it with token and returns
// the daemon's acknowledgement.
func (c *wireClient) handshake(token string) plist.Plist {
	c.t.Helper()
	hello := c.next()
	require.Equal(c.t, kw("EVENT"), get(hello, "TYPE"))
	require.Equal(c.t, kw("HANDSHAKE"), get(hello, "PAYLOAD", "ACTION"))
	c.send(fmt.Sprintf(`(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :TOKEN %q :CAPABILITIES (:STREAM :CANCEL)))`, token))
	ack := c.next()
	require.Equal(c.t, kw("STATUS"), get(ack, "TYPE"), "acknowledgement: %v", ack)
	require.Equal(c.t, kw("OK"), get(ack, "PAYLOAD", "STATUS"))
	return ack
}

// exchange collects the messages about request id up to and including its
// :RESPONSE: the chunks' texts and the response.
func (c *wireClient) exchange(id string) (chunks []string, resp plist.Plist) {
	c.t.Helper()
	for {
		var m plist.Plist
		if i := c.pendingIndex(id); i >= 0 {
			m = c.pending[i]
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
		} else {
			m = c.next()
		}
		if get(m, "META", "REQUEST-ID") != id {
			c.pending = append(c.pending, m)
			continue
		}
		switch get(m, "TYPE") {
		case kw("STREAM-CHUNK"):
			chunks = append(chunks, get(m, "PAYLOAD", "TEXT").(string))
		case kw("RESPONSE"):
			return chunks, m
		default:
			c.t.Fatalf("unexpected message about %s: %v", id, m)
		}
	}
}

// pendingIndex finds the first set-aside message about id.
func (c *wireClient) pendingIndex(id string) int {
	for i, m := range c.pending {
		if get(m, "META", "REQUEST-ID") == id {
			return i
		}
	}
	return -1
}

// call sends a request and waits for its response.
func (c *wireClient) call(id, payload string) plist.Plist {
	c.t.Helper()
	c.request(id, payload)
	_, resp := c.exchange(id)
	return resp
}

// expectLogThenClose reads the daemon's last words: a :LOG whose text
// contains want, then the end of the stream.
func (c *wireClient) expectLogThenClose(want string) {
	c.t.Helper()
	m := c.next()
	assert.Equal(c.t, kw("LOG"), get(m, "TYPE"), "%v", m)
	text, _ := get(m, "PAYLOAD", "TEXT").(string)
	assert.Contains(c.t, text, want)
	c.expectClosed()
}

// expectClosed reads until the daemon closes the connection.
func (c *wireClient) expectClosed() {
	c.t.Helper()
	for {
		text, err := c.readFrame()
		if err != nil {
			var ne net.Error
			require.False(c.t, errors.As(err, &ne) && ne.Timeout(), "the daemon did not close the connection")
			return
		}
		c.t.Logf("before closing, the daemon sent %q", text)
	}
}

// kw is a keyword value.
func kw(name string) plist.Keyword { return plist.Keyword(name) }

// get follows keys through nested plists; a missing key gives nil.
func get(p plist.Plist, keys ...string) any {
	var v any = p
	for _, k := range keys {
		q, err := plist.AsPlist(v)
		if err != nil {
			return nil
		}
		v, _ = q.Get(plist.Keyword(k))
	}
	return v
}

// testBackend is a Backend for the tests: :ASK streams the words of the
// question back, one per chunk, pausing between them (300ms when the
// question starts with "slow"); "fail", "panic", "flood N" and "big N" ask
// for the failure, the panic, N chunks of 32 KiB, and one answer of N bytes.
type testBackend struct {
	pause time.Duration

	mu        sync.Mutex
	asks      []AskRequest
	contexts  []ContextRequest
	approved  []string
	always    []string
	undone    []string
	rejected  []string
	cancelled chan error // the ctx error an ask saw when it stopped early
	started   chan string
}

func newTestBackend(pause time.Duration) *testBackend {
	return &testBackend{pause: pause, cancelled: make(chan error, 100), started: make(chan string, 100)}
}

func (b *testBackend) Ask(ctx context.Context, req AskRequest, emit func(string) error) (plist.Plist, error) {
	b.mu.Lock()
	b.asks = append(b.asks, req)
	b.mu.Unlock()
	b.started <- req.Text
	switch {
	case req.Text == "panic":
		panic("the test backend panics on request")
	case req.Text == "fail":
		return nil, errors.New("the test backend refuses this question")
	case strings.HasPrefix(req.Text, "flood "):
		// flood N: N chunks of 32 KiB, as fast as the client takes them.
		n, _ := strconv.Atoi(strings.TrimPrefix(req.Text, "flood "))
		chunk := strings.Repeat("x", 32<<10)
		for i := 0; i < n; i++ {
			if err := emit(chunk); err != nil {
				b.cancelled <- err
				return nil, err
			}
		}
		return plist.Plist{}.Add("CHUNKS", n), nil
	case req.Text == "in a chat":
		// An agent's answer in a conversation: the model, its tokens, the file.
		return plist.Plist{}.Add("OUTCOME", plist.Keyword("ANSWERED")).Add("CHAT", "/memex/chats/c.org").
			Add("MODEL", "ollama:qwen3").Add("USAGE", plist.Plist{}.Add("PROMPT", 12).Add("COMPLETION", 3).Add("ESTIMATED", true)), emit("answered")
	case strings.HasPrefix(req.Text, "big "):
		n, _ := strconv.Atoi(strings.TrimPrefix(req.Text, "big "))
		s := strings.Repeat("é", n/2)
		return plist.Plist{}.Add("TEXT", s), emit(s)
	}
	pause := b.pause
	if strings.HasPrefix(req.Text, "slow ") {
		pause = 300 * time.Millisecond
	}
	var all []string
	for i, w := range strings.Fields(req.Text) {
		if i > 0 {
			select {
			case <-ctx.Done():
				b.cancelled <- ctx.Err()
				return nil, ctx.Err()
			case <-time.After(pause):
			}
		}
		if err := emit(w + " "); err != nil {
			b.cancelled <- err
			return nil, err
		}
		all = append(all, w)
	}
	return plist.Plist{}.Add("TEXT", strings.Join(all, " ")).Add("WORDS", len(all)), nil
}

func (b *testBackend) Context(_ context.Context, req ContextRequest) (plist.Plist, error) {
	b.mu.Lock()
	b.contexts = append(b.contexts, req)
	b.mu.Unlock()
	return plist.Plist{}.Add("TEXT", fmt.Sprintf("* %s\n** line %d\n", req.File, req.Line)).Add("TOKENS", 7), nil
}

func (b *testBackend) Plans(context.Context) (plist.Plist, error) {
	plan := plist.Plist{}.Add("ID", "p-1").Add("STATE", "PLAN").Add("TITLE", "Run `make test` in project/").Add("TOOL", "shell")
	return plist.Plist{}.Add("PLANS", plist.List{plan.List()}), nil
}

func (b *testBackend) Approve(_ context.Context, id string) (plist.Plist, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if id == "missing" {
		return nil, errors.New("no Flight Plan has the id missing")
	}
	b.approved = append(b.approved, id)
	return plist.Plist{}.Add("ID", id).Add("STATE", "APPROVED"), nil
}

func (b *testBackend) ApproveAlways(_ context.Context, id string) (plist.Plist, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.always = append(b.always, id)
	return plist.Plist{}.Add("ID", id).Add("STATE", "DONE").Add("RULE", "shell(make test)"), nil
}

func (b *testBackend) Undo(_ context.Context, id string) (plist.Plist, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.undone = append(b.undone, id)
	return plist.Plist{}.Add("SUMMARY", "undo of Write `a.org`: restored a.org"), nil
}

func (b *testBackend) Changes(context.Context) (plist.Plist, error) {
	return plist.Plist{}.Add("CHANGES", plist.List{}), nil
}

func (b *testBackend) Reject(_ context.Context, id string) (plist.Plist, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.rejected = append(b.rejected, id)
	return plist.Plist{}.Add("ID", id).Add("STATE", "REJECTED"), nil
}

func (b *testBackend) Status(context.Context) (plist.Plist, error) {
	return plist.Plist{}.Add("FILES", 3).Add("HEADLINES", 42).Add("ROOT-HASH", "sha256:abc"), nil
}

// daemon is a Server under test, listening on a loopback port.
type daemon struct {
	srv   *Server
	addr  string
	token string
	stop  context.CancelFunc
	done  chan error
}

const testToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// startDaemon serves cfg (Backend and Token defaulted) until the test ends.
func startDaemon(t *testing.T, cfg Config) *daemon {
	t.Helper()
	if cfg.Backend == nil {
		cfg.Backend = newTestBackend(10 * time.Millisecond)
	}
	if cfg.Token == "" {
		cfg.Token = testToken
	}
	if cfg.Version == "" {
		cfg.Version = "1.2.3"
	}
	srv, err := New(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	ln, err := Listen(ctx, "127.0.0.1:0", false)
	require.NoError(t, err)
	d := &daemon{srv: srv, addr: ln.Addr().String(), token: cfg.Token, stop: cancel, done: make(chan error, 1)}
	go func() { d.done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-d.done:
			assert.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Error("the daemon did not shut down")
		}
	})
	return d
}

// connect dials the daemon and authenticates.
func (d *daemon) connect(t *testing.T) *wireClient {
	t.Helper()
	c := dial(t, d.addr)
	c.handshake(d.token)
	return c
}

// dialErr tries to connect once.
func dialErr(addr string) (net.Conn, error) { return net.DialTimeout("tcp", addr, time.Second) }
