package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestANotePrivateByItsSetupFileIsNoResult: another agent over MCP finds
// nothing of a note Org reads as private through its #+SETUPFILE:'s
// #+FILETAGS: — no search hit, no node to read, no word of it in the
// context — and still finds the public note.
func TestANotePrivateByItsSetupFileIsNoResult(t *testing.T) {
	a, root, dir := openAgent(t, map[string]string{
		"harbour.org":       "#+SETUPFILE: ./private-setup.org\n* Harbour marzipan\n:PROPERTIES:\n:ID: harbour\n:END:\nThe keeper hides marzipan under the third stair of the lighthouse.\n",
		"private-setup.org": "#+TITLE: Setup\n#+FILETAGS: :private:\n",
		"notes.org":         "* Lighthouse plans\n:PROPERTIES:\n:ID: plans\n:END:\nThe lighthouse gets a new lamp; see [[id:harbour]].\n",
	})
	f := start(t, a, nil)
	f.root, f.home, f.data = root, filepath.Join(dir, "home"), filepath.Join(dir, "data")

	for _, q := range []string{"Harbour marzipan", "keeper hides marzipan third stair", "lighthouse"} {
		out := ok[SearchResult](t, f, "memex_search", map[string]any{"query": q, "k": 10})
		for _, h := range out.Hits {
			assert.NotEqual(t, "harbour", h.ID, q)
			assert.NotContains(t, h.Title, "Harbour", q)
			assert.NotEqual(t, filepath.Join(root, "harbour.org"), h.File, q)
		}
	}
	res := f.call(t, "node_read", map[string]any{"id": "harbour"})
	assert.True(t, res.IsError)
	assert.Equal(t, `No node of the memex has the ID "harbour".`, text(res))
	res = f.call(t, "node_read", map[string]any{"id": "file:" + filepath.Join(root, "harbour.org")})
	assert.NotContains(t, text(res), "marzipan")
	v := ok[struct {
		Text string `json:"text"`
	}](t, f, "memex_context", map[string]any{"file": "notes.org", "line": 4, "budget": 2000})
	assert.NotContains(t, v.Text, "marzipan")
	assert.NotContains(t, v.Text, "Harbour")
	res = f.call(t, "memex_context", map[string]any{"file": "harbour.org", "line": 4, "budget": 2000})
	assert.True(t, res.IsError, "a private file is no place for a view: TestAPrivateFileIsNoPlaceForAView")
	assert.NotContains(t, text(res), "marzipan")
	v = ok[struct {
		Text string `json:"text"`
	}](t, f, "memex_context", map[string]any{"file": "notes.org", "line": 4, "budget": 2000})
	assert.Contains(t, v.Text, "new lamp")
}

// TestAPrivateFileIsNoPlaceForAView: memex_context from a file private as
// a whole (by its #+FILETAGS: or its setup file's) is answered as from a
// file the memex does not hold — the same error, whatever the line — so
// that another agent learns neither that the note exists nor how long it
// is.
func TestAPrivateFileIsNoPlaceForAView(t *testing.T) {
	a, root, dir := openAgent(t, map[string]string{
		"harbour.org":       "#+SETUPFILE: ./private-setup.org\n* Harbour marzipan\nThe keeper hides marzipan under the third stair.\n",
		"private-setup.org": "#+TITLE: Setup\n#+FILETAGS: :private:\n",
		"diary.org":         "#+filetags: :private:\n* Friday\nThe clinic called.\n",
		"notes.org":         "* Lighthouse plans\nThe lighthouse gets a new lamp.\n",
	})
	f := start(t, a, nil)
	f.root, f.home, f.data = root, filepath.Join(dir, "home"), filepath.Join(dir, "data")
	answer := func(file string, line int) string {
		res := f.call(t, "memex_context", map[string]any{"file": file, "line": line, "budget": 2000})
		require.True(t, res.IsError, "%s:%d: %s", file, line, text(res))
		return strings.ReplaceAll(text(res), file, "FILE")
	}
	nowhere := answer("nowhere.org", 1)
	for _, file := range []string{"harbour.org", "diary.org"} {
		for _, line := range []int{1, 3, 999} {
			assert.Equal(t, nowhere, answer(file, line), "%s:%d", file, line)
		}
	}
	v := ok[struct {
		Text string `json:"text"`
	}](t, f, "memex_context", map[string]any{"file": "notes.org", "line": 2, "budget": 2000})
	assert.Contains(t, v.Text, "new lamp")
}

// TestAQuoteOfANoteMadePrivateOnDiskIsFilteredFromAProposal: a note made
// private outside the editor — its setup file given #+FILETAGS: :private:
// on disk, which no watcher reported — is private to the next action
// another agent proposes: an allowed read of a file quoting it comes back
// with the quote filtered.
func TestAQuoteOfANoteMadePrivateOnDiskIsFilteredFromAProposal(t *testing.T) {
	const quote = "The keeper hides marzipan under the third stair of the lighthouse."
	a, root, dir := openAgent(t, map[string]string{
		"harbour.org":  "#+SETUPFILE: ./x.setup\n* Harbour marzipan\n:PROPERTIES:\n:ID: harbour\n:END:\n" + quote + "\n",
		"x.setup":      "#+TITLE: Setup\n",
		"out/copy.txt": "he wrote: " + quote + "\n",
	})
	f := start(t, a, nil)
	f.root, f.home, f.data = root, filepath.Join(dir, "home"), filepath.Join(dir, "data")
	read := func() ProposeResult {
		return ok[ProposeResult](t, f, "propose_action", map[string]any{"action": map[string]any{
			"tool": "file_read", "args": map[string]any{"path": "out/copy.txt"}, "explanation": "read it"}})
	}
	r := read()
	require.Equal(t, "allow", r.Verdict, r.Reason)
	require.NotNil(t, r.Result)
	require.Contains(t, r.Result.Output, "marzipan", "before: the note is public")

	require.NoError(t, os.WriteFile(filepath.Join(root, "x.setup"), []byte("#+TITLE: Setup\n#+FILETAGS: :private:\n"), 0o644))
	r = read()
	require.Equal(t, "allow", r.Verdict, r.Reason)
	require.NotNil(t, r.Result)
	assert.NotContains(t, r.Result.Output, "marzipan")
	assert.Contains(t, r.Result.Output, "[private]")
}
