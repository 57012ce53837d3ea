package lsp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"pp-lsp/memory"
	"pp-lsp/memory/orgfeat"
	"pp-lsp/orgast"
	"pp-lsp/server/agent"
)

// document is one buffer the editor has open, at one version. A document
// is never changed: a change makes a new one.
//
// The memex holds the text of a buffer under its roots (memory's
// SetBuffer and EditBuffer), so that every feature sees the buffer, never
// the disk, for that file. A buffer outside the memex (or opened before
// the memex is indexed) is a memory.LooseFile, read by the memex's rules:
// the server parses no Org itself.
type document struct {
	uri     uri.URI
	path    string
	version int32
	// memex reports that the memex holds the buffer; otherwise loose is
	// the buffer.
	memex bool
	loose *memory.LooseFile
}

// docTable holds the open documents. The map is replaced, never changed,
// so a view holds it without a lock; changed is closed (and replaced) at
// every change, for whoever waits for the editor to catch up.
type docTable struct {
	mu      sync.Mutex
	docs    map[string]*document
	changed chan struct{}
}

func newDocTable() *docTable {
	return &docTable{docs: map[string]*document{}, changed: make(chan struct{})}
}

// all returns the current documents (an immutable map).
func (t *docTable) all() map[string]*document {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.docs
}

// get returns the document open on path.
func (t *docTable) get(path string) (*document, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d, ok := t.docs[path]
	return d, ok
}

// put records d (nil removes path).
func (t *docTable) put(path string, d *document) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := maps.Clone(t.docs)
	if d == nil {
		delete(m, path)
	} else {
		m[path] = d
	}
	t.docs = m
	close(t.changed)
	t.changed = make(chan struct{})
}

// wait returns a channel closed at the next change.
func (t *docTable) wait() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.changed
}

// pathOf is the cleaned file path of a file: URI.
func pathOf(u uri.URI) (string, error) {
	if u.Scheme() != "file" {
		return "", userErrorf("%s is not a file: URI; pp-lsp serves files only", u)
	}
	p := u.FsPath()
	if p == "" || !filepath.IsAbs(p) {
		return "", userErrorf("%s names no absolute path", u)
	}
	return filepath.Clean(p), nil
}

// view is what a request reads: the memex snapshot and the open
// documents as they were when the request arrived (the gopls model), and
// the session's settings.
type view struct {
	snap     *memory.Snapshot // nil when the memex could not be opened
	docs     map[string]*document
	agent    *agent.Agent
	settings Settings
	client   clientCaps
	roots    []string
	notes    *orgfeat.NoteIndex
}

// view captures the current state.
func (s *Server) view() *view {
	s.mu.Lock()
	v := &view{agent: s.agent, settings: s.settings, client: s.client, roots: s.roots, notes: s.noteIndex}
	mx := s.mx
	s.mu.Unlock()
	if mx != nil {
		v.snap = mx.Snapshot()
	}
	v.docs = s.docs.all()
	return v
}

// orgFile is one Org file as a request sees it.
type orgFile struct {
	path string
	uri  uri.URI
	org  *orgast.File
	// node is the file node when the memex holds the file (Valid);
	// otherwise loose is the buffer outside the memex.
	node  memory.Node
	loose *memory.LooseFile
	// doc is the open buffer, nil when no editor has the file open.
	doc *document
}

// inMemex reports whether the memex holds the file.
func (f *orgFile) inMemex() bool { return f.node.Valid() }

// fileNode is the file node the Org features read: the memex's, or the
// loose buffer's.
func (f *orgFile) fileNode() memory.Node {
	if f.node.Valid() {
		return f.node
	}
	return f.loose.Node()
}

// scope is what the Org features read in this view.
func (v *view) scope() orgfeat.Scope {
	return orgfeat.Scope{Memex: v.snap, Notes: v.notes, Outside: func(path string) (*memory.LooseFile, bool) {
		if d := v.docs[path]; d != nil && !d.memex {
			return d.loose, true
		}
		return nil, false
	}}
}

