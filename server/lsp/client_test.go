package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// The test client drives an in-process Server over a pair of pipes with a
// real jsonrpc2 connection, as an editor would: it keeps its own copy of
// every open document (converting offsets to UTF-16 positions itself,
// independently of orgast), answers the server's requests
// (workspace/configuration, client/registerCapability,
// window/workDoneProgress/create, workspace/applyEdit — applying the edit
// to its copy and sending didChange, as eglot and Neovim do) and records
// every notification.

// clientKind chooses the capabilities the client announces.
type clientKind string

const (
	// clientFull announces everything the server can use.
	clientFull clientKind = "full"
	// clientEglot announces what eglot 1.9 does: no progress, file
	// watching by dynamic registration, workspace/configuration.
	clientEglot clientKind = "eglot"
	// clientNvim announces what Neovim 0.7 does: progress, no file
	// watching, no workspace/configuration, no documentChanges.
	clientNvim clientKind = "nvim"
)

func capabilities(k clientKind) map[string]any {
	full := map[string]any{
		"workspace": map[string]any{
			"applyEdit": true, "workspaceEdit": map[string]any{"documentChanges": true},
			"configuration": true, "didChangeWatchedFiles": map[string]any{"dynamicRegistration": true},
			"workspaceFolders": true,
		},
		"textDocument": map[string]any{
			"hover":              map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
			"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
			"publishDiagnostics": map[string]any{"relatedInformation": true},
			"codeAction":         map[string]any{"codeActionLiteralSupport": map[string]any{"codeActionKind": map[string]any{"valueSet": []string{"quickfix", "refactor.rewrite"}}}},
			"rename":             map[string]any{"prepareSupport": true},
		},
		"window": map[string]any{"workDoneProgress": true},
	}
	switch k {
	case clientEglot:
		full["window"] = map[string]any{}
		full["textDocument"].(map[string]any)["hover"] = map[string]any{"contentFormat": []string{"plaintext"}}
		full["textDocument"].(map[string]any)["rename"] = map[string]any{}
	case clientNvim:
		full["workspace"] = map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{"resourceOperations": []string{"rename", "create", "delete"}}, "workspaceFolders": true}
	}
	return full
}

// clientDoc is the client's copy of an open document.
type clientDoc struct {
	text    string
	version int32
	// saved is the text as last opened, saved or reloaded: the buffer is
	// modified when text differs.
	saved string
}

// note is one notification the server sent.
type note struct {
	method string
	params json.RawMessage
	at     time.Time
}

type testClient struct {
	t      testing.TB
	ctx    context.Context
	conn   jsonrpc2.Conn
	srv    *Server
	served chan error
	root   string // the workspace folder

	mu       sync.Mutex
	docs     map[string]*clientDoc // by path
	notes    []note
	diags    map[string]publishParams // latest, by path
	config   json.RawMessage          // the answer to workspace/configuration
	requests []note                   // the server's requests, in order
	// edits is how the client answers workspace/applyEdit: "" applies
	// the edit; "decline" answers applied: false; "cancel" answers an
	// error, as eglot does when the user says no ("User cancelled server
	// edit"); "quit" never answers, as eglot after C-g at its prompt.
	edits string
	// quit is closed when the test ends (a "quit" answer then ends).
	quit    chan struct{}
	changed chan struct{} // closed and replaced on every notification
	// wrote are the files applyWorkspaceEdit changed on disk, for the
	// scenario's file watcher.
	wrote []string
	// sent are the client's calls, in order.
	sent []sentCall
	// onEdit, when set, is called after the client applied a workspace
	// edit (the scenario shifts its markers).
	onEdit func(path string, start, end int, text string)
}

// pipeConn joins a reader and a writer into one connection.
type pipeConn struct {
	io.Reader
	io.Writer
	closers []io.Closer
}

func (p pipeConn) Close() error {
	for _, c := range p.closers {
		c.Close()
	}
	return nil
}

