package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"pp-lsp/internal/regfile"
	"pp-lsp/memory/store"
)

// What rollback means. The agent takes a snapshot before each pass and,
// when the pass fails, rolls back to it. The memex only ever mirrors what
// is on disk and in open editor buffers, so rolling back is undoing the
// pass's writes, file by file, without ever overwriting what someone else
// wrote meanwhile:
//
//   - a file the pass changed on disk (the disk still holds exactly the
//     bytes the memex last saw) is written back to its old content,
//     atomically; a file the pass created is deleted; a file it deleted is
//     written again;
//   - a file whose disk bytes are neither the memex's current ones nor the
//     old ones was changed by someone else since: it is left alone, read
//     as it is, and reported as a conflict;
//   - a file open in an editor buffer is never written behind the buffer:
//     its old text is returned in Buffers, for the caller to apply through
//     the editor (a WorkspaceEdit); the memex keeps the buffer's text until
//     the editor reports the change;
//   - a file that still matches the old snapshot needs nothing.
//
// The new snapshot has the old snapshot's file versions (shared, not read
// again) wherever the rollback succeeded, and a new generation number:
// generations only grow.

// RollbackResult says what a rollback did.
type RollbackResult struct {
	// Snapshot is the memex after the rollback.
	Snapshot *Snapshot
	// Restored are files written back to their old content (or created
	// again); Removed are files deleted because they did not exist before.
	Restored, Removed []string
	// Buffers are open buffers whose old text the caller must restore
	// through the editor.
	Buffers []BufferRestore
	// Conflicts are files left as they are, because someone else changed
	// them since the memex last read them.
	Conflicts []RollbackConflict
}

// BufferRestore is an open buffer to revert: set its whole text to Text
// (Exists false: the file did not exist before; the editor should close
// and delete it).
type BufferRestore struct {
	Path   string
	Text   []byte
	Exists bool
}

// RollbackConflict is a file a rollback left alone.
type RollbackConflict struct {
	Path   string
	Reason string
}

// Rollback returns the memex to the state of to, an earlier snapshot of
// this memex, as described above. It fails only when to is not from this
// memex or ctx ends; per-file trouble is reported in the result.
func (m *Memex) Rollback(ctx context.Context, to *Snapshot) (*RollbackResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errClosed
	}
	cfg := m.cfg.Load()
	if to == nil || !sameRoots(to.cfg, cfg) {
		return nil, errors.New("rollback: the snapshot is not one of this memex")
	}
	cur := m.cur.Load()
	paths := append(slices.Clone(cur.order), to.order...)
	slices.Sort(paths)
	paths = slices.Compact(paths)
	res := &RollbackResult{}
	b := newBuilder(cur)
	changed := false
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("rollback: %w", err)
		}
		ce, inCur := cur.entry(p)
		te, inTo := to.entry(p)
		if inCur && inTo && ce.idx == te.idx {
			continue
		}
		if inCur && inTo && bytes.Equal(ce.idx.org.Src, te.idx.org.Src) {
			continue
		}
		if inCur && ce.buffer != nil {
			br := BufferRestore{Path: p, Exists: inTo}
			if inTo {
				br.Text = te.idx.org.Src
			}
			res.Buffers = append(res.Buffers, br)
			continue
		}
		disk, _, err := regfile.Read(p, true, cfg.maxFileBytes)
		diskMissing := errors.Is(err, fs.ErrNotExist)
		if err != nil && !diskMissing {
			res.Conflicts = append(res.Conflicts, RollbackConflict{Path: p, Reason: fmt.Sprintf("it cannot be read: %v", err)})
			continue
		}
		matchesCur := (inCur && !diskMissing && bytes.Equal(disk, ce.idx.org.Src)) || (!inCur && diskMissing)
		matchesTo := (inTo && !diskMissing && bytes.Equal(disk, te.idx.org.Src)) || (!inTo && diskMissing)
		switch {
		case matchesTo:
			// The disk already holds the old state: only the memex moves.
		case !matchesCur:
			res.Conflicts = append(res.Conflicts, RollbackConflict{Path: p, Reason: "it changed on disk since the memex last read it; left as it is"})
			if e, fd := m.readPath(cfg, p); e != nil {
				b.put(e)
			} else if inCur {
				b.remove(p)
				if fd != nil {
					b.skipped = append(b.skipped, *fd)
				}
			}
			changed = true
			continue
		case inTo:
			if err := store.WriteFileAtomic(p, te.idx.org.Src, 0o644); err != nil {
				res.Conflicts = append(res.Conflicts, RollbackConflict{Path: p, Reason: fmt.Sprintf("writing it back failed: %v", err)})
				continue
			}
			res.Restored = append(res.Restored, p)
		default:
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				res.Conflicts = append(res.Conflicts, RollbackConflict{Path: p, Reason: fmt.Sprintf("removing it failed: %v", err)})
				continue
			}
			res.Removed = append(res.Removed, p)
		}
		changed = true
		if !inTo {
			b.remove(p)
			continue
		}
		ne := &fileEntry{idx: te.idx.withPrivacy(cfg.privacy), vecs: te.vecs}
		if fi, err := os.Stat(p); err == nil {
			ne.disk = diskState{size: fi.Size(), mtime: fi.ModTime()}
		}
		if ne.idx != te.idx {
			ne.vecs = m.vectorsFor(ne.idx, prevVectors{idx: te.idx, seg: te.vecs})
		} else {
			ne.vecs = m.restoredVectors(ne.idx, te.vecs)
		}
		b.put(ne)
	}
	if changed {
		res.Snapshot = m.publish(b.build(m.nextGen()))
		m.queue.wake() // after publishing: the worker reads the current snapshot
	} else {
		res.Snapshot = cur
	}
	return res, nil
}

// readPath reads one file of the memex from disk, by absolute path.
func (m *Memex) readPath(cfg *config, p string) (*fileEntry, *Finding) {
	ri, rel, abs, err := cfg.locate(p)
	if err != nil {
		return nil, nil
	}
	e, fd := readEntry(cfg, newSetupJudge(cfg), foundFile{root: ri, rel: rel, path: abs})
	if e != nil {
		e.vecs = m.vectorsFor(e.idx, prevVectors{})
	}
	return e, fd
}

func sameRoots(a, b *config) bool {
	if len(a.roots) != len(b.roots) {
		return false
	}
	for i := range a.roots {
		if a.roots[i].path != b.roots[i].path {
			return false
		}
	}
	return true
}