// file returns the file at u: the open buffer, else the memex's.
func (v *view) file(u uri.URI) (*orgFile, error) {
	if u == "" {
		return nil, userErrorf("the request names no document (textDocument.uri)")
	}
	path, err := pathOf(u)
	if err != nil {
		return nil, err
	}
	return v.fileAt(path, u)
}

// fileAt returns the file at path (u may be empty).
func (v *view) fileAt(path string, u uri.URI) (*orgFile, error) {
	d := v.docs[path]
	if u == "" {
		u = uri.File(path)
		if d != nil {
			u = d.uri
		}
	}
	if d != nil && !d.memex {
		return &orgFile{path: path, uri: u, org: d.loose.Org(), loose: d.loose, doc: d}, nil
	}
	if v.snap != nil {
		if n, ok := v.snap.File(path); ok {
			return &orgFile{path: path, uri: u, org: n.Org(), node: n, doc: d}, nil
		}
	}
	return nil, userErrorf("%s is not a note of the memex (an Org file under its roots, or one open in the editor): run this from an Org note", path)
}

// uriOf is the URI to send for path: the editor's own for an open
// buffer, so that it recognises it.
func (v *view) uriOf(path string) uri.URI {
	if d := v.docs[path]; d != nil {
		return d.uri
	}
	return uri.File(path)
}

// The document notifications. Each runs on the read loop under syncMu,
// and updates the memex before the next message is read.

// docNote decodes the params of a document notification and the path of
// its document.
func docNote[P any](method string, params jsonrpc2.RawMessage, doc func(*P) uri.URI) (*P, string, error) {
	p := new(P)
	if err := decode(method, params, p); err != nil {
		return nil, "", err
	}
	path, err := pathOf(doc(p))
	if err != nil {
		return nil, "", err
	}
	return p, path, nil
}

func (s *Server) didOpen(ctx context.Context, params jsonrpc2.RawMessage) error {
	p, err := decodeOpen(params)
	if err != nil {
		return err
	}
	path, err := pathOf(p.uri)
	if err != nil {
		return err
	}
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	mx := s.memex()
	var before *memory.Snapshot
	if mx != nil {
		before = mx.Snapshot()
	}
	size := len(p.text)
	d := s.openBuffer(ctx, mx, &document{uri: p.uri, path: path, version: p.version}, p.text)
	s.docs.put(path, d)
	s.forgetOld(path)
	s.warnLargeBuffer(path, size)
	s.diags.changed(path, before)
	if d.memex {
		s.advanceSeen(mx, before, 1)
	}
	return nil
}

// parseLoose reads a buffer outside the memex by the memex's rules (its
// privacy tags and home), or, before there is one, by the default tags
// and the home of the world the server's environment describes.
func (s *Server) parseLoose(mx *memory.Memex, path string, text []byte) *memory.LooseFile {
	if mx != nil {
		return mx.Snapshot().ParseLoose(path, text)
	}
	return memory.ParseLoose(path, text, worldHome(s.getenv))
}

// openBuffer gives the buffer's text to the memex when the file is one
// of its files, and makes it a loose file otherwise. Either keeps text
// itself, not a copy: the caller hands it over (a fresh slice: didOpen's
// decoded text, a pending text) and never writes to it again.
func (s *Server) openBuffer(ctx context.Context, mx *memory.Memex, d *document, text []byte) *document {
	if mx != nil {
		_, err := mx.SetBufferOwned(ctx, d.path, d.version, text)
		if err == nil {
			d.memex, d.loose = true, nil
			return d
		}
		if !errors.Is(err, memory.ErrNotInMemex) {
			s.log.Warn("the memex refused a buffer; serving it on its own", "path", d.path, "err", err)
		}
	}
	d.memex, d.loose = false, s.parseLoose(mx, d.path, text)
	return d
}

