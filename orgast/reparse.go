package orgast

import (
	"bytes"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Edit describes one change to a file: the bytes old[Start:OldEnd] were
// replaced, giving new[Start:NewEnd]; everything before Start and after the
// change is the same in both.
type Edit struct {
	Start, OldEnd, NewEnd int
}

// DiffEdit returns the smallest Edit turning old into new: the common
// prefix and suffix are left out.
func DiffEdit(old, new []byte) Edit {
	n := min(len(old), len(new))
	s := 0
	for s < n && old[s] == new[s] {
		s++
	}
	e := 0
	for e < n-s && old[len(old)-1-e] == new[len(new)-1-e] {
		e++
	}
	return Edit{Start: s, OldEnd: len(old) - e, NewEnd: len(new) - e}
}

// Reparse returns the outline of src, which is prev.Src changed as e says.
// It equals Parse(src) in every respect. When the change leaves every
// file-wide setting alone (#+TODO:, #+STARTUP:, #+LINK:, radio targets, the
// encoding and line ends) it parses again only the top-level subtrees the
// change touches and patches the rest of prev's outline; otherwise, or when
// e does not describe src, it parses src in full.
//
// The result shares no mutable state with prev; like any File it views its
// Src, which must not change afterwards.
func Reparse(prev *File, src []byte, e Edit) *File {
	if !prev.patchable(src, e) {
		return Parse(src)
	}
	delta := e.NewEnd - e.OldEnd
	hs := prev.Headlines
	loIdx, hiIdx, lo, topParent, closes, ok := nestedWindow(prev, src, e)
	if !ok {
		loIdx, hiIdx, lo, topParent = topWindow(prev, src, e)
	}
	oldHi := len(prev.Src)
	if hiIdx < len(hs) {
		oldHi = hs[hiIdx].Line.Start
	}
	if wholeWindow(lo, oldHi, len(prev.Src)) {
		// Edits all over the file (a burst an editor folded into one):
		// merging would copy the window's outline once more for little
		// kept.
		return Parse(src)
	}
	newHi := oldHi + delta

	// patchable established what newSource would find: plain UTF-8 with
	// LF line ends and no radio target outside the window. Radio targets
	// are looked for in it as Parse would (the file has "<<<"); one found
	// changes links anywhere, so the file is parsed in full.
	p := &parser{src: &source{orig: src, text: src}, t: src, n: len(src), lo: lo, hi: newHi, mayHaveRadio: bytes.Contains(src, []byte("<<<"))}
	// The window's links expand the abbreviations as viewed in src, so
	// that the outline views src alone.
	abbrevs := make([]LinkAbbrev, len(prev.LinkAbbrevs))
	for i, a := range prev.LinkAbbrevs {
		abbrevs[i] = LinkAbbrev{Key: viewIn(prev.Src, src, e, a.Key), Replacement: viewIn(prev.Src, src, e, a.Replacement)}
	}
	p.set = settings{todo: prev.Todo, oddLevels: prev.OddLevels, abbrevs: abbrevs}
	cend := p.contentsEnd(newHi, 0)
	if closes {
		// The window's end closes H's parent too: the window's subtrees
		// end where the parent's contents do (before blank lines).
		p.topLimit = cend
	}
	p.presize()
	p.scanHeadlines()
	p.parseSections()
	if !sameSettings(prev.Keywords, lo, oldHi, p.kws) {
		return Parse(src)
	}
	p.readHeadlines()
	p.objectPhase()
	if p.radio != nil {
		return Parse(src)
	}

	m := merger{prev: prev, src: src, e: e, delta: delta, lo: lo, oldHi: oldHi,
		shift: len(p.hls) - (hiIdx - loIdx), loIdx: loIdx, hiIdx: hiIdx, topParent: topParent, cend: cend}
	return m.merge(p)
}

// wholeWindow reports whether a window [lo, hi) of a file of n bytes
// leaves so little of it (under an eighth) that parsing it all costs less.
func wholeWindow(lo, hi, n int) bool {
	return n > 0 && n-(hi-lo) < n/8
}

// nestedWindow is the window of the smallest subtree that holds the
// change, when there is one that keeps its structure: the innermost
// headline H whose stars (and the space after them) the change leaves
// alone and whose subtree holds the change; the window runs from H to
// the next headline outside its subtree, and no headline in it, after
// the change, has fewer stars than H. Then H stays where it was in the
// tree, every headline the window holds stays below H's parent, and the
// subtrees of H's ancestors only grow or shrink by the change: a
// one-character edit in a large last chapter parses a section, not the
// chapter.
//
// closes reports that the window's end is also the end of H's parent's
// subtree.
func nestedWindow(prev *File, src []byte, e Edit) (loIdx, hiIdx, lo, topParent int, closes, ok bool) {
	hs := prev.Headlines
	h := -1
	for i := range hs {
		if hs[i].Line.Start+hs[i].Stars+1 > e.Start {
			break
		}
		if e.OldEnd < hs[i].End || hs[i].End == len(prev.Src) {
			h = i // a later one that holds the change is nested deeper
		}
	}
	if h < 0 || hs[h].Parent < 0 {
		return 0, 0, 0, 0, false, false // top level: topWindow's
	}
	hiIdx = h + 1
	for hiIdx < len(hs) && hs[hiIdx].Stars > hs[h].Stars {
		hiIdx++
	}
	oldHi := len(prev.Src)
	if hiIdx < len(hs) {
		oldHi = hs[hiIdx].Line.Start
	}
	if oldHi <= e.OldEnd && hiIdx < len(hs) {
		return 0, 0, 0, 0, false, false
	}
	delta := e.NewEnd - e.OldEnd
	lo = hs[h].Line.Start
	if minStars(src[lo:oldHi+delta]) < hs[h].Stars {
		return 0, 0, 0, 0, false, false
	}
	closes = hiIdx == len(hs) || hs[hiIdx].Stars <= hs[hs[h].Parent].Stars
	return h, hiIdx, lo, hs[h].Parent, closes, true
}

// topWindow is the window of the top-level subtrees the change touches.
func topWindow(prev *File, src []byte, e Edit) (loIdx, hiIdx, lo, topParent int) {
	hs := prev.Headlines
	delta := e.NewEnd - e.OldEnd
	// The window starts at the last top-level headline whose stars and
	// the space after them the change leaves alone (or at the top of the
	// file): that headline stays one, so what precedes it keeps its
	// structure ...
	for i := range hs {
		if hs[i].Line.Start+hs[i].Stars+1 > e.Start {
			break
		}
		if hs[i].Parent < 0 {
			loIdx, lo = i, hs[i].Line.Start
		}
	}
	// ... and ends at a later top-level headline that no headline in the
	// changed window outranks, so that its subtree and all after it keep
	// their structure.
	hiIdx = len(hs)
	for i := loIdx; i < len(hs); i++ {
		if hs[i].Parent < 0 && hs[i].Line.Start > e.OldEnd {
			hiIdx = i
			break
		}
	}
	for hiIdx < len(hs) && minStars(src[lo:hs[hiIdx].Line.Start+delta]) < hs[hiIdx].Stars {
		hiIdx++
		for hiIdx < len(hs) && hs[hiIdx].Parent >= 0 {
			hiIdx++
		}
	}
	return loIdx, hiIdx, lo, -1
}

// patchable reports whether Reparse may patch prev for this change.
func (f *File) patchable(src []byte, e Edit) bool {
	old := f.Src
	if !f.plain || e.Start < 0 || e.Start > e.OldEnd || e.OldEnd > len(old) || e.Start > e.NewEnd || e.NewEnd > len(src) ||
		len(old)-e.OldEnd != len(src)-e.NewEnd {
		return false
	}
	if !bytes.Equal(old[:e.Start], src[:e.Start]) || !bytes.Equal(old[e.OldEnd:], src[e.NewEnd:]) {
		return false
	}
	ins := src[e.Start:e.NewEnd]
	if bytes.IndexByte(ins, '\r') >= 0 || bytes.IndexByte(ins, 0) >= 0 {
		return false
	}
	// The text around the change must stay valid UTF-8 and free of "<<<"
	// and of a byte-order mark.
	a, b := max(0, e.Start-3), min(len(src), e.NewEnd+3)
	for a > 0 && src[a]&0xC0 == 0x80 {
		a--
	}
	for b < len(src) && src[b]&0xC0 == 0x80 {
		b++
	}
	return utf8.Valid(src[a:b]) && !bytes.Contains(src[a:b], []byte("<<<")) && !bytes.HasPrefix(src, []byte{0xEF, 0xBB, 0xBF})
}

// minStars returns the fewest stars of a headline line in w (which starts
// at a line start), or a large number when it has none.
func minStars(w []byte) int {
	best := int(^uint(0) >> 1)
	check := func(i int) {
		k := i
		for k < len(w) && w[k] == '*' {
			k++
		}
		if k > i && k < len(w) && w[k] == ' ' && k-i < best {
			best = k - i
		}
	}
	if len(w) > 0 {
		check(0)
	}
	for i := 0; ; {
		j := bytes.Index(w[i:], []byte("\n*"))
		if j < 0 {
			return best
		}
		i += j + 1
		check(i)
	}
}

// sameSettings reports whether the setting keywords of the old window
// [lo, hi) of olds equal those parsed anew.
func sameSettings(olds []Keyword, lo, hi int, news []Keyword) bool {
	var a, b []Keyword
	for _, k := range olds {
		if k.Range.Start >= lo && k.Range.Start < hi && isSettingKey(k.Key) {
			a = append(a, k)
		}
	}
	for _, k := range news {
		if isSettingKey(k.Key) {
			b = append(b, k)
		}
	}
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].Value != b[i].Value {
			return false
		}
	}
	return true
}

