package agent

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/server/bridge"
	"pp-lsp/server/frame"
	"pp-lsp/server/plist"
)

// wire is a bare client of the framed-TCP protocol.
type wire struct {
	t  *testing.T
	nc net.Conn
	r  *frame.Reader
}

func (w *wire) send(payload string) {
	w.t.Helper()
	_, err := fmt.Fprintf(w.nc, "%06X%s", len(payload), payload)
	require.NoError(w.t, err)
}

func (w *wire) next() plist.Plist {
	w.t.Helper()
	require.NoError(w.t, w.nc.SetReadDeadline(time.Now().Add(10*time.Second)))
	b, err := w.r.Next()
	require.NoError(w.t, err)
	v, err := plist.Read(b)
	require.NoError(w.t, err)
	pl, err := plist.AsPlist(v)
	require.NoError(w.t, err)
	return pl
}

// until reads frames until the :RESPONSE, returning the streamed text and
// the response's payload.
func (w *wire) until() (string, plist.Plist) {
	w.t.Helper()
	var text strings.Builder
	for {
		m := w.next()
		typ, _ := m.Keyword("TYPE")
		payload, _ := m.Plist("PAYLOAD")
		switch typ {
		case "STREAM-CHUNK":
			s, _ := payload.String("TEXT")
			text.WriteString(s)
		case "RESPONSE":
			return text.String(), payload
		}
	}
}

func TestTheBridgeServesTheAgent(t *testing.T) {
	fx := newFixture(t, map[string]string{"notes.org": notesOrg, "Makefile": makefile, "out/.keep": ""}, replay(t,
		`{"match":{"last_contains":"hello"},"reply":{"text":"Hello from the memex."}}`, countTranscript))
	srv, err := bridge.New(bridge.Config{Backend: fx.agent.Backend(), Token: strings.Repeat("ab", 32), Version: "test"})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- srv.Serve(ctx, ln) }()
	defer func() { cancel(); <-done }()

	nc, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer nc.Close()
	w := &wire{t: t, nc: nc, r: frame.NewReader(nc, 1<<20)}
	w.next()
	w.send(`(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :TOKEN "` + strings.Repeat("ab", 32) + `" :CAPABILITIES (:STREAM)))`)
	w.next()

	w.send(`(:TYPE :REQUEST :META (:REQUEST-ID "1") :PAYLOAD (:ACTION :ASK :TEXT "hello" :FILE "notes.org" :LINE 2))`)
	text, resp := w.until()
	assert.Equal(t, "Hello from the memex.", text)
	outcome, _ := resp.Keyword("OUTCOME")
	assert.Equal(t, plist.Keyword("ANSWERED"), outcome)

	w.send(`(:TYPE :REQUEST :META (:REQUEST-ID "2") :PAYLOAD (:ACTION :ASK :TEXT "count it" :FILE "notes.org" :LINE 2))`)
	_, resp = w.until()
	outcome, _ = resp.Keyword("OUTCOME")
	assert.Equal(t, plist.Keyword("FILED"), outcome)
	id, ok := resp.String("PLAN-ID")
	require.True(t, ok)

	w.send(`(:TYPE :REQUEST :META (:REQUEST-ID "3") :PAYLOAD (:ACTION :PLANS))`)
	_, resp = w.until()
	list, _ := resp.Get("PLANS")
	require.Len(t, list, 1)

	w.send(`(:TYPE :REQUEST :META (:REQUEST-ID "4") :PAYLOAD (:ACTION :APPROVE :ID "` + id + `"))`)
	_, resp = w.until()
	state, _ := resp.String("STATE")
	assert.Equal(t, "DONE", state)
	assert.Equal(t, "ran\n", fx.read(t, "out/count.txt"))

	w.send(`(:TYPE :REQUEST :META (:REQUEST-ID "5") :PAYLOAD (:ACTION :APPROVE :ID "` + id + `"))`)
	_, resp = w.until()
	status, _ := resp.Keyword("STATUS")
	assert.Equal(t, plist.Keyword("ERROR"), status)
	msg, _ := resp.String("TEXT")
	assert.Contains(t, msg, "already DONE")

	w.send(`(:TYPE :REQUEST :META (:REQUEST-ID "6") :PAYLOAD (:ACTION :STATUS))`)
	_, resp = w.until()
	memex, ok := resp.Plist("MEMEX")
	require.True(t, ok)
	files, _ := memex.Int("FILES")
	assert.GreaterOrEqual(t, files, int64(2), "notes.org and flightplans.org")
}