func (s *Server) didChange(ctx context.Context, params jsonrpc2.RawMessage) error {
	p, path, err := docNote(protocol.MethodTextDocumentDidChange, params, func(p *protocol.DidChangeTextDocumentParams) uri.URI { return p.TextDocument.URI })
	if err != nil {
		return err
	}
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	old, ok := s.docs.get(path)
	if !ok {
		return fmt.Errorf("a change arrived for %s, which is not open", path)
	}
	// While more messages are queued, edits within a line are folded
	// (pending.go); any other change first gives the memex those.
	var direct []protocol.TextDocumentContentChangeEvent
	for _, ch := range p.ContentChanges {
		if len(direct) == 0 && s.deferChange(old, p.TextDocument.Version, ch) {
			continue
		}
		direct = append(direct, ch)
	}
	if len(direct) > 0 {
		s.flushPending(ctx, path)
		s.applyChanges(ctx, path, p.TextDocument.Version, direct)
	} else if !s.moreInput() {
		s.flushSoon(ctx, path)
	}
	// No NotifyPlansChanged here: a plan is approved by saving the file
	// (didSave), never by a keyword typed into a buffer.
	return nil
}

// applyChanges gives the memex (or the loose file) the changes of one
// didChange at once. The caller holds syncMu.
func (s *Server) applyChanges(ctx context.Context, path string, version int32, changes []protocol.TextDocumentContentChangeEvent) {
	s.changeDoc(path, version, func(mx *memory.Memex, d *document) (*document, bool, int) {
		structural := false
		for _, ch := range changes {
			var st bool
			d, st = s.applyChange(ctx, mx, d, ch)
			structural = structural || st
		}
		return d, structural, len(changes)
	})
}

// changeDoc makes the next version of the document open on path: apply
// changes the memex (or the loose file) and returns the document, whether
// the change may have moved IDs or files (structural), and how many
// memex updates it made; then the table, the caches and the diagnostics
// learn of it. The caller holds syncMu.
func (s *Server) changeDoc(path string, version int32, apply func(mx *memory.Memex, d *document) (_ *document, structural bool, updates int)) {
	old, ok := s.docs.get(path)
	if !ok {
		return
	}
	mx := s.memex()
	var before *memory.Snapshot
	if mx != nil {
		before = mx.Snapshot()
	}
	d, structural, updates := apply(mx, &document{uri: old.uri, path: path, version: version, memex: old.memex, loose: old.loose})
	s.docs.put(path, d)
	s.forgetOld(path)
	if !structural {
		before = nil // no ID or file can have moved: nothing ripples
	}
	s.diags.changed(path, before)
	if d.memex && mx != nil {
		s.advanceSeen(mx, before, updates)
	}
}

// applyChange applies one content change to d, in the memex or in its
// loose file. Positions are UTF-16 columns, converted with the line index of
// the text as the previous change left it. structural reports a change
// that may have changed the file's headlines or drawers (and so its IDs):
// one that spans lines, or touches a line that starts (before or after)
// with a star or a colon. Typing in a body is not structural.
func (s *Server) applyChange(ctx context.Context, mx *memory.Memex, d *document, ch protocol.TextDocumentContentChangeEvent) (_ *document, structural bool) {
	var (
		whole bool
		text  string
		r     protocol.Range
	)
	switch c := ch.(type) {
	case *protocol.TextDocumentContentChangeWholeDocument:
		whole, text = true, c.Text
	case *protocol.TextDocumentContentChangePartial:
		text, r = c.Text, c.Range
	default:
		s.log.Warn("ignoring a content change of an unknown form", "path", d.path)
		return d, false
	}
	var cur *orgast.File
	if d.memex {
		n, ok := mx.Snapshot().File(d.path)
		if !ok { // the memex dropped the file: serve the buffer on its own
			d.memex = false
			return d, true
		}
		cur = n.Org()
	} else {
		cur = d.loose.Org()
	}
	if whole {
		return s.openBuffer(ctx, mx, d, []byte(text)), true
	}
	start, end := offsetAt(cur, r.Start), offsetAt(cur, r.End)
	if end < start {
		start, end = end, start
	}
	structural = isStructural(cur.Src, start, end, text)
	if d.memex {
		_, err := mx.EditBuffer(ctx, d.path, d.version, memory.TextEdit{Start: start, End: end, Text: text})
		if err == nil {
			return d, structural
		}
		s.log.Warn("the memex refused an edit; giving it the whole text", "path", d.path, "err", err)
	}
	if d.memex {
		src := make([]byte, 0, len(cur.Src)-(end-start)+len(text))
		src = append(append(append(src, cur.Src[:start]...), text...), cur.Src[end:]...)
		return s.openBuffer(ctx, mx, d, src), true
	}
	next, err := d.loose.Edit(memory.TextEdit{Start: start, End: end, Text: text})
	if err != nil { // offsetAt clamps: cannot happen
		s.log.Warn("ignoring a change outside the buffer", "path", d.path, "err", err)
		return d, false
	}
	d.loose = next
	return d, structural
}