// merger splices a window's parse into the outline of the file before the
// change: what precedes the window keeps its offsets, what follows moves
// by delta bytes and its headline indices by shift; every string is made
// to view the new bytes.
type merger struct {
	prev         *File
	src          []byte
	e            Edit
	delta, shift int
	lo, oldHi    int
	loIdx, hiIdx int
	// topParent is the parent of the window's outermost headlines (-1
	// for a window of top-level subtrees, H's parent for a nested one).
	topParent int
	// cend is where the contents before the window's end end (before
	// its blank lines), in the new text.
	cend int
	// Copies are carved out of these, allocated once.
	tags    []string
	drawers []Drawer
	props   []Property
}

func (m *merger) merge(p *parser) *File {
	prev := m.prev
	f := &File{Src: m.src, enc: encUTF8, eol: EOLUnix, plain: true, titleKw: -1, tagsKw: -1}
	nt, nd, np := 0, 1, len(prev.FileDrawer.props())
	for i := range prev.Headlines {
		if i >= m.loIdx && i < m.hiIdx {
			continue
		}
		h := &prev.Headlines[i]
		nt += len(h.Tags)
		if h.Drawer != nil {
			nd++
			np += len(h.Drawer.Properties)
		}
	}
	m.tags, m.drawers, m.props = make([]string, 0, nt), make([]Drawer, 0, nd), make([]Property, 0, np)
	before := func(r Range) bool { return r.Start < m.lo }
	after := func(r Range) bool { return r.Start >= m.oldHi }

	f.Keywords = make([]Keyword, 0, len(prev.Keywords)+len(p.kws))
	for _, k := range prev.Keywords {
		if before(k.Range) {
			f.Keywords = append(f.Keywords, m.keyword(k, false))
		}
	}
	for _, k := range p.kws {
		if k.Node >= 0 {
			k.Node += m.loIdx
		}
		f.Keywords = append(f.Keywords, k)
	}
	for _, k := range prev.Keywords {
		if after(k.Range) {
			f.Keywords = append(f.Keywords, m.keyword(k, true))
		}
	}

	// Copy in bulk, then fix each entry in place.
	hs := make([]Headline, len(prev.Headlines)+m.shift)
	copy(hs, prev.Headlines[:m.loIdx])
	copy(hs[m.loIdx:], p.hls)
	copy(hs[m.loIdx+len(p.hls):], prev.Headlines[m.hiIdx:])
	for i := range hs {
		switch {
		case i < m.loIdx:
			m.headline(&hs[i], false)
			if hs[i].End > m.lo {
				hs[i].End = m.ancestorEnd(i) // an ancestor of a nested window
			}
		case i < m.loIdx+len(p.hls):
			if hs[i].Parent >= 0 {
				hs[i].Parent += m.loIdx
			} else {
				hs[i].Parent = m.topParent
			}
		default:
			m.headline(&hs[i], true)
		}
	}
	f.Headlines = hs

	// Links before the window, the window's, and those after it.
	a := 0
	for a < len(prev.Links) && prev.Links[a].Range.Start < m.lo {
		a++
	}
	b := a
	for b < len(prev.Links) && prev.Links[b].Range.Start < m.oldHi {
		b++
	}
	ls := make([]Link, a+len(p.links)+len(prev.Links)-b)
	copy(ls, prev.Links[:a])
	copy(ls[a:], p.links)
	copy(ls[a+len(p.links):], prev.Links[b:])
	for i := range ls {
		switch {
		case i < a:
			m.link(&ls[i], false)
		case i < a+len(p.links):
			if ls[i].Node >= 0 {
				ls[i].Node += m.loIdx
			}
		default:
			m.link(&ls[i], true)
		}
	}
	f.Links = ls

	f.Targets = spliceItems(m, f.Targets, prev.Targets, p.targets,
		func(t *Target) (*Range, *int) { return &t.Range, &t.Node }, m.target)
	f.Blocks = spliceItems(m, make([]Block, 0, len(prev.Blocks)+len(p.blocks)), prev.Blocks, p.blocks,
		func(b *Block) (*Range, *int) { return &b.Range, &b.Node }, m.block)
	f.Names = spliceItems(m, make([]Named, 0, len(prev.Names)+len(p.names)), prev.Names, p.names,
		func(n *Named) (*Range, *int) { return &n.Range, &n.Node }, m.named)

	for _, pr := range prev.Problems {
		if before(pr.Range) {
			f.Problems = append(f.Problems, pr)
		}
	}
	sortProblems(p.problems)
	f.Problems = append(f.Problems, p.problems...)
	for _, pr := range prev.Problems {
		if after(pr.Range) {
			pr.Range = m.rng(pr.Range, true)
			f.Problems = append(f.Problems, pr)
		}
	}

	if m.lo == 0 {
		f.FileDrawer = p.file
	} else {
		f.FileDrawer = m.drawer(prev.FileDrawer, false)
	}
	set := computeSettings(f.Keywords)
	f.Todo, f.OddLevels, f.LinkAbbrevs = set.todo, set.oddLevels, set.abbrevs
	f.findTitle()
	f.Lines = prev.Lines.patched(m.src, m.e)
	return f
}

