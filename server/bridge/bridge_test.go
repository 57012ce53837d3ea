package bridge

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/server/plist"
)

func TestHandshakeAndPing(t *testing.T) {
	d := startDaemon(t, Config{})
	c := dial(t, d.addr)

	// The first frame, byte for byte but for its nonce and proof; the
	// proof is the one this connection's ends make (daemonProof).
	first, err := c.readFrame()
	require.NoError(t, err)
	hello := regexp.MustCompile(`^\(:TYPE :EVENT :PAYLOAD \(:ACTION :HANDSHAKE :VERSION "1\.2\.3" :NONCE "([A-Z0-9]{26})" :PROOF "([0-9a-f]{64})"\)\)$`).FindStringSubmatch(first)
	require.NotNil(t, hello, "the first frame: %s", first)
	assert.Equal(t, daemonProof(tokenDigest(d.token), hello[1], c.nc.LocalAddr(), c.nc.RemoteAddr()), hello[2])
	assert.NotEqual(t, daemonProof(tokenDigest(d.token), hello[1], c.nc.RemoteAddr(), c.nc.LocalAddr()), hello[2], "the proof tells the client's end from the daemon's")
	assert.NotEqual(t, daemonProof(tokenDigest("another token"), hello[1], c.nc.LocalAddr(), c.nc.RemoteAddr()), hello[2])

	c.send(fmt.Sprintf(`(:type :event :payload (:action :handshake :token %q :capabilities (:stream)))`, d.token))
	ack := c.next()
	assert.Equal(t, kw("STATUS"), get(ack, "TYPE"))
	assert.Equal(t, kw("HANDSHAKE"), get(ack, "PAYLOAD", "ACTION"))
	assert.Equal(t, "1.2.3", get(ack, "PAYLOAD", "VERSION"))
	assert.NotEmpty(t, get(ack, "PAYLOAD", "SESSION-ID"))

	resp := c.call("p1", `:ACTION :PING`)
	assert.Equal(t, kw("RESPONSE"), get(resp, "TYPE"))
	assert.Equal(t, "p1", get(resp, "META", "REQUEST-ID"))
	assert.Equal(t, kw("PING"), get(resp, "PAYLOAD", "ACTION"))
	assert.Equal(t, kw("OK"), get(resp, "PAYLOAD", "STATUS"))
	assert.Equal(t, "pong", get(resp, "PAYLOAD", "TEXT"))

	// Integer and symbol ids are echoed as they came.
	c.send(`(:TYPE :REQUEST :META (:REQUEST-ID 7) :PAYLOAD (:ACTION :PING))`)
	m := c.next()
	assert.Equal(t, int64(7), get(m, "META", "REQUEST-ID"))
	c.send(`(:TYPE :REQUEST :META (:REQUEST-ID :R8) :PAYLOAD (:ACTION :PING))`)
	m = c.next()
	assert.Equal(t, kw("R8"), get(m, "META", "REQUEST-ID"))
}

func TestStatus(t *testing.T) {
	d := startDaemon(t, Config{})
	c := d.connect(t)
	d.connect(t) // a second client
	resp := c.call("s1", `:ACTION :STATUS`)
	p := func(k string) any { return get(resp, "PAYLOAD", k) }
	assert.Equal(t, kw("OK"), p("STATUS"))
	assert.Equal(t, "1.2.3", p("VERSION"))
	assert.Equal(t, int64(1), p("WIRE"))
	assert.Equal(t, int64(2), p("CONNECTIONS"))
	assert.Equal(t, int64(1), p("IN-FLIGHT"), "the status request itself")
	assert.GreaterOrEqual(t, p("UPTIME-SECONDS").(int64), int64(0))
	assert.Equal(t, int64(42), get(resp, "PAYLOAD", "MEMEX", "HEADLINES"))

	// Without a StatusReporter there is no :MEMEX.
	d2 := startDaemon(t, Config{Backend: Unavailable{Reason: "nothing here"}})
	resp = d2.connect(t).call("s2", `:ACTION :STATUS`)
	assert.Nil(t, get(resp, "PAYLOAD", "MEMEX"))
	assert.Equal(t, int64(1), get(resp, "PAYLOAD", "CONNECTIONS"))
}

