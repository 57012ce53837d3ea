package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// The flood tests play a local process that opens connections to the
// daemon and never authenticates, against real TCP on loopback.

// idleFlood is a set of connections that never send a byte: each one's
// reader records what the daemon sent before it closed the connection.
type idleFlood struct {
	conns  []net.Conn
	wg     sync.WaitGroup
	closed atomic.Int64

	mu   sync.Mutex
	last []string // the daemon's last bytes on each closed connection
}

// holdIdle opens n idle connections to addr, held until the test ends.
func holdIdle(t testing.TB, addr string, n int) *idleFlood {
	t.Helper()
	f := &idleFlood{}
	for range n {
		nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
		require.NoError(t, err)
		f.conns = append(f.conns, nc)
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			got, _ := io.ReadAll(io.LimitReader(nc, 1<<16)) // until the daemon closes, or cleanup does
			f.closed.Add(1)
			f.mu.Lock()
			f.last = append(f.last, string(got))
			f.mu.Unlock()
		}()
	}
	t.Cleanup(func() {
		for _, nc := range f.conns {
			nc.Close()
		}
		f.wg.Wait()
	})
	return f
}

// closedWith counts the closed connections whose last bytes contain text.
func (f *idleFlood) closedWith(text string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, l := range f.last {
		if bytes.Contains([]byte(l), []byte(text)) {
			n++
		}
	}
	return n
}

// churn keeps n connections trying to wait in the handshake: each one
// that the daemon closes is opened again at once, until the test ends.
// It returns how many connections were opened.
func churn(t testing.TB, addr string, n int) *atomic.Int64 {
	ctx, cancel := context.WithCancel(context.Background())
	var opened atomic.Int64
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for ctx.Err() == nil {
				nc, err := net.DialTimeout("tcp", addr, time.Second)
				if err != nil {
					time.Sleep(time.Millisecond)
					continue
				}
				opened.Add(1)
				stop := context.AfterFunc(ctx, func() { nc.Close() })
				_, _ = io.Copy(io.Discard, nc)
				stop()
				nc.Close()
			}
		})
	}
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	return &opened
}

