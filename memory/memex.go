package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"pp-lsp/memory/internal/vecmath"
	"pp-lsp/memory/trigram"
	"pp-lsp/orgast"
)

// Memex is the live memex: the current Snapshot, and the one writer that
// makes the next. Snapshot never blocks; every method that changes the
// memex is serialised with the others, and publishes a new snapshot
// atomically when it is done, so a reader sees either the old state or the
// new one, never a mix.
type Memex struct {
	cfg atomic.Pointer[config]
	cur atomic.Pointer[Snapshot]
	log *slog.Logger

	// mu serialises writers.
	mu  sync.Mutex
	gen uint64

	opts  Options
	emb   Embedder
	store *vectorStore
	queue *embedQueue
	disk  *persister // nil without a data folder

	stopBG context.CancelFunc
	bg     sync.WaitGroup
	closed bool
	// localBlock is the embedding worker's reused vector block.
	localBlock []float32
}

// Open reads every Org file under the roots and returns the memex. It
// loads the persisted vectors when opts.DataDir is set, and with
// opts.Embed starts embedding what is new in the background. A root that
// is missing or no folder is an error wrapping ErrRoot and naming it.
func Open(ctx context.Context, opts Options) (*Memex, error) {
	roots, err := resolveRoots(opts.Roots)
	if err != nil {
		return nil, err
	}
	m := &Memex{opts: opts, log: opts.Logger}
	if m.log == nil {
		m.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	m.emb = opts.Embedder
	if m.emb == nil {
		m.emb = trigram.New()
	}
	maxBytes := opts.MaxFileBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxFileBytes
	}
	home := opts.Home
	cfg := &config{roots: roots, privacy: newPrivacySet(opts.PrivacyTags, home), maxFileBytes: maxBytes, embedderID: m.emb.ID(),
		home: home, kernel: vecmath.NewKernel(), search: &searchPools{}}
	m.cfg.Store(cfg)
	var center []float32
	if _, ok := m.emb.(*trigram.Embedder); ok {
		center = trigram.Bias()
	}
	cfg.signCenter = center
	if m.store, err = newVectorStore(cfg.embedderID, center); err != nil {
		return nil, err
	}
	m.queue = newEmbedQueue()
	if opts.DataDir != "" {
		m.disk = newPersister(opts.DataDir, roots, m.log)
		m.disk.load(ctx, m.store)
	}
	s, err := m.readAll(ctx, cfg)
	if err != nil {
		return nil, err
	}
	m.cur.Store(s)
	if m.disk != nil {
		m.disk.noteStart(s)
	}
	bgCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m.stopBG = cancel
	if opts.Embed {
		m.bg.Go(func() { m.embedLoop(bgCtx) })
		m.queue.wake()
	}
	if opts.AutoSave > 0 && m.disk != nil {
		m.bg.Go(func() { m.autoSaveLoop(bgCtx, opts.AutoSave) })
	}
	return m, nil
}

// Embedder is what the memex embeds nodes with, for a caller that embeds
// a query to compare with them (Snapshot.NearestToVector).
func (m *Memex) Embedder() Embedder { return m.emb }

// Snapshot returns the current snapshot. It never blocks.
func (m *Memex) Snapshot() *Snapshot { return m.cur.Load() }

// readAll scans the roots and indexes every file, in parallel.
func (m *Memex) readAll(ctx context.Context, cfg *config) (*Snapshot, error) {
	found, problems, err := scanRoots(ctx, cfg.roots)
	if err != nil {
		return nil, err
	}
	judge := newSetupJudge(cfg)
	entries := make([]*fileEntry, len(found))
	skipped := make([]*Finding, len(found))
	var next, done atomic.Int64
	workers := min(runtime.GOMAXPROCS(0), max(1, len(found)))
	var wg sync.WaitGroup
	progress := make(chan struct{}, len(found))
	for range workers {
		wg.Go(func() {
			for {
				k := int(next.Add(1) - 1)
				if k >= len(found) || ctx.Err() != nil {
					return
				}
				e, fd := readEntry(cfg, judge, found[k])
				entries[k], skipped[k] = e, fd
				done.Add(1)
				if m.opts.Progress != nil {
					progress <- struct{}{}
				}
			}
		})
	}
	if m.opts.Progress != nil {
		go func() { wg.Wait(); close(progress) }()
		n := 0
		for range progress {
			n++
			m.opts.Progress(n, len(found))
		}
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("reading the memex: %w", err)
	}
	kept := entries[:0]
	for k, e := range entries {
		if e == nil {
			if skipped[k] != nil {
				problems = append(problems, *skipped[k])
			}
			continue
		}
		e.vecs = m.vectorsFor(e.idx, prevVectors{})
		kept = append(kept, e)
	}
	return bulkSnapshot(cfg, kept, problems, m.nextGen()), nil
}