func TestAskStreams(t *testing.T) {
	b := newTestBackend(time.Millisecond)
	d := startDaemon(t, Config{Backend: b})
	c := d.connect(t)
	c.send(`(:TYPE :REQUEST :META (:REQUEST-ID "a1" :SESSION-ID "emacs-1") :PAYLOAD (:ACTION :ASK :TEXT "what is left to do" :FILE "/notes/p.org" :LINE 12) :DEPTH 2)`)
	chunks, resp := c.exchange("a1")
	assert.Equal(t, []string{"what ", "is ", "left ", "to ", "do ", ""}, chunks, "the stream ends with an empty chunk")
	assert.Equal(t, kw("OK"), get(resp, "PAYLOAD", "STATUS"))
	assert.Equal(t, kw("ASK"), get(resp, "PAYLOAD", "ACTION"))
	assert.Equal(t, "what is left to do", get(resp, "PAYLOAD", "TEXT"))
	assert.Equal(t, int64(5), get(resp, "PAYLOAD", "WORDS"))

	b.mu.Lock()
	req := b.asks[0]
	b.mu.Unlock()
	assert.Equal(t, "what is left to do", req.Text)
	assert.Equal(t, "/notes/p.org", req.File)
	assert.Equal(t, 12, req.Line)
	assert.Equal(t, "emacs-1", req.SessionID)
	assert.Equal(t, 2, req.Depth)
}

func TestAskSplitsLongChunks(t *testing.T) {
	d := startDaemon(t, Config{})
	c := d.connect(t)
	chunks, resp := c.exchange2("b1", `:ACTION :ASK :TEXT "big 300000"`)
	require.Equal(t, kw("OK"), get(resp, "PAYLOAD", "STATUS"))
	require.Greater(t, len(chunks), 3)
	for _, ch := range chunks {
		assert.LessOrEqual(t, len(ch), maxChunk)
	}
	assert.Equal(t, get(resp, "PAYLOAD", "TEXT"), strings.Join(chunks, ""), "split at character boundaries")
}

// exchange2 sends a request and collects its exchange.
func (c *wireClient) exchange2(id, payload string) ([]string, plist.Plist) {
	c.t.Helper()
	c.request(id, payload)
	return c.exchange(id)
}

func TestCancelMidStream(t *testing.T) {
	b := newTestBackend(200 * time.Millisecond)
	d := startDaemon(t, Config{Backend: b})
	c := d.connect(t)
	c.request("r1", `:ACTION :ASK :TEXT "one two three four five six seven eight nine ten"`)
	first := c.next()
	require.Equal(t, kw("STREAM-CHUNK"), get(first, "TYPE"))
	require.Equal(t, "one ", get(first, "PAYLOAD", "TEXT"))

	c.request("c1", `:ACTION :CANCEL :TARGET "r1"`)
	var order []string
	for len(order) < 3 {
		m := c.next()
		id, _ := get(m, "META", "REQUEST-ID").(string)
		switch {
		case get(m, "TYPE") == kw("STREAM-CHUNK") && get(m, "PAYLOAD", "TEXT") == "":
			order = append(order, "end of "+id)
		case get(m, "TYPE") == kw("STREAM-CHUNK"):
			continue // a chunk already queued before the cancel
		case get(m, "TYPE") == kw("RESPONSE") && id == "r1":
			order = append(order, "r1 "+string(get(m, "PAYLOAD", "STATUS").(plist.Keyword)))
			assert.Contains(t, get(m, "PAYLOAD", "TEXT"), `cancelled by request "c1"`)
		case get(m, "TYPE") == kw("RESPONSE") && id == "c1":
			order = append(order, "c1 "+string(get(m, "PAYLOAD", "STATUS").(plist.Keyword)))
			assert.Equal(t, true, get(m, "PAYLOAD", "CANCELLED"))
			assert.Equal(t, "r1", get(m, "PAYLOAD", "TARGET"))
		}
	}
	assert.Equal(t, []string{"end of r1", "r1 CANCELLED", "c1 OK"}, order)
	select {
	case err := <-b.cancelled:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("the backend's context was not cancelled")
	}

	// Cancelling again, or an unknown id, is harmless.
	resp := c.call("c2", `:ACTION :CANCEL :TARGET "r1"`)
	assert.Equal(t, kw("OK"), get(resp, "PAYLOAD", "STATUS"))
	assert.Nil(t, get(resp, "PAYLOAD", "CANCELLED"))
	// And the connection is healthy.
	assert.Equal(t, "pong", get(c.call("p", `:ACTION :PING`), "PAYLOAD", "TEXT"))
}

