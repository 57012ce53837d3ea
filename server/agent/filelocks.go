package agent

import (
	"context"
	"slices"
	"sync"

	"pp-lsp/server/actuate"
	"pp-lsp/server/protect"
	"pp-lsp/server/workspace"
)

// fileLocks serialise the writers of one file within the agent — an
// action's file_write or memory_edit, an undo, a conversation's turn, a
// plan filed or its state written, a schedule moved on — each from its
// read of the file to its write, the editor's answer included; writers of
// different files never wait for each other.
type fileLocks struct {
	mu   sync.Mutex
	held map[string]*fileLock
}

type fileLock struct {
	mu   sync.Mutex
	refs int
}

// lock takes the locks of paths (any spelling: canonical names), in one
// order, and returns their release.
func (l *fileLocks) lock(paths ...string) (release func()) {
	var names []string
	for _, p := range paths {
		names = append(names, protect.Canonical(p))
	}
	slices.Sort(names)
	names = slices.Compact(names)
	var got []*fileLock
	for _, n := range names {
		l.mu.Lock()
		if l.held == nil {
			l.held = map[string]*fileLock{}
		}
		fl := l.held[n]
		if fl == nil {
			fl = &fileLock{}
			l.held[n] = fl
		}
		fl.refs++
		l.mu.Unlock()
		fl.mu.Lock()
		got = append(got, fl)
	}
	return func() {
		for i, fl := range got {
			fl.mu.Unlock()
			l.mu.Lock()
			if fl.refs--; fl.refs == 0 {
				delete(l.held, names[i])
			}
			l.mu.Unlock()
		}
	}
}

// ownWriter makes the agent's own change of a file (in Files.Write's
// terms) an own change (actuate.OwnWrites): on disk — the memex told
// before it counts as ended — under the own-writes lock; through the
// editor with no lock held.
func ownWriter(own *actuate.OwnWrites, files workspace.Files, mx Memex) func(context.Context, workspace.Current, []workspace.Change, workspace.Meta) ([]byte, error) {
	return func(ctx context.Context, cur workspace.Current, changes []workspace.Change, m workspace.Meta) ([]byte, error) {
		onDisk := !cur.Open || files.Workspace == nil
		return own.Write(cur.Path, cur.Text, onDisk, func() ([]byte, error) {
			text, err := files.Write(ctx, cur, changes, m)
			if err == nil && onDisk {
				mx.ReloadFiles(context.WithoutCancel(ctx), cur.Path)
			}
			return text, err
		})
	}
}

// writeOwn is ownWriter for the agent's own changes.
func (a *Agent) writeOwn(ctx context.Context, cur workspace.Current, changes []workspace.Change, m workspace.Meta) ([]byte, error) {
	return ownWriter(a.own, a.files, a.memex)(ctx, cur, changes, m)
}
