package orgtext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/orgast"
)

func TestTitle(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"Run `make test`", 80, "Run `make test`"},
		{"two\nlines\t here", 80, "two lines here"},
		{"ends with tags :a:b:", 80, "ends with tags =:a:b:="},
		{"bell\a rings", 80, "bell rings"},
		{strings.Repeat("x", 20), 10, strings.Repeat("x", 9) + "…"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got := Title(tc.in, tc.max)
			assert.Equal(t, tc.want, got)
			f := orgast.Parse([]byte("* " + got + "\n"))
			require.Len(t, f.Headlines, 1)
			assert.Empty(t, f.Headlines[0].Tags, "a title never grows tags")
			assert.Equal(t, got, f.Headlines[0].Title)
		})
	}
}

func TestBlockRoundTrip(t *testing.T) {
	for _, s := range []string{
		"plain\n", "* headline\n", "#+end_src\n", "  #+END_EXAMPLE\n", ",* already\n", ",,#+x\n", "a\n*b\n#+c\n",
	} {
		t.Run(s, func(t *testing.T) {
			esc := Block(s)
			src := "* h\n#+begin_example\n" + esc + "#+end_example\n"
			f := orgast.Parse([]byte(src))
			assert.Len(t, f.Headlines, 1, "no line of the block is a headline")
			assert.Equal(t, s, Unblock(esc))
		})
	}
}

func TestParagraphAddsNoStructure(t *testing.T) {
	in := "* not a headline\n#+TODO: A | B\n:PROPERTIES:\n:ID: x\n:END:\n# comment\n| table |\nplain"
	src := "* h\n" + Paragraph(in)
	f := orgast.Parse([]byte(src))
	require.Len(t, f.Headlines, 1)
	assert.Nil(t, f.Headlines[0].Drawer)
	assert.Empty(t, f.Keywords)
	assert.True(t, f.Todo.Default, "no #+TODO: line was made")
}

// TestTextKeepsTheFileAsItDecodes writes hostile text with Block and
// Paragraph into files of each line-end convention, as the server's edits
// do (their "\n" become the file's line end), and reads the file back as
// Emacs would: still one headline, titled as before (a NUL or a byte that
// is not UTF-8 would make Emacs read the whole file as binary or Latin-1;
// a lone CR is a line end in a file of CR lines), and the same line ends.
func TestTextKeepsTheFileAsItDecodes(t *testing.T) {
	hostile := []string{
		"out\r* TODO injected :skill:\r",
		"out\r\n* TODO injected\r\n",
		"a NUL\x00 here\n* x",
		"\x00",
		"not UTF-8 \xff\xfe here",
		"half a rune \xe2\x82",
		"mixed\r\n\r* y\n\x00\xc3",
	}
	eols := map[string]string{"LF": "\n", "CRLF": "\r\n", "CR": "\r"}
	asTheFileEnds := func(text, eol string) string {
		switch eol {
		case "\r\n":
			return strings.ReplaceAll(text, "\n", "\r\n")
		case "\r":
			return strings.ReplaceAll(text, "\n", "\r")
		}
		return text
	}
	for name, eol := range eols {
		for _, h := range hostile {
			for _, write := range []struct {
				how  string
				text string
			}{
				{"block", "#+begin_example\n" + Block(h) + "#+end_example\n"},
				{"paragraph", Paragraph(h)},
				{"title", "- " + Title(h, 200) + "\n"},
			} {
				t.Run(name+"/"+write.how+"/"+h, func(t *testing.T) {
					base := "* café" + eol + "body" + eol
					src := []byte(base + asTheFileEnds(write.text, eol))
					f := orgast.Parse(src)
					require.Len(t, f.Headlines, 1, "%q", src)
					assert.Equal(t, "café", f.Headlines[0].Title)
					assert.True(t, utf8.Valid(src) && !bytes.ContainsRune(src, 0), "the file still decodes as UTF-8 text (pp-lsp and Emacs read one with a NUL as binary, one that is not UTF-8 as Latin-1 or raw bytes): %q", src)
					assert.Equal(t, orgast.DetectEOL([]byte(base)), f.EOL(), "the file's line ends are read as before")
				})
			}
		}
	}
}

func TestPlain(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text\n", "plain text\n"},
		{"é ü 日本", "é ü 日本"},
		{"a\x00b", "a\u2400b"},
		{"bad\xffbyte", "bad\ufffdbyte"},
		{"cr\rlf\r\nend", "cr\nlf\nend"},
		{"\r\r\n", "\n\n"},
	} {
		assert.Equal(t, tc.want, Plain(tc.in), "%q", tc.in)
	}
}

