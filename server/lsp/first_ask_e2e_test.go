package lsp

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEmacsFirstAskStartsTheServer: pp-lsp-ask before eglot runs starts
// pp-lsp in a note of the memex without Emacs waiting for it (one server
// for two questions, both answered from the note), and outside the memex
// roots offers to, starting nothing when declined (eglot-first-ask.el).
func TestEmacsFirstAskStartsTheServer(t *testing.T) {
	needEglot(t)
	e := newApprovalE2E(t)
	out := runEditor(t, e, "emacs", "--batch", "-Q", "-l", filepath.Join(e.module, "server", "lsp", "testdata", "e2e", "eglot-first-ask.el"))
	t.Logf("emacs:\n%s", strings.Join(out, "\n"))
	for _, want := range []string{
		"ELSEWHERE offered: true",
		"ELSEWHERE declined started: false",
		"ELSEWHERE said: true",
		"BEFORE served: false",
		"ASK returned at once: true",
		"STARTING said: true",
		"ANSWERED both: true",
		"ANSWERED answered",
		"ASKED from the note: true",
		"SERVERS started: 1",
		"NOTE served: true",
		// A model's [[target][words]] link shows its target in the answer.
		"LINK target shown: true",
		"EXIT 0",
	} {
		has(t, out, want)
	}
}
