package orgast

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHeadlineLine(t *testing.T) {
	tests := []struct {
		name, src           string
		level               int
		todo                string
		typ                 TodoType
		prio                rune
		title               string
		tags                []string
		commented, archived bool
	}{
		{"plain", "* Title", 1, "", TodoNone, 0, "Title", nil, false, false},
		{"empty", "* ", 1, "", TodoNone, 0, "", nil, false, false},
		{"keyword needs a space after", "* TODO", 1, "", TodoNone, 0, "TODO", nil, false, false},
		{"keyword", "** TODO x", 2, "TODO", TodoOpen, 0, "x", nil, false, false},
		{"done keyword", "* DONE x", 1, "DONE", TodoDone, 0, "x", nil, false, false},
		{"keyword is case-sensitive", "* todo x", 1, "", TodoNone, 0, "todo x", nil, false, false},
		{"priority", "* [#A] x", 1, "", TodoNone, 'A', "x", nil, false, false},
		{"numeric priority", "* [#1] x", 1, "", TodoNone, '1', "x", nil, false, false},
		{"two-digit is no priority", "* [#10] x", 1, "", TodoNone, 0, "[#10] x", nil, false, false},
		{"any character", "* [#é] x", 1, "", TodoNone, 'é', "x", nil, false, false},
		{"COMMENT prefix", "* COMMENTARY", 1, "", TodoNone, 0, "ARY", nil, true, false},
		{"all", "* DONE [#B] COMMENT t :a:b:", 1, "DONE", TodoDone, 'B', "t", []string{"a", "b"}, true, false},
		{"tags need a blank before", "* title:x:", 1, "", TodoNone, 0, "title:x:", nil, false, false},
		{"tag-only headline", "* :t:", 1, "", TodoNone, 0, "", []string{"t"}, false, false},
		{"tags after a keyword are title", "* TODO :t:", 1, "TODO", TodoOpen, 0, ":t:", nil, false, false},
		{"only the last tag group", "* x :a: :b:", 1, "", TodoNone, 0, "x :a:", []string{"b"}, false, false},
		{"empty tag kept", "* x :a::b:", 1, "", TodoNone, 0, "x", []string{"a", "", "b"}, false, false},
		{"unicode tags", "* x :été:", 1, "", TodoNone, 0, "x", []string{"été"}, false, false},
		{"hyphen is no tag character", "* x :a-b:", 1, "", TodoNone, 0, "x :a-b:", nil, false, false},
		{"archive", "* x :ARCHIVE:", 1, "", TodoNone, 0, "x", []string{"ARCHIVE"}, false, true},
		{"archive is case-sensitive", "* x :archive:", 1, "", TodoNone, 0, "x", []string{"archive"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Parse([]byte(tt.src + "\n"))
			require.Len(t, f.Headlines, 1)
			h := f.Headlines[0]
			assert.Equal(t, tt.level, h.Level)
			assert.Equal(t, tt.todo, h.Todo)
			assert.Equal(t, tt.typ, h.TodoType)
			assert.Equal(t, tt.prio, h.Priority)
			assert.Equal(t, tt.title, h.Title)
			assert.Equal(t, tt.tags, h.Tags)
			assert.Equal(t, tt.commented, h.Commented)
			assert.Equal(t, tt.archived, h.Archived)
			assert.Equal(t, tt.title, string(f.Src[h.TitleRange.Start:h.TitleRange.End]))
		})
	}
}

func TestWhatIsAHeadline(t *testing.T) {
	tests := []struct {
		src   string
		count int
	}{
		{"*\n", 0},
		{"*\tx\n", 0},
		{" * x\n", 0},
		{"* x\n", 1},
		{"#+begin_src\n* inside a block\n#+end_src\n", 1},
		{":DRAWER:\n* inside a drawer\n:END:\n", 1},
		{"*************** END\n", 1},
	}
	for _, tt := range tests {
		assert.Len(t, Parse([]byte(tt.src)).Headlines, tt.count, "%q", tt.src)
	}
}

