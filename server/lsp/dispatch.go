package lsp

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// The connection reads one message at a time and calls handle inline, in
// wire order (jsonrpc2 v1's default). This is how the server keeps the
// promises DESIGN §10 says protocol.NewServer breaks:
//
//   - A notification is applied inline, before the next message is read,
//     so a request always sees every notification sent before it. Its
//     failure is logged, never returned (a notification error would close
//     the connection), and an unknown notification is ignored.
//   - A request captures its view (the memex snapshot and the open
//     documents) inline, then releases the read loop (jsonrpc2.Async) and
//     runs concurrently with later messages, so a slow request never holds
//     up typing, and a handler may call the client and wait for its answer
//     without deadlocking the read loop that will deliver it.
//   - $/cancelRequest cancels the request's context, and a cancelled
//     request answers RequestCancelled (-32800).
//   - "params": null, or none, is read as the zero value of the params.
//   - A panic in a handler answers InternalError (a notification's is
//     dropped) and is logged; the connection stays up. Malformed messages
//     never reach handle: the transport (package transport) answers them.

// call is how one request method is served.
type call struct {
	// serve answers the request in the view captured when it arrived.
	serve func(ctx context.Context, v *view, params jsonrpc2.RawMessage) (any, error)
	// inline serves the request on the read loop, before the next message:
	// initialize, whose answer must precede whatever the client sends next.
	inline bool
	// memex waits until the memex is indexed before serving.
	memex bool
}

// calls maps the request methods the server answers.
func (s *Server) callTable() map[string]call {
	return map[string]call{
		protocol.MethodInitialize:                 {serve: s.initialize, inline: true},
		protocol.MethodShutdown:                   {serve: s.shutdownRequest},
		protocol.MethodTextDocumentDocumentSymbol: {serve: s.documentSymbol, memex: true},
		protocol.MethodWorkspaceSymbol:            {serve: s.workspaceSymbol, memex: true},
		protocol.MethodTextDocumentDefinition:     {serve: s.definition, memex: true},
		protocol.MethodTextDocumentReferences:     {serve: s.references, memex: true},
		protocol.MethodTextDocumentHover:          {serve: s.hover, memex: true},
		protocol.MethodTextDocumentCompletion:     {serve: s.completion, memex: true},
		protocol.MethodTextDocumentFoldingRange:   {serve: s.foldingRanges, memex: true},
		protocol.MethodTextDocumentPrepareRename:  {serve: s.prepareRename, memex: true},
		protocol.MethodTextDocumentRename:         {serve: s.rename, memex: true},
		protocol.MethodTextDocumentCodeAction:     {serve: s.codeAction, memex: true},
		protocol.MethodWorkspaceExecuteCommand:    {serve: s.executeCommand, memex: true},
		protocol.MethodTextDocumentCodeLens:       {serve: s.codeLenses, memex: true},
		protocol.MethodTextDocumentDocumentLink:   {serve: s.documentLinks, memex: true},
		"workspace/willRenameFiles":               {serve: s.willRenameFiles, memex: true},
	}
}

// notificationTable maps the notifications the server acts on; the rest
// are ignored.
func (s *Server) notificationTable() map[string]func(ctx context.Context, params jsonrpc2.RawMessage) error {
	return map[string]func(ctx context.Context, params jsonrpc2.RawMessage) error{
		protocol.MethodInitialized:                        s.initializedNote,
		protocol.MethodExit:                               s.exitNote,
		protocol.MethodTextDocumentDidOpen:                s.didOpen,
		protocol.MethodTextDocumentDidChange:              s.didChange,
		protocol.MethodTextDocumentDidSave:                s.didSave,
		protocol.MethodTextDocumentDidClose:               s.didClose,
		protocol.MethodWorkspaceDidChangeConfiguration:    s.didChangeConfiguration,
		protocol.MethodWorkspaceDidChangeWatchedFiles:     s.didChangeWatchedFiles,
		protocol.MethodCancelRequest:                      s.cancelRequest,
		protocol.MethodWindowWorkDoneProgressCancel:       s.workDoneProgressCancel,
		protocol.MethodWorkspaceDidChangeWorkspaceFolders: s.didChangeWorkspaceFolders,
	}
}

// handle is the connection's one handler. Nothing that happens in it can
// end the connection (jsonrpc2 fails the connection when a handler panics,
// when a notification returns an error, or when a result does not encode):
// a panic fails only its request, with InternalError, and the result is
// encoded here, where a failure is that request's error too.
func (s *Server) handle(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
	// The method borrows the transport's buffer until the handler returns
	// or releases itself: keep a copy.
	method := strings.Clone(req.Method())
	call := req.IsCall()
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("a handler panicked", "method", method, "panic", r, "stack", string(debug.Stack()))
			result, err = nil, nil
			if call {
				err = jsonrpc2.Errorf(jsonrpc2.InternalError, "the server failed on %s; see its log", method)
			}
		}
	}()
	if !call {
		// The request's own context is pooled and recycled when the
		// handler returns; whatever outlives it (a context derived by the
		// memex) must hang off the connection's instead.
		s.notification(jsonrpc2.DetachContext(ctx), method, req.Params())
		return nil, nil
	}
	result, err = s.request(ctx, req, method)
	if err != nil {
		return nil, err
	}
	raw, err := codec{}.Marshal(result)
	if err != nil {
		s.log.Error("a result does not encode", "method", method, "err", err)
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "the server could not encode its answer to %s; see its log", method)
	}
	return jsonrpc2.RawMessage(raw), nil
}

