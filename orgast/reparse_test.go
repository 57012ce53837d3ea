package orgast

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// snapshot is everything a File holds that a caller can observe, with
// empty slices made nil, so that two Files compare with one Equal.
type snapshot struct {
	Src               string
	Keywords          []Keyword
	FileDrawer        *Drawer
	Todo              TodoConfig
	OddLevels         bool
	LinkAbbrevs       []LinkAbbrev
	Headlines         []Headline
	Links             []Link
	Targets           []Target
	Blocks            []Block
	Names             []Named
	Problems          []Problem
	Tiles             []tile
	Enc               encoding
	EOL               EOL
	TitleKw, TagsKw   int
	Plain             bool
	LineStarts        lineStarts
	LineSize, LineBOM int
	LineCRLF          bool
}

func snap(f *File) snapshot {
	nilIfEmpty := func(v any) {
		rv := reflect.ValueOf(v).Elem()
		if rv.Len() == 0 {
			rv.Set(reflect.Zero(rv.Type()))
		}
	}
	f.NodeAt(0) // build the lazily built tiles
	s := snapshot{
		Src: string(f.Src), Keywords: f.Keywords, FileDrawer: f.FileDrawer, Todo: f.Todo, OddLevels: f.OddLevels,
		LinkAbbrevs: f.LinkAbbrevs, Headlines: f.Headlines, Links: f.Links, Targets: f.Targets, Blocks: f.Blocks, Names: f.Names, Problems: f.Problems,
		Tiles: f.tiles, Enc: f.enc, EOL: f.eol, TitleKw: f.titleKw, TagsKw: f.tagsKw, Plain: f.plain,
		LineStarts: f.Lines.starts, LineSize: f.Lines.size, LineBOM: f.Lines.bom, LineCRLF: f.Lines.crlf,
	}
	for _, v := range []any{&s.Keywords, &s.LinkAbbrevs, &s.Headlines, &s.Links, &s.Targets, &s.Blocks, &s.Names, &s.Problems} {
		nilIfEmpty(v)
	}
	for i := range s.Headlines {
		if len(s.Headlines[i].Tags) == 0 {
			s.Headlines[i].Tags = nil
		}
	}
	return s
}

// orgLines are lines that exercise the structure: headlines of several
// levels, settings, planning, drawers, blocks, lists, tables, links.
var orgLines = []string{
	"* Top", "** Child :tag:", "*** TODO [#A] Deep", "* DONE Done", "**** NEXT four", "*bold* not a headline",
	"#+TITLE: t", "#+TODO: TODO NEXT | DONE", "#+STARTUP: odd", "#+LINK: gh https://github.com/%s", "#+FILETAGS: :a:",
	"SCHEDULED: <2024-01-01 Mon>", ":PROPERTIES:", ":ID: 1", ":END:", ":LOGBOOK:", "#+begin_src sh", "#+end_src",
	"#+begin_quote", "#+end_quote", "- item https://a.org", "  - nested [[id:x][y]]", "1. one", "| a | [[b]] |",
	"text with =code= and [[https://b.org][b]]", "", "", "  ", "<<target>>", "<<<radio>>>", "radio here",
	"[fn:1] note", "# comment", ": fixed", "étoile 中文 😀 https://é.org", "\\begin{eq}", "\\end{eq}",
	"#+NAME: n", "#+tblname: t", "#+begin_example", "#+end_example", "#+BEGIN: dyn", "#+END:", "#+begin_note", "#+end_note",
	"  #+begin_verse", "  #+end_verse", "  :NOTES:",
}

func randomDoc(r *rand.Rand, lines int) string {
	var b strings.Builder
	for i := 0; i < lines; i++ {
		b.WriteString(orgLines[r.IntN(len(orgLines))])
		b.WriteByte('\n')
	}
	return b.String()
}

// randomEdit changes doc at a random place: it deletes a span, inserts
// text (a line, stars, a newline, a CR, a multi-byte character …), or both.
func randomEdit(r *rand.Rand, doc string) (string, Edit) {
	start := 0
	if len(doc) > 0 {
		start = r.IntN(len(doc) + 1)
	}
	end := start
	if r.IntN(2) == 0 && start < len(doc) {
		end = start + r.IntN(min(len(doc)-start, 40)+1)
	}
	ins := []string{"", "*", "* ", "\n", "\n* New\n", "x", "TODO ", ":END:", "#+TODO: A B\n", "<<<", "é", "\r", "[[", "]]",
		"** ", orgLines[r.IntN(len(orgLines))] + "\n", "\n\n"}[r.IntN(17)]
	out := doc[:start] + ins + doc[end:]
	return out, Edit{Start: start, OldEnd: end, NewEnd: start + len(ins)}
}

// TestReparseEqualsParse applies thousands of random edits to random
// documents and checks that Reparse gives exactly what Parse gives.
func TestReparseEqualsParse(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	patched := 0
	for doc := 0; doc < 300; doc++ {
		text := randomDoc(r, 5+r.IntN(60))
		f := Parse([]byte(text))
		for edit := 0; edit < 20; edit++ {
			next, e := randomEdit(r, text)
			if f.patchable([]byte(next), e) {
				patched++
			}
			got := Reparse(f, []byte(next), e)
			want := Parse([]byte(next))
			require.Equal(t, snap(want), snap(got), "edit %+v of %q gave %q", e, text, next)
			text, f = next, got
		}
	}
	assert.Greater(t, patched, 1000, "most random edits should be patched, not parsed in full")
}

