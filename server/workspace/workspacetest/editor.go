// Package workspacetest is an editor for tests of code that changes files
// through a workspace.Workspace: buffers by path, the edits it was asked to
// apply (applied as an editor applies them, version checked), and a switch
// to decline them as a user can.
//
// It is also a workspace.Notifier: told to reload a file, it reads the
// file into the buffer again, as the editor plugins do with an unmodified
// buffer; asked to have a buffer saved, it records the request.
//
// Invariant: an Editor applies an edit only to the buffer and version it
// names, never writes the disk, and records every edit it was sent.
package workspacetest

import (
	"context"
	"os"
	"sync"

	"pp-lsp/server/workspace"
)

// Editor is an in-memory editor. It is safe for concurrent use.
type Editor struct {
	mu      sync.Mutex
	buffers map[string]*workspace.Document
	edits   []workspace.Edit
	decline bool
	saves   []string
	// stale: Reload is ignored (an editor that has not reloaded yet).
	stale bool
	// held, when set, makes ApplyEdit wait until it is closed (an editor
	// whose user has not answered yet); holding says an edit waits.
	held    chan struct{}
	holding chan struct{}
}

// Hold makes every ApplyEdit wait, as an editor waits for its user, until
// release is called (or the edit's context ends). waiting is closed when
// the first edit starts to wait.
func (e *Editor) Hold() (waiting <-chan struct{}, release func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	held, holding := make(chan struct{}), make(chan struct{})
	e.held, e.holding = held, holding
	var once sync.Once
	return holding, func() { once.Do(func() { close(held) }) }
}

// Stale makes the editor ignore (or, with false, follow again) the
// server's Reload, as an editor that has not come round to it yet.
func (e *Editor) Stale(s bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stale = s
}

var _ workspace.Notifier = (*Editor)(nil)

// Reload implements workspace.Notifier: an open buffer reads its file
// again (the server sends it only for an unmodified buffer).
func (e *Editor) Reload(path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if d, ok := e.buffers[path]; ok && !e.stale {
		d.Text, d.Version = data, d.Version+1
	}
}

// AskToSave implements workspace.Notifier: the request is recorded.
func (e *Editor) AskToSave(path, why string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.saves = append(e.saves, path+": "+why)
}

// SaveRequests returns what AskToSave was told, in order ("path: why").
func (e *Editor) SaveRequests() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.saves...)
}

// New returns an editor with no buffer open.
func New() *Editor { return &Editor{buffers: map[string]*workspace.Document{}} }

// Open opens (or replaces) the buffer on path with text at version 1, as a
// user typing a whole new text would.
func (e *Editor) Open(path, text string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	v := int32(1)
	if d, ok := e.buffers[path]; ok {
		v = d.Version + 1
	}
	e.buffers[path] = &workspace.Document{Text: []byte(text), Version: v}
}

// Close closes the buffer on path without saving it, as a user who
// discards their changes does.
func (e *Editor) Close(path string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.buffers, path)
}

// Decline makes the editor refuse (or, with false, accept again) every edit.
func (e *Editor) Decline(d bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.decline = d
}

// Edits returns the edits the editor was sent, in order.
func (e *Editor) Edits() []workspace.Edit {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]workspace.Edit(nil), e.edits...)
}

// Text returns the buffer's text ("" when it is not open).
func (e *Editor) Text(path string) string {
	d, _ := e.OpenDocument(path)
	return string(d.Text)
}

// OpenDocument implements workspace.Workspace.
func (e *Editor) OpenDocument(path string) (workspace.Document, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.buffers[path]
	if !ok {
		return workspace.Document{}, false
	}
	return *d, true
}

// ApplyEdit implements workspace.Workspace: the edit is applied when its
// buffer is open at the version it names and the editor does not decline.
func (e *Editor) ApplyEdit(ctx context.Context, ed workspace.Edit) (bool, error) {
	e.mu.Lock()
	if held, holding := e.held, e.holding; held != nil {
		e.holding = nil
		e.mu.Unlock()
		if holding != nil {
			close(holding)
		}
		select {
		case <-held:
		case <-ctx.Done():
			return false, ctx.Err()
		}
		e.mu.Lock()
	}
	defer e.mu.Unlock()
	e.edits = append(e.edits, ed)
	d, ok := e.buffers[ed.Path]
	if e.decline || !ok || !ed.Open || d.Version != ed.Version {
		return false, nil
	}
	text, err := ed.Apply()
	if err != nil {
		return false, err
	}
	d.Text, d.Version = text, d.Version+1
	return true, nil
}
