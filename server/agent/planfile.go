package agent

import (
	"bytes"
	"context"
	"errors"
	"sync"

	"pp-lsp/server/flightplan"
	"pp-lsp/server/protect"
	"pp-lsp/server/workspace"
)

// How the server writes flightplans.org while an editor has it open.
// Filing a plan, and writing a plan's new state, must neither ask the
// user to confirm an edit nor leave the state in an unsaved buffer: when
// the buffer is unmodified — it holds what the disk holds — the new text
// goes to disk atomically and the editor reloads it. Only a modified
// buffer (the user's unsaved changes, which may hold an unsaved
// APPROVED) is changed through the editor, and the user is asked to save
// it; the server never saves it for them, since that would save their
// unsaved approvals too.

// plansBehind remembers the server's last write of flightplans.org on
// disk while an editor had it open: the buffer's text then (base) and the
// text written. Until the editor has reloaded, its buffer still holds
// base; that buffer is behind, not modified.
type plansBehind struct {
	mu          sync.Mutex
	base, wrote []byte
}

func (b *plansBehind) set(base, wrote []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.base, b.wrote = bytes.Clone(base), bytes.Clone(wrote)
}

// is reports whether a buffer holding buf, with disk on disk, is behind
// the last write.
func (b *plansBehind) is(buf, disk []byte) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.wrote != nil && bytes.Equal(buf, b.base) && bytes.Equal(disk, b.wrote)
}

// plansFile is flightplans.org read for a change by the server.
type plansFile struct {
	workspace.Current
	// buffer is the editor's text when it has the file open.
	buffer []byte
	// reload: the buffer is unmodified (or behind the server's own last
	// write); Current is the disk's text, and the change goes to disk.
	reload bool
}

// readPlans reads flightplans.org for a change: the disk's text when no
// editor has it open or its buffer is unmodified, else the buffer's.
func (a *Agent) readPlans() (plansFile, error) {
	cur, err := a.files.Read(a.plansPath)
	if err != nil || !cur.Open {
		return plansFile{Current: cur}, err
	}
	disk, exists, err := protect.ReadOwnFile(a.plansPath)
	if err != nil {
		return plansFile{}, err
	}
	if !exists || !(bytes.Equal(disk, cur.Text) || a.behind.is(cur.Text, disk)) {
		return plansFile{Current: cur, buffer: cur.Text}, nil
	}
	onDisk, err := workspace.Files{}.Read(a.plansPath)
	if err != nil {
		return plansFile{}, err
	}
	if !bytes.Equal(onDisk.Text, disk) {
		return plansFile{}, errors.New(flightplan.FileName + " changed while it was read")
	}
	return plansFile{Current: onDisk, buffer: cur.Text, reload: true}, nil
}

// writePlans writes changes into flightplans.org as read by readPlans (its
// lock held, a.locks): on
// disk (the editor reloads an unmodified buffer), or through the editor
// into a modified buffer, whose user is asked to save it (what says what
// changed).
func (a *Agent) writePlans(ctx context.Context, pf plansFile, changes []workspace.Change, label, what string) error {
	text, err := a.writeOwn(ctx, pf.Current, changes, workspace.Meta{Label: label, Reload: pf.reload})
	if err != nil {
		return err
	}
	if pf.reload {
		a.behind.set(pf.buffer, text)
	}
	if !pf.Open {
		return nil
	}
	if n, ok := a.files.Workspace.(workspace.Notifier); ok {
		n.AskToSave(a.plansPath, what)
	}
	return nil
}
