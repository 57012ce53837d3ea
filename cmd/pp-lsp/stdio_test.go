package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"

	"pp-lsp/internal/testenv"
)

func TestStdioUsage(t *testing.T) {
	_, getenv := serveEnv(t)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"--tcp alone", []string{"--tcp", "127.0.0.1:0"}, 2, "--tcp needs --stdio"},
		{"stray argument", []string{"--stdio", "extra"}, 2, `unexpected argument "extra"`},
		{"unknown flag", []string{"--stdio", "--port", "1"}, 2, "--port: no such flag"},
		{"a remote bridge", []string{"--stdio", "--tcp", "192.0.2.1:7655"}, 2, "not on this machine's loopback"},
		{"help", []string{"--stdio", "-h"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: getenv}, tt.args)
			assert.Equal(t, tt.code, code, errb.String())
			assert.Contains(t, errb.String(), tt.msg)
			if tt.code != 0 {
				assert.Empty(t, out.String(), "stdout carries the protocol only")
			}
		})
	}
}

// lspPeer is the editor's end of `pp-lsp --stdio` run in-process.
type lspPeer struct {
	t    *testing.T
	in   *io.PipeWriter // the server's stdin
	out  *bufio.Reader  // the server's stdout
	logs *testenv.SyncBuffer
	code chan int
}

func startStdio(t *testing.T, getenv func(string) string, args ...string) *lspPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &lspPeer{t: t, in: inW, out: bufio.NewReader(outR), logs: &testenv.SyncBuffer{}, code: make(chan int, 1)}
	go func() {
		p.code <- run(context.Background(), &cli{stdin: inR, stdout: outW, stderr: p.logs, getenv: getenv}, append([]string{"--stdio"}, args...))
		outW.Close()
	}()
	return p
}

func (p *lspPeer) send(body string) {
	p.t.Helper()
	_, err := fmt.Fprintf(p.in, "Content-Length: %d\r\n\r\n%s", len(body), body)
	require.NoError(p.t, err)
}

// answer reads until the response to id, answering the server's requests
// with null.
func (p *lspPeer) answer(id string) map[string]json.RawMessage {
	p.t.Helper()
	tp := textproto.NewReader(p.out)
	for {
		h, err := tp.ReadMIMEHeader()
		require.NoError(p.t, err, p.logs.String())
		n, err := strconv.Atoi(h.Get("Content-Length"))
		require.NoError(p.t, err)
		body := make([]byte, n)
		_, err = io.ReadFull(p.out, body)
		require.NoError(p.t, err)
		var m map[string]json.RawMessage
		require.NoError(p.t, json.Unmarshal(body, &m))
		if _, isReq := m["method"]; isReq {
			if rid, ok := m["id"]; ok {
				p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, rid))
			}
			continue
		}
		if string(m["id"]) == id {
			return m
		}
	}
}

// exitCode ends the session and returns the process's exit status.
func (p *lspPeer) exitCode(shutdown bool) int {
	p.t.Helper()
	if shutdown {
		p.send(`{"jsonrpc":"2.0","id":99,"method":"shutdown","params":null}`)
		p.answer("99")
	}
	p.send(`{"jsonrpc":"2.0","method":"exit","params":null}`)
	go io.Copy(io.Discard, p.out) //nolint:errcheck // draining to the end
	select {
	case code := <-p.code:
		p.in.Close()
		return code
	case <-time.After(10 * time.Second):
		p.t.Fatal("pp-lsp --stdio did not exit")
		return -1
	}
}

func initialize(root string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":%q,"capabilities":{}}}`, uri.File(root))
}

func TestStdioExitStatus(t *testing.T) {
	for _, tc := range []struct {
		name     string
		shutdown bool
		code     int
	}{
		{"shutdown then exit", true, 0},
		{"exit without shutdown", false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, getenv := serveEnv(t)
			env["PASSEPARTOUT_DATA_DIR"] = filepath.Join(t.TempDir(), "data")
			root := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(root, "a.org"), []byte("* Heading\n"), 0o644))
			p := startStdio(t, getenv)
			p.send(initialize(root))
			m := p.answer("1")
			assert.Contains(t, string(m["result"]), `"name":"pp-lsp"`)
			p.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
			p.send(`{"jsonrpc":"2.0","id":2,"method":"workspace/symbol","params":{"query":"head"}}`)
			assert.Contains(t, string(p.answer("2")["result"]), `"name":"Heading"`)
			assert.Equal(t, tc.code, p.exitCode(tc.shutdown), p.logs.String())
		})
	}
}

