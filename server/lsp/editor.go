package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"go.lsp.dev/protocol"

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
// open buffers in want hold their expected text.
func (s *Server) applyEdit(ctx context.Context, label string, we protocol.WorkspaceEdit, want map[string][]byte) (bool, error) {
	var res applyResult
	params := map[string]any{"label": label, "edit": we}
	if err := protocol.Call(ctx, s.conn, protocol.MethodWorkspaceApplyEdit, params, &res); err != nil {
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