func TestReparseRejectsWrongEdits(t *testing.T) {
	src := []byte("* A\ntext\n* B\n")
	f := Parse(src)
	next := []byte("* A\ntext more\n* B\n")
	tests := []struct {
		name string
		e    Edit
	}{
		{"right", DiffEdit(src, next)},
		{"start past the end", Edit{Start: 100, OldEnd: 100, NewEnd: 100}},
		{"lengths disagree", Edit{Start: 8, OldEnd: 8, NewEnd: 9}},
		{"not the change", Edit{Start: 0, OldEnd: 1, NewEnd: 1}},
		{"negative", Edit{Start: -1, OldEnd: 0, NewEnd: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, snap(Parse(next)), snap(Reparse(f, next, tt.e)))
		})
	}
}

func TestDiffEdit(t *testing.T) {
	tests := []struct {
		old, new string
		want     Edit
	}{
		{"abc", "abc", Edit{3, 3, 3}},
		{"abc", "abXc", Edit{2, 2, 3}},
		{"abc", "ac", Edit{1, 2, 1}},
		{"", "x", Edit{0, 0, 1}},
		{"aaa", "aaaa", Edit{3, 3, 4}},
	}
	for _, tt := range tests {
		got := DiffEdit([]byte(tt.old), []byte(tt.new))
		assert.Equal(t, tt.want, got, "%q → %q", tt.old, tt.new)
		assert.Equal(t, tt.new, tt.old[:got.Start]+tt.new[got.Start:got.NewEnd]+tt.old[got.OldEnd:])
	}
}

func equalSnapshots(a, b snapshot) bool { return reflect.DeepEqual(a, b) }

// TestNestedReparseEqualsParse edits random nested outlines one byte at a
// time, anywhere — in deep sections, around the blank lines that close a
// parent, at the end of the file — and holds Reparse (and its nested
// windows) to Parse.
func TestNestedReparseEqualsParse(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 22))
	lines := []string{"", "", "text and more", "- item", "  - nested item", ":PROPERTIES:", ":ID: x", ":END:", "#+begin_src sh", "#+end_src",
		"#+TITLE: t", "SCHEDULED: <2024-01-01 Mon>", ": fixed <<<radio>>>", "a radio here", "[[*Top][link]]", "<<target>>", "| a | b |"}
	chars := "\n* :#-x<>[]"
	for doc := range testenv.Scale(400, 80) {
		var b strings.Builder
		for range 4 + rng.IntN(12) {
			b.WriteString(strings.Repeat("*", 1+rng.IntN(4)) + " Heading " + strconv.Itoa(doc) + "\n")
			for range rng.IntN(5) {
				b.WriteString(lines[rng.IntN(len(lines))] + "\n")
			}
		}
		src := []byte(b.String())
		prev := Parse(src)
		for range 20 {
			at := rng.IntN(len(src) + 1)
			end := min(len(src), at+rng.IntN(2))
			ins := ""
			if rng.IntN(3) > 0 {
				ins = string(chars[rng.IntN(len(chars))])
			}
			next := append(append(append([]byte{}, src[:at]...), ins...), src[end:]...)
			got := Reparse(prev, next, Edit{Start: at, OldEnd: end, NewEnd: at + len(ins)})
			want := Parse(next)
			if !equalSnapshots(snap(want), snap(got)) {
				require.Equal(t, snap(want), snap(got), "edit [%d,%d) → %q of %q", at, end, ins, src)
			}
			src, prev = next, got
		}
	}
}

// TestReparseKeepsAbbreviatedLinks edits a file whose links expand #+LINK:
// abbreviations (declared before and after them) at every offset: a link
// whose expansion is its abbreviation's replacement views the #+LINK:
// line, not the link, so moving it with the link read eight bytes beside
// it (found by FuzzReparse). The result views its own Src alone.
func TestReparseKeepsAbbreviatedLinks(t *testing.T) {
	doc := "#+LINK: wiki https://en.wikipedia.org/wiki/\nIntro [[wiki]] and [[gh:x]].\n* A\n[[wiki]] [[wiki:Org]] [[gh]]\n** B\ntext [[wiki]]\n* C\n[[gh:y]] [[wiki]]\n#+LINK: gh https://github.com/%s\n"
	patched := 0
	for at := 0; at <= len(doc); at++ {
		for _, ed := range []struct {
			del int
			ins string
		}{{0, "x"}, {1, ""}, {3, "\n"}, {0, "* D\n"}} {
			end := min(len(doc), at+ed.del)
			prev := Parse([]byte(doc))
			next := []byte(doc[:at] + ed.ins + doc[end:])
			e := Edit{Start: at, OldEnd: end, NewEnd: at + len(ed.ins)}
			if prev.patchable(next, e) {
				patched++
			}
			got := Reparse(prev, next, e)
			require.Equal(t, snap(Parse(next)), snap(got), "edit %+v with %q", e, ed.ins)
			for _, l := range got.Links {
				for _, s := range []string{l.Raw, l.Type, l.Path, l.Search} {
					assert.False(t, viewsOf(prev.Src, s), "edit %+v: link %q still views the old text", e, l.Raw)
				}
			}
		}
	}
	assert.Greater(t, patched, len(doc), "most edits should be patched, not parsed in full")
}

// viewsOf says whether s views b's memory.
func viewsOf(b []byte, s string) bool {
	if len(b) == 0 || s == "" {
		return false
	}
	p, base := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return p >= base && p < base+uintptr(len(b))
}