// spliceItems appends to dst one list of the new outline: prev's items
// before the re-parsed span, those parsed afresh (their Node counted from
// the span's first headline), and prev's items after it, each made over
// by keep (moved or not). at gives an item's range and node.
func spliceItems[T any](m *merger, dst, prev, fresh []T, at func(*T) (*Range, *int), keep func(T, bool) T) []T {
	// Items are reached by index, never copied to a variable whose address
	// at would take: that would move a copy of each to the heap.
	for i := range prev {
		if r, _ := at(&prev[i]); r.Start < m.lo {
			dst = append(dst, keep(prev[i], false))
		}
	}
	for i := range fresh {
		if _, n := at(&fresh[i]); *n >= 0 {
			*n += m.loIdx
		}
		dst = append(dst, fresh[i])
	}
	for i := range prev {
		if r, _ := at(&prev[i]); r.Start >= m.oldHi {
			dst = append(dst, keep(prev[i], true))
		}
	}
	return dst
}

// str makes a string of prev's that views prev.Src view the same bytes
// in the new text; other strings (built, not viewed) are kept.
func (m *merger) str(s string) string { return viewIn(m.prev.Src, m.src, m.e, s) }

// viewIn makes a string that views old view the same bytes in new, which
// is old changed as e says. Where the bytes lie decides, not where the
// item holding the string does: a link's expanded abbreviation views its
// #+LINK: line, anywhere in the file. Bytes the edit replaced are copied;
// a string that views other memory is kept.
func viewIn(old, new []byte, e Edit, s string) string {
	if s == "" || len(old) == 0 {
		return s
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(old)))
	ptr := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	if ptr < base || ptr >= base+uintptr(len(old)) {
		return s
	}
	off := int(ptr - base)
	switch {
	case off+len(s) <= e.Start:
	case off >= e.OldEnd:
		off += e.NewEnd - e.OldEnd
	default:
		return strings.Clone(s)
	}
	return unsafe.String(&new[off], len(s))
}