// TestCancelWinsOverTheBackendsError: a backend that stops at once when
// its context ends returns an error, racing the :CANCEL for the answer;
// the answer is always the cancellation.
func TestCancelWinsOverTheBackendsError(t *testing.T) {
	b := newTestBackend(time.Minute)
	d := startDaemon(t, Config{Backend: b})
	c := d.connect(t)
	for i := range 100 {
		ask, cancel := fmt.Sprintf("r%d", i), fmt.Sprintf("c%d", i)
		c.request(ask, `:ACTION :ASK :TEXT "one two"`)
		require.Equal(t, "one ", get(c.next(), "PAYLOAD", "TEXT"))
		<-b.started
		c.request(cancel, fmt.Sprintf(`:ACTION :CANCEL :TARGET %q`, ask))
		answers := map[string]plist.Plist{}
		for len(answers) < 2 {
			if m := c.next(); get(m, "TYPE") == kw("RESPONSE") {
				id, _ := get(m, "META", "REQUEST-ID").(string)
				answers[id] = m
			}
		}
		require.Equal(t, kw("CANCELLED"), get(answers[ask], "PAYLOAD", "STATUS"), "round %d: %v", i, answers[ask])
		require.Equal(t, true, get(answers[cancel], "PAYLOAD", "CANCELLED"), "round %d", i)
		<-b.cancelled
	}
}