func TestTodoConfig(t *testing.T) {
	tests := []struct {
		name, src      string
		keywords, done []string
	}{
		{"default", "* x\n", []string{"TODO", "DONE"}, []string{"DONE"}},
		{"keys and logging", "#+TODO: TODO(t) WAIT(w@/!) | DONE(d!) CANCELED(c@)\n", []string{"TODO", "WAIT", "DONE", "CANCELED"}, []string{"DONE", "CANCELED"}},
		{"no separator: last is done", "#+TODO: A B C\n", []string{"A", "B", "C"}, []string{"C"}},
		{"type first, then todo, then seq", "#+SEQ_TODO: S\n#+TODO: T\n#+TYP_TODO: Y\n", []string{"Y", "T", "S"}, []string{"Y", "T", "S"}},
		{"applies from anywhere", "* x\n#+TODO: LATE | GONE\n", []string{"LATE", "GONE"}, []string{"GONE"}},
		{"not inside a block", "#+begin_src\n#+TODO: NO\n#+end_src\n", []string{"TODO", "DONE"}, []string{"DONE"}},
		{"empty line sets nothing", "#+TODO:\n", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Parse([]byte(tt.src))
			assert.Equal(t, tt.keywords, f.Todo.Keywords)
			assert.Equal(t, tt.done, f.Todo.Done)
		})
	}
}

func TestPlanning(t *testing.T) {
	tests := []struct {
		name, src                   string
		scheduled, deadline, closed string
	}{
		{"all three", "* x\nSCHEDULED: <2020-01-01 Wed> DEADLINE: <2020-01-02> CLOSED: [2020-01-03]\n", "<2020-01-01 Wed>", "<2020-01-02>", "[2020-01-03]"},
		{"only directly after the headline", "* x\n\nSCHEDULED: <2020-01-01>\n", "", "", ""},
		{"indented", "* x\n  DEADLINE: <2020-01-02>\n", "", "<2020-01-02>", ""},
		{"range", "* x\nSCHEDULED: <2020-01-01>--<2020-01-03>\n", "<2020-01-01>--<2020-01-03>", "", ""},
		{"lower case counts as CLOSED", "* x\nscheduled: <2020-01-01>\n", "", "", "<2020-01-01>"},
		{"not a timestamp", "* x\nSCHEDULED: <foo>\n", "", "", ""},
		{"the last one wins", "* x\nSCHEDULED: <2020-01-01> SCHEDULED: <2020-01-02>\n", "<2020-01-02>", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Parse([]byte(tt.src))
			require.NotEmpty(t, f.Headlines)
			pl := f.Headlines[0].Planning()
			assert.Equal(t, tt.scheduled, pl.Scheduled.Raw)
			assert.Equal(t, tt.deadline, pl.Deadline.Raw)
			assert.Equal(t, tt.closed, pl.Closed.Raw)
		})
	}
}

func TestPropertyDrawers(t *testing.T) {
	tests := []struct {
		name, src string
		props     []string // key=value
		problem   string
	}{
		{"direct", "* x\n:PROPERTIES:\n:ID: 1\n:END:\n", []string{"ID=1"}, ""},
		{"after planning", "* x\nDEADLINE: <2020-01-01>\n:PROPERTIES:\n:ID: 1\n:END:\n", []string{"ID=1"}, ""},
		{"not after a blank line", "* x\n\n:PROPERTIES:\n:ID: 1\n:END:\n", nil, "property-drawer-misplaced"},
		{"duplicates kept, values trimmed", "* x\n:PROPERTIES:\n:K: a\n:K:   b  \n:E:\n:END:\n", []string{"K=a", "K=b", "E="}, ""},
		{"key up to the last colon", "* x\n:PROPERTIES:\n:a:b: c\n:END:\n", []string{"a:b=c"}, ""},
		{"unclosed", "* x\n:PROPERTIES:\n:ID: 1\n", nil, "property-drawer-unclosed"},
		{"malformed line", "* x\n:PROPERTIES:\n:ID: 1\noops\n:END:\n", nil, "property-malformed"},
		{"tab after key is malformed", "* x\n:PROPERTIES:\n:K:\tv\n:END:\n", nil, "property-malformed"},
		{"planning after a blank line", "* x\n\nSCHEDULED: <2020-01-01>\n", nil, "planning-misplaced"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Parse([]byte(tt.src))
			require.NotEmpty(t, f.Headlines)
			var got []string
			for _, p := range f.Headlines[0].Properties() {
				got = append(got, p.Key+"="+p.Value)
			}
			assert.Equal(t, tt.props, got)
			var codes []string
			for _, p := range f.Problems {
				codes = append(codes, p.Code)
			}
			if tt.problem == "" {
				assert.Empty(t, codes)
			} else {
				assert.Contains(t, codes, tt.problem)
			}
		})
	}
}