// newTestClient starts a server with opts and connects a client; it does
// not initialize.
func newTestClient(t testing.TB, opts Options) *testClient {
	t.Helper()
	// Pipes of the system, as an editor's stdio is: each end's writes
	// are buffered while the other is busy writing too (io.Pipe's are not,
	// and a server logging to a client sending it a request would wait on
	// each other for ever, as FuzzMessages found).
	c2sR, c2sW, err := os.Pipe()
	require.NoError(t, err)
	s2cR, s2cW, err := os.Pipe()
	require.NoError(t, err)
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	srv := New(opts)
	ctx, cancel := context.WithCancel(context.Background())
	c := &testClient{t: t, ctx: ctx, srv: srv, served: make(chan error, 1), docs: map[string]*clientDoc{},
		diags: map[string]publishParams{}, changed: make(chan struct{}), quit: make(chan struct{})}
	go func() {
		c.served <- srv.Serve(ctx, pipeConn{Reader: c2sR, Writer: s2cW, closers: []io.Closer{c2sR, s2cW}})
	}()
	stream := jsonrpc2.NewStream(pipeConn{Reader: s2cR, Writer: recordingWriter{w: c2sW, c: c}, closers: []io.Closer{s2cR, c2sW}})
	c.conn = jsonrpc2.NewConn(stream, jsonrpc2.WithCodec(codec{}))
	c.conn.Go(ctx, c.handle)
	t.Cleanup(func() {
		close(c.quit)
		c.conn.Close()
		cancel()
		select {
		case <-c.served:
		case <-time.After(10 * time.Second):
			t.Errorf("the server did not stop within 10s of its client leaving")
		}
	})
	return c
}

// testWriter sends the server's log to the test's.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// handle answers the server's requests and records its notifications.
func (c *testClient) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	n := note{method: strings.Clone(req.Method()), params: append(json.RawMessage(nil), req.Params()...), at: time.Now()}
	if !req.IsCall() {
		c.mu.Lock()
		c.notes = append(c.notes, n)
		if n.method == protocol.MethodTextDocumentPublishDiagnostics {
			var p publishParams
			if err := json.Unmarshal(n.params, &p); err == nil {
				c.diags[uriPath(p.URI)] = p
			}
		}
		close(c.changed)
		c.changed = make(chan struct{})
		c.mu.Unlock()
		if n.method == MethodReload {
			c.reload(n.params)
		}
		return nil, nil
	}
	c.mu.Lock()
	c.requests = append(c.requests, n)
	config, edits := c.config, c.edits
	c.mu.Unlock()
	switch n.method {
	case protocol.MethodWorkspaceConfiguration:
		if config == nil {
			config = json.RawMessage("null")
		}
		return []json.RawMessage{config}, nil
	case protocol.MethodClientRegisterCapability, protocol.MethodWindowWorkDoneProgressCreate:
		return nil, nil
	case protocol.MethodWorkspaceApplyEdit:
		switch edits {
		case "decline":
			return map[string]any{"applied": false, "failureReason": "the user declined"}, nil
		case "cancel":
			return nil, &jsonrpc2.Error{Code: jsonrpc2.InternalError, Message: "User cancelled server edit"}
		case "quit":
			jsonrpc2.Async(ctx)
			<-c.quit
			return nil, errors.New("the test ended")
		}
		var p struct {
			Edit json.RawMessage `json:"edit"`
		}
		if err := json.Unmarshal(n.params, &p); err != nil {
			return nil, err
		}
		if err := c.applyWorkspaceEdit(p.Edit); err != nil {
			return map[string]any{"applied": false, "failureReason": err.Error()}, nil
		}
		return map[string]any{"applied": true}, nil
	}
	return nil, jsonrpc2.ErrMethodNotFound
}

func uriPath(u uri.URI) string {
	p, err := pathOf(u)
	if err != nil {
		return string(u)
	}
	return p
}