func TestDisconnectCancelsTheBackend(t *testing.T) {
	b := newTestBackend(200 * time.Millisecond)
	d := startDaemon(t, Config{Backend: b})
	c := d.connect(t)
	c.request("r1", `:ACTION :ASK :TEXT "one two three four five six"`)
	<-b.started
	c.nc.Close()
	select {
	case err := <-b.cancelled:
		assert.Error(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the backend's context was not cancelled on disconnect")
	}
	require.Eventually(t, func() bool { return d.srv.Stats().Connections == 0 }, 5*time.Second, 10*time.Millisecond)
	assert.Eventually(t, func() bool { return d.srv.Stats().InFlight == 0 }, 5*time.Second, 10*time.Millisecond)
}

func TestBackendActions(t *testing.T) {
	b := newTestBackend(0)
	d := startDaemon(t, Config{Backend: b})
	c := d.connect(t)

	resp := c.call("x1", `:ACTION :CONTEXT :FILE "/notes/p.org" :LINE 3 :BUDGET 900`)
	assert.Equal(t, kw("OK"), get(resp, "PAYLOAD", "STATUS"))
	assert.Equal(t, "* /notes/p.org\n** line 3\n", get(resp, "PAYLOAD", "TEXT"))
	b.mu.Lock()
	assert.Equal(t, 900, b.contexts[0].Budget)
	b.mu.Unlock()

	resp = c.call("x2", `:ACTION :PLANS`)
	plans, ok := get(resp, "PAYLOAD", "PLANS").(plist.List)
	require.True(t, ok, "%v", resp)
	require.Len(t, plans, 1)
	assert.Equal(t, "p-1", get(mustPlist(t, plans[0]), "ID"))

	resp = c.call("x3", `:ACTION :APPROVE :ID "p-1"`)
	assert.Equal(t, "APPROVED", get(resp, "PAYLOAD", "STATE"))
	resp = c.call("x4", `:ACTION :REJECT :ID "p-2"`)
	assert.Equal(t, "REJECTED", get(resp, "PAYLOAD", "STATE"))
	resp = c.call("x5", `:ACTION :APPROVE :ID "missing"`)
	assert.Equal(t, kw("ERROR"), get(resp, "PAYLOAD", "STATUS"))
	assert.Equal(t, "no Flight Plan has the id missing", get(resp, "PAYLOAD", "TEXT"))
	b.mu.Lock()
	assert.Equal(t, []string{"p-1"}, b.approved)
	assert.Equal(t, []string{"p-2"}, b.rejected)
	b.mu.Unlock()
}

func mustPlist(t *testing.T, v any) plist.Plist {
	t.Helper()
	p, err := plist.AsPlist(v)
	require.NoError(t, err)
	return p
}

// TestBadRequestsKeepTheConnection: every mistake in a well-formed frame is
// answered and the connection serves on.
func TestBadRequestsKeepTheConnection(t *testing.T) {
	d := startDaemon(t, Config{Backend: newTestBackend(time.Second)})
	c := d.connect(t)
	tests := []struct {
		name    string
		frame   string
		typ     string // the answer's :TYPE
		chunk   bool   // an :ASK's stream terminator comes first
		contain string
	}{
		{"unknown action", `(:TYPE :REQUEST :META (:REQUEST-ID "u") :PAYLOAD (:ACTION :FROBNICATE))`, "RESPONSE", false, "unknown action :FROBNICATE"},
		{"no action", `(:TYPE :REQUEST :META (:REQUEST-ID "u") :PAYLOAD (:TEXT "hi"))`, "RESPONSE", false, "no :ACTION"},
		{"no request id", `(:TYPE :REQUEST :PAYLOAD (:ACTION :PING))`, "LOG", false, ":REQUEST-ID"},
		{"list as request id", `(:TYPE :REQUEST :META (:REQUEST-ID (1 2)) :PAYLOAD (:ACTION :PING))`, "LOG", false, "must be a string, an integer or a symbol"},
		{"no type", `(:PAYLOAD (:ACTION :PING))`, "LOG", false, "no :TYPE"},
		{"payload not a plist", `(:TYPE :REQUEST :META (:REQUEST-ID "u") :PAYLOAD (1 2 3))`, "LOG", false, ":PAYLOAD is not a property list"},
		{"an event", `(:TYPE :EVENT :PAYLOAD (:SENSOR :USER-INPUT :TEXT "hi"))`, "LOG", false, "ignored an :EVENT"},
		{"a second handshake", fmt.Sprintf(`(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :TOKEN %q))`, d.token), "LOG", false, "already authenticated"},
		{"a response", `(:TYPE :RESPONSE :PAYLOAD (:TEXT "hi"))`, "LOG", false, "ignored a :RESPONSE"},
		{"depth too high", `(:TYPE :REQUEST :META (:REQUEST-ID "u") :PAYLOAD (:ACTION :PING) :DEPTH 11)`, "RESPONSE", false, ":DEPTH is above 10"},
		{"bad depth", `(:TYPE :REQUEST :META (:REQUEST-ID "u") :PAYLOAD (:ACTION :PING) :DEPTH "x")`, "LOG", false, ":DEPTH is not"},
		{"ask without text", `(:TYPE :REQUEST :META (:REQUEST-ID "u") :PAYLOAD (:ACTION :ASK))`, "RESPONSE", true, ":ASK needs :TEXT"},
		{"ask with a file but no line", `(:TYPE :REQUEST :META (:REQUEST-ID "u") :PAYLOAD (:ACTION :ASK :TEXT "q" :FILE "f.org"))`, "RESPONSE", true, ":LINE must be a positive integer"},
		{"context without a line", `(:TYPE :REQUEST :META (:REQUEST-ID "u") :PAYLOAD (:ACTION :CONTEXT :FILE "f.org"))`, "RESPONSE", false, ":LINE must be"},
		{"context with line 0", `(:TYPE :REQUEST :META (:REQUEST-ID "u") :PAYLOAD (:ACTION :CONTEXT :FILE "f.org" :LINE 0))`, "RESPONSE", false, ":LINE must be"},
		{"context with a bad budget", `(:TYPE :REQUEST :META (:REQUEST-ID "u") :PAYLOAD (:ACTION :CONTEXT :FILE "f.org" :LINE 1 :BUDGET -5))`, "RESPONSE", false, ":BUDGET must be"},
		{"approve without an id", `(:TYPE :REQUEST :META (:REQUEST-ID "u") :PAYLOAD (:ACTION :APPROVE))`, "RESPONSE", false, ":APPROVE needs :ID"},
		{"reject with a number", `(:TYPE :REQUEST :META (:REQUEST-ID "u") :PAYLOAD (:ACTION :REJECT :ID 5))`, "RESPONSE", false, ":REJECT needs :ID"},
		{"cancel without a target", `(:TYPE :REQUEST :META (:REQUEST-ID "u") :PAYLOAD (:ACTION :CANCEL))`, "RESPONSE", false, ":CANCEL needs :TARGET"},
		{"handshake as a request", `(:TYPE :REQUEST :META (:REQUEST-ID "u") :PAYLOAD (:ACTION :HANDSHAKE))`, "RESPONSE", false, "already authenticated"},
		{"backend failure", `(:TYPE :REQUEST :META (:REQUEST-ID "u") :PAYLOAD (:ACTION :ASK :TEXT "fail"))`, "RESPONSE", true, "refuses this question"},
		{"backend panic", `(:TYPE :REQUEST :META (:REQUEST-ID "u") :PAYLOAD (:ACTION :ASK :TEXT "panic"))`, "RESPONSE", true, "internal error while serving :ASK"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.send(tt.frame)
			m := c.next()
			if tt.chunk {
				assert.Equal(t, kw("STREAM-CHUNK"), get(m, "TYPE"))
				assert.Equal(t, "", get(m, "PAYLOAD", "TEXT"))
				m = c.next()
			}
			assert.Equal(t, kw(tt.typ), get(m, "TYPE"), "%v", m)
			if tt.typ == "RESPONSE" {
				assert.Equal(t, kw("ERROR"), get(m, "PAYLOAD", "STATUS"))
				assert.Equal(t, "u", get(m, "META", "REQUEST-ID"))
			}
			assert.Contains(t, get(m, "PAYLOAD", "TEXT"), tt.contain)
			assert.Equal(t, "pong", get(c.call("ok", `:ACTION :PING`), "PAYLOAD", "TEXT"), "the connection still serves")
		})
	}

	t.Run("duplicate request id", func(t *testing.T) {
		c.request("dup", `:ACTION :ASK :TEXT "slow answer here"`)
		c.request("dup", `:ACTION :CONTEXT :FILE "f" :LINE 1`)
		for {
			m := c.next()
			if get(m, "TYPE") == kw("RESPONSE") {
				assert.Equal(t, kw("CONTEXT"), get(m, "PAYLOAD", "ACTION"))
				assert.Contains(t, get(m, "PAYLOAD", "TEXT"), `request "dup" is already running`)
				break
			}
		}
		c.call("cd", `:ACTION :CANCEL :TARGET "dup"`)
	})
}

