package lsp

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Work done progress (LSP's $/progress): the indexing of the memex, and
// the streamed answer of passepartout.ask. A token the client gave with
// its request is used as it is; otherwise, when the client says it shows
// progress (window.workDoneProgress), the server creates one with
// window/workDoneProgress/create — from a background goroutine or a
// released request handler, never from the read loop, which must stay
// free to read the client's answer. Without either, progress is silent.

// progressTokens maps the tokens of cancellable work to its cancel
// function, for window/workDoneProgress/cancel.
type progressTokens struct {
	mu   sync.Mutex
	m    map[string]context.CancelCauseFunc
	next atomic.Int64
}

func newProgressTokens() *progressTokens {
	return &progressTokens{m: map[string]context.CancelCauseFunc{}}
}

// tokenKey names a token unambiguously.
func tokenKey(t protocol.ProgressToken) string {
	switch t := t.(type) {
	case protocol.Integer:
		return fmt.Sprintf("#%d", int32(t))
	case protocol.String:
		return fmt.Sprintf("%q", string(t))
	}
	return ""
}

// progressParams is a $/progress notification.
type progressParams struct {
	Token protocol.ProgressToken `json:"token"`
	Value progressValue          `json:"value"`
}

// progressValue is a WorkDoneProgressBegin, Report or End.
type progressValue struct {
	Kind        string  `json:"kind"`
	Title       string  `json:"title,omitempty"`
	Cancellable *bool   `json:"cancellable,omitempty"`
	Message     string  `json:"message,omitempty"`
	Percentage  *uint32 `json:"percentage,omitempty"`
}

// reporter sends the progress of one piece of work; the zero reporter
// (no token) sends nothing.
type reporter struct {
	s     *Server
	token protocol.ProgressToken
	ended atomic.Bool
}

// beginProgress starts reporting on token (nil: a token of the server's
// own, when the client shows progress at all). A cancellable piece of
// work is cancelled through cancel when the user cancels it.
func (s *Server) beginProgress(ctx context.Context, token protocol.ProgressToken, title string, cancel context.CancelCauseFunc) *reporter {
	if tokenKey(token) == "" {
		s.mu.Lock()
		supported := s.client.workDoneProgress
		s.mu.Unlock()
		if !supported {
			return &reporter{}
		}
		token = protocol.String(fmt.Sprintf("pp-lsp/%d", s.progress.next.Add(1)))
		err := protocol.Call(ctx, s.conn, protocol.MethodWindowWorkDoneProgressCreate, map[string]any{"token": token}, nil)
		if err != nil {
			s.log.Warn("the client refused a progress token", "err", err)
			return &reporter{}
		}
	}
	r := &reporter{s: s, token: token}
	v := progressValue{Kind: "begin", Title: title, Cancellable: new(cancel != nil)}
	if cancel != nil {
		s.progress.mu.Lock()
		s.progress.m[tokenKey(token)] = cancel
		s.progress.mu.Unlock()
	}
	r.send(v)
	return r
}

// report sends a message, with a percentage when pct is not nil.
func (r *reporter) report(msg string, pct ...uint32) {
	if r.s == nil || r.ended.Load() {
		return
	}
	v := progressValue{Kind: "report", Message: msg}
	if len(pct) > 0 {
		v.Percentage = &pct[0]
	}
	r.send(v)
}

// end ends the progress, once.
func (r *reporter) end(msg string) {
	if r.s == nil || r.ended.Swap(true) {
		return
	}
	r.s.progress.mu.Lock()
	delete(r.s.progress.m, tokenKey(r.token))
	r.s.progress.mu.Unlock()
	r.send(progressValue{Kind: "end", Message: msg})
}

func (r *reporter) send(v progressValue) {
	r.s.notify(protocol.MethodProgress, progressParams{Token: r.token, Value: v})
}

// workDoneProgressCancel is window/workDoneProgress/cancel: the work
// behind the token is cancelled (an unknown token is no error).
func (s *Server) workDoneProgressCancel(_ context.Context, params jsonrpc2.RawMessage) error {
	var p protocol.WorkDoneProgressCancelParams
	if err := decode(protocol.MethodWindowWorkDoneProgressCancel, params, &p); err != nil {
		return err
	}
	s.progress.mu.Lock()
	c := s.progress.m[tokenKey(p.Token)]
	s.progress.mu.Unlock()
	if c != nil {
		c(errCancelledByClient)
	}
	return nil
}

// logMessage sends window/logMessage.
func (s *Server) logMessage(t protocol.MessageType, msg string) {
	s.notify(protocol.MethodWindowLogMessage, map[string]any{"type": t, "message": msg})
}

// showMessage sends window/showMessage (and logs it too).
func (s *Server) showMessage(t protocol.MessageType, msg string) {
	s.log.Info("message to the user", "text", msg)
	s.notify(protocol.MethodWindowShowMessage, map[string]any{"type": t, "message": msg})
}

// notify sends a notification; a connection already gone is no error.
func (s *Server) notify(method string, params any) {
	if s.conn == nil {
		return
	}
	ctx := s.bg
	if ctx == nil || ctx.Err() != nil {
		ctx = context.Background()
	}
	if err := s.conn.Notify(ctx, method, params); err != nil {
		s.log.Debug("a notification was not sent", "method", method, "err", err)
	}
}
