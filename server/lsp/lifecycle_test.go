package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// rawSession speaks the base protocol by hand, byte for byte as a client
// writes it, so that a test controls exactly what is on the wire: "params":
// null, no params, ids of its choosing. A goroutine reads everything the
// server sends (answering its requests with null), so that the server
// never waits on its writes.
type rawSession struct {
	t      *testing.T
	mu     sync.Mutex // one frame at a time
	w      io.WriteCloser
	msgs   chan map[string]json.RawMessage
	served chan error
}

// newRawSession serves a session; setup, if given, changes the server
// before it serves (a test's fault injection).
func newRawSession(t *testing.T, setup ...func(*Server)) *rawSession {
	t.Helper()
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	dir := t.TempDir()
	env := map[string]string{"HOME": dir, "PASSEPARTOUT_DATA_DIR": filepath.Join(dir, "data"), "XDG_CONFIG_HOME": filepath.Join(dir, "config")}
	srv := New(Options{Getenv: func(k string) string { return env[k] }, WorkDir: dir})
	for _, f := range setup {
		f(srv)
	}
	rs := &rawSession{t: t, w: c2sW, msgs: make(chan map[string]json.RawMessage, 1000), served: make(chan error, 1)}
	go func() {
		rs.served <- srv.Serve(context.Background(), pipeConn{Reader: c2sR, Writer: s2cW, closers: []io.Closer{c2sR, s2cW}})
	}()
	go func() {
		defer close(rs.msgs)
		r := bufio.NewReader(s2cR)
		tp := textproto.NewReader(r)
		for {
			h, err := tp.ReadMIMEHeader()
			if err != nil {
				return
			}
			n, _ := strconv.Atoi(h.Get("Content-Length"))
			body := make([]byte, n)
			if _, err := io.ReadFull(r, body); err != nil {
				return
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(body, &m) != nil {
				continue
			}
			if _, isReq := m["method"]; isReq {
				if id, ok := m["id"]; ok {
					rs.sendNoFail(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, id))
				}
				continue
			}
			rs.msgs <- m
		}
	}()
	return rs
}

// send writes one message.
func (rs *rawSession) send(body string) {
	rs.t.Helper()
	require.NoError(rs.t, rs.sendNoFail(body))
}

func (rs *rawSession) sendNoFail(body string) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	_, err := fmt.Fprintf(rs.w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

// answer waits for the response to id.
func (rs *rawSession) answer(id string) map[string]json.RawMessage {
	rs.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m, ok := <-rs.msgs:
			require.True(rs.t, ok, "the server closed the connection before answering %s", id)
			if string(m["id"]) == id {
				return m
			}
		case <-timeout:
			rs.t.Fatalf("no answer to %s within 10s", id)
		}
	}
}

// end waits for Serve to return, and returns its result.
func (rs *rawSession) end() error {
	rs.t.Helper()
	select {
	case err := <-rs.served:
		rs.w.Close()
		return err
	case <-time.After(10 * time.Second):
		rs.t.Fatal("the server did not end within 10s")
		return nil
	}
}

func TestLifecycle(t *testing.T) {
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"rootUri":null}}`
	cases := []struct {
		name string
		// run sends the session's messages after initialize.
		run  func(rs *rawSession)
		want error
	}{
		{"shutdown with params null, then exit: status 0", func(rs *rawSession) {
			rs.send(`{"jsonrpc":"2.0","id":2,"method":"shutdown","params":null}`)
			m := rs.answer("2")
			assert.Equal(t, "null", string(m["result"]))
			assert.NotContains(t, m, "error")
			rs.send(`{"jsonrpc":"2.0","method":"exit","params":null}`)
		}, nil},
		{"shutdown and exit without params (Neovim): status 0", func(rs *rawSession) {
			rs.send(`{"jsonrpc":"2.0","id":"s","method":"shutdown"}`)
			rs.answer(`"s"`)
			rs.send(`{"jsonrpc":"2.0","method":"exit"}`)
		}, nil},
		{"exit without shutdown: status 1", func(rs *rawSession) {
			rs.send(`{"jsonrpc":"2.0","method":"exit"}`)
		}, ErrExitWithoutShutdown},
		{"the input ends: status 1", func(rs *rawSession) {
			rs.w.Close()
		}, ErrExitWithoutShutdown},
		{"requests after shutdown are refused; exit still ends it", func(rs *rawSession) {
			rs.send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
			rs.answer("2")
			rs.send(`{"jsonrpc":"2.0","id":3,"method":"workspace/symbol","params":{"query":""}}`)
			m := rs.answer("3")
			assert.Contains(t, string(m["error"]), `"code":-32600`)
			rs.send(`{"jsonrpc":"2.0","method":"exit"}`)
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs := newRawSession(t)
			rs.send(init)
			m := rs.answer("1")
			require.Contains(t, string(m["result"]), `"positionEncoding":"utf-16"`)
			rs.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
			tc.run(rs)
			err := rs.end()
			if tc.want == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, tc.want)
			}
		})
	}
}

func TestBeforeInitialize(t *testing.T) {
	rs := newRawSession(t)
	rs.send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///x.org","languageId":"org","version":1,"text":"* x"}}}`)
	rs.send(`{"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x.org"},"position":{"line":0,"character":0}}}`)
	m := rs.answer("7")
	assert.Contains(t, string(m["error"]), `"code":-32002`, "ServerNotInitialized")
	rs.send(`{"jsonrpc":"2.0","method":"exit"}`)
	assert.ErrorIs(t, rs.end(), ErrExitWithoutShutdown)
}

// TestNoGoroutineLeaks runs whole sessions — indexing, documents, a
// question cancelled, a plan filed — and checks that every goroutine the
// server started has ended once Serve returned.
func TestNoGoroutineLeaks(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 3 {
		t.Run("session", func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "memex")
			require.NoError(t, os.MkdirAll(root, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(root, "a.org"), []byte("* A\n:PROPERTIES:\n:ID: a\n:END:\n[[id:b]]\n"), 0o644))
			replay := filepath.Join(dir, "replay.jsonl")
			require.NoError(t, os.WriteFile(replay, []byte(`{"match":{},"repeat":true,"reply":{"text":"slow","pace_ms":3000}}`+"\n"), 0o644))
			env := map[string]string{"HOME": dir, "PASSEPARTOUT_DATA_DIR": filepath.Join(dir, "data"), "XDG_CONFIG_HOME": filepath.Join(dir, "config"),
				"PASSEPARTOUT_PROVIDERS": "replay:" + replay, "HEARTBEAT_INTERVAL": "1"}
			c := newTestClient(t, Options{Getenv: func(k string) string { return env[k] }, WorkDir: root})
			c.initialize(root, clientFull, json.RawMessage(`{"rescanInterval":1}`))
			a := filepath.Join(root, "a.org")
			c.open(a)
			c.edit(a, 0, 0, "x")
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			_ = protocol.Call(ctx, c.conn, protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": CommandAsk, "arguments": []any{map[string]any{"text": "hello"}}}, nil)
			cancel()
			require.NoError(t, c.shutdown())
		})
	}
	// The test client's own connection ends in Cleanup, after the subtest.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("%d goroutines before the sessions, %d after:\n%s", before, n, filterStacks(string(buf)))
	}
}

// filterStacks keeps the goroutines that run this module's code.
func filterStacks(all string) string {
	var keep []string
	for g := range strings.SplitSeq(all, "\n\n") {
		if strings.Contains(g, "pp-lsp/") && !strings.Contains(g, "TestNoGoroutineLeaks") {
			keep = append(keep, g)
		}
	}
	return strings.Join(keep, "\n\n")
}