func TestUnavailableBackend(t *testing.T) {
	d := startDaemon(t, Config{Backend: Unavailable{Reason: "not available in this build: the agent pipeline is issue 8"}})
	c := d.connect(t)
	for _, action := range []string{`:ACTION :ASK :TEXT "hi"`, `:ACTION :CONTEXT :FILE "f.org" :LINE 1`, `:ACTION :PLANS`, `:ACTION :APPROVE :ID "p"`, `:ACTION :REJECT :ID "p"`} {
		_, resp := c.exchange2("u", action)
		assert.Equal(t, kw("ERROR"), get(resp, "PAYLOAD", "STATUS"), action)
		assert.Equal(t, "not available in this build: the agent pipeline is issue 8", get(resp, "PAYLOAD", "TEXT"), action)
	}
	assert.Equal(t, kw("OK"), get(c.call("s", `:ACTION :STATUS`), "PAYLOAD", "STATUS"))
}

// TestMalformedFrames: each malformed frame gets a :LOG saying why and its
// connection is closed, while another connection keeps being served.
func TestMalformedFrames(t *testing.T) {
	d := startDaemon(t, Config{MaxPayload: 1 << 16, StallTimeout: 300 * time.Millisecond})
	bystander := d.connect(t)
	bystander.request("long", `:ACTION :ASK :TEXT "a b c d e f g h i j k l m n o p"`)
	tests := []struct {
		name string
		raw  string
		want string
	}{
		{"bad hex", `00zz12(:TYPE :REQUEST)`, `frame header "00zz12" is not 6 hex digits`},
		{"length over the maximum", `100000(:TYPE`, "over the limit of 65536"},
		{"largest length", `FFFFFF`, "over the limit"},
		{"unreadable payload", framed(`(:TYPE :REQUEST :META (:REQUEST-ID "x") :PAYLOAD (:ACTION :PING)`), "not one readable plist"},
		{"read-eval payload", framed(`(:TYPE :REQUEST :PAYLOAD #.(delete-file "x"))`), `#-syntax ("#.") is not allowed`},
		{"quoted payload", framed(`'(:TYPE :REQUEST)`), "quote"},
		{"dotted pair", framed(`(:TYPE . :REQUEST)`), "dotted pairs"},
		{"trailing garbage", framed(`(:TYPE :REQUEST :PAYLOAD (:ACTION :PING)) (extra)`), "trailing text"},
		{"not a plist", framed(`(1 2 3)`), "not a property list"},
		{"an atom", framed(`42`), "not a property list"},
		{"nil", framed(`nil`), "the payload is nil"},
		{"empty payload", `000000`, "holds no value"},
		{"invalid UTF-8", framed("(:TEXT \"\xff\")"), "not valid UTF-8"},
		{"too deep", framed(strings.Repeat("(", 100) + strings.Repeat(")", 100)), "nested deeper"},
		{"length shorter than the plist", `000005(:TYPE :REQUEST)`, "not closed"},
		{"a frame cut off, then silence", `000040(:TYPE :REQ`, "stalled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := d.connect(t)
			c.raw(tt.raw)
			c.expectLogThenClose(tt.want)
			assert.Equal(t, "pong", get(bystander.call("ping", `:ACTION :PING`), "PAYLOAD", "TEXT"))
		})
	}
	// The bystander's stream went on undisturbed.
	chunks, resp := bystander.exchange("long")
	assert.Equal(t, kw("OK"), get(resp, "PAYLOAD", "STATUS"))
	assert.Equal(t, "", chunks[len(chunks)-1])
}