// readEntry reads and indexes one found file, or says why it cannot; j
// judges its setup files.
func readEntry(cfg *config, j *setupJudge, ff foundFile) (*fileEntry, *Finding) {
	src, ds, err := readOrgFile(ff.path, cfg.maxFileBytes)
	if err == nil {
		err = CheckText(src)
	}
	if err != nil {
		code := CodeUnreadable
		switch {
		case errors.Is(err, errTooLarge):
			code = CodeFileTooLarge
		case errors.Is(err, ErrNotText):
			code = CodeNotText
		}
		return nil, &Finding{Path: ff.path, Code: code, Severity: SeverityWarning,
			Message: fmt.Sprintf("%s is left out of the memex: %v", ff.path, err)}
	}
	idx := buildFile(ff.path, ff.root, ff.rel, src, cfg.privacy).judged(j)
	return &fileEntry{idx: idx, disk: ds}, nil
}

func (m *Memex) nextGen() uint64 {
	m.gen++
	return m.gen
}

// publish stores s as the current snapshot. Callers hold m.mu.
func (m *Memex) publish(s *Snapshot) *Snapshot {
	m.cur.Store(s)
	return s
}

// locate maps a path to its root and relative path, or fails with
// ErrNotInMemex.
func (cfg *config) locate(path string) (int, string, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, "", "", fmt.Errorf("%s: %w", path, err)
	}
	if !isOrgName(filepath.Base(abs)) {
		return 0, "", "", fmt.Errorf("%s: %w (not a visible *.org file)", path, ErrNotInMemex)
	}
	for i, r := range cfg.roots {
		rel, err := filepath.Rel(r.path, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		rel = filepath.ToSlash(rel)
		for _, part := range strings.Split(rel, "/") {
			if isHidden(part) {
				return 0, "", "", fmt.Errorf("%s: %w (inside a hidden folder)", path, ErrNotInMemex)
			}
		}
		return i, rel, abs, nil
	}
	return 0, "", "", fmt.Errorf("%s: %w (outside every root)", path, ErrNotInMemex)
}

// Refresh compares the memex with the disk: new files are read, removed
// ones dropped, and files whose size or modification time changed read
// again (their content, not the time, decides whether anything changed).
// Files open in a buffer keep the buffer's text. It is the rescan for
// clients that cannot watch files.
func (m *Memex) Refresh(ctx context.Context) (*Snapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errClosed
	}
	cur := m.cur.Load()
	cfg := m.cfg.Load()
	found, problems, err := scanRoots(ctx, cfg.roots)
	if err != nil {
		return nil, err
	}
	b := newBuilder(cur)
	b.skipped = problems
	seen := make(map[string]bool, len(found))
	changed := false
	judge := newSetupJudge(cfg)
	for _, ff := range found {
		seen[ff.path] = true
		old, had := cur.entry(ff.path)
		if had && old.disk.size == ff.size && old.disk.mtime.Equal(ff.mtime) {
			continue
		}
		if had && old.buffer != nil {
			ne := m.withCopyRead(cfg, judge, old, ff.path)
			ne.disk = diskState{size: ff.size, mtime: ff.mtime}
			b.put(ne)
			changed = true
			continue
		}
		e, fd := readEntry(cfg, judge, ff)
		if e == nil {
			b.skipped = append(b.skipped, *fd)
			if had {
				b.remove(ff.path)
			}
			changed = true
			continue
		}
		switch {
		case had && string(old.idx.org.Src) == string(e.idx.org.Src):
			e.idx = old.idx // touched, not changed: keep the shared index
			e.vecs = old.vecs
		case had:
			e.vecs = m.vectorsFor(e.idx, prevVectors{idx: old.idx, seg: old.vecs})
		default:
			e.vecs = m.vectorsFor(e.idx, prevVectors{})
		}
		b.put(e)
		changed = true
	}
	for _, p := range cur.order {
		if e, _ := cur.entry(p); !seen[p] && e.buffer == nil {
			b.remove(p)
			changed = true
		}
	}
	if m.rejudgeSetups(b, judge) {
		changed = true
	}
	if !changed && len(problems) == len(cur.skipped) {
		return cur, nil
	}
	s := m.publish(b.build(m.nextGen()))
	m.queue.wake() // after publishing: the worker reads the current snapshot
	return s, nil
}