// TestIdleFloodCannotLockClientsOut: 200 connections that never
// authenticate are held open; a genuine client still connects,
// authenticates and is served at once, and the client that was there
// before is never disturbed. The daemon keeps at most MaxHandshaking of
// the idle ones, each closed with a :LOG saying why.
func TestIdleFloodCannotLockClientsOut(t *testing.T) {
	// A handshake timeout far beyond the test: only eviction can let the
	// genuine client in.
	var logs testenv.SyncBuffer
	d := startDaemon(t, Config{HandshakeTimeout: time.Minute, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	bystander := d.connect(t)

	flood := holdIdle(t, d.addr, 200)
	max := Config{}.withDefaults().MaxHandshaking
	require.Eventually(t, func() bool { return flood.closed.Load() >= int64(200-max) }, 10*time.Second, 10*time.Millisecond,
		"the daemon closes every idle connection beyond its budget")
	assert.Equal(t, Stats{Connections: 1, Handshaking: max}, statsNoTime(d.srv))
	assert.Equal(t, 200-max, flood.closedWith("waiting to authenticate and this one had waited longest"), "each evicted one is told why")

	start := time.Now()
	c := d.connect(t)
	resp := c.call("p", `:ACTION :PING`)
	elapsed := time.Since(start)
	assert.Equal(t, "pong", get(resp, "PAYLOAD", "TEXT"))
	assert.Less(t, elapsed, 5*time.Second, "the genuine client waited")
	t.Logf("a genuine client connected, authenticated and was answered in %s with 200 idle connections held", elapsed)

	st := c.call("s", `:ACTION :STATUS`)
	assert.Equal(t, int64(2), get(st, "PAYLOAD", "CONNECTIONS"))
	assert.Equal(t, int64(max-1), get(st, "PAYLOAD", "HANDSHAKING"), "one more idle connection was evicted for the client")
	assert.Equal(t, "pong", get(bystander.call("b", `:ACTION :PING`), "PAYLOAD", "TEXT"))
	assert.Equal(t, 200-max+1, flood.closedWith("waiting to authenticate"))

	// The log sums the flood up, a line a second, instead of a line per
	// connection.
	evictedRE := regexp.MustCompile(`bridge evicted connections.* evicted=(\d+) within=1s`)
	logged := func() int {
		n := 0
		for _, m := range evictedRE.FindAllStringSubmatch(logs.String(), -1) {
			k, _ := strconv.Atoi(m[1])
			n += k
		}
		return n
	}
	assert.Eventually(t, func() bool { return logged() == 200-max+1 }, 5*time.Second, 10*time.Millisecond)
	assert.Less(t, strings.Count(logs.String(), "\n"), 20, "a few lines for 200 connections")
}

// statsNoTime is the daemon's figures without the uptime.
func statsNoTime(s *Server) Stats {
	st := s.Stats()
	st.Uptime = 0
	return st
}

// TestHandshakeDeadlineClosesIdleConnections: connections that never
// authenticate are closed once the handshake timeout passes, with a :LOG;
// an authenticated client idle for longer is never closed.
func TestHandshakeDeadlineClosesIdleConnections(t *testing.T) {
	d := startDaemon(t, Config{HandshakeTimeout: 300 * time.Millisecond})
	idleClient := d.connect(t)
	start := time.Now()
	flood := holdIdle(t, d.addr, 10)
	require.Eventually(t, func() bool { return flood.closed.Load() == 10 }, 10*time.Second, 10*time.Millisecond)
	assert.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond, "none is closed before its deadline")
	assert.Equal(t, 10, flood.closedWith("no handshake within 300ms"))
	require.Eventually(t, func() bool { return statsNoTime(d.srv) == Stats{Connections: 1} }, 5*time.Second, 10*time.Millisecond)

	// The authenticated client, idle all along, is still served.
	time.Sleep(200 * time.Millisecond)
	assert.Equal(t, "pong", get(idleClient.call("p", `:ACTION :PING`), "PAYLOAD", "TEXT"))
}

// TestChurningFlood: 200 connections that reopen as soon as the daemon
// closes them, so that the handshake budget is always full of fresh ones.
// Here the daemon cannot tell a genuine client from the flood until its
// token arrives, one round trip after it connected, so a genuine client
// may be evicted before that and must connect again: it still gets in,
// within a few tries, and no authenticated connection is ever closed.
func TestChurningFlood(t *testing.T) {
	d := startDaemon(t, Config{HandshakeTimeout: time.Minute})
	bystander := d.connect(t)
	opened := churn(t, d.addr, 200)
	require.Eventually(t, func() bool { return opened.Load() > 1000 }, 20*time.Second, 10*time.Millisecond, "the flood is under way")

	var clients []*wireClient
	for i := range 3 {
		start, before := time.Now(), opened.Load()
		c, tries, err := connectRetrying(d.addr, d.token, 20*time.Second)
		require.NoError(t, err, "client %d after %d tries", i, tries)
		c.t = t
		t.Cleanup(func() { c.nc.Close() })
		clients = append(clients, c)
		t.Logf("client %d in after %s and %d tries, while the flood opened %d connections", i, time.Since(start), tries, opened.Load()-before)
	}
	for i, c := range append(clients, bystander) {
		assert.Equal(t, "pong", get(c.call(fmt.Sprint("p", i), `:ACTION :PING`), "PAYLOAD", "TEXT"))
	}
	assert.Equal(t, 4, d.srv.Stats().Connections)
}

// connectRetrying connects and authenticates, connecting again when the
// daemon evicts the attempt, until timeout; it reports how many tries it took.
func connectRetrying(addr, token string, timeout time.Duration) (*wireClient, int, error) {
	deadline := time.Now().Add(timeout)
	for tries := 1; ; tries++ {
		c, err := tryConnect(addr, token, time.Until(deadline))
		if err == nil || time.Now().After(deadline) {
			return c, tries, err
		}
	}
}

// tryConnect dials and authenticates once, without failing the test: the
// error says where it stopped.
func tryConnect(addr, token string, timeout time.Duration) (*wireClient, error) {
	nc, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	_ = nc.SetDeadline(time.Now().Add(timeout))
	c := &wireClient{nc: nc}
	hello, err := readPayload(nc)
	if err != nil || !bytes.Contains(hello, []byte(":HANDSHAKE")) {
		nc.Close()
		return nil, fmt.Errorf("waiting for the daemon's handshake: %q, %w", hello, err)
	}
	msg := fmt.Sprintf(`(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :TOKEN %q))`, token)
	if _, err := fmt.Fprintf(nc, "%06X%s", len(msg), msg); err != nil {
		nc.Close()
		return nil, err
	}
	ack, err := readPayload(nc)
	if err != nil || !bytes.Contains(ack, []byte(":STATUS :OK")) {
		nc.Close()
		return nil, fmt.Errorf("waiting for the acknowledgement: %q, %w", ack, err)
	}
	_ = nc.SetDeadline(time.Time{})
	return c, nil
}

// readPayload reads one frame's payload.
func readPayload(r io.Reader) ([]byte, error) {
	var h [6]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	var n int
	if _, err := fmt.Sscanf(string(h[:]), "%06X", &n); err != nil {
		return nil, errors.New("bad header " + string(h[:]))
	}
	b := make([]byte, n)
	_, err := io.ReadFull(r, b)
	return b, err
}

// TestAClientRightAfterABurstGetsIn: a burst of idle connections opened
// just before a genuine client, not yet all accepted when it connects,
// never evicts it: it arrived last, so it has waited least (connections
// are ordered by arrival, not by when their goroutine first ran).
func TestAClientRightAfterABurstGetsIn(t *testing.T) {
	for round := range 5 {
		d := startDaemon(t, Config{HandshakeTimeout: time.Minute})
		holdIdle(t, d.addr, 150)
		c := d.connect(t)
		assert.Equal(t, "pong", get(c.call("p", `:ACTION :PING`), "PAYLOAD", "TEXT"), "round %d", round)
	}
}
