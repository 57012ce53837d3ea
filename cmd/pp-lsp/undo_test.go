package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/server/agent"
)

// TestUndoFromTheCommandLine: a note the model rewrote is listed by
// `pp-lsp undo --list`, put back by `pp-lsp undo`, rewritten again by the
// undo of the undo; once the file changed since, undo refuses (exit 1),
// naming it, and leaves it alone.
func TestUndoFromTheCommandLine(t *testing.T) {
	m := newMemexEnv(t, map[string]string{"notes.org": "* Notes\nmine\n"})
	transcript := filepath.Join(t.TempDir(), "replay.jsonl")
	require.NoError(t, os.WriteFile(transcript, []byte(
		`{"match":{"last_contains":"rewrite"},"reply":{"tool_calls":[{"name":"file_write","arguments":{"path":"notes.org","content":"* Notes\nthe model's\n","explanation":"rewrite"}}]}}`+"\n"+
			`{"match":{"last_role":"tool"},"repeat":true,"reply":{"text":"Done."}}`+"\n"), 0o644))
	m.env["PASSEPARTOUT_PROVIDERS"] = "replay:" + transcript
	read := func() string {
		b, err := os.ReadFile(m.path("notes.org"))
		require.NoError(t, err)
		return string(b)
	}

	code, out, stderr := m.run(t, "undo", "--root", m.root, "--list")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "No changes to undo.\n", out)

	code, _, stderr = m.run(t, "ask", "--root", m.root, m.path("notes.org")+":1", "rewrite it")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "* Notes\nthe model's\n", read())

	code, out, stderr = m.run(t, "undo", "--root", m.root, "--list", "--json")
	require.Equal(t, 0, code, stderr)
	var list struct{ Changes []agent.ChangeInfo }
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	require.Len(t, list.Changes, 1)
	assert.Equal(t, "Write `notes.org`", list.Changes[0].Title)
	assert.Equal(t, []string{"notes.org"}, list.Changes[0].Files)
	assert.NotContains(t, out, "mine", "the list never shows what the files held")

	code, out, stderr = m.run(t, "undo", "--root", m.root)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "undo of Write `notes.org`: restored notes.org\n")
	assert.Equal(t, "* Notes\nmine\n", read())

	code, out, stderr = m.run(t, "undo", "--root", m.root, "--json")
	require.Equal(t, 0, code, stderr)
	var redo agent.UndoResult
	require.NoError(t, json.Unmarshal([]byte(out), &redo))
	assert.Equal(t, "redo of Write `notes.org`: restored notes.org", redo.Summary)
	assert.Equal(t, "undo of Write `notes.org`", redo.Undone.Title)
	assert.Contains(t, out, `"summary":`)
	assert.Equal(t, "* Notes\nthe model's\n", read())

	require.NoError(t, os.WriteFile(m.path("notes.org"), []byte("* Notes\nmine again\n"), 0o644))
	code, out, stderr = m.run(t, "undo", "--root", m.root, list.Changes[0].ID)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, "pp-lsp undo: undo refused: notes.org is not what \"Write `notes.org`\" left (it changed since); nothing was restored\n", stderr)
	assert.Equal(t, "* Notes\nmine again\n", read())
}

// TestUndoKeepsToItsOwnMemex: two memexes share one data directory (one
// PASSEPARTOUT_DATA_DIR, two --root). Each one's undo lists and takes back
// only the changes to files under its own roots: the other memex's later
// change is neither listed, nor undone, nor in the way of undoing this
// memex's own; a memex with no change of its own says so plainly; and
// naming the other memex's change restores nothing outside the roots.
func TestUndoKeepsToItsOwnMemex(t *testing.T) {
	m := newMemexEnv(t, map[string]string{"notes.org": "* Notes\nmine\n"})
	other := filepath.Join(filepath.Dir(m.root), "other")
	require.NoError(t, os.MkdirAll(other, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(other, "notes.org"), []byte("* Other\ntheirs\n"), 0o644))
	transcript := filepath.Join(t.TempDir(), "replay.jsonl")
	require.NoError(t, os.WriteFile(transcript, []byte(
		`{"match":{"last_contains":"rewrite"},"reply":{"tool_calls":[{"name":"file_write","arguments":{"path":"notes.org","content":"* Notes\nthe model's\n","explanation":"rewrite"}}]}}`+"\n"+
			`{"match":{"last_role":"tool"},"repeat":true,"reply":{"text":"Done."}}`+"\n"), 0o644))
	m.env["PASSEPARTOUT_PROVIDERS"] = "replay:" + transcript
	read := func(p string) string {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		return string(b)
	}
	third := filepath.Join(filepath.Dir(m.root), "third")
	require.NoError(t, os.MkdirAll(third, 0o700))

	// This memex's change, then the other's, later.
	code, _, stderr := m.run(t, "ask", "--root", m.root, m.path("notes.org")+":1", "rewrite it")
	require.Equal(t, 0, code, stderr)
	code, _, stderr = m.run(t, "ask", "--root", other, filepath.Join(other, "notes.org")+":1", "rewrite it")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "* Notes\nthe model's\n", read(filepath.Join(other, "notes.org")))

	code, out, stderr := m.run(t, "undo", "--root", m.root, "--list", "--json")
	require.Equal(t, 0, code, stderr)
	var list struct{ Changes []agent.ChangeInfo }
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	require.Len(t, list.Changes, 1, "only this memex's change is listed")
	assert.Equal(t, []string{"notes.org"}, list.Changes[0].Files)

	code, out, stderr = m.run(t, "undo", "--root", m.root)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "undo of Write `notes.org`: restored notes.org\n", firstLine(out))
	assert.Equal(t, "* Notes\nmine\n", read(m.path("notes.org")), "this memex's change is undone")
	assert.Equal(t, "* Notes\nthe model's\n", read(filepath.Join(other, "notes.org")), "the other memex's is left alone")

	code, out, stderr = m.run(t, "undo", "--root", third)
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, "pp-lsp undo: there is no change to undo in this memex\n", stderr)

	// The other memex's change named from this one: nothing is restored.
	code, out, stderr = m.run(t, "undo", "--root", other, "--list", "--json")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	require.Len(t, list.Changes, 1)
	code, _, stderr = m.run(t, "undo", "--root", m.root, list.Changes[0].ID)
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "is not a change of this memex")
	assert.Equal(t, "* Notes\nthe model's\n", read(filepath.Join(other, "notes.org")))
	assert.Equal(t, "* Notes\nmine\n", read(m.path("notes.org")))
}

// firstLine is the first line of s, with its newline.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i+1]
	}
	return s
}