func (m *merger) rng(r Range, moved bool) Range {
	if moved && r != (Range{}) {
		r.Start += m.delta
		r.End += m.delta
	}
	return r
}

// ancestorEnd is the new end of the subtree of headline i, an ancestor of
// a nested window: moved by the change when it goes on past the window;
// otherwise at the window's end — or where the contents before it end,
// when the window's end closes i's parent too (a subtree ends no later
// than its parent's contents do).
func (m *merger) ancestorEnd(i int) int {
	hs := m.prev.Headlines
	closed := func(k int) bool { return m.hiIdx == len(hs) || hs[m.hiIdx].Stars <= hs[k].Stars }
	switch {
	case !closed(i):
		return hs[i].End + m.delta
	case hs[i].Parent >= 0 && closed(hs[i].Parent):
		return m.cend
	default:
		return m.oldHi + m.delta
	}
}

func (m *merger) node(n int, moved bool) int {
	// What moved is after the window; what it names before the window
	// (the parent of a headline after a nested window) stays.
	if moved && n >= m.hiIdx {
		return n + m.shift
	}
	return n
}

func (m *merger) keyword(k Keyword, moved bool) Keyword {
	k.Key, k.Value = m.str(k.Key), m.str(k.Value)
	k.Range, k.ValueRange = m.rng(k.Range, moved), m.rng(k.ValueRange, moved)
	k.Node = m.node(k.Node, moved)
	return k
}