// framed is payload with its header.
func framed(payload string) string { return fmt.Sprintf("%06X%s", len(payload), payload) }

func TestHandshakeRefused(t *testing.T) {
	d := startDaemon(t, Config{HandshakeTimeout: 300 * time.Millisecond})
	tests := []struct {
		name  string
		frame string
		want  string
	}{
		{"bad token", `(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :TOKEN "guess" :CAPABILITIES nil))`, "bad token"},
		{"token of the right length, wrong", fmt.Sprintf(`(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :TOKEN %q))`, strings.Repeat("0", len(testToken))), "bad token"},
		{"no token", `(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE))`, "no :TOKEN string"},
		{"token as a symbol", `(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :TOKEN abc))`, "no :TOKEN string"},
		{"a request first", `(:TYPE :REQUEST :META (:REQUEST-ID "p") :PAYLOAD (:ACTION :PING))`, "the first message must be"},
		{"a status first", `(:TYPE :REQUEST :META (:REQUEST-ID "s") :PAYLOAD (:ACTION :STATUS))`, "the first message must be"},
		{"no type", `(:PAYLOAD (:ACTION :HANDSHAKE :TOKEN "x"))`, "the first message must be"},
		{"malformed", `(:TYPE :EVENT`, "malformed frame"},
		{"a large frame before the token", `(:TYPE :EVENT :PAYLOAD (:TEXT "` + strings.Repeat("x", 70<<10) + `"))`, "over the limit of 65536"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dial(t, d.addr)
			c.next() // the daemon's handshake
			c.send(tt.frame)
			c.expectLogThenClose(tt.want)
		})
	}
	t.Run("no handshake in time", func(t *testing.T) {
		c := dial(t, d.addr)
		c.next()
		c.expectLogThenClose("no handshake within 300ms")
	})
	t.Run("half a handshake, then silence", func(t *testing.T) {
		c := dial(t, d.addr)
		c.next()
		c.raw(`000050(:TYPE :EVENT`)
		c.expectLogThenClose("stalled")
	})
}

