package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// panicsOnMarshal is a result whose encoding panics.
type panicsOnMarshal struct{}

func (panicsOnMarshal) MarshalJSON() ([]byte, error) { panic("the result's encoder panics") }

// TestHandlerPanicsFailOnlyTheirRequest injects failing handlers into the
// server's tables — panicking on the read loop, after releasing it, while
// waiting for the memex, in a notification, in the result's encoding, in a
// background task, or returning a result that does not encode — and checks
// that each request is answered InternalError, the notification is
// dropped, and the session goes on to a clean shutdown.
func TestHandlerPanicsFailOnlyTheirRequest(t *testing.T) {
	boom := func(context.Context, *view, jsonrpc2.RawMessage) (any, error) { panic("boom") }
	var noted []string
	rs := newRawSession(t, func(s *Server) {
		s.calls["test/panicInline"] = call{serve: boom, inline: true}
		s.calls["test/panicAsync"] = call{serve: boom}
		s.calls["test/panicWithTheMemex"] = call{serve: boom, memex: true}
		s.calls["test/panicsOnMarshal"] = call{serve: func(context.Context, *view, jsonrpc2.RawMessage) (any, error) { return panicsOnMarshal{}, nil }}
		s.calls["test/doesNotEncode"] = call{serve: func(context.Context, *view, jsonrpc2.RawMessage) (any, error) {
			return map[string]any{"f": func() {}}, nil
		}}
		s.calls["test/spawnsAPanic"] = call{serve: func(context.Context, *view, jsonrpc2.RawMessage) (any, error) {
			s.spawn(func(context.Context) { panic("background boom") })
			return "spawned", nil
		}}
		s.notes["test/panicNote"] = func(context.Context, jsonrpc2.RawMessage) error { panic("note boom") }
		s.notes["test/note"] = func(_ context.Context, p jsonrpc2.RawMessage) error {
			noted = append(noted, string(p))
			return nil
		}
	})
	rs.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
	rs.answer("1")
	rs.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)

	for i, method := range []string{"test/panicInline", "test/panicAsync", "test/panicWithTheMemex", "test/panicsOnMarshal", "test/doesNotEncode"} {
		id := fmt.Sprint(10 + i)
		rs.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, id, method))
		m := rs.answer(id)
		var e jsonrpc2.Error
		require.NoError(t, json.Unmarshal(m["error"], &e), "%s: %v", method, m)
		assert.Equal(t, jsonrpc2.InternalError, e.Code, method)
		assert.True(t, strings.HasPrefix(e.Message, "the server "), "%s: %s", method, e.Message)
		assert.Contains(t, e.Message, method)
		assert.NotContains(t, m, "result")
	}
	rs.send(`{"jsonrpc":"2.0","id":19,"method":"test/spawnsAPanic"}`)
	assert.JSONEq(t, `"spawned"`, string(rs.answer("19")["result"]), "a background task's panic stops that task alone")
	rs.send(`{"jsonrpc":"2.0","method":"test/panicNote","params":{"x":1}}`)
	rs.send(`{"jsonrpc":"2.0","method":"test/note","params":{"after":"the panic"}}`)
	rs.send(`{"jsonrpc":"2.0","id":20,"method":"workspace/symbol","params":{"query":""}}`)
	m := rs.answer("20")
	assert.NotContains(t, m, "error", "the session goes on")
	assert.Equal(t, []string{`{"after":"the panic"}`}, noted, "the notification after the panic was applied, in order")

	rs.send(`{"jsonrpc":"2.0","id":21,"method":"` + protocol.MethodShutdown + `"}`)
	rs.answer("21")
	rs.send(`{"jsonrpc":"2.0","method":"exit"}`)
	assert.NoError(t, rs.end())
}
