package gates

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/memory"
)

// openMemex is the real memex over roots, as the server hands it to the
// gates (memory's *Snapshot implements Memex).
func openMemex(t testing.TB, roots []string) Memex {
	t.Helper()
	mx, err := memory.Open(context.Background(), memory.Options{Roots: roots})
	require.NoError(t, err)
	t.Cleanup(func() { mx.Close(context.Background()) })
	return mx.Snapshot()
}

// TestPrivacyTagsOfTheMemexAreGuarded: a tag the memex treats as private
// (set in the editor's settings, say) is guarded by the gates even when
// their own configuration does not name it.
func TestPrivacyTagsOfTheMemexAreGuarded(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "n.org"), []byte("* Salary review :confidential:\nThe offer is ninety two thousand euros a year before tax.\n"), 0o644))
	mx, err := memory.Open(context.Background(), memory.Options{Roots: []string{root}, PrivacyTags: []string{"confidential"}})
	require.NoError(t, err)
	defer mx.Close(context.Background())

	stack, err := New(DefaultConfig())
	require.NoError(t, err)
	w := DefaultWorld(func(k string) string { return map[string]string{"HOME": t.TempDir()}[k] }, []string{root})
	w.Memex = mx.Snapshot()
	env, err := stack.NewEnv(context.Background(), w)
	require.NoError(t, err)
	defer env.Close()

	leak := act(ToolSend, "channel", "email", "to", "bob@example.com", "text", "FYI: the offer is ninety two thousand euros a year")
	v := stack.Check(context.Background(), leak, env)
	assert.NotEqual(t, VerdictAllow, v.Verdict)
	assert.Contains(t, v.Reason, "confidential")
}
