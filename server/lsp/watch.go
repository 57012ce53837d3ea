package lsp

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"pp-lsp/memory"
)

// Files change outside the editor (another program, git, the agent's own
// writes). The server learns of it three ways: the client's file watcher
// (workspace/didChangeWatchedFiles, registered for **/*.org when the
// client can watch; pp-lsp.el brings its own for eglot 1.9's, which
// drops renames), a rescan of the roots every few seconds when it cannot
// (Neovim 0.7), and didSave. Whatever changed the memex — those,
// the agent's heartbeat, its actions — a comparison of snapshots once a
// second finds the files whose text moved, and their diagnostics (and the
// Flight Plans' pickup) follow. An open buffer's text always wins over
// the disk: the memex keeps it until the buffer closes.

// watcherID names the server's one registration.
const watcherID = "pp-lsp/org-files"

// registerWatcher asks the client to watch the Org files, when it can.
func (s *Server) registerWatcher(ctx context.Context) {
	s.mu.Lock()
	can := s.client.watchFiles
	s.mu.Unlock()
	if !can {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	params := map[string]any{"registrations": []map[string]any{{
		"id":              watcherID,
		"method":          protocol.MethodWorkspaceDidChangeWatchedFiles,
		"registerOptions": map[string]any{"watchers": []map[string]any{{"globPattern": "**/*.org"}}},
	}}}
	if err := protocol.Call(ctx, s.conn, protocol.MethodClientRegisterCapability, params, nil); err != nil {
		s.log.Info("the client does not watch the files; rescanning instead", "err", err)
		return
	}
	s.mu.Lock()
	s.watching = true
	s.mu.Unlock()
}

// didChangeWatchedFiles reads the changed Org files again, in the
// background (a checkout may change thousands). A change of any other
// path is a folder's (pp-lsp.el's watcher reports a folder made, moved
// or removed, whose files it cannot name): the whole memex is compared
// with the disk then, as a rescan does.
func (s *Server) didChangeWatchedFiles(_ context.Context, params jsonrpc2.RawMessage) error {
	var p protocol.DidChangeWatchedFilesParams
	if err := decode(protocol.MethodWorkspaceDidChangeWatchedFiles, params, &p); err != nil {
		return err
	}
	var paths []string
	folders := false
	for _, ev := range p.Changes {
		path, err := pathOf(ev.URI)
		switch {
		case err != nil:
		case strings.EqualFold(filepath.Ext(path), ".org"):
			paths = append(paths, path)
		default:
			folders = true
		}
	}
	mx := s.memex()
	if mx == nil || (len(paths) == 0 && !folders) {
		return nil // before the memex is up, indexing reads the disk anyway
	}
	s.diskPending.Add(1)
	s.spawn(func(ctx context.Context) {
		defer s.diskPending.Add(-1)
		s.disk.Lock()
		defer s.disk.Unlock()
		var err error
		if folders {
			_, err = mx.Refresh(ctx)
		} else {
			_, err = mx.ReloadFiles(ctx, paths...)
		}
		if err != nil && ctx.Err() == nil {
			s.log.Warn("reading changed files", "err", err)
		}
		s.noteChanges()
	})
	return nil
}

// seen is the last snapshot whose changes were handled.
type seen struct {
	mu   sync.Mutex
	snap *memory.Snapshot
}

// advanceSeen moves the seen snapshot from before to the memex's current
// one when the caller's n updates are all that happened in between: the
// caller handled them itself.
func (s *Server) advanceSeen(mx *memory.Memex, before *memory.Snapshot, n int) {
	after := mx.Snapshot()
	s.seen.mu.Lock()
	defer s.seen.mu.Unlock()
	if s.seen.snap == before && after.Generation() == before.Generation()+uint64(n) {
		s.seen.snap = after
	}
}

// watch compares the memex with the last snapshot seen every second, and
// rescans the disk when the client cannot watch, until ctx ends.
func (s *Server) watch(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		s.mu.Lock()
		watching, every, mx := s.watching, s.settings.rescan(), s.mx
		s.mu.Unlock()
		if mx == nil {
			return
		}
		if !watching && time.Since(last) >= every {
			last = time.Now()
			s.disk.Lock()
			if _, err := mx.Refresh(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("rescanning the memex", "err", err)
			}
			s.disk.Unlock()
		}
		s.noteChanges()
	}
}

// noteChanges handles what changed in the memex since the last snapshot
// seen: the diagnostics of the files whose text moved (and of the files
// that depends on), and the Flight Plans' pickup when their file moved.
func (s *Server) noteChanges() {
	mx := s.memex()
	if mx == nil {
		return
	}
	after := mx.Snapshot()
	s.seen.mu.Lock()
	before := s.seen.snap
	s.seen.snap = after
	s.seen.mu.Unlock()
	if before == nil || before == after {
		return
	}
	var changed []string
	for f := range after.Files() {
		if b, ok := before.File(f.Path()); !ok || b.Hash() != f.Hash() {
			changed = append(changed, f.Path())
		}
	}
	for f := range before.Files() {
		if _, ok := after.File(f.Path()); !ok {
			changed = append(changed, f.Path())
		}
	}
	a := s.theAgent()
	for _, p := range changed {
		s.diags.changed(p, before)
		if a != nil && a.IsPlansFile(p) {
			a.NotifyPlansChanged()
		}
	}
}