// TestStdioWithTheBridge runs the language server with the bridge beside
// it: the bridge's :STATUS reports the memex the language server indexed,
// and a buffer's unsaved text, which only the language server was told,
// shows in the bridge's context: one memex for both protocols.
func TestStdioWithTheBridge(t *testing.T) {
	env, getenv := serveEnv(t)
	env["PASSEPARTOUT_DATA_DIR"] = filepath.Join(t.TempDir(), "data")
	root := t.TempDir()
	note := filepath.Join(root, "note.org")
	require.NoError(t, os.WriteFile(note, []byte("* On disk\n"), 0o644))
	p := startStdio(t, getenv, "--tcp", "127.0.0.1:0", "--log-level", "info", "--log-format", "text")
	p.send(initialize(root))
	p.answer("1")
	p.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"org","version":1,"text":"* Only in the buffer\n"}}}`, uri.File(note)))
	p.send(`{"jsonrpc":"2.0","id":2,"method":"workspace/symbol","params":{"query":"buffer"}}`)
	require.Contains(t, string(p.answer("2")["result"]), "Only in the buffer")

	addr := p.bridgeAddr()
	nc := dialBridge(t, addr, env)
	writeTestFrame(t, nc, `(:TYPE :REQUEST :META (:REQUEST-ID "s") :PAYLOAD (:ACTION :STATUS))`)
	assert.Contains(t, readTestFrame(t, nc), ":FILES 1 :HEADLINES 1")
	writeTestFrame(t, nc, fmt.Sprintf(`(:TYPE :REQUEST :META (:REQUEST-ID "c") :PAYLOAD (:ACTION :CONTEXT :FILE %q :LINE 1))`, note))
	assert.Contains(t, readTestFrame(t, nc), "Only in the buffer")

	assert.Equal(t, 0, p.exitCode(true), p.logs.String())
}

// bridgeAddr is where the bridge beside the language server listens, as
// its log says.
func (p *lspPeer) bridgeAddr() string {
	p.t.Helper()
	listening := regexp.MustCompile(`msg="bridge listening" addr=(\S+)`)
	var addr string
	require.Eventually(p.t, func() bool {
		if m := listening.FindStringSubmatch(p.logs.String()); m != nil {
			addr = m[1]
			return true
		}
		return false
	}, 10*time.Second, 10*time.Millisecond, "the bridge did not start: %s", p.logs.String())
	return addr
}

// TestStdioWithTheBridgeAndNoMemex: when the language server cannot open
// the memex its editor names, the bridge beside it still serves its own
// actions and answers the agent's with why; the shutdown ends both.
func TestStdioWithTheBridgeAndNoMemex(t *testing.T) {
	env, getenv := serveEnv(t)
	env["PASSEPARTOUT_DATA_DIR"] = filepath.Join(t.TempDir(), "data")
	p := startStdio(t, getenv, "--tcp", "127.0.0.1:0", "--log-level", "info", "--log-format", "text")
	p.send(initialize(filepath.Join(t.TempDir(), "no-such-folder")))
	p.answer("1")
	p.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)

	addr := p.bridgeAddr()
	nc := dialBridge(t, addr, env)
	writeTestFrame(t, nc, `(:TYPE :REQUEST :META (:REQUEST-ID "p") :PAYLOAD (:ACTION :PING))`)
	assert.Contains(t, readTestFrame(t, nc), `:TEXT "pong"`)
	writeTestFrame(t, nc, `(:TYPE :REQUEST :META (:REQUEST-ID "l") :PAYLOAD (:ACTION :PLANS))`)
	got := readTestFrame(t, nc)
	assert.Contains(t, got, ":STATUS :ERROR")
	assert.Contains(t, got, "pp-lsp could not open the memex")
	assert.Contains(t, got, "no-such-folder")

	assert.Equal(t, 0, p.exitCode(true), p.logs.String())
	require.NoError(t, nc.SetReadDeadline(time.Now().Add(5*time.Second)))
	_, err := io.ReadAll(nc)
	assert.NoError(t, err, "the bridge closes its connections when the language server ends")
}
