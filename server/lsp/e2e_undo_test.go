package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// undoE2E is an e2e memex for undo and approve-always: a model that
// rewrites inbox.org and proposes `make count`, a Makefile, and where the
// configuration file is.
func undoE2E(t *testing.T) (e2eEnv, string) {
	t.Helper()
	e := newE2E(t)
	replay := filepath.Join(t.TempDir(), "replay.jsonl")
	require.NoError(t, os.WriteFile(replay, []byte(strings.Join([]string{
		`{"match":{"last_role":"tool"},"repeat":true,"reply":{"text":"Done."}}`,
		`{"match":{"last_contains":"rewrite the inbox"},"reply":{"tool_calls":[{"name":"file_write","arguments":{"path":"inbox.org","content":"#+title: Inbox\n* Rewritten by the model\n","explanation":"tidy the inbox"}}]}}`,
		`{"match":{"last_contains":"count the notes"},"reply":{"tool_calls":[{"name":"shell","arguments":{"cmd":"make count","explanation":"count them"}}]}}`,
	}, "\n")+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(e.memex, "Makefile"), []byte("count:\n\tls notes | wc -l > out/count.txt\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(e.memex, "out"), 0o755))
	var home string
	for _, kv := range e.env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	config := filepath.Join(home, ".config", "passepartout", "config.json")
	e.env = append(e.env, "PASSEPARTOUT_PROVIDERS=replay:"+replay, "PP_LSP_CONFIG="+config)
	return e, config
}

// undoWant are the lines both editors' undo scripts must print.
var undoWant = []string{
	"REWRITTEN buffer=true disk-unchanged=true",
	"UNDO undo of Write `inbox.org`: restored inbox.org",
	"UNDONE buffer=true disk-unchanged=true",
	"REDO redo of Write `inbox.org`: restored inbox.org",
	"REFUSED true",
	"KEPT true",
	"ALWAYS DONE shell(make count)",
	"CONFIG true",
	"COUNTED true",
}

// TestEmacsUndoAndApproveAlways drives undo-e2e.el in Emacs 28 with eglot:
// an edit the model made in an open buffer undone and redone through the
// editor, refused once the user typed, and a plan approved with similar
// actions allowed from now on.
func TestEmacsUndoAndApproveAlways(t *testing.T) {
	needEglot(t)
	e, config := undoE2E(t)
	out := runEditor(t, e, "emacs", "--batch", "-Q", "-l", filepath.Join(e.module, "server", "lsp", "testdata", "e2e", "undo-e2e.el"))
	t.Logf("emacs:\n%s", strings.Join(out, "\n"))
	for _, want := range undoWant {
		has(t, out, want)
	}
	has(t, out, "REFUSED said plainly: true")
	b, err := os.ReadFile(config)
	require.NoError(t, err)
	require.Equal(t, `{"gates": {"permissions": {"allow": ["shell(make count)"]}}}`+"\n", string(b))
}

// TestNeovimUndoAndApproveAlways is the same in headless Neovim 0.7.
func TestNeovimUndoAndApproveAlways(t *testing.T) {
	testenv.NeedCommand(t, "nvim")
	e, config := undoE2E(t)
	out := runEditor(t, e, "nvim", "--headless", "-u", "NONE", "-i", "NONE", "-c",
		"luafile "+filepath.Join(e.module, "server", "lsp", "testdata", "e2e", "undo-e2e.lua"))
	t.Logf("nvim:\n%s", strings.Join(out, "\n"))
	for _, want := range append(undoWant, "UNDO notified by the plugin too: false", "UNDO label printed too: false") {
		has(t, out, want)
	}
	b, err := os.ReadFile(config)
	require.NoError(t, err)
	require.Equal(t, `{"gates": {"permissions": {"allow": ["shell(make count)"]}}}`+"\n", string(b))
}
