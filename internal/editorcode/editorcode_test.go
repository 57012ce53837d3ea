package editorcode

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// BenchmarkJudgeNote: a 64 KiB note of headlines, lists, links and a
// code block, judged whole (what the gates do for a file_write).
func BenchmarkJudgeNote(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 64<<10 {
		sb.WriteString("* TODO Call Ada about [[id:abc][the report]]\n:PROPERTIES:\n:ID: x\n:END:\n- milk and [[https://example.com][bread]]\n#+begin_src python\nprint(1)\n#+end_src\n")
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, found := Judge(text, func(string) bool { return true }); found {
			b.Fatal("found")
		}
	}
}

// TestJudgeFindsEachForm: each form of the table is found in a line that
// holds it, and the same line holding only what the allow-lists know is
// not (the gates' tests run these through the stack and a real Emacs).
func TestJudgeFindsEachForm(t *testing.T) {
	inside := func(p string) bool { return !strings.HasPrefix(p, "/") && !strings.Contains(p, "..") }
	for _, tc := range []struct {
		text, benign string
		form         int
	}{
		{"# -*- eval: (x) -*-\n", "# -*- mode: org -*-\n", EmacsFirstLine},
		{"# Local Variables:\n# eval: (x)\n# End:\n", "# Local Variables:\n# fill-column: 70\n# End:\n", EmacsLocalVariables},
		{"# vim: set foldexpr=x:\n", "# vim: set ft=org:\n", VimModeline},
		{"[[elisp:(x)][y]]\n", "[[id:x][y]]\n", OrgBracketLink},
		{"see elisp:(x)\n", "see elisp: a language\n", OrgPlainLink},
		{"#+BIND: x 1\n", "#+TITLE: x 1\n", OrgBind},
		{"#+SETUPFILE: /etc/x.org\n", "#+SETUPFILE: x.org\n", OrgSetupFile},
		{"#+STARTUP: latexpreview\n", "#+STARTUP: overview\n", OrgStartup},
		{"#+CALL: x()\n", "#+NAME: x\n", OrgCall},
		{"#+begin_src sh :exports both\n", "#+begin_src sh :exports code\n", OrgHeaderArgs},
		{"a src_sh{id} b\n", "a my_src b\n", OrgInline},
		{"#+MACRO: x (eval (y))\n", "#+MACRO: x y\n", OrgMacroEval},
	} {
		f, found := Judge(tc.text, inside)
		if assert.True(t, found, tc.text) {
			assert.Same(t, &Forms[tc.form], f.Form, tc.text)
		}
		f, found = Judge(tc.benign, inside)
		assert.False(t, found, "%q: %+v", tc.benign, f)
	}
}

// BenchmarkJudgeSmall: a write the size of the corpus's.
func BenchmarkJudgeSmall(b *testing.B) {
	text := "* TODO write the report\nDEADLINE: <2026-11-30>\n- see [[id:abc][the draft]]\n"
	for b.Loop() {
		Judge(text, nil)
	}
}
