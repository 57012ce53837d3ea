package lsp

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEmacsWatchesTheMemex: with pp-lsp's rescan made hourly, pp-lsp.el's
// own watcher tells the server of a note renamed over, a folder made and
// a note added to it, the folder moved out and back in, a note removed
// (eglot-watch.el). eglot 1.9's watcher, declined, dropped renames.
func TestEmacsWatchesTheMemex(t *testing.T) {
	needEglot(t)
	e := newE2E(t)
	out := runEditor(t, e, "emacs", "--batch", "-Q", "-l", filepath.Join(e.module, "server", "lsp", "testdata", "e2e", "eglot-watch.el"))
	t.Logf("emacs:\n%s", strings.Join(out, "\n"))
	for _, want := range []string{
		"RENAMED OVER seen: true",
		"NEW FOLDER seen: true",
		"IN NEW FOLDER seen: true",
		"MOVED OUT gone: true",
		"MOVED IN seen: true",
		"REMOVED gone: true",
		"EXIT 0",
	} {
		has(t, out, want)
	}
}