// ReloadFiles reads the given files again from disk (a file watcher's
// news): a file that no longer exists leaves the memex, one not yet in it
// joins. Files open in a buffer keep the buffer's text; only their disk
// state is noted. Paths outside the memex are ignored.
func (m *Memex) ReloadFiles(ctx context.Context, paths ...string) (*Snapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errClosed
	}
	// Any file read again may be a setup file (an Org file, or one of
	// another name the watcher reports): the notes using one are judged
	// again.
	return m.reloadAndPublish(ctx, m.cur.Load(), paths, len(paths) > 0)
}

// reloadAndPublish reads paths again from the disk (reload), judges every
// note naming a setup file again when rejudge, and publishes the snapshot
// when anything changed; otherwise it returns cur. Callers hold m.mu.
func (m *Memex) reloadAndPublish(ctx context.Context, cur *Snapshot, paths []string, rejudge bool) (*Snapshot, error) {
	cfg := m.cfg.Load()
	b := newBuilder(cur)
	judge := newSetupJudge(cfg)
	changed, err := m.reload(ctx, cfg, cur, b, judge, paths)
	if err != nil {
		return nil, err
	}
	if rejudge && m.rejudgeSetups(b, judge) {
		changed = true
	}
	if !changed {
		return cur, nil
	}
	s := m.publish(b.build(m.nextGen()))
	m.queue.wake() // after publishing: the worker reads the current snapshot
	return s, nil
}

// reload reads paths again from the disk into b, as ReloadFiles says, and
// reports whether anything changed. Callers hold m.mu.
func (m *Memex) reload(ctx context.Context, cfg *config, cur *Snapshot, b *snapBuilder, judge *setupJudge, paths []string) (bool, error) {
	changed := false
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return false, fmt.Errorf("reloading files: %w", err)
		}
		ri, rel, abs, err := cfg.locate(p)
		if err != nil {
			continue
		}
		old, had := cur.entry(abs)
		fi, statErr := os.Stat(abs)
		if statErr != nil || !fi.Mode().IsRegular() || !m.insideRoot(cfg, ri, abs) {
			switch {
			case had && old.buffer == nil:
				b.remove(abs)
				changed = true
			case had && old.copy.stale(abs):
				// The buffer stays; what is on the disk under it now
				// (nothing, a FIFO, a link out) is judged again.
				b.put(m.withCopyRead(cfg, judge, old, abs))
				changed = true
			}
			continue
		}
		if had && old.buffer != nil {
			ne := m.withCopyRead(cfg, judge, old, abs)
			ne.disk = diskState{size: fi.Size(), mtime: fi.ModTime()}
			b.put(ne)
			changed = true
			continue
		}
		e, fd := readEntry(cfg, judge, foundFile{root: ri, rel: rel, path: abs})
		if e == nil {
			b.skipped = append(b.skipped, *fd)
			if had {
				b.remove(abs)
			}
			changed = true
			continue
		}
		switch {
		case had && string(old.idx.org.Src) == string(e.idx.org.Src):
			if old.disk.same(e.disk) {
				continue // read again, nothing learnt
			}
			e.idx, e.vecs = old.idx, old.vecs
		case had:
			e.vecs = m.vectorsFor(e.idx, prevVectors{idx: old.idx, seg: old.vecs})
		default:
			e.vecs = m.vectorsFor(e.idx, prevVectors{})
		}
		b.put(e)
		changed = true
	}
	return changed, nil
}

