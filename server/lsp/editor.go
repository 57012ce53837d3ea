package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"pp-lsp/server/workspace"
)

// editor is the language server as the agent's workspace.Workspace: the
// buffers the client has open, and workspace/applyEdit to change them.
type editor struct{ s *Server }

var _ workspace.Workspace = editor{}

// OpenDocument returns the buffer open on path: its text and version as
// the last didOpen/didChange left them.
func (e editor) OpenDocument(path string) (workspace.Document, bool) {
	path = filepath.Clean(path)
	d, ok := e.s.docs.get(path)
	if !ok {
		return workspace.Document{}, false
	}
	if !d.memex {
		return workspace.Document{Text: bytes.Clone(d.loose.Org().Src), Version: d.version}, true
	}
	mx := e.s.memex()
	if mx == nil {
		return workspace.Document{}, false
	}
	// Text and version from one snapshot: the pair the memex recorded.
	snap := mx.Snapshot()
	n, ok := snap.File(path)
	if !ok {
		return workspace.Document{}, false
	}
	v, ok := snap.BufferVersion(path)
	if !ok {
		v = d.version
	}
	return workspace.Document{Text: bytes.Clone(n.Org().Src), Version: v}, true
}

// applyWait bounds how long ApplyEdit waits for the editor's didChange
// after it applied an edit.
const applyWait = 3 * time.Second

// ApplyEdit sends workspace/applyEdit and reports whether the editor
// applied the edit. For an open buffer it then waits (a moment, at most)
// until the editor's didChange has brought the buffer here to the edited
// text, so that whoever reads the buffer next — and the version the next
// edit names — sees the change. The caller is never the read loop (the
// agent's own goroutines, or a released request handler).
func (e editor) ApplyEdit(ctx context.Context, edit workspace.Edit) (bool, error) {
	e.s.mu.Lock()
	supported := e.s.client.applyEdit
	e.s.mu.Unlock()
	if !supported {
		return false, errors.New("the editor does not apply workspace edits (workspace.applyEdit)")
	}
	we, err := workspaceEdit(edit)
	if err != nil {
		return false, err
	}
	want, err := edit.Apply()
	if err != nil {
		return false, err
	}
	return e.s.applyEdit(ctx, edit.Label, we, map[string][]byte{filepath.Clean(edit.Path): want})
}

// applyResult is the answer to workspace/applyEdit.
type applyResult struct {
	Applied       bool   `json:"applied"`
	FailureReason string `json:"failureReason,omitempty"`
}

// applyEdit asks the editor to apply we and, when it did, waits until the
// open buffers in want hold their expected text. The wait for the
// editor's answer is bounded (the applyEditTimeout setting, 30 s): an
// editor asking its user may never answer — eglot sends nothing when the
// user quits its prompt with C-g — and whoever waits may hold the lock
// that every action needs. The editor refusing — applied: false, or an
// error answer such as eglot's "User cancelled server edit" or a version
// it no longer has — is "not applied", not a failure; no answer in time
// is an error that says so (the request is cancelled).
func (s *Server) applyEdit(ctx context.Context, label string, we protocol.WorkspaceEdit, want map[string][]byte) (bool, error) {
	s.mu.Lock()
	limit := s.settings.applyEditTimeout()
	s.mu.Unlock()
	var res applyResult
	params := map[string]any{"label": label, "edit": we}
	callCtx, cancel := context.WithTimeout(ctx, limit)
	err := protocol.Call(callCtx, s.conn, protocol.MethodWorkspaceApplyEdit, params, &res)
	cancel()
	var refused *jsonrpc2.Error
	switch {
	case err == nil:
	case errors.As(err, &refused):
		s.log.Info("the editor did not apply an edit", "label", label, "reason", refused.Message)
		return false, nil
	case ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		return false, fmt.Errorf("workspace/applyEdit: the editor did not answer within %s (a prompt left unanswered?); the edit %q counts as not made", limit, label)
	default:
		return false, fmt.Errorf("workspace/applyEdit: %w", err)
	}
	if !res.Applied {
		s.log.Info("the editor did not apply an edit", "label", label, "reason", res.FailureReason)
		return false, nil
	}
	deadline := time.After(applyWait)
	for path, text := range want {
		for {
			changed := s.docs.wait()
			d, open := editor{s}.OpenDocument(path)
			if !open || bytes.Equal(d.Text, text) {
				break
			}
			select {
			case <-changed:
				continue
			case <-deadline:
				s.log.Warn("the editor applied an edit but did not report the change in time", "path", path)
				return true, nil
			case <-ctx.Done():
				return true, nil
			}
		}
	}
	return true, nil
}

// MethodReload is the server's notification that a file open in an
// unmodified buffer was written on disk (flightplans.org: a plan filed,
// a plan's new state): {"uri"}. pp-lsp.el and the Neovim plugin read the
// file again when the buffer is still unmodified; another editor sees a
// file changed on disk.
const MethodReload = "passepartout/reload"

var _ workspace.Notifier = editor{}

// Reload sends passepartout/reload for path.
func (e editor) Reload(path string) {
	if err := e.s.conn.Notify(context.Background(), MethodReload, map[string]string{"uri": string(uri.File(path))}); err != nil {
		e.s.log.Warn("telling the editor to reload a file", "path", path, "err", err)
	}
}

// AskToSave shows the user that a buffer the server changed must be saved.
func (e editor) AskToSave(path, why string) {
	msg := fmt.Sprintf("pp-lsp changed %s in your unsaved buffer of %s: save the file to keep it on disk (your own unsaved changes there are saved with it).", why, filepath.Base(path))
	if err := e.s.conn.Notify(context.Background(), protocol.MethodWindowShowMessage,
		protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: msg}); err != nil {
		e.s.log.Warn("asking the user to save a file", "path", path, "err", err)
	}
}