func TestFileLevel(t *testing.T) {
	f := Parse([]byte(":PROPERTIES:\n:ID: abc\n:END:\n#+title: T\n#+TITLE: second\n#+filetags: :a:b: c\n* H\n#+TITLE: no\n"))
	title, ok := f.Title()
	assert.True(t, ok)
	assert.Equal(t, "T", title)
	assert.Equal(t, []string{"a", "b", "c"}, f.FileTags())
	id, ok := f.ID()
	assert.True(t, ok)
	assert.Equal(t, "abc", id)

	f = Parse([]byte("#+TITLE: first\n:PROPERTIES:\n:ID: abc\n:END:\n"))
	_, ok = f.ID()
	assert.False(t, ok, "a drawer after a keyword is no file drawer")
	_, ok = Parse([]byte("* H\n")).Title()
	assert.False(t, ok)
}

func TestLinks(t *testing.T) {
	tests := []struct {
		src       string
		typ, path string
		search    string
		hasSearch bool
		format    LinkFormat
		desc      string
	}{
		{"[[https://orgmode.org][Org]]", "https", "//orgmode.org", "", false, LinkBracket, "Org"},
		{"[[file:x.org::*Heading]]", "file", "x.org", "*Heading", true, LinkBracket, ""},
		{"[[file:x.org::#cid]]", "file", "x.org", "#cid", true, LinkBracket, ""},
		{"[[file:x.org::123]]", "file", "x.org", "123", true, LinkBracket, ""},
		{"[[file:x.org::/re/]]", "file", "x.org", "/re/", true, LinkBracket, ""},
		{"[[file:x.org::]]", "file", "x.org", "", true, LinkBracket, ""},
		{"[[./rel.org]]", "file", "./rel.org", "", false, LinkBracket, ""},
		{"[[~/h.org]]", "file", "~/h.org", "", false, LinkBracket, ""},
		{"[[#custom]]", "custom-id", "custom", "", false, LinkBracket, ""},
		{"[[(ref)]]", "coderef", "ref", "", false, LinkBracket, ""},
		{"[[*Heading]]", "fuzzy", "*Heading", "", false, LinkBracket, ""},
		{"[[some text]]", "fuzzy", "some text", "", false, LinkBracket, ""},
		{"[[id:123-abc]]", "id", "123-abc", "", false, LinkBracket, ""},
		{"[[file+sys:/bin/ls]]", "file", "/bin/ls", "", false, LinkBracket, ""},
		{"[[file:///abs.org]]", "file", "/abs.org", "", false, LinkBracket, ""},
		{"[[a\\]b]]", "fuzzy", "a]b", "", false, LinkBracket, ""},
		{"[[multi\n  line]]", "fuzzy", "multi line", "", false, LinkBracket, ""},
		{"see https://example.com/a_(b).", "https", "//example.com/a_(b)", "", false, LinkPlain, ""},
		{"HTTP://UPPER.example", "HTTP", "//UPPER.example", "", false, LinkPlain, ""},
		{"id:abc-123 x", "id", "abc-123", "", false, LinkPlain, ""},
		{"file:x.org::*H y", "file", "x.org", "*H", true, LinkPlain, ""},
		{"<https://angle.org>", "https", "//angle.org", "", false, LinkAngle, ""},
		{"<https://two\n  lines.org>", "https", "//twolines.org", "", false, LinkAngle, ""},
		{"#+LINK: gh https://github.com/%s\n[[gh:org/x]]", "https", "//github.com/org/x", "", false, LinkBracket, ""},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			f := Parse([]byte(tt.src + "\n"))
			require.Len(t, f.Links, 1)
			l := f.Links[0]
			assert.Equal(t, tt.typ, l.Type)
			assert.Equal(t, tt.path, l.Path)
			assert.Equal(t, tt.search, l.Search)
			assert.Equal(t, tt.hasSearch, l.HasSearch)
			assert.Equal(t, tt.format, l.Format)
			if tt.desc != "" {
				assert.Equal(t, tt.desc, string(f.Src[l.DescRange.Start:l.DescRange.End]))
			}
		})
	}
}

func TestNoLinkWhereOrgSeesNone(t *testing.T) {
	tests := []string{
		"=https://verbatim.org=",
		"~https://code.org~",
		"#+TITLE: [[https://keyword.org]]",
		"# https://comment.org",
		": https://fixed.org",
		"#+begin_src\nhttps://src.org\n#+end_src",
		"#+begin_example\nhttps://example.org\n#+end_example",
		"src_sh{https://inline.org}",
		"$https://math.org$",
		"{{{m(https://macro.org)}}}",
		"<2020-01-01 Wed https://time.org>",
		"wordhttps://glued.org",
		"* x\n:PROPERTIES:\n:URL: https://property.org\n:END:",
		"#+INCLUDE: \"https://include.org\"",
	}
	for _, src := range tests {
		assert.Empty(t, Parse([]byte(src+"\n")).Links, "%q", src)
	}
}