// Recheck makes the memex hold what the disk holds now, before any of its
// text leaves for a model, whatever the editor reported: every file it
// read from the disk (not an open buffer's) whose stat no longer tells
// that it holds the bytes read — another file, size or modification time,
// or read too soon after its last change for its time to tell — is read
// again (or leaves, when gone), and every note with a #+SETUPFILE: line is
// judged again against its setup files as they are now. A setup file
// (often not named .org, so watched by no editor) given a privacy tag
// outside the editor thus makes its notes private in the snapshot
// returned. Under an open buffer, the disk's copy of the file is read
// again when the disk no longer holds it as read (diskcopy.go): a note
// made private on the disk while its buffer is open is private here too.
// It costs a stat of each file and a read of each setup file; it lists no
// folder (a file that is new is no text the memex holds).
func (m *Memex) Recheck(ctx context.Context) (*Snapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errClosed
	}
	cur := m.cur.Load()
	var stale []string
	for _, p := range cur.order {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("checking the memex against the disk: %w", err)
		}
		if cur.recheckStale(p) {
			stale = append(stale, p)
		}
	}
	return m.reloadAndPublish(ctx, cur, stale, true)
}

// recheckStale is Recheck's test of one file of s: staleOnDisk, or, for
// a file open in a buffer, whether the disk no longer holds its copy as
// read (diskCopy.stale).
func (s *Snapshot) recheckStale(p string) bool {
	e, ok := s.entry(p)
	switch {
	case !ok:
		return false
	case e.buffer != nil:
		return e.copy.stale(p)
	}
	fi, err := os.Stat(p)
	return err != nil || !e.disk.looksUnchanged(fi)
}

// withCopyRead is the buffer entry e with the disk's copy of its file at
// path read again when the disk no longer holds it as read, and the
// buffer judged against it. Callers hold m.mu.
func (m *Memex) withCopyRead(cfg *config, j *setupJudge, e *fileEntry, path string) *fileEntry {
	ne := *e
	if e.copy.stale(path) {
		ne.copy = readDiskCopy(cfg, j, path)
	}
	if ne.idx = e.idx.withDiskCopy(ne.copy); ne.idx != e.idx {
		ne.vecs = m.vectorsFor(ne.idx, prevVectors{idx: e.idx, seg: e.vecs})
	}
	return &ne
}

// insideRoot checks that a path's real location stays in its root (a
// symlink leaving the root is not part of the memex).
func (m *Memex) insideRoot(cfg *config, ri int, abs string) bool {
	real, err := filepath.EvalSymlinks(abs)
	return err == nil && within(real, cfg.roots[ri].real)
}

// TextEdit replaces the bytes [Start, End) of a buffer with Text.
type TextEdit struct {
	Start, End int
	Text       string
}

// SetBuffer makes text, an editor buffer's whole content at version, the
// file's content in the memex until CloseBuffer; disk changes to the file
// meanwhile never replace it. The file must be one the memex would hold
// (under a root, visible, *.org); it need not exist on disk yet.
func (m *Memex) SetBuffer(ctx context.Context, path string, version int32, text []byte) (*Snapshot, error) {
	return m.setBuffer(path, version, text, false)
}

// SetBufferOwned is SetBuffer for a caller that hands text over: the
// memex keeps text itself, not a copy (a 12 MB buffer's flush makes one
// version of it, not two), so the caller must never write to text again.
// The memex never writes to a text it holds: each edit makes a new one.
func (m *Memex) SetBufferOwned(ctx context.Context, path string, version int32, text []byte) (*Snapshot, error) {
	return m.setBuffer(path, version, text, true)
}

func (m *Memex) setBuffer(path string, version int32, text []byte, owned bool) (*Snapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	sl, err := m.bufferSlot(path)
	if err != nil {
		return nil, err
	}
	if sl.had && sl.old.idx.privacy == sl.cfg.privacy && bytes.Equal(sl.old.idx.org.Src, text) {
		// The editor opened the file as the memex holds it (from the
		// disk, most often): the outline, index and vectors are shared,
		// not made again — for a 12 MB file, a second version of it.
		e := *sl.old
		e.buffer = &bufferState{version: version}
		if sl.old.buffer == nil {
			// The memex held the disk's copy: it is the buffer's.
			e.copy = diskCopyOf(sl.old.idx, sl.old.disk)
		}
		b := newBuilder(sl.cur)
		b.put(&e)
		return m.publish(b.build(m.nextGen())), nil
	}
	src := text
	if !owned {
		src = append([]byte(nil), text...)
	}
	var org *orgast.File
	var edit *orgast.Edit
	if sl.had {
		e := orgast.DiffEdit(sl.old.idx.org.Src, src)
		edit = &e
		org = orgast.Reparse(sl.old.idx.org, src, e)
	} else {
		org = orgast.Parse(src)
	}
	return m.putBuffer(sl, version, org, edit), nil
}

