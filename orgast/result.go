package orgast

import (
	"bytes"
	"sort"
	"unicode/utf8"
)

// exact is s, copied to its length when presizing left it room beyond a
// 32nd of its length: a File lives as long as its memex holds it, and the
// room is never used (presizing leaves a small file's links room for
// eight more: 1.5 MB of 2,000 files of 30 links each).
func exact[T any](s []T) []T {
	if cap(s)-len(s) <= len(s)/32 {
		return s
	}
	return append(make([]T, 0, len(s)), s...)
}

// result assembles the File, with every offset mapped back to the file's
// bytes.
func (p *parser) result() *File {
	f := &File{
		Src:         p.src.orig,
		Keywords:    p.kws,
		FileDrawer:  p.file,
		Todo:        p.set.todo,
		OddLevels:   p.set.oddLevels,
		LinkAbbrevs: p.set.abbrevs,
		Headlines:   p.hls,
		Links:       exact(p.links),
		Targets:     p.targets,
		Blocks:      p.blocks,
		Names:       p.names,
		Problems:    p.problems,
		enc:         p.enc,
		eol:         p.src.eol,
		titleKw:     -1,
		tagsKw:      -1,
	}
	f.findTitle()
	sortProblems(f.Problems)
	if p.src.bom != 0 || p.src.crlf != nil {
		f.remap(p.src.origOffset)
	}
	if f.Lines = p.lines; f.Lines == nil {
		f.Lines = newLineIndex(p.src.orig, p.src.eol, p.enc, p.src.bom)
	}
	// A "<<<" that makes no radio target (in an example, a fixed-width
	// line, code) leaves the file plain: Reparse looks for radio targets
	// in the window it parses again, and parses the file in full when an
	// edit made one.
	f.plain = p.enc == encUTF8 && p.src.bom == 0 && p.src.eol == EOLUnix && p.radio == nil &&
		bytes.IndexByte(p.t, '\r') < 0 && utf8.Valid(p.t)
	return f
}

// findTitle finds the first #+TITLE: and #+FILETAGS: keywords before the
// first headline.
func (f *File) findTitle() {
	f.titleKw, f.tagsKw = -1, -1
	for i := range f.Keywords {
		if f.Keywords[i].Node >= 0 {
			break
		}
		switch f.Keywords[i].Key {
		case "TITLE":
			if f.titleKw < 0 {
				f.titleKw = i
			}
		case "FILETAGS":
			if f.tagsKw < 0 {
				f.tagsKw = i
			}
		}
	}
}

// sortProblems orders problems by where they start.
func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Range.Start < ps[j].Range.Start })
}

// buildTiles partitions the text into spans owned by the innermost
// headline whose subtree holds them (-1: the file node). It walks the
// headlines in document order with a stack: subtrees nest, so the spans
// come out in order.
func buildTiles(hls []Headline) []tile {
	ts := make([]tile, 1, 2*len(hls)+1)
	ts[0] = tile{0, -1}
	emit := func(at, owner int) {
		if last := &ts[len(ts)-1]; last.start == at {
			last.owner = owner
			return
		}
		if ts[len(ts)-1].owner != owner {
			ts = append(ts, tile{at, owner})
		}
	}
	var stack []int
	pop := func(upTo int) {
		for len(stack) > 0 && hls[stack[len(stack)-1]].End <= upTo {
			end := hls[stack[len(stack)-1]].End
			stack = stack[:len(stack)-1]
			owner := -1
			if len(stack) > 0 {
				owner = stack[len(stack)-1]
			}
			emit(end, owner)
		}
	}
	for i := range hls {
		pop(hls[i].Line.Start)
		emit(hls[i].Line.Start, i)
		stack = append(stack, i)
	}
	pop(int(^uint(0) >> 1))
	return ts
}

// remap rewrites every offset with m (text offsets to file offsets).
func (f *File) remap(m func(int) int) {
	r := func(x *Range) {
		if *x != (Range{}) { // the zero Range means "none" and stays so
			x.Start, x.End = m(x.Start), m(x.End)
		}
	}
	drawer := func(d *Drawer) {
		if d == nil {
			return
		}
		r(&d.Range)
		for i := range d.Properties {
			pr := &d.Properties[i]
			r(&pr.Range)
			r(&pr.KeyRange)
			r(&pr.ValueRange)
		}
	}
	for i := range f.Keywords {
		r(&f.Keywords[i].Range)
		r(&f.Keywords[i].ValueRange)
	}
	drawer(f.FileDrawer)
	for i := range f.Headlines {
		h := &f.Headlines[i]
		r(&h.Line)
		r(&h.TitleRange)
		r(&h.Section)
		h.End = m(h.End)
		if pl := h.plan; pl != nil { // the parse's own: changed in place
			r(&pl.Range)
			r(&pl.Scheduled.Range)
			r(&pl.Deadline.Range)
			r(&pl.Closed.Range)
		}
		drawer(h.Drawer)
	}
	for i := range f.Links {
		r(&f.Links[i].Range)
		r(&f.Links[i].DescRange)
	}
	for i := range f.Targets {
		r(&f.Targets[i].Range)
	}
	for i := range f.Blocks {
		b := &f.Blocks[i]
		r(&b.Range)
		r(&b.Line)
		r(&b.Contents)
	}
	for i := range f.Names {
		r(&f.Names[i].NameRange)
		r(&f.Names[i].Range)
	}
	for i := range f.Problems {
		r(&f.Problems[i].Range)
	}
}