func TestRadioAndTargets(t *testing.T) {
	f := Parse([]byte("Define <<<Org Mode>>> here and a <<target>>.\nThen org   mode links; xorg mode does not.\n"))
	require.Len(t, f.Targets, 2)
	assert.Equal(t, Target{Name: "Org Mode", Radio: true, Range: Range{7, 21}, Node: -1}, f.Targets[0])
	assert.Equal(t, "target", f.Targets[1].Name)
	require.Len(t, f.Links, 1, "the mention (not the target itself, nor xorg mode)")
	assert.Equal(t, "radio", f.Links[0].Type)
	assert.Equal(t, "org   mode", f.Links[0].Path)
}

func TestSubtreeEnds(t *testing.T) {
	src := "* A\n** A1\ntext\n\n\n* B\n*** B1\n** B2\n"
	f := Parse([]byte(src))
	require.Len(t, f.Headlines, 5)
	ends := []int{}
	for _, h := range f.Headlines {
		ends = append(ends, h.End)
	}
	// A ends at B; A1 ends before the blank lines, which belong to A.
	assert.Equal(t, []int{17, 15, len(src), 28, len(src)}, ends)
	assert.Equal(t, []int{-1, 0, -1, 2, 2}, []int{f.Headlines[0].Parent, f.Headlines[1].Parent, f.Headlines[2].Parent, f.Headlines[3].Parent, f.Headlines[4].Parent})
	assert.Equal(t, Range{4, 4}, f.Headlines[0].Section, "A's own text ends where A1 starts")
	assert.Equal(t, []string{"B", "B2"}, f.Path(4))
}

func TestNodeAt(t *testing.T) {
	src := "intro\n* A\nbody\n** A1\nchild\n\n\n* B\n"
	f := Parse([]byte(src))
	tests := []struct {
		at   string
		want int
	}{
		{"intro", -1},
		{"* A", 0},
		{"body", 0},
		{"** A1", 1},
		{"child", 1},
		{"\n\n* B", 0}, // the blank lines after A1 belong to A
		{"* B", 2},
	}
	for _, tt := range tests {
		off := indexOf(t, src, tt.at)
		assert.Equal(t, tt.want, f.NodeAt(off), "at %q", tt.at)
	}
	assert.Equal(t, 2, f.NodeAt(len(src)))
	assert.Equal(t, 1, f.NodeAtPosition(4, 2), "line 5 (0-based 4) is child")
}

func indexOf(t *testing.T, s, sub string) int {
	t.Helper()
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	t.Fatalf("%q not in %q", sub, s)
	return -1
}

func TestEncodingAndLineEnds(t *testing.T) {
	tests := []struct {
		name string
		src  string
		eol  EOL
		enc  encoding
	}{
		{"unix", "* A\n", EOLUnix, encUTF8},
		{"dos", "* A\r\nx\r\n", EOLDOS, encUTF8},
		{"dos with a stray CR", "a\r\r\nb\r\n", EOLDOS, encUTF8},
		{"one LF makes it unix", "* A\r\nx\n", EOLUnix, encUTF8},
		{"mac", "* A\rx\r", EOLMac, encUTF8},
		{"latin-1", "* caf\xe9\n", EOLUnix, encLatin1},
		{"raw", "* \x80\n", EOLUnix, encRaw},
		{"nul", "* A\x00\r\n", EOLUnix, encRaw},
		{"cut at the end is utf-8", "* A\xc3", EOLUnix, encUTF8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Parse([]byte(tt.src))
			assert.Equal(t, tt.eol, f.EOL())
			assert.Equal(t, tt.enc, f.enc)
		})
	}
	f := Parse([]byte("* A :t:\r\n** B\r\n"))
	require.Len(t, f.Headlines, 2)
	assert.Equal(t, []string{"t"}, f.Headlines[0].Tags, "a DOS line end is no part of the line")
	assert.Equal(t, Range{0, 7}, f.Headlines[0].Line)
	assert.Equal(t, Range{9, 13}, f.Headlines[1].Line)

	f = Parse([]byte("\xef\xbb\xbf* A\n"))
	require.Len(t, f.Headlines, 1, "a byte-order mark is invisible")
	assert.Equal(t, Range{3, 6}, f.Headlines[0].Line)
}

func TestJSONEscapes(t *testing.T) {
	f := Parse([]byte("* a \"q\" \\ \x01 \x7f é\n"))
	got := string(f.AppendJSON(nil, "f.org"))
	assert.Contains(t, got, `"title":"a \"q\" \\ \u0001 `+"\x7f"+` é"`)
}