// EditBuffer applies edits to the buffer open on path, in order (each in
// the offsets of the text the previous one left), and records version.
// One edit is the hot path of typing: only the top-level subtrees it
// touches are parsed again.
func (m *Memex) EditBuffer(ctx context.Context, path string, version int32, edits ...TextEdit) (*Snapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	sl, err := m.bufferSlot(path)
	if err != nil {
		return nil, err
	}
	if !sl.had || sl.old.buffer == nil {
		return nil, fmt.Errorf("editing %s: no buffer is open on it (SetBuffer first)", path)
	}
	org := sl.old.idx.org
	var edit *orgast.Edit
	for _, e := range edits {
		src := org.Src
		if e.Start < 0 || e.End < e.Start || e.End > len(src) {
			return nil, fmt.Errorf("editing %s: the range [%d, %d) lies outside its %d bytes", path, e.Start, e.End, len(src))
		}
		ns := make([]byte, 0, len(src)-(e.End-e.Start)+len(e.Text))
		ns = append(ns, src[:e.Start]...)
		ns = append(ns, e.Text...)
		ns = append(ns, src[e.End:]...)
		oe := orgast.Edit{Start: e.Start, OldEnd: e.End, NewEnd: e.Start + len(e.Text)}
		org = orgast.Reparse(org, ns, oe)
		edit = &oe
	}
	if len(edits) > 1 {
		e := orgast.DiffEdit(sl.old.idx.org.Src, org.Src)
		edit = &e
	}
	return m.putBuffer(sl, version, org, edit), nil
}

// bufferSlot is where a buffer operation works: the file's place under
// its root, the configuration and snapshot it was found in, and the
// file's entry there (had says whether there is one).
type bufferSlot struct {
	cfg      *config
	ri       int
	rel, abs string
	cur      *Snapshot
	old      *fileEntry
	had      bool
}

// bufferSlot locates path for a buffer operation. Callers hold m.mu.
func (m *Memex) bufferSlot(path string) (bufferSlot, error) {
	if m.closed {
		return bufferSlot{}, errClosed
	}
	sl := bufferSlot{cfg: m.cfg.Load(), cur: m.cur.Load()}
	var err error
	if sl.ri, sl.rel, sl.abs, err = sl.cfg.locate(path); err != nil {
		return bufferSlot{}, err
	}
	sl.old, sl.had = sl.cur.entry(sl.abs)
	return sl, nil
}

// putBuffer publishes a buffer's new outline. Callers hold m.mu.
func (m *Memex) putBuffer(sl bufferSlot, version int32, org *orgast.File, edit *orgast.Edit) *Snapshot {
	cur, cfg, old, had, abs, ri, rel := sl.cur, sl.cfg, sl.old, sl.had, sl.abs, sl.ri, sl.rel
	e := &fileEntry{buffer: &bufferState{version: version}}
	var prev *fileIndex
	judge := newSetupJudge(cfg)
	switch {
	case had && old.buffer != nil:
		e.copy = old.copy
	case had:
		// The memex held the disk's copy until now.
		e.copy = diskCopyOf(old.idx, old.disk)
	default:
		e.copy = readDiskCopy(cfg, judge, abs)
	}
	if had {
		e.disk = old.disk
		prev = old.idx
	}
	if prev != nil && prev.privacy != cfg.privacy {
		prev = nil // flags differ: nothing to reuse safely
	}
	var nm *nodeMap
	e.idx, nm = reindex(prev, abs, ri, rel, org, cfg.privacy, edit)
	if j := e.idx.judged(judge).withDiskCopy(e.copy); j != e.idx {
		if j.setupPrivate != e.idx.setupPrivate || j.diskPrivate != e.idx.diskPrivate {
			nm = nil // its privacy changed: nothing of the node map is reused
		}
		e.idx = j
	}
	pv := prevVectors{}
	if had {
		pv = prevVectors{idx: old.idx, seg: old.vecs}
		if prev != nil {
			pv.nm = nm
		}
	}
	e.vecs = m.vectorsFor(e.idx, pv)
	b := newBuilder(cur)
	if pv.nm != nil && (e.idx.keys == prev.keys || pv.nm.keys != nil) {
		// Made from the current version, with what changed in its keys.
		b.putPatched(e, pv.nm.keys)
	} else {
		b.put(e)
	}
	s := b.build(m.nextGen())
	if e.idx.derive != nil {
		// Someone asked for the findings of the version before (an
		// editor showing them): carry what they learnt over now, so that
		// a version nobody asks about does not break the chain.
		s.statusOf(e.idx)
	}
	m.publish(s)
	m.queue.wake() // after publishing: the worker reads the current snapshot
	return s
}