// isStructural reports whether replacing src[start:end] by text may change
// the outline's headlines or drawers: it spans a line end, or its line
// starts (before or after the change) with a star or a colon.
func isStructural(src []byte, start, end int, text string) bool {
	if bytes.ContainsAny(src[start:end], "\n\r") || strings.ContainsAny(text, "\n\r") {
		return true
	}
	ls := bytes.LastIndexAny(src[:start], "\n\r") + 1
	le := end + len(src[end:])
	if i := bytes.IndexAny(src[end:], "\n\r"); i >= 0 {
		le = end + i
	}
	lead := func(line []byte) bool {
		line = bytes.TrimLeft(line, " \t")
		return len(line) > 0 && (line[0] == '*' || line[0] == ':')
	}
	after := append(append(append([]byte(nil), src[ls:start]...), text...), src[end:le]...)
	return lead(src[ls:le]) || lead(after)
}

func (s *Server) didSave(ctx context.Context, params jsonrpc2.RawMessage) error {
	_, path, err := docNote(protocol.MethodTextDocumentDidSave, params, func(p *protocol.DidSaveTextDocumentParams) uri.URI { return p.TextDocument.URI })
	if err != nil {
		return err
	}
	if mx := s.memex(); mx != nil {
		// The buffer keeps winning; the memex notes what is on disk now,
		// for when the buffer closes.
		if _, err := mx.ReloadFiles(ctx, path); err != nil {
			return err
		}
	}
	if a := s.theAgent(); a != nil && a.IsPlansFile(path) {
		a.NotifyPlansChanged()
	}
	return nil
}

func (s *Server) didClose(ctx context.Context, params jsonrpc2.RawMessage) error {
	_, path, err := docNote(protocol.MethodTextDocumentDidClose, params, func(p *protocol.DidCloseTextDocumentParams) uri.URI { return p.TextDocument.URI })
	if err != nil {
		return err
	}
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	d, ok := s.docs.get(path)
	if !ok {
		return nil
	}
	s.docs.put(path, nil)
	defer s.forgetOld(path)
	mx := s.memex()
	if d.memex && mx != nil {
		before := mx.Snapshot()
		if _, err := mx.CloseBuffer(ctx, path); err != nil {
			return err
		}
		s.diags.changed(path, before)
		s.advanceSeen(mx, before, 1)
		return nil
	}
	s.diags.changed(path, nil)
	return nil
}

// adoptBuffers hands the buffers opened before the memex was ready to it.
// The caller holds syncMu.
func (s *Server) adoptBuffers(ctx context.Context, mx *memory.Memex) {
	docs := s.docs.all()
	paths := slices.Sorted(maps.Keys(docs))
	for _, p := range paths {
		d := docs[p]
		if d.memex {
			continue
		}
		if _, err := mx.SetBuffer(ctx, d.path, d.version, d.loose.Org().Src); err != nil {
			continue // outside the memex: it stays a loose file
		}
		s.docs.put(p, &document{uri: d.uri, path: d.path, version: d.version, memex: true})
	}
}

// forgetOld drops what the feature caches hold for path's older
// outlines: the buffer's text as it is now is all they may keep.
func (s *Server) forgetOld(path string) {
	var keep *orgast.File
	if d, ok := s.docs.get(path); ok {
		keep = s.currentOrg(d)
	}
	s.symbols.Forget(path, keep)
	s.noteIndex.Forget(path, keep)
	s.outlines.forget(path)
}

// memex returns the live memex once it is ready (nil before, or when it
// could not be opened).
func (s *Server) memex() *memory.Memex {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mx
}

// theAgent returns the agent once it is up.
func (s *Server) theAgent() *agent.Agent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.agent
}