// call sends a request and decodes its result into out (nil: discard).
func (c *testClient) call(method string, params, out any) error {
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	var raw json.RawMessage
	_, err := c.conn.Call(ctx, method, params, &raw)
	if err != nil {
		return err
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// callRaw sends a request and keeps its result as the bytes received.
func (c *testClient) callRaw(method string, params any, out *jsonrpc2.RawMessage) error {
	ctx, cancel := context.WithTimeout(c.ctx, 30*time.Second)
	defer cancel()
	_, err := c.conn.Call(ctx, method, params, out)
	return err
}

func (c *testClient) mustCall(method string, params, out any) {
	c.t.Helper()
	require.NoError(c.t, c.call(method, params, out), method)
}

func (c *testClient) notify(method string, params any) {
	c.t.Helper()
	require.NoError(c.t, c.conn.Notify(c.ctx, method, params), method)
}

// initialize starts the session on root with the given initialization
// options and capabilities, and waits until the memex is indexed.
func (c *testClient) initialize(root string, kind clientKind, initOptions json.RawMessage) {
	c.t.Helper()
	c.root = root
	params := map[string]any{
		"processId": os.Getpid(), "clientInfo": map[string]string{"name": "test-" + string(kind)},
		"rootUri": string(uri.File(root)), "capabilities": capabilities(kind),
		"workspaceFolders": []map[string]string{{"uri": string(uri.File(root)), "name": filepath.Base(root)}},
	}
	if initOptions != nil {
		params["initializationOptions"] = initOptions
	}
	var res initializeResult
	c.mustCall(protocol.MethodInitialize, params, &res)
	require.Equal(c.t, "utf-16", res.Capabilities.PositionEncoding)
	c.notify(protocol.MethodInitialized, map[string]any{})
	c.waitReady()
}

// waitReady waits for the memex.
func (c *testClient) waitReady() {
	c.t.Helper()
	select {
	case <-c.srv.ready:
	case <-time.After(30 * time.Second):
		c.t.Fatal("the memex was not indexed within 30s")
	}
}

// shutdown ends the session properly and returns Serve's result.
func (c *testClient) shutdown() error {
	c.t.Helper()
	c.mustCall(protocol.MethodShutdown, nil, nil)
	return c.shutdownExit()
}

// shutdownExit sends exit after shutdown and waits for Serve to return.
func (c *testClient) shutdownExit() error {
	c.t.Helper()
	c.notify(protocol.MethodExit, nil)
	select {
	case err := <-c.served:
		c.served <- err
		return err
	case <-time.After(10 * time.Second):
		c.t.Fatal("the server did not exit within 10s")
		return nil
	}
}

// open sends didOpen with the file's text on disk.
func (c *testClient) open(path string) {
	c.t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(c.t, err)
	c.openText(path, string(data))
}

func (c *testClient) openText(path, text string) {
	c.t.Helper()
	c.mu.Lock()
	c.docs[path] = &clientDoc{text: text, version: 1, saved: text}
	c.mu.Unlock()
	c.notify(protocol.MethodTextDocumentDidOpen, map[string]any{"textDocument": map[string]any{
		"uri": uri.File(path), "languageId": "org", "version": 1, "text": text}})
}

func (c *testClient) closeDoc(path string) {
	c.t.Helper()
	c.mu.Lock()
	delete(c.docs, path)
	c.mu.Unlock()
	c.notify(protocol.MethodTextDocumentDidClose, map[string]any{"textDocument": map[string]any{"uri": uri.File(path)}})
}

// text is the client's copy of an open document.
func (c *testClient) text(path string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.docs[path]
	if !ok {
		return "", false
	}
	return d.text, true
}

// saved records that the open document was saved: its text is the disk's.
func (c *testClient) saved(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.docs[path]; ok {
		d.saved = d.text
	}
}

// reload serves passepartout/reload as the editor plugins do: an open,
// unmodified buffer reads its file again (one didChange of the lines
// that differ); a modified one is left alone.
func (c *testClient) reload(params json.RawMessage) {
	var p struct {
		URI uri.URI `json:"uri"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return
	}
	path := uriPath(p.URI)
	c.mu.Lock()
	d, ok := c.docs[path]
	if !ok || d.text != d.saved {
		c.mu.Unlock()
		return
	}
	old := d.text
	onEdit := c.onEdit
	c.mu.Unlock()
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	now := string(data)
	pre := 0
	for pre < len(old) && pre < len(now) && old[pre] == now[pre] {
		pre++
	}
	suf := 0
	for suf < len(old)-pre && suf < len(now)-pre && old[len(old)-1-suf] == now[len(now)-1-suf] {
		suf++
	}
	c.edit(path, pre, len(old)-suf, now[pre:len(now)-suf])
	c.saved(path)
	if onEdit != nil {
		onEdit(path, pre, len(old)-suf, now[pre:len(now)-suf])
	}
}

// edit replaces text[start:end] of the open document (byte offsets) and
// sends the incremental didChange, positions in UTF-16.
func (c *testClient) edit(path string, start, end int, text string) {
	c.t.Helper()
	c.mu.Lock()
	d, ok := c.docs[path]
	require.True(c.t, ok, "%s is not open", path)
	r := map[string]any{"start": utf16Pos(d.text, start), "end": utf16Pos(d.text, end)}
	d.text = d.text[:start] + text + d.text[end:]
	d.version++
	v := d.version
	c.mu.Unlock()
	c.notify(protocol.MethodTextDocumentDidChange, map[string]any{
		"textDocument":   map[string]any{"uri": uri.File(path), "version": v},
		"contentChanges": []map[string]any{{"range": r, "text": text}}})
}

// utf16Pos is the LSP position of a byte offset: 0-based line, UTF-16
// column (lines end with \n).
func utf16Pos(text string, off int) protocol.Position {
	line := strings.Count(text[:off], "\n")
	ls := strings.LastIndexByte(text[:off], '\n') + 1
	col := 0
	for _, r := range text[ls:off] {
		col += utf16.RuneLen(r)
	}
	return protocol.Position{Line: uint32(line), Character: uint32(col)}
}

// utf16Offset is the byte offset of an LSP position (the inverse).
func utf16Offset(text string, p protocol.Position) int {
	off := 0
	for range p.Line {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	col := 0
	for off < len(text) && text[off] != '\n' && col < int(p.Character) {
		r, n := utf8.DecodeRuneInString(text[off:])
		col += utf16.RuneLen(r)
		off += n
	}
	return off
}

// wireEdit is a WorkspaceEdit as the client reads it.
type wireEdit struct {
	Changes         map[string][]protocol.TextEdit `json:"changes"`
	DocumentChanges []struct {
		TextDocument struct {
			URI     string `json:"uri"`
			Version *int32 `json:"version"`
		} `json:"textDocument"`
		Edits []protocol.TextEdit `json:"edits"`
	} `json:"documentChanges"`
}

// applyWorkspaceEdit applies a WorkspaceEdit to the open documents (and
// to files on disk, for documents not open) the way an editor does, and
// sends didChange for each document it changed.
func (c *testClient) applyWorkspaceEdit(raw json.RawMessage) error {
	var we wireEdit
	if err := json.Unmarshal(raw, &we); err != nil {
		return err
	}
	type fileEdits struct {
		path    string
		version *int32
		edits   []protocol.TextEdit
	}
	var all []fileEdits
	for _, dc := range we.DocumentChanges {
		all = append(all, fileEdits{uriPath(uri.URI(dc.TextDocument.URI)), dc.TextDocument.Version, dc.Edits})
	}
	for _, u := range slices.Sorted(maps.Keys(we.Changes)) {
		all = append(all, fileEdits{uriPath(uri.URI(u)), nil, we.Changes[u]})
	}
	for _, fe := range all {
		c.mu.Lock()
		d, open := c.docs[fe.path]
		c.mu.Unlock()
		if open && fe.version != nil && *fe.version != d.version {
			return fmt.Errorf("edits on %s require version %d, the buffer is at %d", fe.path, *fe.version, d.version)
		}
		text := ""
		if open {
			text = d.text
		} else {
			data, err := os.ReadFile(fe.path)
			if err != nil {
				return err
			}
			text = string(data)
		}
		// Apply from the end, so that earlier offsets stay valid.
		edits := slices.Clone(fe.edits)
		slices.SortFunc(edits, func(a, b protocol.TextEdit) int {
			return utf16Offset(text, b.Range.Start) - utf16Offset(text, a.Range.Start)
		})
		for _, e := range edits {
			s, en := utf16Offset(text, e.Range.Start), utf16Offset(text, e.Range.End)
			if open {
				c.edit(fe.path, s, en, e.NewText)
				c.mu.Lock()
				text = c.docs[fe.path].text
				onEdit := c.onEdit
				c.mu.Unlock()
				if onEdit != nil {
					onEdit(fe.path, s, en, e.NewText)
				}
				continue
			}
			text = text[:s] + e.NewText + text[en:]
		}
		if !open {
			if err := os.WriteFile(fe.path, []byte(text), 0o644); err != nil {
				return err
			}
			c.mu.Lock()
			c.wrote = append(c.wrote, fe.path)
			c.mu.Unlock()
		}
	}
	return nil
}

// waitFor waits until cond holds over the notifications, or fails.
func (c *testClient) waitFor(what string, timeout time.Duration, cond func() bool) {
	c.t.Helper()
	deadline := time.After(timeout)
	for {
		c.mu.Lock()
		ch := c.changed
		c.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			c.t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
	}
}

// notesOf returns the notifications of one method so far ("": all).
func (c *testClient) notesOf(method string) []note {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []note
	for _, n := range c.notes {
		if method == "" || n.method == method {
			out = append(out, n)
		}
	}
	return out
}

// diagnosticsOf returns the latest diagnostics published for path.
func (c *testClient) diagnosticsOf(path string) (publishParams, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.diags[path]
	return p, ok
}

// docVersion is the client's version of an open document.
func (c *testClient) docVersion(path string) int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.docs[path]; ok {
		return d.version
	}
	return 0
}

// sentCall is a call the client sent.
type sentCall struct {
	method string
	id     jsonrpc2.ID
}

// recordingWriter notes the id of every call the client writes, so that a
// test can cancel one by its id. The framer writes each message with one
// Write: a header, a blank line, the JSON.
type recordingWriter struct {
	w io.Writer
	c *testClient
}

func (r recordingWriter) Write(p []byte) (int, error) {
	if i := bytes.Index(p, []byte("\r\n\r\n")); i >= 0 {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(p[i+4:], &m) == nil && m.Method != "" && len(m.ID) > 0 {
			var id jsonrpc2.ID
			var n int64
			var str string
			if json.Unmarshal(m.ID, &n) == nil {
				id = jsonrpc2.NewNumberID(n)
			} else if json.Unmarshal(m.ID, &str) == nil {
				id = jsonrpc2.NewStringID(str)
			}
			r.c.mu.Lock()
			r.c.sent = append(r.c.sent, sentCall{m.Method, id})
			r.c.mu.Unlock()
		}
	}
	return r.w.Write(p)
}

// lastCall is the id of the latest call of method.
func (c *testClient) lastCall(method string) (jsonrpc2.ID, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.sent) - 1; i >= 0; i-- {
		if c.sent[i].method == method {
			return c.sent[i].id, true
		}
	}
	return jsonrpc2.ID{}, false
}