// CloseBuffer ends the buffer on path: the file's content is the disk's
// again (or the file leaves the memex, when it is not on disk).
func (m *Memex) CloseBuffer(ctx context.Context, path string) (*Snapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	sl, err := m.bufferSlot(path)
	if err != nil {
		return nil, err
	}
	cur, cfg, old, abs, ri, rel := sl.cur, sl.cfg, sl.old, sl.abs, sl.ri, sl.rel
	if !sl.had || old.buffer == nil {
		return cur, nil
	}
	b := newBuilder(cur)
	e, _ := readEntry(cfg, newSetupJudge(cfg), foundFile{root: ri, rel: rel, path: abs})
	switch {
	case e == nil || !m.insideRoot(cfg, ri, abs):
		b.remove(abs)
	case string(e.idx.org.Src) == string(old.idx.org.Src):
		e.idx, e.vecs = old.idx, old.vecs
		b.put(e)
	default:
		e.vecs = m.vectorsFor(e.idx, prevVectors{idx: old.idx, seg: old.vecs})
		b.put(e)
	}
	s := m.publish(b.build(m.nextGen()))
	m.queue.wake() // after publishing: the worker reads the current snapshot
	return s, nil
}

// SetPrivacyTags changes the privacy tags: every node's private flag is
// computed again, nodes that became private lose their vectors, and nodes
// that became public are queued for embedding.
func (m *Memex) SetPrivacyTags(ctx context.Context, tags []string) (*Snapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errClosed
	}
	cfg := m.cfg.Load()
	ps := newPrivacySet(tags, cfg.home)
	if ps.equal(cfg.privacy) {
		return m.cur.Load(), nil
	}
	ncfg := *cfg
	ncfg.privacy = ps
	m.cfg.Store(&ncfg)
	cur := m.cur.Load()
	b := newBuilder(cur)
	b.cfg = &ncfg
	judge := newSetupJudge(&ncfg)
	for _, p := range cur.order {
		old, _ := cur.entry(p)
		ne := *old
		ne.idx = old.idx.withPrivacy(ps)
		if ne.idx.usesSetup {
			ne.idx = ne.idx.judged(judge) // by the new tags
		}
		if ne.buffer != nil {
			// The disk's copy under a buffer, by the new tags.
			ne.copy = readDiskCopy(&ncfg, judge, p)
			ne.idx = ne.idx.withDiskCopy(ne.copy)
		}
		ne.vecs = m.vectorsFor(ne.idx, prevVectors{idx: old.idx, seg: old.vecs})
		b.put(&ne)
	}
	s := m.publish(b.build(m.nextGen()))
	m.queue.wake() // after publishing: the worker reads the current snapshot
	return s, nil
}

var errClosed = errors.New("the memex is closed")

// Close stops background work and, with a data folder, saves what changed.
func (m *Memex) Close(ctx context.Context) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	m.stopBG()
	m.bg.Wait()
	if m.disk != nil {
		return m.disk.save(ctx, m.store, m.cur.Load())
	}
	return nil
}

// Save writes the store (vectors and per-file hashes) to the data folder,
// each file atomically and only when it changed; without a data folder it
// does nothing.
func (m *Memex) Save(ctx context.Context) error {
	if m.disk == nil {
		return nil
	}
	return m.disk.save(ctx, m.store, m.cur.Load())
}
