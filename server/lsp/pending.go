package lsp

import (
	"bytes"
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// Edits that arrive faster than the memex can take them are folded (issue
// 23). While the client's next messages are already read in (the
// transport's Buffered), an edit within one line is not given to the
// memex: it changes the document's pending text — the lines it changed,
// over the text the memex holds — and the memex gets all of them at once,
// as one text, when the queue runs dry, before any other notification and
// before any request takes its view. A burst of N keystrokes costs one
// parse, one reindex and one set of diagnostics, not N; a lone keystroke
// goes to the memex at once, as before.

// maxPendingLines bounds the lines a pending text changes: past it, the
// edits are given to the memex and the next ones start again.
const maxPendingLines = 4096

// A large buffer's folded edits (at least lingerBytes of text, two edits
// or more: a burst) wait lingerFor after the client's queue runs dry, so
// that the rest of a burst a client is still sending joins them: each
// flush of edits all over a 12 MB buffer parses and indexes it whole
// (0.5–1 s), and makes a version as large as the one it replaces. They
// never wait more than lingerMax in all, and any other message gives the
// memex them first, as before.
const (
	lingerBytes = 1 << 20
	lingerFor   = 25 * time.Millisecond
	lingerMax   = 250 * time.Millisecond
)

// pendingText is a document's edits not yet given to the memex. All of
// them lie within lines, so the line numbers of base still hold.
type pendingText struct {
	base    *orgast.File   // the text the memex (or the loose file) holds
	lines   map[int][]byte // the lines changed, by number: their content now
	version int32
	edits   int
	// single is the one edit, in base's offsets, while edits == 1.
	single memory.TextEdit
	// structural: some edit touched a line that starts (before or after)
	// with a star or a colon (see isStructural).
	structural bool
	// since is when the first edit was folded.
	since time.Time
}

// lingers reports whether p may wait for more edits (see lingerFor).
func (p *pendingText) lingers(now time.Time) bool {
	return p.edits >= 2 && len(p.base.Src) >= lingerBytes && now.Sub(p.since) < lingerMax
}

// text is the document as the pending edits leave it.
func (p *pendingText) text() []byte {
	src := p.base.Src
	out := make([]byte, 0, len(src)+64)
	prev := 0
	for line := range p.base.Lines.LineCount() {
		content, ok := p.lines[line]
		if !ok {
			continue
		}
		lr := p.base.Lines.LineRange(line)
		out = append(append(out, src[prev:lr.Start]...), content...)
		prev = lr.End
	}
	return append(out, src[prev:]...)
}

// moreInput reports whether the client's next message is already here.
func (s *Server) moreInput() bool { return s.stream != nil && s.stream.Buffered() > 0 }

// foldable reports whether the base text lets edits be folded: UTF-8
// without NUL (what a client sends), so that a UTF-16 column is counted
// the same way in one line as orgast counts it in the file.
func foldable(f *orgast.File) bool {
	return bytes.IndexByte(f.Src, 0) < 0 && utf8.Valid(f.Src)
}

// deferChange adds ch to path's pending text when the client's next
// message is already here (or edits are pending already) and ch lies
// within one line; it reports whether it did. The caller holds syncMu.
func (s *Server) deferChange(d *document, version int32, ch protocol.TextDocumentContentChangeEvent) bool {
	p := s.pending[d.path]
	if p == nil && !s.moreInput() {
		return false
	}
	c, ok := ch.(*protocol.TextDocumentContentChangePartial)
	if !ok || c.Range.Start.Line != c.Range.End.Line || strings.ContainsAny(c.Text, "\n\r\x00") {
		return false
	}
	if p == nil {
		base := s.currentOrg(d)
		if base == nil || !foldable(base) {
			return false
		}
		p = &pendingText{base: base, lines: map[int][]byte{}, since: time.Now()}
	}
	line := int(c.Range.Start.Line)
	if line >= p.base.Lines.LineCount() {
		return false
	}
	cur, changed := p.lines[line]
	lr := p.base.Lines.LineRange(line)
	if !changed {
		if len(p.lines) >= maxPendingLines {
			return false
		}
		cur = p.base.Src[lr.Start:lr.End]
	}
	start, end := utf16Column(cur, int(c.Range.Start.Character)), utf16Column(cur, int(c.Range.End.Character))
	if end < start {
		start, end = end, start
	}
	next := make([]byte, 0, len(cur)-(end-start)+len(c.Text))
	next = append(append(append(next, cur[:start]...), c.Text...), cur[end:]...)
	p.structural = p.structural || leadsStructure(cur) || leadsStructure(next)
	p.lines[line] = next
	p.edits++
	p.version = version
	if p.edits == 1 {
		p.single = memory.TextEdit{Start: lr.Start + start, End: lr.Start + end, Text: c.Text}
	}
	s.pending[d.path] = p
	return true
}

// utf16Column is the byte offset in line (valid UTF-8, no line end) of
// a UTF-16 column, as orgast.LineIndex.OffsetUTF16 resolves it: inside a
// surrogate pair at the character's start, past the end at the end.
func utf16Column(line []byte, col int) int {
	units := 0
	for i := 0; i < len(line); {
		if units >= col {
			return i
		}
		r, n := utf8.DecodeRune(line[i:])
		u := 1
		if r >= 0x10000 {
			u = 2
		}
		if units+u > col {
			return i
		}
		units += u
		i += n
	}
	return len(line)
}

// leadsStructure reports whether a line starts, after blanks, with a star
// or a colon (a headline, a drawer or a property may begin there).
func leadsStructure(line []byte) bool {
	line = bytes.TrimLeft(line, " \t")
	return len(line) > 0 && (line[0] == '*' || line[0] == ':')
}

// currentOrg is the text the memex (or the loose file) holds for d; nil
// when the memex dropped the file.
func (s *Server) currentOrg(d *document) *orgast.File {
	if !d.memex {
		return d.loose.Org()
	}
	mx := s.memex()
	if mx == nil {
		return nil
	}
	n, ok := mx.Snapshot().File(d.path)
	if !ok {
		return nil
	}
	return n.Org()
}

// flushPending gives the memex (or the loose file) path's pending text,
// as one edit when there is one, else as the whole text. The caller holds
// syncMu.
func (s *Server) flushPending(ctx context.Context, path string) {
	p := s.pending[path]
	if p == nil {
		return
	}
	delete(s.pending, path)
	s.changeDoc(path, p.version, func(mx *memory.Memex, d *document) (*document, bool, int) {
		if p.edits == 1 && s.currentOrg(d) == p.base {
			if d.memex {
				if _, err := mx.EditBuffer(ctx, path, d.version, p.single); err == nil {
					return d, p.structural, 1
				}
			} else if next, err := d.loose.Edit(p.single); err == nil {
				d.loose = next
				return d, p.structural, 1
			}
		}
		return s.openBuffer(ctx, mx, d, p.text()), p.structural, 1
	})
}

// flushSoon gives the memex path's pending text now, or, when it may
// linger, lingerFor from now unless another edit joined it meanwhile (that
// edit's didChange decided again). The caller holds syncMu.
func (s *Server) flushSoon(ctx context.Context, path string) {
	p := s.pending[path]
	if p == nil || !p.lingers(time.Now()) {
		s.flushPending(ctx, path)
		return
	}
	edits := p.edits
	s.spawn(func(ctx context.Context) {
		t := time.NewTimer(lingerFor)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.syncMu.Lock()
		defer s.syncMu.Unlock()
		if s.pending[path] == p && p.edits == edits {
			s.flushPending(ctx, path)
		}
	})
}

// flushAll gives the memex every pending text, before a message that
// must see them.
func (s *Server) flushAll(ctx context.Context) {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	for path := range s.pending {
		s.flushPending(ctx, path)
	}
}