func TestTooManyConnections(t *testing.T) {
	d := startDaemon(t, Config{MaxConnections: 1})
	first := d.connect(t)
	second := dial(t, d.addr)
	second.next() // the daemon's handshake
	second.send(fmt.Sprintf(`(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :TOKEN %q))`, d.token))
	second.expectLogThenClose("already serves 1 clients")
	assert.Equal(t, "pong", get(first.call("p", `:ACTION :PING`), "PAYLOAD", "TEXT"), "the first client is never the one closed")
	require.Eventually(t, func() bool { st := d.srv.Stats(); return st.Connections == 1 && st.Handshaking == 0 }, 5*time.Second, 10*time.Millisecond)

	// Once the first leaves, its place is free.
	first.nc.Close()
	require.Eventually(t, func() bool { return d.srv.Stats().Connections == 0 }, 5*time.Second, 10*time.Millisecond)
	assert.Equal(t, "pong", get(d.connect(t).call("p", `:ACTION :PING`), "PAYLOAD", "TEXT"))
}

func TestTooManyRequestsInFlight(t *testing.T) {
	d := startDaemon(t, Config{MaxInFlight: 2, Backend: newTestBackend(time.Second)})
	c := d.connect(t)
	c.request("a", `:ACTION :ASK :TEXT "slow slow slow"`)
	c.request("b", `:ACTION :ASK :TEXT "slow slow slow"`)
	c.request("c", `:ACTION :PLANS`)
	_, resp := c.exchange("c")
	assert.Equal(t, kw("ERROR"), get(resp, "PAYLOAD", "STATUS"))
	assert.Contains(t, get(resp, "PAYLOAD", "TEXT"), "2 requests are already running")
	assert.Equal(t, "pong", get(c.call("p", `:ACTION :PING`), "PAYLOAD", "TEXT"), ":PING needs no slot")
}

// TestSlowClientDoesNotStallOthers: a client that asks for a flood of
// chunks and never reads fills its own queue; its backend call blocks in
// emit (backpressure), while other clients are served at once.
func TestSlowClientDoesNotStallOthers(t *testing.T) {
	b := newTestBackend(0)
	d := startDaemon(t, Config{Backend: b, QueueBytes: 64 << 10})
	slow := d.connect(t)
	for i := range 4 {
		slow.request(fmt.Sprintf("f%d", i), `:ACTION :ASK :TEXT "flood 100000"`)
	}
	for range 4 {
		<-b.started
	}
	// Give the floods time to fill every buffer on the way.
	time.Sleep(300 * time.Millisecond)

	// Four other clients, all connected at once, are served in turn without
	// delay. (One goroutine drives them: require may only stop the test's own.)
	others := make([]*wireClient, 4)
	for i := range others {
		others[i] = d.connect(t)
	}
	deadline := time.Now().Add(20 * time.Second)
	for j := range 50 {
		for i, c := range others {
			resp := c.call(fmt.Sprintf("p%d-%d", i, j), `:ACTION :PING`)
			assert.Equal(t, "pong", get(resp, "PAYLOAD", "TEXT"))
		}
	}
	for _, c := range others {
		chunks, resp := c.exchange2("ask", `:ACTION :ASK :TEXT "still served"`)
		assert.Equal(t, []string{"still ", "served ", ""}, chunks)
		assert.Equal(t, kw("OK"), get(resp, "PAYLOAD", "STATUS"))
	}
	require.True(t, time.Now().Before(deadline), "the other clients were stalled")
	// The other clients' last asks are answered before they leave the
	// count: it settles on the four floods.
	assert.Eventually(t, func() bool { return d.srv.Stats().InFlight == 4 }, 5*time.Second, 10*time.Millisecond,
		"the floods are held back, not finished (%d in flight)", d.srv.Stats().InFlight)

	// The slow client leaves: its blocked emits fail and its requests end.
	slow.nc.Close()
	for range 4 {
		select {
		case err := <-b.cancelled:
			assert.Error(t, err)
		case <-time.After(5 * time.Second):
			t.Fatal("a blocked emit was not released when its client left")
		}
	}
	assert.Eventually(t, func() bool { return d.srv.Stats().InFlight == 0 }, 5*time.Second, 10*time.Millisecond)
}

