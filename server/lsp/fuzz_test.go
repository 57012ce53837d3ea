package lsp

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// FuzzMessages sends any JSON as the params of every request and
// notification the server serves, in one session: no input may panic the
// server, hang it or close the connection; each request gets an answer
// (a result or an error).
func FuzzMessages(f *testing.F) {
	dir := f.TempDir()
	root := filepath.Join(dir, "memex")
	require.NoError(f, os.MkdirAll(root, 0o755))
	a := filepath.Join(root, "a.org")
	require.NoError(f, os.WriteFile(a, []byte("* A\n:PROPERTIES:\n:ID: a\n:END:\n[[id:a]] [[*A]] 🎉\n"), 0o644))
	env := map[string]string{"HOME": dir, "PASSEPARTOUT_DATA_DIR": filepath.Join(dir, "data"), "XDG_CONFIG_HOME": filepath.Join(dir, "config"), "HEARTBEAT_INTERVAL": "3600"}
	// The server's log goes nowhere: a fuzz target may not log through f.
	c := newTestClient(f, Options{Getenv: func(k string) string { return env[k] }, WorkDir: root, Logger: slog.New(slog.DiscardHandler)})
	c.initialize(root, clientFull, nil)
	c.open(a)
	methods := []string{
		protocol.MethodTextDocumentDocumentSymbol, protocol.MethodWorkspaceSymbol, protocol.MethodTextDocumentDefinition,
		protocol.MethodTextDocumentReferences, protocol.MethodTextDocumentHover, protocol.MethodTextDocumentCompletion,
		protocol.MethodTextDocumentFoldingRange, protocol.MethodTextDocumentPrepareRename, protocol.MethodTextDocumentRename,
		protocol.MethodTextDocumentCodeAction, protocol.MethodWorkspaceExecuteCommand,
		"!" + protocol.MethodTextDocumentDidChange, "!" + protocol.MethodTextDocumentDidOpen, "!" + protocol.MethodTextDocumentDidClose,
		"!" + protocol.MethodWorkspaceDidChangeConfiguration, "!" + protocol.MethodWorkspaceDidChangeWatchedFiles,
		"!" + protocol.MethodCancelRequest, "!" + protocol.MethodWindowWorkDoneProgressCancel,
	}
	for _, seed := range []string{
		`{"textDocument":{"uri":"file://` + a + `"},"position":{"line":4,"character":3}}`,
		`{"textDocument":{"uri":"file://` + a + `"},"position":{"line":99,"character":4294967295}}`,
		`{"textDocument":{"uri":"file://` + a + `","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":9},"end":{"line":0,"character":0}},"text":"x"}]}`,
		`{"command":"passepartout.context","arguments":[{"uri":"file://` + a + `","position":{"line":0,"character":0},"budget":1}]}`,
		`{"command":"passepartout.approve","arguments":[{"id":"../../etc/passwd"}]}`,
		`null`, `[]`, `{"textDocument":{"uri":"http://example.org/x.org"}}`,
	} {
		for i := range methods {
			f.Add(uint8(i), []byte(seed))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, params []byte) {
		if !json.Valid(params) {
			return // never reaches the server: lsp/transport answers it (FuzzStream)
		}
		m := methods[int(which)%len(methods)]
		if m[0] == '!' {
			require.NoError(t, c.conn.Notify(c.ctx, m[1:], jsonrpc2.RawMessage(params)))
		} else {
			var raw jsonrpc2.RawMessage
			_ = c.callRaw(m, jsonrpc2.RawMessage(params), &raw) // an error answer is an answer
		}
		// The connection is alive: a plain request still gets its answer.
		var raw jsonrpc2.RawMessage
		require.NoError(t, c.callRaw(protocol.MethodWorkspaceSymbol, map[string]any{"query": "A"}, &raw))
	})
}