// TestDefuse: what Emacs reads as a file's Local Variables list or -*-
// line, and what Vim and Neovim read as a modeline, is broken; the rest of
// the text, and text already defused, is left as it is.
func TestDefuse(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"# Local Variables:\n# eval: (x)\n# End:", "# Local Variables\u200b:\n# eval: (x)\n# End:"},
		{"LOCAL VARIABLES: here", "LOCAL VARIABLES\u200b: here"},
		{"#+title: -*- eval: (x) -*-", "#+title: -*\u200b- eval: (x) -*\u200b-"},
		{"vim: set tw=7 :", "vim\u200b: set tw=7 :"},
		{"text vim600: set tw=7", "text vim600\u200b: set tw=7"},
		{"a\tvi:tw=7 ex:tw=7", "a\tvi\u200b:tw=7 ex\u200b:tw=7"},
		{"Index: x, svim: y, 1-*2, local variable: z", "Index: x, svim: y, 1-*2, local variable: z"},
		{"no marker at all", "no marker at all"},
		{"proposal shell: allow, elisp: a word", "proposal shell: allow, elisp: a word"},
		{"[[elisp:(kill-emacs)][click me]] [[SHELL:rm x][run]]", "[\u200b[elisp\u200b:(kill-emacs)][click me]] [\u200b[SHELL\u200b:rm x][run]]"},
		{"<shell:touch x> elisp:(kill-emacs) [[file+sys:/bin/x]] [[mytype:y]]", "<\u200bshell\u200b:touch x> elisp\u200b:(kill-emacs) [\u200b[file+sys\u200b:/bin/x]] [\u200b[mytype\u200b:y]]"},
		{"a src_sh{id} b call_f() c src_sh[:var x=1]{id} my_src_file and call_ me", "a src_sh\u200b{id} b call_f\u200b() c src_sh\u200b[:var x=1]{id} my_src_file and call_ me"},
		{"src_sh{rm -rf ~} call_f()", "src_sh\u200b{rm -rf ~} call_f\u200b()"}, // no colon anywhere
		{"eshell:rm-x and [[eshell:rm x]]", "eshell\u200b:rm-x and [\u200b[eshell\u200b:rm x]]"},
		{"[[id:abc][a]] [[file:x.org::*H]] <https://x.org> [[roam:T]] [[*Heading]] [[#id]]", "[[id:abc][a]] [[file:x.org::*H]] <https://x.org> [[roam:T]] [[*Heading]] [[#id]]"},
	} {
		got := Defuse(tc.in)
		assert.Equal(t, tc.want, got, "%q", tc.in)
		assert.Equal(t, got, Defuse(got), "defusing again changes nothing: %q", tc.in)
	}
	assert.Equal(t, "#+title: x -*\u200b- mode: y -*\u200b-", "#+title: "+Title("x -*- mode: y -*-", 80), "a title is defused")
	assert.Contains(t, Paragraph("# Local Variables:\n"), "Local Variables\u200b:", "a paragraph is defused")
}

// TestJSONBlock: JSON written into an Org file keeps its value — it
// decodes to the same strings, so an action read back hashes the same —
// while holding none of the markers Defuse breaks, whatever the strings
// hold (a quote or a backslash after the marker included).
func TestJSONBlock(t *testing.T) {
	for _, v := range []map[string]string{
		{"cmd": "echo x  vim: set tw=7 :", "explanation": "-*- eval: (x) -*- and Local Variables:"},
		{"cmd": `elisp:"(kill-emacs)" shell:\x [[elisp:(x)][y]] <shell:z>`, "k vi:": "ex:tw=7"},
		{"cmd": "[[id:abc][a]] <https://x.org> plain: text", "cwd": "."},
	} {
		js, err := json.MarshalIndent(v, "", "  ")
		require.NoError(t, err)
		block := JSONBlock(string(js))
		inner, ok := strings.CutPrefix(block, "#+begin_src json\n")
		require.True(t, ok, block)
		inner, ok = strings.CutSuffix(inner, "#+end_src\n")
		require.True(t, ok, block)
		assert.False(t, reFileLocal.MatchString(strings.NewReplacer("[[id:", "", "<https:", "").Replace(inner)), "%s", inner)
		var back map[string]string
		require.NoError(t, json.Unmarshal([]byte(Unblock(inner)), &back), inner)
		assert.Equal(t, v, back)
	}
}

// TestDefuseJSON: JSON text holding every marker Defuse breaks holds none
// after DefuseJSON, and decodes to the same strings.
func TestDefuseJSON(t *testing.T) {
	for _, s := range []string{
		"vim: set ft=sh :", "x vi:noai", "ex: set tw=7", "-*- eval: (x) -*-", "# Local Variables:\n# End:",
		"[[elisp:(x)][a]] [[id:abc][b]] <shell:y> <https://example.org> elisp:(z) file+sys:/bin/sh",
		"\\vim: \\-*-", "\u200b: vim\u200b:", "no marker at all",
		"src_sh{rm -rf ~} call_f() src_elisp[:exports both]{(x)}",
	} {
		t.Run(s, func(t *testing.T) {
			enc, err := json.Marshal(map[string]string{"explanation": s})
			require.NoError(t, err)
			got := DefuseJSON(string(enc))
			assert.Equal(t, Defuse(got), got, "a marker is left")
			var back map[string]string
			require.NoError(t, json.Unmarshal([]byte(got), &back), got)
			assert.Equal(t, s, back["explanation"], "the text decodes to something else")
		})
	}
}