func (m *merger) link(l *Link, moved bool) {
	l.Type, l.Path, l.Search = m.str(l.Type), m.str(l.Path), m.str(l.Search)
	l.Application, l.Raw = m.str(l.Application), m.str(l.Raw)
	l.Range, l.DescRange = m.rng(l.Range, moved), m.rng(l.DescRange, moved)
	l.Node = m.node(l.Node, moved)
}

func (m *merger) target(t Target, moved bool) Target {
	t.Name = m.str(t.Name)
	t.Range = m.rng(t.Range, moved)
	t.Node = m.node(t.Node, moved)
	return t
}

func (m *merger) block(b Block, moved bool) Block {
	b.Name, b.Language = m.str(b.Name), m.str(b.Language)
	b.Range, b.Line, b.Contents = m.rng(b.Range, moved), m.rng(b.Line, moved), m.rng(b.Contents, moved)
	b.Node = m.node(b.Node, moved)
	return b
}

func (m *merger) named(n Named, moved bool) Named {
	n.Name = m.str(n.Name)
	n.NameRange, n.Range = m.rng(n.NameRange, moved), m.rng(n.Range, moved)
	n.Node = m.node(n.Node, moved)
	return n
}

func (m *merger) timestamp(t Timestamp, moved bool) Timestamp {
	t.Raw = m.str(t.Raw)
	t.Range = m.rng(t.Range, moved)
	return t
}

func (m *merger) drawer(d *Drawer, moved bool) *Drawer {
	if d == nil {
		return nil
	}
	m.drawers = append(m.drawers, Drawer{Range: m.rng(d.Range, moved)})
	c := &m.drawers[len(m.drawers)-1]
	if len(d.Properties) > 0 {
		first := len(m.props)
		for _, pr := range d.Properties {
			pr.Key, pr.Value = m.str(pr.Key), m.str(pr.Value)
			pr.Range, pr.KeyRange, pr.ValueRange = m.rng(pr.Range, moved), m.rng(pr.KeyRange, moved), m.rng(pr.ValueRange, moved)
			m.props = append(m.props, pr)
		}
		c.Properties = m.props[first:len(m.props):len(m.props)]
	}
	return c
}

func (m *merger) headline(h *Headline, moved bool) {
	h.Todo, h.Title = m.str(h.Todo), m.str(h.Title)
	if len(h.Tags) > 0 {
		first := len(m.tags)
		for _, t := range h.Tags {
			m.tags = append(m.tags, m.str(t))
		}
		h.Tags = m.tags[first:len(m.tags):len(m.tags)]
	}
	if h.plan != nil { // a copy: the old version keeps its own
		pl := *h.plan
		pl.Scheduled, pl.Deadline, pl.Closed = m.timestamp(pl.Scheduled, moved), m.timestamp(pl.Deadline, moved), m.timestamp(pl.Closed, moved)
		pl.Range = m.rng(pl.Range, moved)
		h.plan = &pl
	}
	h.Drawer = m.drawer(h.Drawer, moved)
	h.Parent = m.node(h.Parent, moved)
	h.Line, h.TitleRange, h.Section = m.rng(h.Line, moved), m.rng(h.TitleRange, moved), m.rng(h.Section, moved)
	if moved {
		h.End += m.delta
	}
}