func TestGracefulShutdown(t *testing.T) {
	// The ask waits a minute between its words: the shutdown finds it in
	// that wait, and only its context can end it.
	b := newTestBackend(time.Minute)
	cfg := Config{Backend: b, Token: testToken, Version: "1.2.3"}
	srv, err := New(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ln, err := Listen(ctx, "127.0.0.1:0", false)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	d := &daemon{addr: ln.Addr().String(), token: testToken}

	idle := d.connect(t)
	busy := d.connect(t)
	busy.request("r", `:ACTION :ASK :TEXT "one two three"`)
	<-b.started
	// Its first word is out before the shutdown: the backend signals that
	// it started before it emits that word, and an emit after the
	// shutdown fails with the connection closed, not with its context.
	first := busy.next()
	require.Equal(t, kw("STREAM-CHUNK"), get(first, "TYPE"))
	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
	idle.expectLogThenClose("shutting down")
	for {
		m := busy.next()
		if get(m, "TYPE") == kw("LOG") {
			assert.Contains(t, get(m, "PAYLOAD", "TEXT"), "shutting down")
			break
		}
	}
	busy.expectClosed()
	select {
	case err := <-b.cancelled:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("the backend was not cancelled at shutdown")
	}
	_, err = dialErr(d.addr)
	assert.Error(t, err, "the listener is closed")
}

func TestNewNeedsBackendAndToken(t *testing.T) {
	_, err := New(Config{Token: "x"})
	assert.ErrorContains(t, err, "backend")
	_, err = New(Config{Backend: Unavailable{}})
	assert.ErrorContains(t, err, "token")
}

// TestLogsNeverHoldTokens: neither the daemon's token nor a client's wrong
// guess reaches the log, whatever happens to the connection.
func TestLogsNeverHoldTokens(t *testing.T) {
	var logs testenv.SyncBuffer
	d := startDaemon(t, Config{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	good := d.connect(t)
	good.call("p", `:ACTION :PING`)
	good.send(`(:TYPE :REQUEST :META (:REQUEST-ID "bad") :PAYLOAD #.(x))`)
	good.expectLogThenClose("malformed frame")

	const guess = "secret-guess-4f1c"
	bad := dial(t, d.addr)
	bad.next()
	bad.send(fmt.Sprintf(`(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :TOKEN %q :CAPABILITIES (:X)))`, guess))
	bad.expectLogThenClose("bad token")

	require.Eventually(t, func() bool { return d.srv.Stats().Connections == 0 }, 5*time.Second, 10*time.Millisecond)
	text := logs.String()
	assert.Contains(t, text, "bridge client authenticated")
	assert.Contains(t, text, "bridge handshake refused")
	assert.NotContains(t, text, d.token)
	assert.NotContains(t, text, guess)
}

// TestAnAnsweredRequestIsNoLongerRunning: once a request's answer has
// arrived, a :STATUS sent right after counts it no more — only itself.
// (The count used to drop after the answer was written, so that a client
// quick to ask heard "1 request running" of a request it had its answer
// to: passepartout-bridge.el's status words said so under load.)
func TestAnAnsweredRequestIsNoLongerRunning(t *testing.T) {
	d := startDaemon(t, Config{Backend: newTestBackend(0)})
	c := d.connect(t)
	for i := range 200 {
		resp := c.call(fmt.Sprintf("p%d", i), `:ACTION :PLANS`)
		require.Equal(t, kw("OK"), get(resp, "PAYLOAD", "STATUS"))
		st := c.call(fmt.Sprintf("s%d", i), `:ACTION :STATUS`)
		require.Equal(t, int64(1), get(st, "PAYLOAD", "IN-FLIGHT"), "after %d answered requests, only the status request itself runs", i+1)
	}
}