// notification applies one notification inline. Nothing it does can fail
// the connection.
func (s *Server) notification(ctx context.Context, method string, params jsonrpc2.RawMessage) {
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	if state == stateNew && method != protocol.MethodExit {
		return // before initialize only exit counts (LSP lifecycle)
	}
	if method != protocol.MethodTextDocumentDidChange {
		s.flushAll(ctx) // every notification sees the edits before it
	}
	h, ok := s.notes[method]
	if !ok {
		s.log.Debug("ignoring a notification", "method", method)
		return
	}
	if err := h(ctx, params); err != nil {
		s.log.Warn("a notification could not be applied", "method", method, "err", err)
		s.logMessage(protocol.MessageTypeWarning, fmt.Sprintf("%s: %v", method, err))
	}
}

// request serves one call.
func (s *Server) request(ctx context.Context, req *jsonrpc2.Request, method string) (result any, err error) {
	// The server cancels requests itself ($/cancelRequest, shutdown), so
	// their contexts hang off the connection's, not off the pooled
	// per-request one.
	key := idKey(req.ID())
	rctx, cancel := context.WithCancelCause(context.WithValue(jsonrpc2.DetachContext(ctx), requestKey{}, key))
	defer cancel(nil)
	c, ok := s.calls[method]
	// A request is admitted, and counted as running, under the lock the
	// server's end takes to stop admitting them: every request admitted
	// is one that end waits for.
	s.mu.Lock()
	state := s.state
	switch {
	case state == stateNew && method != protocol.MethodInitialize:
		err = jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "the server is not initialized yet: send initialize first")
	case state != stateNew && method == protocol.MethodInitialize:
		err = jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already received")
	case state == stateShutdown:
		err = jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shutting down: only exit is accepted")
	case !ok:
		err = jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "the method %s is not served", method)
	default:
		s.running.add(key, cancel)
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	defer s.running.remove(key)

	s.flushAll(jsonrpc2.DetachContext(ctx)) // the view holds every edit sent before the request
	var v *view
	if !c.memex || s.isReady() {
		v = s.view()
	}
	// The params borrow the transport's buffer too: read them only after
	// Async, which clones them in place.
	if !c.inline {
		jsonrpc2.Async(ctx)
	}
	params := req.Params()
	if v == nil {
		if err := s.waitReady(rctx); err != nil {
			return nil, s.cancelled(rctx, err)
		}
		v = s.view()
	}
	result, err = c.serve(rctx, v, params)
	if rctx.Err() != nil {
		return nil, s.cancelled(rctx, err)
	}
	return result, rpcError(err)
}

// cancelled is the answer of a request whose context ended: RequestCancelled
// when the client cancelled it, the error otherwise.
func (s *Server) cancelled(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); errors.Is(cause, errCancelledByClient) || errors.Is(cause, errServerEnding) || errors.Is(cause, context.Canceled) {
		return protocol.ErrRequestCancelled
	}
	return rpcError(err)
}

// errCancelledByClient is the cause of a request cancelled by $/cancelRequest.
var errCancelledByClient = errors.New("the client cancelled the request")

// cancelRequest is $/cancelRequest: the request's context ends. A request
// that already finished (or never was) is no error.
func (s *Server) cancelRequest(_ context.Context, params jsonrpc2.RawMessage) error {
	var p protocol.CancelParams
	if err := decode(protocol.MethodCancelRequest, params, &p); err != nil {
		return err
	}
	switch id := p.ID.(type) {
	case protocol.Integer:
		s.running.cancel(idKey(jsonrpc2.NewNumberID(int64(id))))
	case protocol.String:
		s.running.cancel(idKey(jsonrpc2.NewStringID(string(id))))
	}
	return nil
}

// idKey names a request id unambiguously (a string and a number never
// collide).
func idKey(id jsonrpc2.ID) string { return fmt.Sprintf("%q", id) }

// inflight holds the running requests: their cancel functions, and a
// channel each closes when its handler has returned, so that the server's
// end waits for them (drain) before it closes the agent and the memex.
type inflight struct {
	mu sync.Mutex
	m  map[string]running
}

type running struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
}

func newInflight() *inflight { return &inflight{m: map[string]running{}} }

func (f *inflight) add(key string, c context.CancelCauseFunc) {
	f.mu.Lock()
	f.m[key] = running{cancel: c, done: make(chan struct{})}
	f.mu.Unlock()
}

func (f *inflight) remove(key string) {
	f.mu.Lock()
	if r, ok := f.m[key]; ok {
		close(r.done)
		delete(f.m, key)
	}
	f.mu.Unlock()
}

func (f *inflight) cancel(key string) {
	f.mu.Lock()
	r, ok := f.m[key]
	f.mu.Unlock()
	if ok {
		r.cancel(errCancelledByClient)
	}
}

// drain cancels every running request but the one of key (the shutdown
// request itself; "" for none) and waits until their handlers have
// returned, for at most bound; false when some were still running then.
// The caller has stopped admitting requests first.
func (f *inflight) drain(key string, bound time.Duration) bool {
	f.mu.Lock()
	var wait []chan struct{}
	for k, r := range f.m {
		if k != key {
			r.cancel(errServerEnding)
			wait = append(wait, r.done)
		}
	}
	f.mu.Unlock()
	t := time.NewTimer(bound)
	defer t.Stop()
	for _, done := range wait {
		select {
		case <-done:
		case <-t.C:
			return false
		}
	}
	return true
}

// errServerEnding is the cause of a request cancelled because the server
// is shutting down.
var errServerEnding = errors.New("the server is shutting down")

// drainBound is how long the server's end waits for the requests it
// cancelled to return.
const drainBound = 5 * time.Second

// requestKey is the context key of a request's own key in inflight.
type requestKey struct{}
